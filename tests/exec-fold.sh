#!/bin/sh
# The runner's work saved across runs and values (src/exec/run.c): nodes whose inputs are all constants are computed
# by the first run and kept with the constants (folding; an Identity of a constant is the constant itself), a run
# that feeds an initializer folds nothing that depends on its values (what depends on its shape alone is kept while
# the shape stays: the Shape runs and is compared), and a kernel of Identity, Reshape, Flatten, Squeeze or
# Unsqueeze takes its input as it is when it is the value's last reader (xk_take_input), never when a later node, a
# second input, a 'to' value or --all still reads it.  Every output against numpy.
. "$(dirname "$0")/lib.sh"

have_python_onnx || skip_all "python3 with onnx and numpy is needed to make the test models"
scratch
cd "$TMP" || exit 1

"$PYTHON" - <<'PY' || { echo "1..0 # SKIP could not make the test models"; exit 0; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T

vi = helper.make_tensor_value_info
rng = np.random.default_rng(3)

def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.save(m, name + ".onnx")

# fold: y = x @ Transpose(W) + Identity(B) * Sqrt(Cast(Shape(W)[1]))
W = rng.standard_normal((5, 4)).astype(np.float32)
B = rng.standard_normal((5,)).astype(np.float32)
x = rng.standard_normal((3, 4)).astype(np.float32)
save("fold", [
    helper.make_node("Transpose", ["W"], ["WT"], perm=[1, 0]),
    helper.make_node("Identity", ["B"], ["Bi"]),
    helper.make_node("Shape", ["W"], ["ws"]),
    helper.make_node("Gather", ["ws", "one"], ["w1"], axis=0),
    helper.make_node("Cast", ["w1"], ["w1f"], to=T.FLOAT),
    helper.make_node("Sqrt", ["w1f"], ["s"]),
    helper.make_node("Mul", ["Bi", "s"], ["Bs"]),
    helper.make_node("MatMul", ["x", "WT"], ["xw"]),
    helper.make_node("Add", ["xw", "Bs"], ["y"]),
], [vi("x", T.FLOAT, [3, 4])], [vi("y", T.FLOAT, [3, 5])],
   [("W", W), ("B", B), ("one", np.array(1, np.int64))])
np.save("x.npy", x)
y = (x.astype(np.float64) @ W.T.astype(np.float64)).astype(np.float32) + B * np.float32(2.0)
np.save("y.npy", y)
W2 = rng.standard_normal((5, 4)).astype(np.float32)
np.save("W2.npy", W2)
np.save("y2.npy", (x.astype(np.float64) @ W2.T.astype(np.float64)).astype(np.float32) + B * np.float32(2.0))

# take: r = Relu(x); a = Reshape(r) then b = Add(r, 1) after it (r read twice); c = Identity(Identity(Flatten(
# Unsqueeze(Squeeze(Sigmoid(x))))))
xs = rng.standard_normal((2, 1, 6)).astype(np.float32)
save("take", [
    helper.make_node("Relu", ["x"], ["r"]),
    helper.make_node("Reshape", ["r", "shape"], ["a"]),
    helper.make_node("Add", ["r", "onef"], ["b"]),
    helper.make_node("Sigmoid", ["x"], ["sg"]),
    helper.make_node("Squeeze", ["sg", "ax1"], ["sq"]),
    helper.make_node("Unsqueeze", ["sq", "ax0"], ["us"]),
    helper.make_node("Flatten", ["us"], ["fl"], axis=2),
    helper.make_node("Identity", ["fl"], ["i1"]),
    helper.make_node("Identity", ["i1"], ["c"]),
], [vi("x", T.FLOAT, [2, 1, 6])], [vi("a", T.FLOAT, None), vi("b", T.FLOAT, None), vi("c", T.FLOAT, None)],
   [("shape", np.array([3, 4], np.int64)), ("onef", np.array(1, np.float32)), ("ax1", np.array([1], np.int64)),
    ("ax0", np.array([0], np.int64))])
np.save("xs.npy", xs)
r = np.maximum(xs, 0)
np.save("a.npy", r.reshape(3, 4))
np.save("b.npy", r + np.float32(1))
sg = (1 / (1 + np.exp(-xs.astype(np.float64)))).astype(np.float32)
np.save("c.npy", sg.reshape(2, 6))

# same: products whose B is a constant, through the own kernel in a single run (B read as it lies) and with kept
# constants (B packed once): a Gemm of 20 rows, K across two k blocks, bias and Relu after it; a MatMul with a B
# that a Transpose of an initializer makes (a constant by folding; too big for the own kernel unless constant); a
# batch-one Gemm
xp = rng.standard_normal((20, 600)).astype(np.float32)
x1 = rng.standard_normal((1, 600)).astype(np.float32)
save("same", [
    helper.make_node("Gemm", ["xp", "G", "gb"], ["g"], transB=1),
    helper.make_node("Relu", ["g"], ["gr"]),
    helper.make_node("Transpose", ["M"], ["MT"], perm=[1, 0]),
    helper.make_node("MatMul", ["xp", "MT"], ["mm"]),
    helper.make_node("Gemm", ["x1", "V", "vb"], ["v"], transB=1),
], [vi("xp", T.FLOAT, [20, 600]), vi("x1", T.FLOAT, [1, 600])],
   [vi("gr", T.FLOAT, None), vi("mm", T.FLOAT, None), vi("v", T.FLOAT, None)],
   [("G", rng.standard_normal((48, 600)).astype(np.float32)), ("gb", rng.standard_normal(48).astype(np.float32)),
    ("M", rng.standard_normal((130, 600)).astype(np.float32)),
    ("V", rng.standard_normal((33, 600)).astype(np.float32)), ("vb", rng.standard_normal(33).astype(np.float32))])
np.save("xp.npy", xp)
np.save("x1.npy", x1)
PY

run() { "$ONNXVIEW" run "$@" >out.txt 2>err.txt; echo $? >rc.txt; }

# ---- folding ----
run fold.onnx --input x=x.npy --repeat 3 --expect y=y.npy --profile --json
check "a chain of constants gives numpy's values, every run the same bits (exit 0)" "$PYTHON" -c '
import json; d = json.load(open("out.txt"))
assert d["pass"] and d["repeat"]["same_bits"], d["repeat"]'
check "the first run computes the constants' nodes; the later runs only the MatMul and the Add" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); p = d["profile"]
assert p["run"] == 3 and sorted(n["op"] for n in p["nodes"]) == ["Add", "MatMul"], p["nodes"]
assert d["nodes_run"] == 8 and d["nodes_kept"] == 1, (d["nodes_run"], d["nodes_kept"])'
run fold.onnx --input x=x.npy --repeat 2
check "the report says how many nodes were kept rather than run (the first run: the Identity of a constant)" \
	grep -q '^ran 8 nodes on cpu in [0-9.]* ms; 1 more kept from constants (folded)$' out.txt
