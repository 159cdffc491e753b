#!/bin/sh
# Structural edits: delete-node, cleanup and extract, on small models made here and on real PyTorch exports.  Results
# pass onnx.checker and, where onnxruntime is installed, compute what the original computed; undo gives back the
# original bytes; a refused command names what is in the way and writes no file.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/gm" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP" || exit 1

# ---- small models for these tests ----
"$PYTHON" - "$TMP" <<'EOF' || { echo "Bail out! making the test models failed"; exit 1; }
import sys
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]


def save(g, name, check=True, ir=8):
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], producer_name="edit-cut")
    m.ir_version = ir
    if check:
        onnx.checker.check_model(m)
    with open(f"{out}/{name}.onnx", "wb") as f:
        f.write(m.SerializeToString(deterministic=True))


def f(n, s):
    return h.make_tensor_value_info(n, T.FLOAT, s)


def const(name, value):
    return nh.from_array(np.array(value, np.float32), name)


# A chain with a Dropout (ratio), an Identity, a Clip (bounds), a bias Add, an Identity to the output, and a dead
# branch (a Mul on an initializer, a Constant, an Add) with value_info for its values.
nodes = [
    h.make_node("Relu", ["x"], ["r"], name="relu"),
    h.make_node("Dropout", ["r", "ratio"], ["d", "mask"], name="drop"),
    h.make_node("Identity", ["d"], ["i"], name="ident"),
    h.make_node("Clip", ["i", "cmin", "cmax"], ["c"], name="clip"),
    h.make_node("Add", ["c", "w"], ["y"], name="bias"),
    h.make_node("Mul", ["r", "dead_w"], ["dead1"], name="dead_mul"),
    h.make_node("Constant", [], ["k"], name="kconst", value=const("kv", [2.0])),
    h.make_node("Add", ["dead1", "k"], ["dead2"], name="dead_add"),
    h.make_node("Identity", ["y"], ["y2"], name="out_ident"),
]
save(h.make_graph(nodes, "chain", [f("x", [1, 4])], [f("y2", [1, 4])],
                  [const("ratio", 0.5), const("cmin", 0.0), const("cmax", 6.0), const("w", np.ones((1, 4))),
                   const("dead_w", np.ones((1, 4)))],
                  value_info=[f("r", [1, 4]), f("d", [1, 4]), f("dead1", [1, 4]), f("dead2", [1, 4])]), "chain")

# Two Clips sharing their bounds; a Dropout whose ratio is a Constant node; a Reshape; a two-input Add.
nodes = [
    h.make_node("Clip", ["x", "lo", "hi"], ["c1"], name="clip1"),
    h.make_node("Clip", ["c1", "lo", "hi"], ["c2"], name="clip2"),
    h.make_node("Constant", [], ["ratio"], name="ratio_const", value=const("rv", 0.1)),
    h.make_node("Dropout", ["c2", "ratio"], ["d"], name="drop"),
    h.make_node("Reshape", ["d", "shape"], ["rs"], name="reshape"),
    h.make_node("Relu", ["x"], ["xr"], name="relu"),
    h.make_node("Reshape", ["xr", "shape"], ["xrs"], name="reshape2"),
    h.make_node("Add", ["rs", "xrs"], ["sum"], name="add"),
    h.make_node("Neg", ["sum"], ["y"], name="neg"),
    h.make_node("Abs", ["sum"], ["y_abs"], name="abs"),
]
save(h.make_graph(nodes, "shared", [f("x", [2, 3])], [f("y", [6]), f("y_abs", [6])],
                  [const("lo", -1.0), const("hi", 1.0), nh.from_array(np.array([6], np.int64), "shape")]),
     "shared")

