#!/bin/sh
# Edit commands that change the graph's declarations and structure: set-shape, set-type, set-attr, del-attr, set-op,
# rename, rename-node, add-output, del-output, set-opset.  Every success is re-read by onnx's checker and undone to
# the original bytes; every refusal is one line, a status, and no file.  Field reports: a custom-domain DeformConv2d
# swapped for a standard Conv until `check` has nothing custom left; a rename that `dump` shows everywhere.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1

# Small models of our own: ops at other opsets, a baked Reshape, a required attribute, a subgraph that shadows.
"$PYTHON" - <<'PY' || { echo "Bail out! could not write the extra models"; exit 1; }
import numpy as np, onnx
from onnx import helper as h, numpy_helper as nh, TensorProto as T
fvi = h.make_tensor_value_info

def save(name, nodes, inputs, outputs, inits=(), opset=13, ir=None, check=True):
    m = h.make_model(h.make_graph(nodes, name, inputs, outputs, list(inits)),
                     opset_imports=[h.make_opsetid("", opset)], producer_name="edit-graph")
    if ir:
        m.ir_version = ir
    if check:
        onnx.checker.check_model(m)
    with open(name + ".onnx", "wb") as f:
        f.write(m.SerializeToString(deterministic=True))

save("resize11", [h.make_node("Resize", ["x", "roi", "scales"], ["y"], name="resize0", mode="nearest")],
     [fvi("x", T.FLOAT, [1, 1, 4, 4])], [fvi("y", T.FLOAT, [1, 1, 8, 8])],
     [h.make_tensor("roi", T.FLOAT, [0], []), nh.from_array(np.array([1, 1, 2, 2], np.float32), "scales")],
     opset=11, ir=6)
save("upsample9", [h.make_node("Upsample", ["x", "scales"], ["y"], name="up0", mode="nearest")],
     [fvi("x", T.FLOAT, [1, 1, 4, 4])], [fvi("y", T.FLOAT, [1, 1, 8, 8])],
     [nh.from_array(np.array([1, 1, 2, 2], np.float32), "scales")], opset=9)
save("gridsample16", [h.make_node("GridSample", ["x", "grid"], ["y"], name="gs0")],
     [fvi("x", T.FLOAT, [1, 1, 4, 4]), fvi("grid", T.FLOAT, [1, 4, 4, 2])], [fvi("y", T.FLOAT, [1, 1, 4, 4])],
     opset=16)
save("flatcat", [h.make_node("Reshape", ["x", "shape"], ["flat"], name="flatten"),
                 h.make_node("Concat", ["flat", "flat"], ["y"], name="cat0", axis=1)],
     [fvi("x", T.FLOAT, [1, 3, 4, 4])], [fvi("y", T.FLOAT, [1, 96])],
     [nh.from_array(np.array([1, 48], np.int64), "shape")])
# ONNX forbids a subgraph reusing an outer name (SSA), but files like this exist: rename must leave its own alone.
then_g = h.make_graph([h.make_node("Neg", ["x"], ["a"], name="then_neg"),
                       h.make_node("Identity", ["a"], ["then_out"], name="then_id")],
                      "then_branch", [], [fvi("then_out", T.FLOAT, [2])])
else_g = h.make_graph([h.make_node("Identity", ["a"], ["else_out"], name="else_id")],
                      "else_branch", [], [fvi("else_out", T.FLOAT, [2])])
save("shadow", [h.make_node("Relu", ["x"], ["a"], name="relu0"),
                h.make_node("If", ["cond"], ["y"], name="if0", then_branch=then_g, else_branch=else_g)],
     [fvi("cond", T.BOOL, []), fvi("x", T.FLOAT, [2])], [fvi("y", T.FLOAT, [2])], check=False)
ghost_then = h.make_graph([h.make_node("Identity", ["ghost"], ["then_out"], name="then_id")],
                          "then_branch", [], [fvi("then_out", T.FLOAT, [2])])
ghost_else = h.make_graph([h.make_node("Identity", ["x"], ["else_out"], name="else_id")],
                          "else_branch", [], [fvi("else_out", T.FLOAT, [2])])
save("ghost", [h.make_node("If", ["cond"], ["y"], name="if0", then_branch=ghost_then, else_branch=ghost_else)],
     [fvi("cond", T.BOOL, []), fvi("x", T.FLOAT, [2])], [fvi("y", T.FLOAT, [2])], check=False)
PY

