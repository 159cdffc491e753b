#!/usr/bin/env python3
"""Node by node: onnxview's CPU backend against onnxruntime's CPU provider (one thread each), on one model.

Usage: /opt/onnxview-ort/bin/python bench/compare-profile.py MODEL ONNXVIEW [ONNXVIEW...] [--procs K] [--top N]
                                                           [--shape NAME=DxD..]...
The inputs are seeded normal values (integers below 256 for an integer input), of the model's shapes with each dynamic dim 1 unless --shape gives one.
onnxruntime's profile (SessionOptions.enable_profiling, 60 runs) gives each of its kernels' fastest time; each
onnxview binary runs `run --profile --repeat 30 --json` K times (6 by default) and each node's fastest time over
them is kept.  onnxruntime fuses (Conv with its Clip, Relu or Add) and names a kernel after its output tensor;
an onnxview node is counted with the onnxruntime kernel whose tensor its output reaches through single consumers,
so a Conv and the Clip after it are one row (where onnxview runs two Convs as one block, the pointwise and the
depthwise of MobileNetV2's second layer, the block's time is on the first one's row and the second looks ahead by
onnxruntime's whole time: read the two rows together).  A kernel onnxruntime fused from several nodes is named
after the first ("NODE/MatMulAddFusion"): that node and its lone consumer are counted with it; the kernels of
fusions named after no node (Gelu_token_66, SkipLayerNormalization) are summed by op on the "matched to no node"
line, the counterparts of rows without an onnxruntime time.  The rows are sorted by the last binary's gap (its time less
onnxruntime's), largest first: where the time is still lost.  Minimums, not medians: on a busy machine they move
least.  The binaries' totals (sums of the nodes' minimums) compare two builds in the same run.
Needs the venv made by scripts/install-deps.sh (onnxruntime + numpy)."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime as ort


def main():
    args = sys.argv[1:]
    procs, top, shapes = 6, 30, {}
    while "--shape" in args:
        i = args.index("--shape")
        name, _, dims = args[i + 1].partition("=")
        shapes[name] = [int(v) for v in dims.split("x")]
        del args[i:i + 2]
    for flag in ("--procs", "--top"):
        if flag in args:
            i = args.index(flag)
            if flag == "--procs":
                procs = int(args[i + 1])
            else:
                top = int(args[i + 1])
            del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__.split("\n\n")[1].split("\n")[0])
    model, bins = args[0], args[1:]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    d = tempfile.mkdtemp()

    dump = subprocess.run([bins[0], "dump", "--json", model], capture_output=True, text=True, env=env)
    if dump.returncode:
        sys.exit(f"onnxview dump failed: {dump.stderr}")
    nodes = json.loads(dump.stdout)["graph"]["nodes"]
    by_name = {n["name"]: n for n in nodes}
    consumers = {}
    for n in nodes:
        for i in n["inputs"]:
            consumers.setdefault(i["name"], []).append(n)

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(d, "ort")
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    feeds, args_in = {}, []
    for k, inp in enumerate(sess.get_inputs()):
        shape = shapes.get(inp.name) or [s if isinstance(s, int) else 1 for s in inp.shape]
        rng = np.random.default_rng(k)
        if "int" in inp.type:  # integers (token ids, bytes): below 256, which every such model here reads
            x = rng.integers(0, 256, shape).astype(np.int64 if "int64" in inp.type else np.int32)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        path = os.path.join(d, f"in{k}.npy")
        np.save(path, x)
        feeds[inp.name] = x
        args_in += ["--input", f"{inp.name}={path}"]
    for _ in range(60):
        sess.run(None, feeds)
    with open(sess.end_profiling()) as f:
        events = json.load(f)
    ort_min, ort_op = {}, {}
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        name = e["name"][:-len("_kernel_time")]
        if name.endswith("_nchwc"):
            name = name[:-len("_nchwc")]
        ort_min[name] = min(ort_min.get(name, float("inf")), e["dur"] / 1000.0)
        ort_op[name] = e.get("args", {}).get("op_name", "?")

    # A kernel of a node onnxruntime made by fusing (MatMulAddFusion, QuickGeluFusion...) is named after the first
    # node it took, "NODE/FUSION" (or "NODE/FUSION/", fusions of fusions "NODE/F1//F2/"): that node's time goes
    # there, and so does that of the node after it when it is the first one's only consumer (MatMul + Add's Add).
    fused = {}
    for k in ort_min:
        if k in by_name:
            continue
        cut = [i for i, c in enumerate(k) if c == "/" and i > 0]
        for i in reversed(cut):
            if k[:i] in by_name and k[:i] not in ort_min:
                fused[k[:i]] = k
                break
    producer = {o["name"]: n for n in nodes for o in n["outputs"]}

    def kernel_of(node_name):
        """The onnxruntime kernel an onnxview node's time goes to: its output, or where that leads alone."""
        if node_name in fused:
            return fused[node_name]
        n = by_name.get(node_name)
        if n is None or not n["outputs"]:
            return node_name
        t = n["outputs"][0]["name"]
        for _ in range(4):
            if t in ort_min or node_name in ort_min or len(consumers.get(t, [])) != 1:
                break
            t = consumers[t][0]["outputs"][0]["name"]
        if node_name in ort_min or t in ort_min:
            return node_name if node_name in ort_min else t
        for i in n["inputs"]:
            p = producer.get(i["name"])
            if p is not None and p["name"] in fused and len(consumers.get(i["name"], [])) == 1:
                return fused[p["name"]]
        return t

    mins = []
    for b in bins:
        m = {}
        for _ in range(procs):
            r = subprocess.run([b, "run", model] + args_in + ["--profile", "--repeat", "30", "--json"],
                               capture_output=True, text=True, env=env)
            if r.returncode:
                sys.exit(f"{b} run failed: {r.stderr}")
            for n in json.loads(r.stdout)["profile"]["nodes"]:
                m[n["name"]] = min(m.get(n["name"], float("inf")), n["host_ms"])
        mins.append(m)

    rows = {}
    for i, m in enumerate(mins):
        for name, ms in m.items():
            row = rows.setdefault(kernel_of(name), [0.0] * len(bins))
            row[i] += ms
    print(f"{os.path.basename(model)}: sums of each node's fastest time (ms)")
    print(f"  onnxruntime {sum(ort_min.values()):.3f} (all its kernels, reorders included)")
    for b, m in zip(bins, mins):
        print(f"  {b} {sum(m.values()):.3f}")
    left = {k: v for k, v in ort_min.items() if k not in rows}
    if left:
        # by op: kernels of fusions named after no node ("Gelu_token_66", "SkipLayerNormalization") are the
        # counterparts of rows without an onnxruntime time below
        ops = {}
        for k, v in left.items():
            c = ops.setdefault(ort_op[k], [0, 0.0])
            c[0] += 1
            c[1] += v
        print(f"  onnxruntime kernels matched to no node: {sum(left.values()):.3f} ms: "
              + ", ".join(f"{o} {c[0]}x {c[1]:.3f}" for o, c in sorted(ops.items(), key=lambda kv: -kv[1][1])))
    table = sorted(rows.items(), key=lambda kv: -(kv[1][-1] - ort_min.get(kv[0], 0.0)))
    gaps = [v[-1] - ort_min.get(k, 0.0) for k, v in table if k in ort_min]
    print(f"  last binary against onnxruntime, matched kernels: {sum(g for g in gaps if g > 0):+.3f} ms behind, "
          f"{sum(g for g in gaps if g < 0):+.3f} ms ahead")
    print(f"{'onnxruntime kernel (its output)':<60} {'ort':>7} " + " ".join(f"{'bin' + str(i + 1):>7}"
                                                                         for i in range(len(bins))) + "     gap")
    for k, v in table[:top]:
        o = ort_min.get(k)
        print(f"{k[-60:]:<60} " + (f"{o:7.3f} " if o is not None else "      - ")
              + " ".join(f"{x:7.3f}" for x in v) + (f" {v[-1] - o:+7.3f}" if o is not None else ""))


if __name__ == "__main__":
    main()