# An If whose branches capture a value computed in the main graph; a dead Relu.
then_g = h.make_graph([h.make_node("Identity", ["t"], ["o1"])], "then", [], [f("o1", [2])])
else_g = h.make_graph([h.make_node("Neg", ["t"], ["o2"])], "else", [], [f("o2", [2])])
nodes = [
    h.make_node("Identity", ["x"], ["t"], name="pre"),
    h.make_node("If", ["cond"], ["z"], name="branch", then_branch=then_g, else_branch=else_g),
    h.make_node("Relu", ["x"], ["unused_r"], name="dead_relu"),
]
save(h.make_graph(nodes, "capture", [f("x", [2]), h.make_tensor_value_info("cond", T.BOOL, [])], [f("z", [2])]),
     "capture")

# The same, but a branch defines its own 'x' (not valid ONNX, but met in the wild): bypassing 'pre' would change
# what the branch reads.
then_g = h.make_graph([h.make_node("Neg", ["t"], ["x"]), h.make_node("Add", ["x", "t"], ["o1"])], "then", [],
                      [f("o1", [2])])
nodes = [
    h.make_node("Identity", ["x"], ["t"], name="pre"),
    h.make_node("If", ["cond"], ["z"], name="branch", then_branch=then_g, else_branch=else_g),
]
save(h.make_graph(nodes, "shadow", [f("x", [2]), h.make_tensor_value_info("cond", T.BOOL, [])], [f("z", [2])]),
     "shadow", check=False)

# Identity from a graph input to a graph output, once with the input also a graph output.
save(h.make_graph([h.make_node("Identity", ["x"], ["y"], name="id")], "pass", [f("x", [2])], [f("y", [2])]), "pass")
save(h.make_graph([h.make_node("Identity", ["x"], ["y"], name="id")], "pass2", [f("x", [2])],
                  [f("y", [2]), f("x", [2])]), "pass2")

# A Split whose outputs meet again.
nodes = [h.make_node("Split", ["x"], ["a", "b"], name="split", axis=0),
         h.make_node("Add", ["a", "b"], ["y"], name="add")]
save(h.make_graph(nodes, "split", [f("x", [4])], [f("y", [2])]), "split")

# A Dropout whose mask is used.
nodes = [h.make_node("Dropout", ["x"], ["d", "mask"], name="drop"),
         h.make_node("Cast", ["mask"], ["m"], name="cast", to=T.FLOAT)]
save(h.make_graph(nodes, "mask", [f("x", [2])], [f("d", [2]), f("m", [2])]), "mask")

# Old style: every initializer is also a graph input, one of them unused.
nodes = [h.make_node("Add", ["x", "b"], ["y"], name="add")]
save(h.make_graph(nodes, "oldstyle", [f("x", [2]), f("b", [2]), f("unused_w", [3])], [f("y", [2])],
                  [const("b", [1.0, 2.0]), const("unused_w", [1.0, 2.0, 3.0])]), "oldstyle", ir=3)
EOF