E() { "$ONNXVIEW" edit "$@"; }
valid() { "$PYTHON" -c 'import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))' "$1" >/dev/null 2>&1; }
n=0
# ok_edit MODEL CMD: the command applies, onnx's checker accepts the result ($OUT; the notes in $NOTES), and the
# command followed by undo saves the original bytes.  NOCHECK=1 skips the checker (for a model it rejects anyway);
# INVALID=1 expects it to reject the result (the command warned that it would).
ok_edit() {
	model=$1 cmd=$2
	n=$((n + 1))
	OUT="$TMP/ok$n.onnx" NOTES="$TMP/ok$n.notes"
	E "$model" -e "$cmd" -o "$OUT" 2>"$NOTES"
	check "$model: '$cmd' succeeds" [ $? -eq 0 ]
	if [ -n "${INVALID:-}" ]; then
		if valid "$OUT"; then not_ok "... onnx.checker rejects the result too, as warned"
		else ok "... onnx.checker rejects the result too, as warned"; fi
	elif [ -z "${NOCHECK:-}" ]; then
		check "... onnx.checker accepts the result" valid "$OUT"
	fi
	E "$model" -e "$cmd" -e undo -o "$TMP/undo$n.onnx" 2>/dev/null
	check "... and undo gives back the original bytes" cmp -s "$model" "$TMP/undo$n.onnx"
}
# says LINE: the last ok_edit printed this note (after "onnxview: ").
says() { check "... says: $1" grep -qxF "onnxview: $1" "$NOTES"; }
quiet() { check "... and nothing else" [ "$(wc -l <"$NOTES")" -eq "$1" ]; }
# py CODE DESC: a python check of the last result, loaded as m (g = m.graph).
py() {
	"$PYTHON" -c "import onnx, sys
m = onnx.load(sys.argv[1]); g = m.graph
$1" "$OUT"
	check "... $2" [ $? -eq 0 ]
}
# fails MODEL CMD STATUS MESSAGE: refused with that status and exactly that one line, writing nothing.
fails() {
	model=$1 cmd=$2 want=$3 msg=$4
	rm -f "$TMP/fail.onnx"
	E "$model" -e "$cmd" -o "$TMP/fail.onnx" 2>"$TMP/err"
	rc=$?
	check "$model: '$cmd' is refused with status $want" [ $rc -eq "$want" ]
	check "... in one line: $msg" sh -c '[ "$(cat "$1")" = "$2" ]' sh "$TMP/err" "onnxview: $model: '$cmd': $msg"
	if [ "$(cat "$TMP/err")" != "onnxview: $model: '$cmd': $msg" ]; then diag "got: $(cat "$TMP/err")"; fi
	check "... and writes nothing" [ ! -e "$TMP/fail.onnx" ]
}
dim() { echo "g.$1.type.tensor_type.shape.dim"; }

# ---- set-shape ----
ok_edit conv-relu.onnx 'set-shape x [N,3,8,8]'
says "'x': float32[1,3,8,8] -> float32[N,3,8,8]"
says "declared 'y': float32[1,4,4,4] -> float32[N,4,4,4]"
py "d = $(dim 'input[0]'); assert [x.dim_param or x.dim_value for x in d] == ['N', 3, 8, 8], d
assert g.output[0].type.tensor_type.shape.dim[0].dim_param == 'N'" "the input is [N,3,8,8] and the output follows"
ok_edit conv-relu.onnx 'set-shape x [1,3,16,16]'
says "declared 'y': float32[1,4,4,4] -> float32[1,4,8,8]"
ok_edit conv-relu.onnx 'set-shape x ["batch",3,?,w]'
py "d = $(dim 'input[0]'); assert d[0].dim_param == 'batch' and d[3].dim_param == 'w'
assert not d[2].HasField('dim_value') and not d[2].HasField('dim_param')" "a quoted name, ? and a bare name"
ok_edit conv-relu.onnx 'set-shape conv_out [1,4,9,9]'
says "warning: onnxview computes float32[1,4,8,8] for 'conv_out' from the graph; the declaration now disagrees (onnxview check reports the conflict)"
py "assert [x.dim_value for x in $(dim 'value_info[0]')] == [1, 4, 9, 9]" "the value_info says what was asked"
ok_edit flatcat.onnx 'set-shape x [N,3,4,4]'
says "warning: #0 'flatten' Reshape: constant 'shape' = [1, 48] still holds 1, the old size of x:0 (fix it with set-tensor shape ...)"
# An inner value with no declaration gets a value_info; its type must be known first.
fails custom-domain.onnx 'set-shape d [1,4,8,8]' 1 "the type of 'd' is unknown: declare it first (set-type d DTYPE)"
n=$((n + 1)); OUT="$TMP/ok$n.onnx"
E custom-domain.onnx -e 'set-type d float32' -e 'set-shape d [1,4,8,8]' -o "$OUT" 2>/dev/null
check "custom-domain.onnx: set-type then set-shape on a custom op's output" [ $? -eq 0 ]
py "vi = [v for v in g.value_info if v.name == 'd']; assert len(vi) == 1
assert vi[0].type.tensor_type.elem_type == 1 and [x.dim_value for x in vi[0].type.tensor_type.shape.dim] == [1, 4, 8, 8]" \
	"... declares it in value_info"
