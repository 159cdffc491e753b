#!/usr/bin/env python3
"""The hostile and careless-user models of issue 14 (reliability, round 2), written into the folder given.

Each model is the smallest file that showed one finding: an Einsum equation longer than the shape arrays, Loops
that grow or never stop, names with an embedded NUL, shape rules fed attribute lists longer than their arrays,
arithmetic near 2^63, duplicate initializers, many local functions, terminal-spoofing names.  Names that cannot be
built with onnx.helper (an embedded NUL) are patched into the serialised bytes."""
import os
import sys

import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def save(name, graph, opset=17, functions=None, ir=8):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="gen-rel",
                          functions=functions or [])
    m.ir_version = ir
    onnx.save(m, os.path.join(out, name))
    return m


def tensor(name, dtype, dims, vals):
    return helper.make_tensor(name, dtype, dims, vals)


def ones(name, dims):
    n = 1
    for d in dims:
        n *= d
    return tensor(name, F, dims, [1.0] * n)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def einsum(name, eq, in_shapes, out_shape=None):
    names = ["x%d" % i for i in range(len(in_shapes))]
    # the result goes through an Identity, so that dump shows what was inferred for it ("t ... (inferred)")
    node = helper.make_node("Einsum", names, ["t"], equation=eq, name="e")
    g = helper.make_graph([node, helper.make_node("Identity", ["t"], ["y"])], "g",
                          [vi(n, F, s) for n, s in zip(names, in_shapes)], [vi("y", F, out_shape)])
    save(name, g, opset=12)


# 1. The output term has 2000 letters (a 2 KB model): the shape rule wrote them into dim out[64].
einsum("einsum-2000.onnx", "i->" + "i" * 2000, [[3]])
einsum("einsum-70.onnx", "i->" + "i" * 70, [[3]])
# an implicit output: 60 ellipsis dims and 52 letters used once (112 dims)
einsum("einsum-implicit.onnx", "..." + "abcdefghijklmnopqrstuvwxyz" + ",ABCDEFGHIJKLMNOPQRSTUVWXYZ",
       [[1] * 60 + [2] * 26, [3] * 26])
# an ellipsis in the middle of a term: its dims are the input's middle dims, not its first ones
einsum("einsum-middle.onnx", "i...j->j...i", [[2, 3, 4, 5]])
# ellipses broadcast together, aligned on the right
einsum("einsum-bcast.onnx", "...ij,...jk->...ik", [[7, 1, 2, 3], [5, 3, 4]])
# a term with more letters than its input has dims, and a letter past the 64 a term may hold
einsum("einsum-rank.onnx", "ij->ji", [[2, 3, 4]])
einsum("einsum-nonascii.onnx", "i\u00e9->i", [[2, 2]])

# Shape rules fed attribute lists longer than their arrays (shape inference only: models need not run).
def one(name, node, in_shapes, opset=9, inits=()):
    names = [n for n in node.input if n and n not in [i.name for i in inits]]
    g = helper.make_graph([node, helper.make_node("Identity", [node.output[0]], ["out"])], "g",
                          [vi(n, F, s) for n, s in zip(names, in_shapes)], [vi("out", F, None)],
                          initializer=list(inits))
    save(name, g, opset=opset)


long = list(range(100))
one("squeeze-axes.onnx", helper.make_node("Squeeze", ["x"], ["y"], axes=long), [[1, 2]], opset=11)
one("slice-long.onnx", helper.make_node("Slice", ["x"], ["y"], starts=[0] * 100, ends=[1] * 100), [[4, 4]], opset=9)
one("slice-axes.onnx", helper.make_node("Slice", ["x"], ["y"], starts=[0, 0, 0], ends=[1, 1, 1], axes=[0, 1]),
    [[4, 4, 4]], opset=9)
one("reduce-axes.onnx", helper.make_node("ReduceSum", ["x"], ["y"], axes=long), [[2, 3]], opset=11)
one("resize-axes.onnx", helper.make_node("Resize", ["x", "", "s"], ["y"], axes=long), [[1, 1, 2, 2]], opset=18,
    inits=[ones("s", [4])])
one("gathernd-batch.onnx", helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=-5),
    [[2, 3], [2, 0]], opset=13)
