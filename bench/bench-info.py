#!/usr/bin/env python3
"""Benchmark `onnxview info` on a large model against reading the file (cat) and python's onnx.load, in one run.

Usage: bench/bench-info.py ONNXVIEW MODEL [RUNS]
Reports the median wall time of each command over RUNS runs (default 15) from a warm page cache, the ratio of
onnxview to cat and to onnx.load, and onnxview's peak resident memory against the file size.
"""
import os
import statistics
import subprocess
import sys
import time


def run(argv):
    """Run argv with stdout to /dev/null; return (seconds, peak RSS in bytes)."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(argv, stdout=null)
        _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(argv)} failed with status {status}")
    return dt, ru.ru_maxrss * 1024


def median_of(argv, runs):
    times, rss = [], 0
    for _ in range(runs):
        t, r = run(argv)
        times.append(t)
        rss = max(rss, r)
    return statistics.median(times), rss


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    onnxview, model = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    size = os.path.getsize(model)
    py = "/usr/bin/python3"
    run(["cat", model])  # warm the page cache
    cat_t, _ = median_of(["sh", "-c", 'cat "$0" >/dev/null', model], runs)
    ov_t, ov_rss = median_of([onnxview, "info", model], runs)
    dump_t, dump_rss = median_of([onnxview, "dump", model], runs)
    out = os.path.join(os.path.dirname(os.path.abspath(model)), "bench-saved.onnx")
    save_t, save_rss = median_of([onnxview, "edit", model, "-o", out, "--force"], max(3, runs // 3))
    cp_t, _ = median_of(["sh", "-c", 'cp "$0" "$1" && sync "$1"', model, out], max(3, runs // 3))
    os.unlink(out)
    imp_t, _ = median_of([py, "-c", "import onnx"], max(3, runs // 3))
    load_t, load_rss = median_of([py, "-c", "import onnx,sys; onnx.load(sys.argv[1])", model], max(3, runs // 3))
    mb = size / 1e6
    print(f"model: {model} ({mb:.1f} MB), {runs} runs, medians")
    print(f"  cat > /dev/null            {cat_t * 1e3:8.1f} ms")
    print(f"  onnxview info              {ov_t * 1e3:8.1f} ms   peak RSS {ov_rss / 1e6:7.1f} MB "
          f"({ov_rss / size:.3f}x file)")
    print(f"  onnxview dump              {dump_t * 1e3:8.1f} ms   peak RSS {dump_rss / 1e6:7.1f} MB")
    print(f"  onnxview edit -o (save)    {save_t * 1e3:8.1f} ms   peak RSS {save_rss / 1e6:7.1f} MB "
          f"(cp + sync: {cp_t * 1e3:.1f} ms)")
    print(f"  python3 import onnx        {imp_t * 1e3:8.1f} ms")
    print(f"  python3 onnx.load          {load_t * 1e3:8.1f} ms   peak RSS {load_rss / 1e6:7.1f} MB "
          f"(load alone ~{(load_t - imp_t) * 1e3:.1f} ms)")
    print(f"ratio onnxview/cat           {ov_t / cat_t:8.2f}x   (target <= 3x)")
    print(f"ratio onnxview/onnx.load     {ov_t / load_t:8.2f}x   (whole command; target < 1)")
    print(f"ratio onnxview/(load-import) {ov_t / max(load_t - imp_t, 1e-9):8.2f}x")
    print(f"peak RSS / file size         {ov_rss / size:8.3f}    (target < 1.5)")


if __name__ == "__main__":
    main()