fails conv-relu.onnx 'set-shape W [1]' 1 "'W' is an initializer: its shape is that of its data (use set-tensor)"
fails conv-relu.onnx 'set-shape x 3' 2 "'3' is not a shape: give the dims in brackets, as [1,3,224,224] ([] for a scalar)"
fails conv-relu.onnx 'set-shape x [1,-3]' 2 "dim 1: a dim cannot be negative (-3); use a name such as 'batch' or ? for a dynamic dim"
fails conv-relu.onnx 'set-shape nope [1]' 1 "no value named 'nope' in the graph"
fails resize-constant.onnx 'set-shape scales [2]' 1 "'scales' is the output of Constant #0: its shape is that of the constant (use set-tensor)"

# ---- set-type ----
ok_edit conv-relu.onnx 'set-type x float16'
says "'x': float32[1,3,8,8] -> float16[1,3,8,8]"
says "declared 'y': float32[1,4,4,4] -> float16[1,4,4,4]"
says "warning: #0 'conv0' Conv: 'x' is now float16 but 'W' is float32 (Conv-11 takes one type for T)"
py "assert g.input[0].type.tensor_type.elem_type == 10 and g.output[0].type.tensor_type.elem_type == 10" \
	"the input and the output it flows into are float16"
ok_edit conv-relu.onnx 'set-type x int64'
says "warning: #0 'conv0' Conv: Conv-11 does not take int64 for input 'X' (T)"
ok_edit conv-relu.onnx 'set-type y float64'
says "warning: onnxview computes float32[1,4,4,4] for 'y' from the graph; the declaration now disagrees (onnxview check reports the conflict)"
fails conv-relu.onnx 'set-type x flaot' 2 "'flaot' is not a data type (float32, float16, bfloat16, float64, int64, int32, int8, uint8, bool, string...)"
fails conv-relu.onnx 'set-type B float16' 1 "'B' is an initializer: its type is that of its data (use set-tensor)"

# ---- set-attr / del-attr ----
ok_edit conv-relu.onnx 'set-attr conv0 pads [0,0,0,0]'
says "#0 'conv0' Conv: pads [1, 1, 1, 1] -> [0, 0, 0, 0]"
quiet 1
py "a = g.node[0].attribute; assert [x.name for x in a] == ['kernel_shape', 'pads'] and list(a[1].ints) == [0, 0, 0, 0]
assert a[1].type == onnx.AttributeProto.INTS" "replaced in place, as INTS"
ok_edit conv-relu.onnx 'set-attr conv0 group 1'
says "#0 'conv0' Conv: group (not set: default 1) -> 1"
py "a = g.node[0].attribute[-1]; assert a.name == 'group' and a.type == onnx.AttributeProto.INT and a.i == 1" \
	"a new attribute goes last, typed INT"
ok_edit resize-constant.onnx 'set-attr resize0 mode "linear"'
says "#1 'resize0' Resize: mode \"nearest\" -> \"linear\""
py "assert g.node[1].attribute[0].s == b'linear'" "a quoted STRING"
ok_edit resize-constant.onnx 'set-attr resize0 coordinate_transformation_mode align_corners'
py "assert g.node[1].attribute[-1].s == b'align_corners'" "a bare STRING"
ok_edit resize-constant.onnx 'set-attr resize0 cubic_coeff_a -0.5'
py "a = g.node[1].attribute[-1]; assert a.type == onnx.AttributeProto.FLOAT and a.f == -0.5" "a FLOAT"
ok_edit custom-domain.onnx 'set-attr deform0 groups 2'
says "#0 'deform0' custom::DeformConv2d: groups 1 -> 2"
quiet 1
ok_edit custom-domain.onnx 'set-attr deform0 names ["a","b c"]'
says "#0 'deform0' custom::DeformConv2d has no schema in onnxview's op database: 'names' is STRINGS by the form of the value"
py "a = g.node[0].attribute[-1]; assert a.type == onnx.AttributeProto.STRINGS and list(a.strings) == [b'a', b'b c']" \
	"a new custom attribute takes its type from the value"