# ---- helpers ----
# pyq MODEL EXPR: print a Python expression over m (the model) and g (its graph).
pyq() { "$PYTHON" -c "import onnx, sys; m = onnx.load(sys.argv[1]); g = m.graph; print(repr(($2)))" "$1"; }
# The model passes onnx.checker (full check: shapes too); its complaint, if any, goes to the log.
onnx_ok() {
	"$PYTHON" -c 'import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)' "$1" \
		>"$TMP/checker" 2>&1 && return 0
	sed 's/^/# /' "$TMP/checker" | tail -5
	return 1
}
# edit MODEL OUT COMMAND...: onnxview edit with one -e per command, messages to $TMP/err.
edit() {
	local model=$1 o=$2 c
	shift 2
	rm -f "$o"
	for c; do
		set -- "$@" -e "$c"
		shift
	done
	"$ONNXVIEW" edit "$model" "$@" -o "$o" 2>"$TMP/err"
}
said() { grep -qF -- "$1" "$TMP/err" || { sed 's/^/# /' "$TMP/err"; return 1; }; }
# refused DESC PATTERN MODEL COMMAND [STATUS]: exits STATUS (1), says PATTERN, writes no file.
refused() {
	edit "$3" "$TMP/fail.onnx" "$4"
	local rc=$?
	if [ $rc -eq "${5:-1}" ] && said "$2" && [ ! -e "$TMP/fail.onnx" ]; then
		ok "$1"
	else
		not_ok "$1 (status $rc)"
	fi
}
# undone DESC MODEL COMMAND: the command, then undo, saves the original bytes.
undone() {
	edit "$2" "$TMP/undo.onnx" "$3" undo
	check "$1" cmp -s "$2" "$TMP/undo.onnx"
}
# Compare a cut with the full model on onnxruntime: FULL has the cut's inputs and outputs as extra outputs; random
# inputs go to FULL, its values to CUT, and every output of CUT must match FULL's value of that name.
ort_compare() {
	"$ORT_PYTHON" - "$1" "$2" <<'EOF'
import sys
import numpy as np
import onnxruntime as ort

so = ort.SessionOptions()
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # the same arithmetic in both runs
full = ort.InferenceSession(sys.argv[1], so, providers=["CPUExecutionProvider"])
cut = ort.InferenceSession(sys.argv[2], so, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(1)
def make(i):
    shape = [d if isinstance(d, int) else 1 for d in i.shape]
    if i.type == "tensor(bool)":
        return np.array(rng.random(shape) < 0.5)
    return rng.standard_normal(shape).astype(np.float32)
feeds = {i.name: make(i) for i in full.get_inputs()}
values = dict(feeds)
values.update(zip([o.name for o in full.get_outputs()], full.run(None, feeds)))
got = cut.run(None, {i.name: values[i.name] for i in cut.get_inputs()})
worst = max(float(np.max(np.abs(g - values[o.name]))) if g.size else 0.0 for g, o in zip(got, cut.get_outputs()))
print(f"# max abs error {worst:g}")
sys.exit(0 if worst < 1e-5 else 1)
EOF
}
# with_outputs MODEL OUT NAME...: MODEL with the named values added as graph outputs (python onnx).
with_outputs() {
	"$PYTHON" - "$@" <<'EOF'
import sys
import onnx
m = onnx.load(sys.argv[1])
for n in sys.argv[3:]:
    m.graph.output.append(onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None))
onnx.save(m, sys.argv[2])
EOF
}

# ---- delete-node ----
edit chain.onnx o.onnx "delete-node drop"
check "delete-node on a Dropout succeeds" [ $? -eq 0 ]
check "... says what it did" said "deleted #1 'drop' (Dropout): 1 consumer now reads 'r'; removed what only it read: 'ratio'"
check "... the Identity after it reads its input" \
	[ "$(pyq o.onnx '[n.input for n in g.node if n.name == "ident"][0]')" = "['r']" ]
check "... its ratio initializer and the value_info of its output are gone" \
	[ "$(pyq o.onnx '[t.name for t in g.initializer], [v.name for v in g.value_info]')" = \
	  "(['cmin', 'cmax', 'w', 'dead_w'], ['r', 'dead1', 'dead2'])" ]
check "... and the model passes onnx.checker" onnx_ok o.onnx
undone "undo after delete-node gives back the original bytes" chain.onnx "delete-node drop"

edit chain.onnx o.onnx "delete-node #3"
check "delete-node #3 (a Clip) removes its bounds with it" \
	[ "$(pyq o.onnx '[t.name for t in g.initializer]')" = "['ratio', 'w', 'dead_w']" ]
check "... and says so" said "deleted #3 'clip' (Clip): 1 consumer now reads 'i'; removed what only it read: 'cmin', 'cmax'"
edit chain.onnx o.onnx "delete-node out_ident"
check "delete-node before a graph output: the output takes the input's name" \
	[ "$(pyq o.onnx '[o.name for o in g.output]')" = "['y']" ]
check "... and says so" said "graph output 'y2' is now named 'y'"
check "... and passes onnx.checker" onnx_ok o.onnx

edit shared.onnx o.onnx "delete-node clip1"
check "bounds another Clip still reads stay" \
	[ "$(pyq o.onnx '[t.name for t in g.initializer]')" = "['lo', 'hi', 'shape']" ]
