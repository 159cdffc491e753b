#!/usr/bin/env python3
"""Measure how onnxview's shape inference agrees with onnx.shape_inference.infer_shapes.

Usage: bench/shape-agreement.py ONNXVIEW MODEL... (or a folder: every model.onnx below it)
For every node output of each main graph it compares onnxview's inferred dtype+dims (dump --json, "inferred")
with the onnx package's, and prints the share of values where both agree, where only onnxview finds a shape,
where only onnx does, and where they disagree (with examples)."""
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import shape_inference

DT = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
      9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
      16: "bfloat16"}


def onnx_type(t):
    if not t.HasField("tensor_type"):
        return None
    tt = t.tensor_type
    dt = DT.get(tt.elem_type, "?")
    if not tt.HasField("shape"):
        return None  # rank unknown: counts as no shape
    dims = []
    for d in tt.shape.dim:
        if d.HasField("dim_value"):
            dims.append(str(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param and not d.dim_param.startswith("unk__"):
            dims.append(d.dim_param)
        else:
            dims.append("?")
    return f"{dt}[{','.join(dims)}]"


def split(t):
    dt, rest = t.split("[", 1)
    return dt, rest.rstrip("]").split(",") if rest != "]" else []


def relation(mine, other):
    """agree, ov_less (onnxview leaves dims unknown that onnx knows), ov_more, or differ (a real conflict)."""
    if mine == other:
        return "agree"
    d1, a = split(mine)
    d2, b = split(other)
    if d1 != d2 or len(a) != len(b):
        return "differ"
    less = more = False
    for x, y in zip(a, b):
        if x == y:
            continue
        if x == "?":
            less = True
        elif y == "?":
            more = True
        else:
            return "differ"
    return "ov_less" if less and not more else "ov_more" if more and not less else "differ"


def models(args):
    for a in args:
        if os.path.isdir(a):
            for root, _, files in os.walk(a):
                if "model.onnx" in files:
                    yield os.path.join(root, "model.onnx")
        else:
            yield a


def main():
    ov = sys.argv[1]
    stats = {"agree": 0, "ov_less": 0, "ov_more": 0, "only_ov": 0, "only_onnx": 0, "differ": 0, "neither": 0}
    examples = []
    n_models = 0
    for path in sorted(models(sys.argv[2:])):
        try:
            m = onnx.load(path)
            if len(m.graph.value_info):
                # Exporters store their own inference; measure both tools from the bare graph.
                del m.graph.value_info[:]
                fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=os.path.dirname(os.path.abspath(path)))
                os.close(fd)
                onnx.save(m, tmp)
                path_for_ov = tmp
            else:
                path_for_ov = path
            inf = shape_inference.infer_shapes(m)
        except Exception:
            continue
        theirs = {}
        for vi in list(inf.graph.value_info) + list(inf.graph.output):
            t = onnx_type(vi.type)
            if t:
                theirs[vi.name] = t
        r = subprocess.run([ov, "dump", "--json", path_for_ov], capture_output=True, text=True)
        if path_for_ov != path:
            os.unlink(path_for_ov)
        if r.returncode != 0:
            continue
        n_models += 1
        d = json.loads(r.stdout)
        ours = {}
        for node in d["graph"]["nodes"]:
            for o in node["outputs"]:
                if o["name"]:
                    # A Constant's type comes from its tensor, which onnxview reads exactly.
                    ours.setdefault(o["name"], o.get("type") if node["op_type"] == "Constant" else o.get("inferred"))
        for name, mine in ours.items():
            mine = None if mine is None or "[...]" in mine or mine.startswith("?") else mine
            other = theirs.get(name)
            if mine and other:
                rel = relation(mine, other)
                if rel != "differ":
                    stats[rel] += 1
                else:
                    stats["differ"] += 1
                    if len(examples) < 40:
                        examples.append(f"{path}: {name}: onnxview {mine}, onnx {other}")
            elif mine:
                stats["only_ov"] += 1
            elif other:
                stats["only_onnx"] += 1
                if len(examples) < 40 and "--verbose" in os.environ.get("AGREE", ""):
                    examples.append(f"{path}: {name}: only onnx: {other}")
            else:
                stats["neither"] += 1
    total = sum(stats.values())
    print(f"{n_models} models, {total} node outputs")
    for k, v in stats.items():
        print(f"  {k:10s} {v:7d}  {100.0 * v / max(total, 1):6.2f}%")
    both = stats["agree"] + stats["differ"] + stats["ov_less"] + stats["ov_more"]
    print(f"same dims where both give a shape: {100.0 * stats['agree'] / max(both, 1):.2f}%; "
          f"conflicting: {100.0 * stats['differ'] / max(both, 1):.2f}%")
    for e in examples:
        print("  " + e)


if __name__ == "__main__":
    main()