ok_edit custom-domain.onnx 'set-attr deform0 alpha 0.5'
py "assert g.node[0].attribute[-1].type == onnx.AttributeProto.FLOAT" "0.5 reads as a FLOAT"
fails conv-relu.onnx 'set-attr conv0 foo 1' 1 "Conv-11 takes no attribute 'foo' (it takes: auto_pad, dilations, group, kernel_shape, pads, strides)"
fails conv-relu.onnx 'set-attr relu0 alpha 1' 1 "Relu-13 takes no attribute 'alpha' (it takes none)"
fails conv-relu.onnx 'set-attr conv0 group x' 2 "attribute 'group' of Conv is INT: 'x' is not an integer"
fails conv-relu.onnx 'set-attr conv0 group [1,2]' 2 "attribute 'group' of Conv is INT: '[1,2]' is a list; INT takes one value"
fails custom-domain.onnx 'set-attr deform0 groups 2.5' 2 "attribute 'groups' of #0 'deform0' custom::DeformConv2d is INT: '2.5' is not an integer"
fails resize-constant.onnx 'set-attr scales_const value [1]' 1 "'value' of #0 'scales_const' Constant is a tensor: change it with set-tensor scales VALUES (the Constant's output)"
fails conv-relu.onnx 'set-attr #9 group 1' 1 "no node #9 (the graph has nodes #0 to #2)"
ok_edit conv-relu.onnx 'del-attr conv0 pads'
says "#0 'conv0' Conv: removed pads = [1, 1, 1, 1]"
py "assert [a.name for a in g.node[0].attribute] == ['kernel_shape']" "the attribute is gone"
ok_edit resize-constant.onnx 'del-attr resize0 mode'
says "#1 'resize0' Resize: removed mode = \"nearest\"; the default applies: \"nearest\""
fails flatcat.onnx 'del-attr cat0 axis' 1 "'axis' is required by Concat-13 (change it with set-attr #1 axis VALUE)"
fails conv-relu.onnx 'del-attr conv0 strides' 1 "#0 'conv0' Conv has no attribute 'strides' (it has: kernel_shape, pads)"

# ---- set-op ----
ok_edit conv-relu.onnx 'set-op relu0 Sigmoid'
says "#1 'relu0' Relu -> Sigmoid"
quiet 1
py "assert g.node[1].op_type == 'Sigmoid' and list(g.node[1].input) == ['conv_out'] and list(g.node[1].output) == ['relu_out']" \
	"the op changes, the edges stay"
INVALID=1 ok_edit conv-relu.onnx 'set-op relu0 Concat'
says "warning: #1 'relu0' Concat: Concat-13 requires attribute 'axis' (INT) (set-attr #1 axis VALUE)"
INVALID=1 ok_edit conv-relu.onnx 'set-op relu0 Add'
says "warning: #1 'relu0' Add: 1 input; Add-13 takes 2"
ok_edit conv-relu.onnx 'set-op relu0 MyRelu my.ops'
says "imported domain 'my.ops' at version 1 (custom domains are versioned by the runtime that implements them; change it with set-opset my.ops N)"
py "assert g.node[1].domain == 'my.ops' and [(o.domain, o.version) for o in m.opset_import] == [('', 13), ('my.ops', 1)]" \
	"the node's domain is set and imported"
fails conv-relu.onnx 'set-op relu0 GridSample' 1 "GridSample does not exist in ai.onnx at opset 13 (it was added at opset 16: set-opset 16 first)"
fails conv-relu.onnx 'set-op relu0 Rleu' 1 "no operator 'Rleu' in ai.onnx (did you mean 'Relu'?)"
fails conv-relu.onnx 'set-op relu0 Upsample' 1 "Upsample was removed from ai.onnx at opset 10; the model uses opset 13"
fails conv-relu.onnx 'set-op relu0 Relu' 1 "#1 'relu0' Relu is already ai.onnx::Relu"