edit shared.onnx o.onnx "delete-node drop"
check "a Constant node that only the deleted node read goes with it" \
	[ "$(pyq o.onnx '[n.name for n in g.node]')" = \
	  "['clip1', 'clip2', 'reshape', 'relu', 'reshape2', 'add', 'neg', 'abs']" ]
check "... and passes onnx.checker" onnx_ok o.onnx
edit shared.onnx o.onnx "delete-node reshape"
check "delete-node on a Reshape warns that the consumers now see another shape" \
	said "warning: 'd' is float32[2,3] but 'rs' was float32[6]: its consumers now get the input's type and shape"
refused "a node with two data inputs is refused, naming its inputs and consumers" \
	"#7 'add' (Add) has 2 data inputs ('rs', 'xrs') and feeds #8 'neg' (Neg), #9 'abs' (Abs): delete-node only bypasses a node with one data input (constants aside) and one output; use extract FROM,... TO,... to cut the graph around it" \
	shared.onnx "delete-node add"
refused "a node with subgraphs is refused" "#1 'branch' (If) computes its outputs in subgraphs" capture.onnx \
	"delete-node branch"
refused "a node whose input and output are both graph outputs is refused" \
	"its output 'y' and its input 'x' are both graph outputs; bypassing it would list 'x' twice" pass2.onnx "delete-node id"
refused "a subgraph that defines its own value of the input's name is in the way" \
	"a subgraph of #1 'branch' (If) reads 't' but defines its own 'x'" shadow.onnx "delete-node pre"
refused "a node whose second output is in use is refused" \
	"#0 'drop' (Dropout) has output 1 'mask' in use besides its first, and feeds graph output 'd', #1 'cast' (Cast)" \
	mask.onnx "delete-node drop"
refused "an unknown node" "no node named 'nope'" chain.onnx "delete-node nope"
refused "a node index past the end" "no node #99 (the graph has nodes #0 to #8)" chain.onnx "delete-node #99"

edit capture.onnx o.onnx "delete-node pre"
check "delete-node on a value subgraphs capture: they read its input" \
	[ "$(pyq o.onnx '[[n.input[0] for n in a.g.node] for a in g.node[0].attribute]')" = "[['x'], ['x']]" ]
check "... counted as its consumer" said "deleted #0 'pre' (Identity): 1 consumer now reads 'x'"
check "... and passes onnx.checker" onnx_ok o.onnx
edit pass.onnx o.onnx "delete-node id"
check "an Identity from a graph input to a graph output: the graph output is the input" \
	[ "$(pyq o.onnx 'len(g.node), [o.name for o in g.output]')" = "(0, ['x'])" ]
check "... and passes onnx.checker" onnx_ok o.onnx

# ---- cleanup ----
edit chain.onnx o.onnx cleanup
check "cleanup reports what it removed" said "removed 3 nodes, 1 initializer, 2 value_info"
check "... the dead branch, its initializer and value_info are gone" \
	[ "$(pyq o.onnx '[n.name for n in g.node], [t.name for t in g.initializer], [v.name for v in g.value_info]')" = \
	  "(['relu', 'drop', 'ident', 'clip', 'bias', 'out_ident'], ['ratio', 'cmin', 'cmax', 'w'], ['r', 'd'])" ]
check "... and the result passes onnx.checker" onnx_ok o.onnx
cp o.onnx clean.onnx
edit clean.onnx o.onnx cleanup
check "cleanup with nothing to do succeeds" [ $? -eq 0 ]
check "... says so" said "cleanup: nothing to remove"
check "... and changes no byte" cmp -s clean.onnx o.onnx
undone "undo after cleanup gives back the original bytes" chain.onnx cleanup
edit chain.onnx o.onnx "delete-node dead_mul" cleanup
check "cleanup after delete-node removes what the bypass left dead" \
	said "removed 2 nodes, 0 initializers, 1 value_info"
