#!/usr/bin/env python3
"""onnxview's CUDA backend against PyTorch eager on the same GPU (issue 17), in one script.

Usage:
  bench-cuda.py export DIR [MODEL...]
      Build each model in PyTorch (random weights, fixed seed: nothing is downloaded), export it to DIR/NAME.onnx,
      and save its input (DIR/NAME.x.npy) and PyTorch's output on the CPU in float32 (DIR/NAME.y.npy); write
      DIR/runs.txt, the GPU suite's list (tests/gpu-suite.c --runs) that checks onnxview's CPU and CUDA runs
      against PyTorch.  A model that does not export is reported and left out.
  bench-cuda.py bench ONNXVIEW DIR [MODEL...] [--runs N] [--tf32] [--md FILE]
      For each model exported to DIR: PyTorch eager on the GPU (the module built again from the same seed, warmed
      up, the median of N timed forward passes, each ended by torch.cuda.synchronize, measured before and after
      onnxview's process and the lower of the two kept) against onnxview's warm runs
      (`run --backend cuda --repeat N+1 --json`: the median of runs 2..N+1, its node time; the first run, which
      uploads the weights, reported apart), float32 with TF32 off on both sides, or with --tf32 on both (onnxview's
      --tf32, torch.backends' allow_tf32); and PyTorch's forward pass captured as a CUDA graph and replayed (about
      its kernels' time alone, the reference for onnxview's graph replay).  Also the largest difference between the two outputs, the nodes
      onnxview left to the CPU, and the wall time of the whole onnxview process.  --md appends a Markdown table.
MODELS: resnet18, mobilenet_v2, resnet50_b8, transformer (6 encoder blocks, 1x128x512), vit_b16 (default: all).
Needs PyTorch (and torchvision for the image models); bench also needs a GPU and onnxview built with CUDA; when
one is missing it says which and exits 0."""
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

MODELS = ["resnet18", "mobilenet_v2", "resnet50_b8", "transformer", "vit_b16"]


def build(name):
    """(module in eval mode, example input) for a model name, the same every time (seeded)."""
    import torch
    from torch import nn
    torch.manual_seed(0)
    if name == "transformer":
        layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
        net = nn.TransformerEncoder(layer, num_layers=6, enable_nested_tensor=False)
        x = torch.randn(1, 128, 512)
    else:
        import torchvision
        ctor = {"resnet18": torchvision.models.resnet18, "mobilenet_v2": torchvision.models.mobilenet_v2,
                "resnet50_b8": torchvision.models.resnet50, "vit_b16": torchvision.models.vit_b_16}[name]
        net = ctor(weights=None)
        if name == "vit_b16":
            # torchvision starts ViT's classifier at zero, so every output would be 0 and the comparison with
            # onnxview's would prove nothing (the first GPU report's "max abs diff 0"): random like the rest
            nn.init.normal_(net.heads.head.weight, std=0.02)
            nn.init.normal_(net.heads.head.bias, std=0.02)
        x = torch.randn(8 if name == "resnet50_b8" else 1, 3, 224, 224)
    return net.eval(), x


def export(outdir, names):
    try:
        import torch
    except ImportError:
        print("export: PyTorch is not installed; nothing exported")
        return 0
    warnings.filterwarnings("ignore")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(min(8, os.cpu_count() or 1))
    runs = []
    for name in names:
        t = time.time()
        path = os.path.join(outdir, name + ".onnx")
        try:
            net, x = build(name)
            with torch.no_grad():
                y = net(x)
            np.save(os.path.join(outdir, name + ".x.npy"), x.numpy())
            np.save(os.path.join(outdir, name + ".y.npy"), y.numpy())
            # autograd on while exporting: under no_grad an encoder layer takes its fused fast path, which has
            # no ONNX form.  The TorchScript exporter where this PyTorch still has it, else the dynamo one.
            how = None
            if name != "vit_b16":
                try:
                    torch.onnx.export(net, (x,), path, opset_version=17, input_names=["x"], output_names=["y"],
                                      do_constant_folding=True, dynamo=False)
                    how = "TorchScript exporter, opset 17"
                except TypeError:  # a PyTorch without the dynamo argument
                    torch.onnx.export(net, (x,), path, opset_version=17, input_names=["x"], output_names=["y"],
                                      do_constant_folding=True)
                    how = "TorchScript exporter, opset 17"
                except Exception as e:  # noqa: BLE001 - any exporter failure: try the other one
                    print(f"export: {name}: the TorchScript exporter failed ({str(e)[:120]}); trying dynamo")
            if how is None:
                prog = torch.onnx.export(net, (x,), dynamo=True, opset_version=18, input_names=["x"],
                                         output_names=["y"])
                prog.save(path)
                how = "dynamo exporter, opset 18"
        except Exception as e:  # noqa: BLE001 - one model failing must not stop the others
            print(f"export: {name}: failed: {str(e).splitlines()[0][:200] if str(e) else type(e).__name__}")
            continue
        size = os.path.getsize(path) + sum(os.path.getsize(p) for p in [path + ".data"] if os.path.exists(p))
        print(f"export: {name}: {how}, {size / 1e6:.1f} MB, {time.time() - t:.1f} s")
        tol = "--rtol 1e-3 --atol 1e-3" if name != "resnet50_b8" else "--rtol 1e-3 --atol 2e-3"
        runs.append(f"torch_{name} 0 {os.path.abspath(path)} --input x={os.path.abspath(outdir)}/{name}.x.npy "
                    f"--expect y={os.path.abspath(outdir)}/{name}.y.npy {tol}\n")
    with open(os.path.join(outdir, "runs.txt"), "w") as f:
        f.writelines(runs)
    return 0


