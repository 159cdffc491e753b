#!/bin/sh
# The edit engine: set-dim, undo/redo to identical bytes, scripts with line numbers, the journal replaying to the
# same bytes, failed commands leaving nothing behind; and the field report "forgot dynamic_axes" run in
# onnxruntime with batch 4.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1
E() { "$ONNXVIEW" edit "$@"; }
pyq() { "$PYTHON" -c "$@"; }

# set-dim: the input, and the declared output it flows into.
E conv-relu.onnx -e 'set-dim x 0 batch' -o "$TMP/dyn.onnx" 2>"$TMP/notes"
check "set-dim x 0 batch succeeds" [ $? -eq 0 ]
pyq '
import onnx, sys
m = onnx.load(sys.argv[1]); onnx.checker.check_model(m)
assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
assert m.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch", m.graph.output[0]' "$TMP/dyn.onnx"
check "... the input and the output it flows into are both 'batch', and the checker accepts it" [ $? -eq 0 ]
check "... it says which declaration it updated" grep -q "declared 'y': float32\[1,4,4,4\] -> float32\[batch,4,4,4\]" "$TMP/notes"
E conv-relu.onnx -e 'set-dim x 0 ?' -o "$TMP/q.onnx"
pyq 'import onnx,sys; d=onnx.load(sys.argv[1]).graph.input[0].type.tensor_type.shape.dim[0]; assert not d.HasField("dim_value") and not d.HasField("dim_param")' "$TMP/q.onnx"
check "set-dim x 0 ? leaves the dim unnamed and unknown" [ $? -eq 0 ]
E conv-relu.onnx -e 'set-dim x -4 2' -o "$TMP/n.onnx"
pyq 'import onnx,sys; assert onnx.load(sys.argv[1]).graph.input[0].type.tensor_type.shape.dim[0].dim_value == 2' "$TMP/n.onnx"
check "a negative axis counts from the end" [ $? -eq 0 ]

