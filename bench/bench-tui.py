#!/usr/bin/env python3
"""Benchmark the TUI on a large model: first full frame, key response, resident memory, against onnx.load.

Usage: bench/bench-tui.py ONNXVIEW MODEL [RUNS]
The TUI runs headless (--keys, --dump) so no terminal is needed: 'first frame' is the time from start to the
first screen written (load, index, shapes, scene, layout, draw) — measured as a run with no keys; 'key response'
is the extra time of 200 selection moves (j) and 50 page moves divided by their count. Reports medians over RUNS
(default 7), CPU time as well as wall time (a loaded machine inflates wall time), and the ratios."""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(argv):
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(argv, stdout=null, stderr=null, env=dict(os.environ, LC_ALL="C", TERM="xterm-256color"))
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(argv)} failed")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


def median(argv, runs):
    w, c, r = [], [], 0
    for _ in range(runs):
        a, b, m = run(argv)
        w.append(a)
        c.append(b)
        r = max(r, m)
    return statistics.median(w), statistics.median(c), r


def main():
    ov, model = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    size = os.path.getsize(model)
    d = tempfile.mkdtemp()
    empty = os.path.join(d, "none.keys")
    moves = os.path.join(d, "moves.keys")
    open(empty, "w").close()
    with open(moves, "w") as f:
        f.write("j" * 200 + "<PgDn>" * 25 + "<PgUp>" * 25)
    dump = os.path.join(d, "screen.txt")
    base = [ov, "--size", "160x50", "--dump", dump, "--keys"]
    run(base + [empty, model])  # warm the page cache
    w0, c0, rss = median(base + [empty, model], runs)
    w1, c1, _ = median(base + [moves, model], runs)
    lw, lc, lrss = median(["/usr/bin/python3", "-c", "import onnx,sys; onnx.load(sys.argv[1])", model], max(3, runs // 2))
    print(f"model {model}: {size / 1e6:.1f} MB, {runs} runs, medians")
    print(f"  first frame          wall {w0 * 1e3:7.1f} ms  cpu {c0 * 1e3:7.1f} ms  peak RSS {rss / 1e6:6.1f} MB "
          f"({rss / size:.2f}x file)")
    print(f"  key response         wall {(w1 - w0) / 250 * 1e3:7.2f} ms  cpu {(c1 - c0) / 250 * 1e3:7.2f} ms per key")
    print(f"  python onnx.load     wall {lw * 1e3:7.1f} ms  cpu {lc * 1e3:7.1f} ms  peak RSS {lrss / 1e6:6.1f} MB")
    print(f"ratio first frame / onnx.load: wall {w0 / lw:.2f}x, cpu {c0 / lc:.2f}x")


if __name__ == "__main__":
    main()
