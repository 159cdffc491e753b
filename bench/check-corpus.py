#!/usr/bin/env python3
"""Run `onnxview check` over a corpus and compare with onnx.checker: crashes, and errors on accepted models.

Usage: bench/check-corpus.py ONNXVIEW [DIR]   (DIR defaults to Debian's libonnx-testdata)
Prints the number of models, how many the onnx checker accepts, onnxview's exit statuses, and every model the
checker accepts on which onnxview reports an error (with the diagnostics), so each can be judged."""
import collections
import json
import os
import subprocess
import sys

import onnx


def main():
    ov = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/libonnx-testdata/data"
    paths = sorted(os.path.join(r, "model.onnx") for r, _, f in os.walk(root) if "model.onnx" in f)
    statuses = collections.Counter()
    accepted = 0
    false_errors = []
    codes = collections.Counter()
    for p in paths:
        try:
            onnx.checker.check_model(p)
            ok = True
        except Exception:
            ok = False
        accepted += ok
        r = subprocess.run([ov, "check", "--json", p], capture_output=True, text=True)
        statuses[r.returncode] += 1
        if r.returncode not in (0, 1):
            print(f"CRASH or failure {r.returncode}: {p}: {r.stderr.strip()}")
            continue
        d = json.loads(r.stdout)
        for x in d["diagnostics"]:
            codes[(x["severity"], x["code"])] += 1
        if ok and d["errors"]:
            false_errors.append((p, [x for x in d["diagnostics"] if x["severity"] == "error"]))
    print(f"{len(paths)} models; onnx.checker accepts {accepted}")
    print("onnxview check exit statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    print("diagnostics by code: " + ", ".join(f"{s} {c}: {n}" for (s, c), n in sorted(codes.items())))
    print(f"models the checker accepts where onnxview reports an error: {len(false_errors)}")
    for p, errs in false_errors:
        for e in errs:
            print(f"  {p}: {e['code']}: {e['node_desc'] or ''} {e['message']}")


if __name__ == "__main__":
    main()