# A Reshape that bakes in the batch: named, never rewritten.
"$PYTHON" - "$TMP/m/flat.onnx" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
g = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["r"], name="relu"),
     helper.make_node("Reshape", ["r", "shape"], ["y"], name="flatten")],
    "flat", [helper.make_tensor_value_info("x", T.FLOAT, [1, 3, 4, 4])],
    [helper.make_tensor_value_info("y", T.FLOAT, [1, 48])],
    [numpy_helper.from_array(np.array([1, 48], dtype=np.int64), "shape")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
E flat.onnx -e 'set-dim x 0 batch' -o "$TMP/flat-dyn.onnx" 2>"$TMP/notes"
check "set-dim on a model with a baked Reshape still succeeds" [ $? -eq 0 ]
check "... and names the constant that still holds the old batch" \
	grep -q "warning: #1 'flatten' Reshape: constant 'shape' = \[1, 48\] still holds 1, the old size of x:0" "$TMP/notes"
pyq 'import onnx,sys; from onnx import numpy_helper as nh; m=onnx.load(sys.argv[1]); assert list(nh.to_array(m.graph.initializer[0]))==[1,48]' "$TMP/flat-dyn.onnx"
check "... without rewriting it by guesswork" [ $? -eq 0 ]

# Failures: one line, status, no output written, input untouched.
cp conv-relu.onnx "$TMP/orig.onnx"
for bad in 'set-dim x 9 batch|axis 9 is out of range' 'set-dim nope 0 batch|is not a graph input or output' \
	'set-dim x 0 -3|cannot be negative' 'set-dim x 0 b@d|is not a dim' 'set-dim x 0|usage: set-dim VALUE AXIS DIM' \
	'frob x|unknown command' 'set-dim x 0 [1|unbalanced' 'undo|nothing to undo' 'redo|nothing to redo'; do
	cmd=${bad%%|*} msg=${bad#*|}
	rm -f "$TMP/out.onnx"
	E conv-relu.onnx -e "$cmd" -o "$TMP/out.onnx" 2>"$TMP/err"
	rc=$?
	check "'$cmd' fails (status $rc)" [ $rc -ne 0 ]
	check "'$cmd': one line naming the problem" sh -c "[ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q -- '$msg' '$TMP/err'"
	check "'$cmd': no output file" [ ! -e "$TMP/out.onnx" ]
done
check "failed commands never touch the input" cmp -s conv-relu.onnx "$TMP/orig.onnx"
E conv-relu.onnx -e 'set-dim x 0 batch' -e 'set-dim x 9 b' -o "$TMP/out.onnx" 2>/dev/null
check "a later failing command means nothing is saved" [ ! -e "$TMP/out.onnx" ]

# Undo and redo restore exactly.
E srcnn.onnx -e 'set-dim input 0 batch' -e 'set-dim input 2 h' -e undo -e undo -o "$TMP/undo.onnx" 2>/dev/null
check "undo of everything saves the original bytes" cmp -s srcnn.onnx "$TMP/undo.onnx"
E srcnn.onnx -e 'set-dim input 0 batch' -o "$TMP/once.onnx" 2>/dev/null
E srcnn.onnx -e 'set-dim input 0 batch' -e undo -e redo -o "$TMP/redo.onnx" 2>/dev/null
check "undo then redo gives the edited bytes" cmp -s "$TMP/once.onnx" "$TMP/redo.onnx"
E external/model.onnx -e 'set-dim x 0 batch' -e undo -o "$TMP/ext-undo.onnx" 2>/dev/null
check "undo on a model with external data restores it exactly" cmp -s external/model.onnx "$TMP/ext-undo.onnx"

# Scripts: comments, blank lines, line numbers in errors; the journal replays to the same bytes.
printf '# make it dynamic\n\nset-dim input 0 batch\nset-dim input 2 h   \nset-dim input 3 w\n' >"$TMP/s.ovs"
E srcnn.onnx -s "$TMP/s.ovs" -o "$TMP/scripted.onnx" --journal "$TMP/journal.ovs" 2>/dev/null
check "a script with comments and blank lines runs" [ $? -eq 0 ]
E srcnn.onnx -s "$TMP/journal.ovs" -o "$TMP/replayed.onnx" 2>/dev/null
check "the journal replays on the original model to the same bytes" cmp -s "$TMP/scripted.onnx" "$TMP/replayed.onnx"
check "the journal lists the applied commands" sh -c "grep -c '^set-dim' '$TMP/journal.ovs' | grep -q 3"
E srcnn.onnx -e 'set-dim input 0 batch' -e undo -o "$TMP/j2.onnx" --journal "$TMP/j2.ovs" 2>/dev/null
check "undone commands are not in the journal" sh -c "! grep -q '^set-dim' '$TMP/j2.ovs'"
printf 'set-dim input 0 batch\nset-dim input 7 x\n' >"$TMP/bad.ovs"
E srcnn.onnx -s "$TMP/bad.ovs" -o "$TMP/bad.onnx" 2>"$TMP/err"
check "a failing script line is named with file and line" grep -q "bad.ovs:2: axis 7 is out of range" "$TMP/err"
E srcnn.onnx -s "$TMP/missing.ovs" -o "$TMP/bad.onnx" 2>"$TMP/err"
check "a missing script: one line, status 3" sh -c "[ $? -eq 3 ] && grep -q 'missing.ovs: cannot open' '$TMP/err'"
printf 'set-dim input 0 b\000x\n' >"$TMP/nul.ovs"
E srcnn.onnx -s "$TMP/nul.ovs" -o "$TMP/bad.onnx" 2>"$TMP/err"
check "a script with a NUL byte is refused" grep -q "NUL byte" "$TMP/err"
E srcnn.onnx -e 'set-dim input 0 batch' -o "$TMP/once.onnx" --journal "$TMP/journal.ovs" 2>"$TMP/err"
check "the journal is never written over an existing file without --force" grep -q "use --force" "$TMP/err"
E srcnn.onnx -e 'save' -o "$TMP/saved-by-cmd.onnx" 2>/dev/null
check "save in a command list writes the -o file" cmp -s srcnn.onnx "$TMP/saved-by-cmd.onnx"

# Field report: batch fixed to 1 at export; made dynamic and run with batch 4 in onnxruntime.
if have_ort; then
	E conv-relu.onnx -e 'set-dim x 0 batch' -o "$TMP/b4.onnx" 2>/dev/null
	"$ORT_PYTHON" - "$TMP/b4.onnx" conv-relu.onnx <<'PY'
import sys, numpy as np, onnxruntime as ort
dyn = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
fixed = ort.InferenceSession(sys.argv[2], providers=["CPUExecutionProvider"])
x = np.random.default_rng(0).standard_normal((4, 3, 8, 8)).astype(np.float32)
y = dyn.run(None, {"x": x})[0]
assert y.shape == (4, 4, 4, 4), y.shape
for i in range(4):
    ref = fixed.run(None, {"x": x[i:i + 1]})[0]
    assert np.abs(y[i:i + 1] - ref).max() < 1e-6
PY
	check "onnxruntime runs the batch-dynamic model with batch 4, each item equal to the batch-1 model" [ $? -eq 0 ]
else
	skip "onnxruntime is not installed (scripts/install-deps.sh puts it in /opt/onnxview-ort)"
fi
# Undo on a model with many large tensors (more than the snapshot's first batch of 64 payloads) gives back every
# weight: an edit and its undo write the original bytes.
"$PYTHON" - "$TMP/many.onnx" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
n, prev, nodes, inits = 100, "x", [], []
for i in range(n):
    inits.append(numpy_helper.from_array(np.full(512, i + 0.5, np.float32), f"w{i}"))
    nodes.append(helper.make_node("Add", [prev, f"w{i}"], [f"a{i}"]))
    prev = f"a{i}"
g = helper.make_graph(nodes, "many", [helper.make_tensor_value_info("x", T.FLOAT, [512])],
                      [helper.make_tensor_value_info(prev, T.FLOAT, [512])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
"$ONNXVIEW" edit "$TMP/many.onnx" -e 'set-dim x 0 n' -e undo -o "$TMP/many-undone.onnx" 2>/dev/null
check "edit then undo on 100 large initializers: the original bytes" cmp -s "$TMP/many.onnx" "$TMP/many-undone.onnx"
"$ONNXVIEW" edit "$TMP/many.onnx" -e 'set-dim x 0 n' -e 'rename w99 w99b' -e undo -e undo -e redo -e undo \
	-o "$TMP/many-undone2.onnx" 2>/dev/null
check "undo, redo, undo across two edits: the original bytes" cmp -s "$TMP/many.onnx" "$TMP/many-undone2.onnx"
done_testing