one("split-long.onnx", helper.make_node("Split", ["x"], ["y"], split=long), [[4, 4]], opset=11)
# arithmetic past int64: dilations near 2^62 (UBSan: signed overflow in the Conv rule), huge pads and repeats
one("conv-dilation.onnx", helper.make_node("Conv", ["x", "w"], ["y"], dilations=[2 ** 62, 2 ** 62], kernel_shape=[3, 3]),
    [[1, 1, 5, 5]], opset=13, inits=[ones("w", [1, 1, 3, 3])])
one("pad-huge.onnx", helper.make_node("Pad", ["x"], ["y"], pads=[2 ** 62, 2 ** 62, 2 ** 62, 2 ** 62]), [[2, 2]],
    opset=10)
one("convt-huge.onnx", helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2 ** 62, 2 ** 62]),
    [[1, 1, 5, 5]], opset=13, inits=[ones("w", [1, 1, 3, 3])])
# a Reshape whose shape input has 1000 entries: a rank of 1000, then a Transpose without perm
g = helper.make_graph([helper.make_node("Reshape", ["x", "s"], ["r"]), helper.make_node("Transpose", ["r"], ["y"])],
                      "g", [vi("x", F, [1]), vi("s", I64, [1000])], [vi("y", F, None)])
save("reshape-rank.onnx", g, opset=13)


# 2. and 9. Loops: a trip count of 10^18 with a cheap body; no trip count and a condition that stays true; a
# scan output of 4 MB per iteration for 10^6 iterations.
def loop(name, trip, cond, body_extra, scan_shape=None, init=None):
    body_nodes = [helper.make_node("Identity", ["cond_in"], ["cond_out"])] + body_extra
    body_out = [vi("cond_out", TensorProto.BOOL, []), vi("v_out", F, [1])]
    if scan_shape is not None:
        body_out.append(vi("scan_out", F, scan_shape))
    body = helper.make_graph(body_nodes, "body", [vi("i", I64, []), vi("cond_in", TensorProto.BOOL, []),
                                                  vi("v_in", F, [1])], body_out)
    outs = ["v"] + (["scans"] if scan_shape is not None else [])
    inits = []
    ins = ["", "", "v0"]
    if trip is not None:
        inits.append(tensor("M", I64, [], [trip]))
        ins[0] = "M"
    inits.append(tensor("c", TensorProto.BOOL, [], [cond]))
    ins[1] = "c"
    node = helper.make_node("Loop", ins, outs, body=body, name="loop")
    extra = list(init or [])
    g = helper.make_graph([node] + extra, "g", [vi("v0", F, [1])],
                          [vi(o, F, None) for o in outs], initializer=inits)
    save(name, g, opset=13)


loop("loop-forever.onnx", 10 ** 18, True, [helper.make_node("Identity", ["v_in"], ["v_out"])])
loop("loop-nocount.onnx", None, True, [helper.make_node("Identity", ["v_in"], ["v_out"])])
big = helper.make_tensor("big", F, [1024, 1024], bytes(4 << 20), raw=True)  # 4 MB, from the outer graph
loop("loop-scan.onnx", 10 ** 6, True, [helper.make_node("Identity", ["v_in"], ["v_out"]),
                                       helper.make_node("Identity", ["big"], ["scan_out"])], scan_shape=[1024, 1024])
m = onnx.load(os.path.join(out, "loop-scan.onnx"))
m.graph.initializer.append(big)
onnx.save(m, os.path.join(out, "loop-scan.onnx"))