check "... leaving the live chain" \
	[ "$(pyq o.onnx '[n.name for n in g.node], [t.name for t in g.initializer]')" = \
	  "(['relu', 'drop', 'ident', 'clip', 'bias', 'out_ident'], ['ratio', 'cmin', 'cmax', 'w'])" ]
edit capture.onnx o.onnx cleanup
check "cleanup keeps a node whose output only a subgraph reads" \
	[ "$(pyq o.onnx '[n.name for n in g.node]')" = "['pre', 'branch']" ]
check "... and passes onnx.checker" onnx_ok o.onnx
edit oldstyle.onnx o.onnx cleanup
check "an unused initializer that is also a graph input goes with its input entry" \
	[ "$(pyq o.onnx '[i.name for i in g.input], [t.name for t in g.initializer]')" = "(['x', 'b'], ['b'])" ]
check "... and says so" said "removed 0 nodes, 1 initializer (1 also listed as graph input, dropped there too), 0 value_info"
edit gm/function.onnx o.onnx cleanup
check "cleanup keeps the model's functions and opset imports" \
	[ "$(pyq o.onnx 'len(m.functions), [o.domain for o in m.opset_import]')" = "(1, ['', 'custom.fn'])" ]

# ---- extract (small models) ----
edit gm/conv-relu.onnx o.onnx "extract conv_out y"
check "extract the end of conv-relu" [ $? -eq 0 ]
check "... inputs and outputs are FROM and TO, typed (FROM's shape inferred)" \
	[ "$(pyq o.onnx '[(v.name, v.type.tensor_type.elem_type, [d.dim_value for d in v.type.tensor_type.shape.dim])
		for v in list(g.input) + list(g.output)]')" = \
	  "[('conv_out', 1, [1, 4, 8, 8]), ('y', 1, [1, 4, 4, 4])]" ]
check "... the nodes and initializers it does not need are gone" \
	[ "$(pyq o.onnx '[n.name for n in g.node], len(g.initializer)')" = "(['relu0', 'pool0'], 0)" ]
check "... and it passes onnx.checker" onnx_ok o.onnx
undone "undo after extract gives back the original bytes" gm/conv-relu.onnx "extract conv_out y"
edit gm/conv-relu.onnx o.onnx "extract x,W y"
check "an initializer in FROM becomes a graph input" \
	[ "$(pyq o.onnx '[i.name for i in g.input], [t.name for t in g.initializer]')" = "(['x', 'W'], ['B'])" ]
check "... and passes onnx.checker" onnx_ok o.onnx
edit gm/conv-relu.onnx o.onnx "extract x,relu_out y"
check "a FROM value the cut does not need: a warning" \
	said "warning: TO does not need FROM 'x': kept as unused graph input"
check "... and it stays an input" [ "$(pyq o.onnx '[i.name for i in g.input]')" = "['x', 'relu_out']" ]
edit gm/function.onnx o.onnx "extract t y"
check "a FROM value of unknown type: a warning that names it" said "warning: no known dtype for 't'"
refused "a node of the cut that also computes a FROM value is refused" \
	"FROM 'a' is computed by #0 'split' (Split), which the cut needs for its other outputs" split.onnx "extract a y"
edit split.onnx o.onnx "extract a,b y"
check "... and fine with all its outputs in FROM" onnx_ok o.onnx
refused "extract: a subgraph capture counts: the If needs its condition too" \
	"incomplete cut: computing TO from FROM also needs 'cond' (a graph input); add it to FROM" capture.onnx "extract x z"
edit capture.onnx o.onnx "extract t,cond z"
check "... and with it in FROM the branches capture the new input" onnx_ok o.onnx
refused "extract: a TO that FROM does not reach" \
	"TO 'conv_out' cannot be reached from FROM: it is computed from graph input 'x', not from any of FROM" \
	gm/conv-relu.onnx "extract relu_out conv_out"
refused "extract: a FROM that leaves the other input of a node outside" \
	"incomplete cut: computing TO from FROM also needs 'x' (a graph input); add it to FROM" gm/conv-relu.onnx \
	"extract W y"