# Field report: a custom::DeformConv2d that TensorRT cannot parse, swapped for a standard Conv.
n=$((n + 1)); OUT="$TMP/ok$n.onnx"
E custom-domain.onnx -e 'set-op deform0 Conv' -o "$OUT" 2>"$TMP/notes"
check "custom-domain.onnx: set-op deform0 Conv" [ $? -eq 0 ]
check "... names every attribute Conv does not take, with the command that removes it" \
	[ "$(grep -c "warning: #0 'deform0' Conv: Conv-11 takes no attribute '.*' (remove it: del-attr #0 " "$TMP/notes")" -eq 5 ]
E custom-domain.onnx -e 'set-op deform0 Conv' -e 'del-attr deform0 dilation' -e 'del-attr deform0 groups' \
	-e 'del-attr deform0 offset_groups' -e 'del-attr deform0 padding' -e 'del-attr deform0 stride' \
	-e 'set-attr deform0 pads [1,1,1,1]' -o "$OUT" --force 2>/dev/null
check "... then the attributes fixed with del-attr and set-attr" [ $? -eq 0 ]
check "... onnx.checker accepts it" valid "$OUT"
"$ONNXVIEW" check "$OUT" >"$TMP/check.txt"
check "... onnxview check finds no custom domain left" sh -c "! grep -q 'custom' '$TMP/check.txt'"
check "... and nothing wrong with the Conv" sh -c "! grep -q \"#0 'deform0'\" '$TMP/check.txt'"
check "... (the ATen node is still reported)" grep -q "aten-fallback" "$TMP/check.txt"

# ---- rename ----
ok_edit conv-relu.onnx 'rename relu_out act'
says "renamed 'relu_out' to 'act' (3 references)"
"$ONNXVIEW" dump "$OUT" >"$TMP/dump.txt"
check "... dump shows the old name nowhere" sh -c "! grep -q relu_out '$TMP/dump.txt'"
check "... and the new one as relu0's output and pool0's input" \
	sh -c "grep -q '^  out  act  float32\[1,4,8,8\]' '$TMP/dump.txt' && grep -q '^  in   act  float32\[1,4,8,8\]  node output' '$TMP/dump.txt'"
py "assert [v.name for v in g.value_info] == ['conv_out', 'act']" "value_info follows"
ok_edit conv-relu.onnx 'rename x input0'
py "assert g.input[0].name == 'input0' and g.node[0].input[0] == 'input0'" "a graph input"
ok_edit conv-relu.onnx 'rename W weight'
py "assert g.initializer[0].name == 'weight' and g.node[0].input[1] == 'weight'" "an initializer"
ok_edit conv-relu.onnx 'rename y out'
py "assert g.output[0].name == 'out' and g.node[2].output[0] == 'out'" "a graph output"
ok_edit sparse.onnx 'rename sp_linear spl'
py "assert g.sparse_initializer[0].values.name == 'spl' and g.node[0].input[1] == 'spl'" "a sparse initializer"
ok_edit if-subgraph.onnx 'rename x xx'
says "renamed 'x' to 'xx' (4 references)"
py "br = {a.name: a.g for n in g.node for a in n.attribute if a.g.node}
assert br['else_branch'].node[0].input[0] == 'xx' and br['body'].node[1].input[1] == 'xx'" \
	"subgraphs that read it follow"
NOCHECK=1 ok_edit shadow.onnx 'rename a b'
py "br = {a.name: a.g for a in g.node[1].attribute}
assert [list(n.input) for n in br['then_branch'].node] == [['x'], ['a']], br['then_branch']
assert br['else_branch'].node[0].input[0] == 'b'" "a subgraph with its own 'a' keeps it; the one reading ours follows"
fails conv-relu.onnx 'rename relu_out conv_out' 1 "'conv_out' already names a value of the graph (node output)"
fails if-subgraph.onnx 'rename outer then_out' 1 "a subgraph of node #1 defines a 'then_out' of its own and reads 'outer': it would read its own value instead"
fails ghost.onnx 'rename x ghost' 1 "a subgraph of node #0 reads 'ghost', which nothing defines: the new name would bind it to this value"
fails conv-relu.onnx 'rename x ""' 2 "the new name cannot be empty"
fails conv-relu.onnx 'rename nope x2' 1 "no value named 'nope' in the graph"

# ---- rename-node ----
ok_edit conv-relu.onnx 'rename-node conv0 first_conv'
says "#0 'conv0' Conv is now named 'first_conv'"
py "assert [n.name for n in g.node] == ['first_conv', 'relu0', 'pool0']" "the node is renamed"
ok_edit conv-relu.onnx 'rename-node #2 pool'
fails conv-relu.onnx 'rename-node conv0 relu0' 1 "node #1 is already named 'relu0' (node names must be unique)"
fails conv-relu.onnx 'rename-node conv0 #5' 2 "'#5': a node name cannot start with '#' (#N names a node by its index)"

# ---- add-output / del-output ----
ok_edit conv-relu.onnx 'add-output conv_out'
says "added output 1 'conv_out': float32[1,4,8,8] (declared)"
py "assert [o.name for o in g.output] == ['y', 'conv_out'] and len(g.output[1].type.tensor_type.shape.dim) == 4" \
	"a declared value becomes output 1 with its type"
ok_edit srcnn.onnx 'add-output c1'
says "added output 1 'c1': float32[1,8,48,48] (inferred)"
ok_edit srcnn.onnx 'add-output scales'
says "added output 1 'scales': float32[4] (constant)"
ok_edit dynamic.onnx 'add-output t'
says "added output 1 't': float32[batch,3,h,w] (inferred)"
fails conv-relu.onnx 'add-output y' 1 "'y' is already graph output 0"
fails custom-domain.onnx 'add-output d' 1 "the type of 'd' is unknown (no declaration, and onnxview cannot infer it): declare it first (set-type d DTYPE)"
ok_edit if-subgraph.onnx 'del-output scans'
says "removed output 'scans'"
quiet 1
py "assert [o.name for o in g.output] == ['v_final']" "the output is gone"
ok_edit conv-relu.onnx 'del-output y'
says "warning: the graph has no output now; a runtime will refuse it (add-output VALUE)"
fails conv-relu.onnx 'del-output relu_out' 1 "'relu_out' is not a graph output (the outputs are 'y')"

# ---- set-opset ----
ok_edit resize11.onnx 'set-opset 13'
says "ai.onnx opset 11 -> 13"
says "IR version 6 -> 7 (ai.onnx opset 13 needs IR version 7 or newer)"
says "Resize changes from Resize-11 to Resize-13: #0 'resize0' Resize"
quiet 3
py "assert m.opset_import[0].version == 13 and m.ir_version == 7" "the import and the IR version change"
INVALID=1 ok_edit srcnn.onnx 'set-opset 10'
says "Resize changes from Resize-13 to Resize-10: #0 'resize0' Resize"
says "warning: #0 'resize0' Resize: 3 inputs; Resize-10 takes 2"
says "Conv changes from Conv-11 to Conv-1: #1 'conv1' Conv, #3 'conv2' Conv, #5 'conv3' Conv"
INVALID=1 ok_edit upsample9.onnx 'set-opset 10'
says "warning: Upsample was removed from ai.onnx at opset 10: #0 'up0' Upsample"
INVALID=1 ok_edit gridsample16.onnx 'set-opset 13'
says "warning: GridSample does not exist in ai.onnx at opset 13 (it was added at opset 16): #0 'gs0' GridSample"
ok_edit if-subgraph.onnx 'set-opset 9'
says "Identity changes from Identity-13 to Identity-1: 'then_id' Identity (in a subgraph of #1), 'body_cond' Identity (in a subgraph of #2), 'body_scan' Identity (in a subgraph of #2)"
ok_edit custom-domain.onnx 'set-opset custom 2'
says "custom opset 1 -> 2"
quiet 1
ok_edit conv-relu.onnx 'set-opset com.example 3'
says "imported com.example at opset 3"
py "assert [(o.domain, o.version) for o in m.opset_import] == [('', 13), ('com.example', 3)]" "the import is added"
fails conv-relu.onnx 'set-opset 13' 1 "the model already imports ai.onnx at opset 13"
fails conv-relu.onnx 'set-opset 0' 2 "opset version 0: versions start at 1"
fails conv-relu.onnx 'set-opset x' 2 "opset version: 'x' is not an integer"

# Commands chain: the journal replays them to the same bytes.
E conv-relu.onnx -e 'rename x input' -e 'set-shape input [N,3,8,8]' -e 'set-attr conv0 pads [0,0,0,0]' \
	-e 'add-output relu_out' -e 'set-opset 17' -o "$TMP/chain.onnx" --journal "$TMP/chain.txt" 2>/dev/null
check "five commands in a row" [ $? -eq 0 ]
E conv-relu.onnx -s "$TMP/chain.txt" -o "$TMP/replay.onnx" 2>/dev/null
check "... their journal replays to the same bytes" cmp -s "$TMP/chain.onnx" "$TMP/replay.onnx"
check "... which onnx.checker accepts" valid "$TMP/chain.onnx"
done_testing
