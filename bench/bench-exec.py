#!/usr/bin/env python3
"""Benchmark `onnxview run` (CPU backend, one thread) against onnxruntime's CPU provider (one thread) in one script.

Usage: /opt/onnxview-ort/bin/python bench/bench-exec.py ONNXVIEW MODEL... [--runs N] [--rounds R]
For each model: the same random input for both; onnxruntime's median session.run time (session made once,
intra_op_num_threads=1) against onnxview's median node time (what `run` reports: the nodes only), its median over
the warm runs of one `run --repeat N+1` (constants kept, buffers reused, as in a session), and its whole command
(process start, load, constants, nodes: what one `onnxview run` costs) against onnxruntime's one shot (a session
made and run once, in a fresh process, timed without the interpreter's start and import); peak resident memory of
both processes; the max abs difference of the outputs
(and the largest |output| of onnxruntime, to read it against).  Beside the ratio of the medians, the ratio of the
fastest runs, and the ratio of CPU time per warm run (onnxruntime's thread time per run; onnxview's process CPU time
of run --repeat N+1 less run --repeat 1, over N), the figures least disturbed by other processes on a busy machine.
Last, the warm ratio again in R rounds (--rounds R, default 5), each onnxruntime's median of N session runs then
onnxview's median of run --repeat N+1 right after it, so that both sides of a ratio see the machine in the same
state: the median of the rounds' ratios, and their range.
Needs the venv made by scripts/install-deps.sh (onnxruntime + numpy)."""
import json
import os
import resource
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort


def peak_rss_child(argv, env):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    out, err = p.communicate()
    return out, err, p.returncode