def bench(ov, outdir, names, runs, tf32, md):
    version = subprocess.run([ov, "--version"], capture_output=True, text=True).stdout
    line = next((l for l in version.splitlines() if l.startswith("CUDA backend:")), "CUDA backend: ?")
    if "device 0:" not in line:
        print(f"skipped: onnxview cannot run on a GPU here ({line})")
        return 0
    try:
        import torch
    except ImportError:
        print("skipped: no PyTorch in this python")
        return 0
    if not torch.cuda.is_available():
        print("skipped: PyTorch sees no GPU")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    mode = "TF32 on both sides" if tf32 else "float32, TF32 off on both sides"
    if os.environ.get("OV_CUDA_CONV_FIND") == "0":
        mode += "; onnxview's convolutions by cuDNN's heuristics, not timed (OV_CUDA_CONV_FIND=0)"
    print(f"{line}\nPyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}; {mode}; median of {runs} warm runs")
    rows = []
    for name in names:
        path = os.path.join(outdir, name + ".onnx")
        if not os.path.exists(path):
            print(f"{name}: not exported, left out")
            continue
        net, x = build(name)
        net = net.cuda()
        xg = x.cuda()

        def torch_ms():
            """PyTorch's median over runs forward passes, after 10 to warm up (clocks, caches, allocator)."""
            with torch.no_grad():
                for _ in range(10):
                    net(xg)
                torch.cuda.synchronize()
                times = []
                for _ in range(runs):
                    t = time.perf_counter()
                    net(xg)
                    torch.cuda.synchronize()
                    times.append(time.perf_counter() - t)
            return statistics.median(times) * 1e3

        def torch_graph_ms():
            """PyTorch's forward pass captured as a CUDA graph and replayed (torch.cuda.graph): the median of runs
            replays, each ended by torch.cuda.synchronize; about the time of its kernels alone, the reference for
            onnxview's own graph replay.  NaN, said why, when the model cannot be captured."""
            try:
                static_x = xg.clone()
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.no_grad(), torch.cuda.stream(side):
                    for _ in range(3):
                        net(static_x)
                torch.cuda.current_stream().wait_stream(side)
                g = torch.cuda.CUDAGraph()
                with torch.no_grad(), torch.cuda.graph(g):
                    net(static_x)
                for _ in range(10):
                    g.replay()
                torch.cuda.synchronize()
                times = []
                for _ in range(runs):
                    t = time.perf_counter()
                    g.replay()
                    torch.cuda.synchronize()
                    times.append(time.perf_counter() - t)
                del g
                return statistics.median(times) * 1e3
            except Exception as e:  # noqa: BLE001 (any failure of the capture: reported, the bench goes on)
                print(f"{name}: PyTorch's CUDA graph could not be made: {type(e).__name__}: {str(e)[:200]}")
                return float("nan")

        with torch.no_grad():
            yt = net(xg)
        t_torch_before = torch_ms()
        yt = yt.float().cpu().numpy()
        save = os.path.join(outdir, name + ".ov")
        cmd = [ov, "run", path, "--input", f"x={os.path.join(outdir, name + '.x.npy')}", "--backend", "cuda",
               "--repeat", str(runs + 1), "--json", "--save", save, "--force"] + (["--tf32"] if tf32 else [])
        t = time.perf_counter()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            print(f"{name}: onnxview did not finish within 120 s")
            continue
        wall = time.perf_counter() - t
        if r.returncode != 0:
            print(f"{name}: onnxview failed (exit {r.returncode}): {r.stderr.strip()[:300]}")
            continue
        rep = json.loads(r.stdout)
        rp = rep["repeat"]
        # PyTorch again after onnxview's process, and the faster of its two medians kept: its eager times move
        # from one measurement to the next (host-bound launches), and the lower is the stricter reference
        t_torch_after = torch_ms()
        t_torch = min(t_torch_before, t_torch_after)
        t_graph = torch_graph_ms()
        yo = np.load(os.path.join(save, "y.npy")).astype(np.float32)
        diff = float(np.max(np.abs(yo - yt))) if yo.shape == yt.shape else float("nan")
        # the size of what was compared: a difference means little next to outputs that are all (nearly) zero
        ymax = float(np.max(np.abs(yt))) if yt.size else 0.0
        if ymax == 0.0:
            print(f"{name}: PyTorch's output is all zeros: the comparison proves nothing")
            diff = float("nan")
        ratio = rp["median_ms"] / t_torch
        row = dict(model=name, torch_ms=t_torch, torch_graph_ms=t_graph, ov_ms=rp["median_ms"], ov_min_ms=rp["min_ms"], ratio=ratio,
                   first_ms=rp["first_ms"], process_s=wall, max_abs=diff, max_y=ymax, cpu_nodes=len(rep["fallback_nodes"]),
                   same_bits=rp.get("same_bits"))
        rows.append(row)
        print(f"{name}: PyTorch eager {t_torch:.3f} ms (medians {t_torch_before:.3f} before, {t_torch_after:.3f} after onnxview), onnxview {rp['median_ms']:.3f} ms (min {rp['min_ms']:.3f}; "
              f"ratio {ratio:.2f}x); PyTorch's CUDA graph {t_graph:.3f} ms (onnxview {rp['median_ms'] / t_graph:.2f}x of it); first run {rp['first_ms']:.1f} ms; whole process {wall:.2f} s; max abs diff "
              f"{diff:.3g} (outputs up to {ymax:.3g}); {row['cpu_nodes']} nodes on the CPU; same bits each run: {row['same_bits']}"
              + (f"; CUDA graph: run {rp['graph']['recorded_run']} recorded, {rp['graph']['replays']} launches"
                 + (f", not replayed because: {rp['graph']['why_not']}" if rp['graph'].get('why_not') else "")
                 if rp.get("graph") else ""), flush=True)
    if md and rows:
        with open(md, "a") as f:
            graph = ("; warm runs replayed as a CUDA graph (OV_CUDA_GRAPH=1, the default)"
                     if os.environ.get("OV_CUDA_GRAPH", "1") == "1" else "; warm runs node by node (OV_CUDA_GRAPH=0)")
            if os.environ.get("OV_CUDA_MATMUL_PERM") == "0":
                graph += "; every Transpose next to a MatMul run as a copy (OV_CUDA_MATMUL_PERM=0)"
            f.write(f"\n{mode}; {line}; PyTorch {torch.__version__}; median of {runs} warm runs{graph}\n\n")
            f.write("| model | PyTorch eager ms | onnxview warm ms (min) | ratio | PyTorch CUDA graph ms | ratio to it | "
                    "first run ms | process s | max abs diff | max abs output | CPU nodes |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|\n")
            for w in rows:
                f.write(f"| {w['model']} | {w['torch_ms']:.3f} | {w['ov_ms']:.3f} ({w['ov_min_ms']:.3f}) | "
                        f"{w['ratio']:.2f}x | {w['torch_graph_ms']:.3f} | {w['ov_ms'] / w['torch_graph_ms']:.2f}x | "
                        f"{w['first_ms']:.1f} | {w['process_s']:.2f} | {w['max_abs']:.3g} | "
                        f"{w['max_y']:.3g} | {w['cpu_nodes']} |\n")
    return 0


def main():
    args = sys.argv[1:]
    runs, tf32, md = 20, "--tf32" in args, None
    if tf32:
        args.remove("--tf32")
    for opt in ("--runs", "--md"):
        if opt in args:
            i = args.index(opt)
            if i + 1 >= len(args):
                print(__doc__)
                return 2
            if opt == "--runs":
                runs = int(args[i + 1])
            else:
                md = args[i + 1]
            del args[i:i + 2]
    if len(args) >= 2 and args[0] == "export":
        names = args[2:] or MODELS
        bad = [n for n in names if n not in MODELS]
        if bad:
            print(f"unknown model {bad[0]} (one of {', '.join(MODELS)})")
            return 2
        return export(args[1], names)
    if len(args) >= 3 and args[0] == "bench":
        names = args[3:] or MODELS
        return bench(args[1], args[2], names, runs, tf32, md)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