run fold.onnx --input x=x.npy --expect y=y.npy --profile --json
check "without kept constants (one run) nothing is kept, and the Identity of a constant is no node run" "$PYTHON" -c '
import json; d = json.load(open("out.txt"))
assert d["pass"] and sorted(n["op"] for n in d["profile"]["nodes"]) == sorted(
    ["Transpose", "Identity", "Shape", "Gather", "Cast", "Sqrt", "Mul", "MatMul", "Add"]), d["profile"]["nodes"]'
run fold.onnx --input x=x.npy --input W=W2.npy --repeat 3 --expect y=y2.npy --profile --json
check "an initializer fed as an input: what depends on its values is computed every run from the value fed; what depends on its shape alone is kept while the shape stays (its Shape runs, as the check)" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); ops = sorted(n["op"] for n in d["profile"]["nodes"])
assert d["pass"] and d["repeat"]["same_bits"], d
assert ops == ["Add", "MatMul", "Shape", "Transpose"], ops'
run fold.onnx --input x=x.npy --repeat 2 --all --json
check "--all with kept constants still reports the folded values" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); names = {v["name"] for v in d["values"]}
assert {"WT", "Bi", "Bs", "s", "y"} <= names, names'

# ---- the same bits in one run as in many ----
run same.onnx --input xp=xp.npy --input x1=x1.npy --save one
run same.onnx --input xp=xp.npy --input x1=x1.npy --repeat 2 --save many
check "products of constant weights: a single run gives the bits of run --repeat (B read as it lies, B kept)" \
	sh -c "cmp one/gr.npy many/gr.npy && cmp one/mm.npy many/mm.npy && cmp one/v.npy many/v.npy"
check "and numpy's values" "$PYTHON" -c '
import numpy as np, onnx
from onnx import numpy_helper
w = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in onnx.load("same.onnx").graph.initializer}
xp, x1 = np.load("xp.npy").astype(np.float64), np.load("x1.npy").astype(np.float64)
for name, ref in (("gr", np.maximum(xp @ w["G"].T + w["gb"], 0)), ("mm", xp @ w["M"].T), ("v", x1 @ w["V"].T + w["vb"])):
    got = np.load("one/%s.npy" % name)
    assert np.abs(got - ref).max() <= 1e-4 * max(1, np.abs(ref).max()), name'

# ---- taking an input ----
run take.onnx --input x=xs.npy --expect a=a.npy --expect b=b.npy --expect c=c.npy --repeat 2
check "Reshape before the Add that reads the same value copies; the Squeeze..Identity chain takes (exit 0)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^PASS: 3 of 3' out.txt && grep -q 'every run gave the same bits' out.txt"
run take.onnx --input x=xs.npy --to r,a,i1,c --json
check "values asked for with --to are left where they are (r and i1 reported whole)" "$PYTHON" -c '
import json, numpy as np; d = json.load(open("out.txt")); v = {x["name"]: x for x in d["values"]}
assert v["r"]["shape"] == [2, 1, 6] and v["i1"]["shape"] == [2, 6] and v["c"]["shape"] == [2, 6], v
xs = np.load("xs.npy"); assert abs(v["r"]["stats"]["max"] - float(np.maximum(xs, 0).max())) < 1e-6'
run take.onnx --input x=xs.npy --all --expect a=a.npy --expect b=b.npy --expect c=c.npy
check "--all: every value reported, the outputs still right" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q \"^value 'sq'\" out.txt && grep -q \"^value 'us'\" out.txt"
done_testing