refused "extract: a name in both lists" "'y' is in both FROM and TO" gm/conv-relu.onnx "extract x,y y"
refused "extract: an unknown value" "TO: no value named 'nope' in the graph" gm/conv-relu.onnx "extract x y,nope"
refused "extract: an empty name is a usage error" "FROM 'x,,W' has an empty name" gm/conv-relu.onnx "extract x,,W y" 2
refused "extract: a name given twice" "TO names 'y' twice" gm/conv-relu.onnx "extract x y,y" 2
if have_ort; then
	with_outputs gm/conv-relu.onnx full.onnx conv_out
	edit gm/conv-relu.onnx o.onnx "extract conv_out y"
	check "onnxruntime: the extracted end of conv-relu computes what the full model does" ort_compare full.onnx o.onnx
	with_outputs capture.onnx full.onnx t
	edit capture.onnx o.onnx "extract t,cond z"
	check "onnxruntime: the extracted If with captures computes what the full model does" ort_compare full.onnx o.onnx
else
	skip "onnxruntime not installed ($ORT_PYTHON): no run of the small cuts"
	skip "onnxruntime not installed ($ORT_PYTHON): no run of the small cuts"
fi

# ---- real exports ----
if "$PYTHON" -c 'import torch' >/dev/null 2>&1 &&
	"$PYTHON" "$SRCDIR/tests/export-torch.py" "$TMP/torch" >"$TMP/export.log" 2>&1; then
	R=torch/resnet18.onnx
	pool=/maxpool/MaxPool_output_0
	layer2=/layer2/layer2.1/relu_1/Relu_output_0
	edit $R cut.onnx "extract $pool $layer2"
	check "resnet18: extract from the first MaxPool to the end of layer2" [ $? -eq 0 ]
	check "... its input and output are those values" \
		[ "$(pyq cut.onnx '[i.name for i in g.input], [o.name for o in g.output]')" = "(['$pool'], ['$layer2'])" ]
	check "... and it passes onnx.checker" onnx_ok cut.onnx
	if have_ort; then
		with_outputs $R full.onnx $pool $layer2
		check "onnxruntime: the cut computes layer2's output from the MaxPool's as the full model does" \
			ort_compare full.onnx cut.onnx
	else
		skip "onnxruntime not installed ($ORT_PYTHON): no run of the resnet18 cut"
	fi
	undone "resnet18: undo after extract gives back the original bytes" $R "extract $pool $layer2"
	refused "resnet18: an incomplete cut names the value that leaks in and where it comes from" \
		"incomplete cut: computing TO from FROM also needs '/maxpool/MaxPool_output_0' (computed from graph input 'input'); add it to FROM" \
		$R "extract /layer1/layer1.0/conv2/Conv_output_0 /layer1/layer1.0/relu_1/Relu_output_0"
	refused "resnet18: delete-node on a residual Add is refused, naming its consumer" \
		"#22 '/layer1/layer1.0/Add' (Add) has 2 data inputs ('/layer1/layer1.0/conv2/Conv_output_0', '/maxpool/MaxPool_output_0') and feeds #23 '/layer1/layer1.0/relu_1/Relu' (Relu)" \
		$R "delete-node /layer1/layer1.0/Add"
	edit $R o.onnx "extract input output"
	check "resnet18: extract from the graph input to the graph output keeps every byte" cmp -s $R o.onnx
	refused "transformer: a cut that skips the residual input names it" \
		"also needs 'src' (a graph input)" torch/transformer.onnx \
		"extract /self_attn/Add_output_0 /norm1/Add_1_output_0"
	edit torch/mobilenetv2.onnx o.onnx cleanup
	check "mobilenetv2: cleanup finds nothing to remove in a clean export" cmp -s torch/mobilenetv2.onnx o.onnx
else
	sed 's/^/# /' "$TMP/export.log" 2>/dev/null | tail -3
	skip "no python3-torch to export resnet18, transformer and mobilenetv2: their cuts are not checked"
fi
done_testing