# 6. Names with an embedded NUL: a node input 'x\0hidden', and initializers 'w\0a' and 'w\0b' that would both read
# as 'w'.  helper cannot write them: placeholders of the same length are patched in the bytes.
n1 = helper.make_node("Relu", ["xAhidden"], ["y"])
g = helper.make_graph([n1], "g", [vi("x", F, [2])], [vi("y", F, [2])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
b = m.SerializeToString().replace(b"xAhidden", b"x\0hidden")
open(os.path.join(out, "nul-input.onnx"), "wb").write(b)
g = helper.make_graph([helper.make_node("Add", ["x", "wQ"], ["y"])], "g", [vi("x", F, [1])], [vi("y", F, [1])],
                      initializer=[tensor("wQa", F, [1], [1.0]),
                                   tensor("wQb", F, [1], [2.0])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
b = m.SerializeToString().replace(b"wQa", b"w\0a").replace(b"wQb", b"w\0b").replace(b"wQ", b"w\0")
open(os.path.join(out, "nul-init.onnx"), "wb").write(b)
m = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [vi("x", F, [1])],
                                       [vi("y", F, [1])], doc_string="docAtail"),
                      opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
open(os.path.join(out, "nul-doc.onnx"), "wb").write(m.SerializeToString().replace(b"docAtail", b"doc\0tail"))

# 14. Duplicate initializer names: run used the last one silently.
g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", [vi("x", F, [1])], [vi("y", F, [1])],
                      initializer=[tensor("w", F, [1], [1.0]),
                                   tensor("w", F, [1], [2.0])])
save("dup-init.onnx", g, opset=13)

# 10. Many local functions, each calling the next: check was quadratic in them.
def functions_model(name, n):
    fs = []
    for i in range(n):
        callee = "f%d" % (i + 1) if i + 1 < n else None
        body = [helper.make_node(callee, ["a"], ["b"], domain="local")] if callee else \
            [helper.make_node("Relu", ["a"], ["b"])]
        fs.append(helper.make_function("local", "f%d" % i, ["a"], ["b"], body,
                                       [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)]))
    g = helper.make_graph([helper.make_node("f0", ["x"], ["y"], domain="local")], "g", [vi("x", F, [1])],
                          [vi("y", F, [1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)],
                          functions=fs)
    m.ir_version = 8
    onnx.save(m, os.path.join(out, name))


functions_model("functions-20000.onnx", 20000)

# 13. Names that spoof the terminal: a C1 CSI (U+009B), a right-to-left override (U+202E), an isolate (U+2066),
# and a flood of combining marks.
spoof = "a\u009b31mb\u202etxt.exe\u2066c" + "e" + "\u0301" * 400
g = helper.make_graph([helper.make_node("Relu", ["x"], [spoof], name=spoof)], "g", [vi("x", F, [1])],
                      [vi(spoof, F, [1])])
save("spoof.onnx", g, opset=13)

# 14. strides [0, 0] and other small ones use srcnn.onnx from tests/gen-models.py.

# 13. A node whose name is two letters, 300 combining marks on the B, and two more letters.
marks = "AB" + "\u0301" * 300 + "CD"
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name=marks)], "g", [vi("x", F, [1])],
                      [vi("y", F, [1])])
save("marks.onnx", g, opset=13)

# 14. A fixed batch on an input whose name has a space, a quote and an ESC: check's hint must work when pasted.
odd = "in 'put\x1b"
g = helper.make_graph([helper.make_node("Relu", [odd], ["y"])], "g", [vi(odd, F, [1, 3, 8, 8])],
                      [vi("y", F, [1, 3, 8, 8])])
save("hint-name.onnx", g, opset=13)

# 2. A `while` loop as torch.jit exports it: trip count INT64_MAX, a computed condition (i < 2), scan outputs of
# 256 KB a trip.  It stops after 3 trips: the scan outputs must not be projected over 2^63 trips.
body = helper.make_graph(
    [helper.make_node("Constant", [], ["two"], value=tensor("two_t", I64, [], [2])),
     helper.make_node("Less", ["i", "two"], ["cond_out"]),
     helper.make_node("Identity", ["v_in"], ["v_out"]), helper.make_node("Identity", ["big2"], ["scan_out"])],
    "body", [vi("i", I64, []), vi("cond_in", TensorProto.BOOL, []), vi("v_in", F, [1])],
    [vi("cond_out", TensorProto.BOOL, []), vi("v_out", F, [1]), vi("scan_out", F, [256, 256])])
g = helper.make_graph([helper.make_node("Loop", ["M", "c", "v0"], ["v", "scans"], body=body, name="loop")], "g",
                      [vi("v0", F, [1])], [vi("v", F, None), vi("scans", F, None)],
                      initializer=[tensor("M", I64, [], [2 ** 63 - 1]), tensor("c", TensorProto.BOOL, [], [True]),
                                   helper.make_tensor("big2", F, [256, 256], bytes(4 * 65536), raw=True)])
save("loop-while-scan.onnx", g, opset=13)
