#!/usr/bin/env python3
"""Benchmark `onnxview run --backend cuda` against onnxruntime's CUDA provider, in one script (issue 7).

Usage: /opt/onnxview-ort/bin/python bench/bench-cuda.py ONNXVIEW MODEL... [--runs N] [--tf32]
For each model (e.g. ResNet-18 and the transformer block from tests/export-torch.py): the same random input for
both; onnxruntime's median session.run time on CUDAExecutionProvider (session made once, warmed up) against
onnxview's median node time on its CUDA backend over the warm runs of one `run --repeat N+1 --json` (the first run
uploads the weights; the later ones find them on the device), the ratio, the copies per run, the nodes
onnxview left to the CPU, and the max abs difference of the outputs (against onnxruntime on CUDA, and against
onnxview's own CPU run).  Needs a GPU, onnxview built with CUDA, and onnxruntime with the CUDA provider
(`pip install onnxruntime-gpu` in the venv); when any is missing it says which and exits 0."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def main():
    args = sys.argv[1:]
    runs, tf32 = 9, "--tf32" in args
    if tf32:
        args.remove("--tf32")
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        print(__doc__)
        return 2
    ov, models = args[0], args[1:]
    version = subprocess.run([ov, "--version"], capture_output=True, text=True).stdout
    line = next((l for l in version.splitlines() if l.startswith("CUDA backend:")), "CUDA backend: ?")
    if "device 0:" not in line:
        print(f"skipped: onnxview cannot run on a GPU here ({line})")
        return 0
    try:
        import onnxruntime as ort
    except ImportError:
        print("skipped: no onnxruntime in this python")
        return 0
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        print(f"skipped: onnxruntime has no CUDA provider (providers: {ort.get_available_providers()}; "
              "install onnxruntime-gpu)")
        return 0
    print(line)
    d = tempfile.mkdtemp()
    for model in models:
        so = ort.SessionOptions()
        sess = ort.InferenceSession(model, so, providers=["CUDAExecutionProvider"])
        feeds, args_in = {}, []
        for k, inp in enumerate(sess.get_inputs()):
            shape = [s if isinstance(s, int) else 1 for s in inp.shape]
            x = np.random.default_rng(k).standard_normal(shape).astype(np.float32)
            path = os.path.join(d, f"in{k}.npy")
            np.save(path, x)
            feeds[inp.name] = x
            args_in += ["--input", f"{inp.name}={path}"]
        for _ in range(3):
            ref = sess.run(None, feeds)
        t_ort = []
        for _ in range(runs):
            t0 = time.perf_counter()
            ref = sess.run(None, feeds)
            t_ort.append(time.perf_counter() - t0)
        out_dir = os.path.join(d, "gpu")
        base = [ov, "run", model, *args_in, "--json"]
        # one process: the first run uploads the weights and warms the libraries up, the later runs are what a
        # loaded model costs (constants stay on the device), as onnxruntime's warmed session is measured
        cmd = base + ["--backend", "cuda", "--repeat", str(runs + 1), "--save", out_dir] + (["--tf32"] if tf32 else [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            print(f"{os.path.basename(model)}: onnxview failed: {r.stderr.strip()}")
            continue
        rep = json.loads(r.stdout)
        rp = rep["repeat"]
        fallback, notes, first, warm = rep.get("fallback_nodes", []), rep.get("notes", []), rep["copies"], rp["copies"]
        outs = [v.get("saved", v["name"]) for v in rep["values"] if v["output"]]
        cpu_dir = os.path.join(d, "cpu")
        subprocess.run(base + ["--save", cpu_dir], capture_output=True, text=True)  # same file names
        diff_ort = diff_cpu = 0.0
        for name, want in zip(outs, ref):
            got = np.load(os.path.join(out_dir, name + ".npy"))
            cpu = np.load(os.path.join(cpu_dir, name + ".npy"))
            diff_ort = max(diff_ort, float(np.abs(got - want).max()))
            diff_cpu = max(diff_cpu, float(np.abs(got - cpu).max()))
        mo, mv = statistics.median(t_ort), rp["median_ms"] / 1e3
        print(f"{os.path.basename(model)}: onnxruntime CUDA {mo * 1e3:.3f} ms, onnxview CUDA nodes "
              f"{mv * 1e3:.3f} ms (ratio {mv / mo:.2f}x; median of {runs} warm runs, the first took "
              f"{rp['first_ms']:.1f} ms){' with --tf32' if tf32 else ''}; {len(fallback)} nodes on the CPU; copies: "
              f"first run {first['to_device']} up ({first['to_device_bytes'] / 1e6:.2f} MB, the weights included), "
              f"later runs {warm['to_device']} up ({warm['to_device_bytes'] / 1e6:.3f} MB) and {warm['to_host']} "
              f"down; every run the same bits: {rp['same_bits']}; {len(notes)} notes; max abs diff vs onnxruntime "
              f"{diff_ort:.3g}, vs onnxview's CPU {diff_cpu:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