def child_cpu(argv, env):
    """CPU seconds (user + system) a child process spent: what other processes on a busy machine disturb least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        sys.exit(f"onnxview run failed: {r.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    args = sys.argv[1:]
    runs, rounds = 9, 5
    for opt in ("--runs", "--rounds"):
        if opt in args:
            i = args.index(opt)
            v = args[i + 1] if i + 1 < len(args) else ""
            if not v.isdigit() or int(v) < (1 if opt == "--runs" else 0):
                sys.exit(f"bench-exec.py: {opt} takes a whole number ({'1' if opt == '--runs' else '0'} or more), "
                         f"not {v!r}")
            v = int(v)
            del args[i:i + 2]
            if opt == "--runs":
                runs = v
            else:
                rounds = v
    ov, models = args[0], args[1:]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    d = tempfile.mkdtemp()
    for model in models:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        feeds, args_in = {}, []
        for k, inp in enumerate(sess.get_inputs()):
            shape = [s if isinstance(s, int) else 1 for s in inp.shape]
            x = np.random.default_rng(k).standard_normal(shape).astype(np.float32)
            path = os.path.join(d, f"in{k}.npy")
            np.save(path, x)
            feeds[inp.name] = x
            args_in += ["--input", f"{inp.name}={path}"]
        sess.run(None, feeds)
        t_ort = []
        for _ in range(runs):
            t0 = time.perf_counter()
            ref = sess.run(None, feeds)
            t_ort.append(time.perf_counter() - t0)
        # onnxruntime's peak memory and its one-shot time: a fresh process doing one session and one run, timed
        # from the session's creation to the end of the run (the interpreter's start and the import left out)
        code = ("import onnxruntime as ort, numpy as np, resource, sys, time\n"
                "t0 = time.perf_counter()\n"
                "so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1\n"
                f"s = ort.InferenceSession({model!r}, so, providers=['CPUExecutionProvider'])\n"
                "f = {i.name: np.zeros([d if isinstance(d, int) else 1 for d in i.shape], np.float32) "
                "for i in s.get_inputs()}\n"
                "s.run(None, f)\n"
                "print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
        ort_rss, t_ort_once = 0, []
        for _ in range(max(3, min(runs, 7))):
            o = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout.split()
            if len(o) == 2:
                t_ort_once.append(float(o[0]))
                ort_rss = max(ort_rss, int(o[1]) * 1024)
        moo = statistics.median(t_ort_once) if t_ort_once else float("nan")
        t_nodes, t_cmd, ov_rss = [], [], 0
        save = os.path.join(d, "out-" + os.path.basename(model))  # one folder a model: outputs of the same name
        for _ in range(runs):
            t0 = time.perf_counter()
            r = subprocess.run(["/usr/bin/time", "-f", "%M", ov, "run", model] + args_in + ["--save", save, "--force", "--json"],
                               capture_output=True, text=True, env=env)
            t_cmd.append(time.perf_counter() - t0)
            if r.returncode:
                sys.exit(f"onnxview run failed: {r.stderr}")
            ov_rss = max(ov_rss, int(r.stderr.strip().splitlines()[-1]) * 1024)
            m = re.search(r'"ms"\s*:\s*([0-9.eE+-]+)', r.stdout)
            t_nodes.append(float(m.group(1)) / 1e3 if m else float("nan"))
        # warm: the same process runs it again, constants kept (run --repeat), as onnxruntime's session does
        r = subprocess.run([ov, "run", model] + args_in + ["--repeat", str(runs + 1), "--json"], capture_output=True,
                           text=True, env=env)
        warm = json.loads(r.stdout)["repeat"] if not r.returncode else {"median_ms": float("nan"), "min_ms": 0}
        outs = sorted(f for f in os.listdir(save) if f.endswith(".npy"))
        diff = max(float(np.abs(np.load(os.path.join(save, f)).astype(np.float64) - ref[0]).max())
                   for f in outs[:1]) if outs else float("nan")
        # CPU time per warm run, on both sides: onnxruntime's thread time per run; onnxview's process CPU time of
        # run --repeat N+1 less that of run --repeat 1, over N (the best of 3)
        c_ort = []
        for _ in range(runs):
            t0 = time.thread_time()
            sess.run(None, feeds)
            c_ort.append(time.thread_time() - t0)
        base = [ov, "run", model] + args_in + ["--json", "--repeat"]
        c_ov = min((child_cpu(base + [str(runs + 1)], env) - child_cpu(base + ["1"], env)) / runs for _ in range(3))
        mco = statistics.median(c_ort)
        # the warm ratio in rounds, onnxruntime then onnxview each time
        round_ratios = []
        for _ in range(rounds):
            t_r = []
            for _ in range(runs):
                t0 = time.perf_counter()
                sess.run(None, feeds)
                t_r.append(time.perf_counter() - t0)
            r = subprocess.run([ov, "run", model] + args_in + ["--repeat", str(runs + 1), "--json"],
                               capture_output=True, text=True, env=env)
            if not r.returncode:
                round_ratios.append(json.loads(r.stdout)["repeat"]["median_ms"] / 1e3 / statistics.median(t_r))
        rr = (f"; warm ratio in {len(round_ratios)} rounds: median {statistics.median(round_ratios):.2f}x "
              f"(from {min(round_ratios):.2f}x to {max(round_ratios):.2f}x)") if round_ratios else ""
        mo, mn, mc = statistics.median(t_ort), statistics.median(t_nodes), statistics.median(t_cmd)
        print(f"{os.path.basename(model)}: onnxruntime {mo * 1e3:.1f} ms, onnxview nodes {mn * 1e3:.1f} ms "
              f"(ratio {mn / mo:.2f}x; fastest runs {min(t_ort) * 1e3:.1f} and {min(t_nodes) * 1e3:.1f} ms, "
              f"ratio {min(t_nodes) / min(t_ort):.2f}x), warm runs in one process (run --repeat) median "
              f"{warm['median_ms']:.1f} ms (ratio {warm['median_ms'] / 1e3 / mo:.2f}x), CPU time per warm run "
              f"{c_ov * 1e3:.2f} ms against {mco * 1e3:.2f} (ratio {c_ov / mco:.3f}x), whole command {mc * 1e3:.1f} ms "
              f"against onnxruntime's session and first run {moo * 1e3:.1f} ms (ratio {mc / moo:.2f}x); "
              f"peak RSS onnxview {ov_rss / 1e6:.1f} MB, onnxruntime {ort_rss / 1e6:.1f} MB "
              f"(ratio {ov_rss / max(ort_rss, 1):.2f}x); max abs diff {diff:.3g} "
              f"(max |output| {float(np.abs(ref[0]).max()):.3g}){rr}")


if __name__ == "__main__":
    main()
