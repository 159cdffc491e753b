#!/bin/sh
# Reading a real export in the TUI (issue 15): box text that keeps every attribute's value (wrapped, cut in the
# middle), each node's #N, bracketed symbolic dims, outer-scope values drawn into If boxes and into the branch,
# per-graph counts, a branch opening on something that computes; e prefilling the input that matters per op, Tab
# reaching constant inputs, completion listing candidates, the ':' command table in help and completion; :run
# asking once for the dims the model leaves open and R reusing the last :run's inputs; search through the name
# index and into folded scopes.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
cp "$SRCDIR/share/onnxview/examples/srcnn.onnx" "$TMP/srcnn.onnx"
cd "$TMP" || exit 1
export TERM=xterm-256color
unset NO_COLOR

"$PYTHON" - <<'PY' || { echo "Bail out! cannot make the test models"; exit 1; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
I = lambda n, s: helper.make_tensor_value_info(n, T.FLOAT, s)
def save(nodes, name, ins, outs, inits=(), vi=(), opset=13):
    g = helper.make_graph(nodes, name, ins, outs, list(inits), value_info=list(vi))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), name + ".onnx")
# a Resize with a long attribute value, long names sharing a prefix, an expression for a dim
f = lambda a, n: numpy_helper.from_array(np.array(a, dtype=np.float32), n)
i64 = lambda a, n: numpy_helper.from_array(np.array(a, dtype=np.int64), n)
p = "/model/backbone/stage3/block7/inlined_subgraph/"
save([helper.make_node("Resize", ["x", "", "scales"], ["r"], name=p + "Resize_upsample_first",
                       mode="nearest", coordinate_transformation_mode="tf_half_pixel_for_nn",
                       nearest_mode="round_prefer_ceil"),
      helper.make_node("Pad", ["r", "pads"], ["p"], name=p + "Pad_last"),
      helper.make_node("Reshape", ["p", "shape"], ["y"], name="reshape")],
     "boxes", [I("x", [1, 3, "height", "width"])], [I("y", [1, "n"])],
     [f([1, 1, 2, 2], "scales"), i64([0, 0, 1, 1, 0, 0, 1, 1], "pads"), i64([1, -1], "shape")],
     [I("r", [1, 3, "floor(height*2 - 1/2) + 1", "2*width"])])
# an If whose branches read graph inputs only from the outer scope; the else branch starts with Constants
c = lambda n, v: helper.make_node("Constant", [], [n], value=numpy_helper.from_array(np.array(v, dtype=np.float32), n + "_t"))
then_g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["t_out"], name="then_add")], "then_graph", [],
                           [I("t_out", [2])])
else_g = helper.make_graph([c("k1", [1, 2]), c("k2", [3, 4]), c("k3", [5, 6]),
                            helper.make_node("Mul", ["a", "k1"], ["m1"], name="else_mul1"),
                            helper.make_node("Mul", ["m1", "k1"], ["m2"], name="else_mul2"),
                            helper.make_node("Add", ["m2", "k2"], ["m3"], name="else_add"),
                            helper.make_node("Sub", ["m3", "k2"], ["m4"], name="else_sub"),
                            helper.make_node("Add", ["m4", "k3"], ["m5"], name="else_add2"),
                            helper.make_node("Sub", ["m5", "k3"], ["e_out"], name="else_sub2")],
                           "else_graph", [], [I("e_out", [2])])
save([helper.make_node("If", ["cond"], ["y"], name="if0", then_branch=then_g, else_branch=else_g)], "control",
     [helper.make_tensor_value_info("cond", T.BOOL, []), I("a", [2]), I("b", [2])], [I("y", [2])])
PY

screen() { # NAME SIZE MODEL KEYS [OPTIONS...]: the TUI in UTF-8, last screen in NAME.txt
	local name=$1 size=$2 model=$3 keys=$4
	shift 4
	printf '%s' "$keys" >"$name.keys"
	LC_ALL=C.UTF-8 timeout 60 "$ONNXVIEW" "$@" --keys "$name.keys" --dump "$name.txt" --size "$size" "$model" \
		>"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}
has() { grep -q -- "$2" "$1.txt"; }
clean() { [ "$(cat "$1.rc")" -eq 0 ] && [ ! -s "$1.err" ]; }
last() { tail -n 1 "$1.txt" | grep -q -- "$2"; }
prompt_is() { tail -n 1 "$1.txt" | grep -qx -- "$2"; }

# ---- boxes (point 4) ----
screen boxes 100x50 boxes.onnx ''
check "boxes: opens cleanly" clean boxes
check "every node box shows its #N" sh -c 'grep -q "Resize *#0 " boxes.txt && grep -q "Pad *#1 " boxes.txt && grep -q "Reshape *#2 " boxes.txt'
check "a long attribute keeps its value, on the row below its name" \
	sh -c 'grep -A1 "coordinate_tra.*mode =" boxes.txt | grep -q "  \"tf_half_pixel_for_nn\" "'
check "a long name is cut in the middle: its distinct end stays" has boxes "…_upsample_first-"
check "... and so does its sibling's" has boxes "…bgraph/Pad_last-"
check "a dim that is an expression is bracketed on its edge" has boxes "1×3×\[floor(height\*2 - 1/2) + 1\]×\[2\*width\]"
check "plain symbolic dims are not" has boxes "1×3×height×width"
screen boxes_ascii 100x50 boxes.onnx '' --ascii
check "--ascii: the ellipsis is ..." has boxes_ascii "/model/backbo\.\.\.upsample_first-"
check "--ascii: nothing but ASCII" sh -c '[ "$(LC_ALL=C tr -d "\n -~" <boxes_ascii.txt | wc -c)" -eq 0 ]'
screen narrow 30x12 boxes.onnx 'jjjj'
check "a 30x12 screen: no crash" clean narrow

# ---- control flow (point 8) ----
screen ctl 100x30 control.onnx ''
check "outer values the branches read flow into the If box" \
	sh -c 'awk "/\\| a /{a=1} /\\| b /{b=1} END{exit !(a&&b)}" ctl.txt && [ "$(grep -c "v" ctl.txt)" -ge 2 ]'
check "... as edges (the If box has three arrows in: cond, a, b)" sh -c '[ "$(grep -o "v" ctl.txt | wc -l)" -ge 3 ]'
check "the title counts the main graph: 1 node" sh -c 'head -1 ctl.txt | grep -q " 1 node  "'
screen ctl_sub 100x40 control.onnx 'jS'
check "S opens a branch: its title names the graph" sh -c 'head -1 ctl_sub.txt | grep -q "If\.\(then\|else\)_branch .\(then\|else\)_graph."'
check "... and counts its own nodes" sh -c 'head -1 ctl_sub.txt | grep -q " 1 node  \| 9 nodes  "'
check "... the outer values are its inputs, with their edges" has ctl_sub "from the outer graph"
# the else branch: Constants first in the file; the view opens on the first node that computes
screen ctl_else_open 100x40 control.onnx 'jS'
check "the else branch opens on a computing node, not a Constant" \
	sh -c 'grep -q "else_graph" ctl_else_open.txt && grep -q "▶| \(Mul\|a \)" ctl_else_open.txt'

# ---- e, Tab, completion (point 5) ----
screen e_resize 80x24 srcnn.onnx 'je'
check "e on a Resize prefills its scales with their values (not the empty roi)" prompt_is e_resize ":set-tensor scales \[1, 1, 3, 3\]"
screen e_pad 80x24 boxes.onnx 'jje'
check "e on a Pad prefills its pads" prompt_is e_pad ":set-tensor pads \[0, 0, 1, 1, 0, 0, 1, 1\]"
screen e_reshape 80x24 boxes.onnx 'jjje'
check "e on a Reshape prefills its shape" prompt_is e_reshape ":set-tensor shape \[1, -1\]"
screen e_conv 80x24 srcnn.onnx 'jje'
check "e on a Conv prefills its weight's name (too many values to retype)" prompt_is e_conv ":set-tensor conv1.weight"
screen tab_const 80x24 srcnn.onnx 'j<Tab><Tab><Tab>'
check "Tab reaches a constant input drawn inside the box" last tab_const "constant 3/4: roi float32\[0\]"
screen tab_e 80x24 srcnn.onnx 'j<Tab><Tab><Tab>e'
check "... and e then edits that one" prompt_is tab_e ":set-tensor roi"
screen complete_many 80x24 srcnn.onnx ':set-tensor conv<Tab>'
check "Tab on an ambiguous prefix lists the candidates" sh -c 'tail -n 2 complete_many.txt | head -1 | grep -q "names: conv1.weight  conv1.bias"'
screen complete_cmds 100x24 srcnn.onnx ':s<Tab>'
check "... command names too, the TUI's from its table" sh -c 'tail -n 2 complete_cmds.txt | head -1 | grep -q "set-dim .*save-display"'
screen complete_one 80x24 srcnn.onnx ':save-d<Tab>'
check "a unique prefix completes" prompt_is complete_one ":save-display"
screen complete_kind 80x24 srcnn.onnx ':set-type input fl<Tab>'
check "completion follows the argument's kind: a dtype for set-type" prompt_is complete_kind ":set-type input float"
screen complete_attr 120x24 srcnn.onnx ':set-attr resize0 <Tab>'
check "... the attributes of the node named before, for set-attr" \
	sh -c 'tail -n 2 complete_attr.txt | head -1 | grep -q "names: coordinate_transformation_mode .* nearest_mode"'
screen help_cmds 100x200 srcnn.onnx '?'
all_help() { for c in ":node N" ":w \[PATH\]" ":w! PATH" ":wq" ":q!" ":run " ":compare " ":save-display FILE" ":help"; do
	grep -q -- "$c" help_cmds.txt || return 1; done; }
check "the help lists the TUI's commands from the table" all_help
check "... and the mouse actions" sh -c 'grep -q "click .*click" help_cmds.txt && grep -q "wheel down" help_cmds.txt'

# ---- :run on open dims, R on the last inputs (point 2) ----
"$PYTHON" - <<'PY'
import onnx
from onnx import helper, TensorProto as T
g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="relu0"), helper.make_node("Neg", ["r"], ["y"], name="neg0")],
                      "dyn", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 3, "h", "w"])],
                      [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 3, "h", "w"])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "dyn.onnx")
PY
screen run_ask 100x24 dyn.onnx ':run<Enter>'
check ":run on open dims asks for them, prefilled with the declared shape" prompt_is run_ask "dims to run with: x=batchx3xhxw"
screen run_dims 100x24 dyn.onnx ':run<Enter><C-U>x=2x3x4x5<Enter>'
check "... and runs with the dims given" sh -c 'grep -q "^input .x. float32\[2,3,4,5\]" run_dims.txt && grep -q "^output .y. float32\[2,3,4,5\]" run_dims.txt'
screen run_twice 100x24 dyn.onnx ':run<Enter><C-U>x=2x3x4x5<Enter><Esc>:run<Enter>'
check "... asked once: the next :run uses the same dims" sh -c 'grep -q "^input .x. float32\[2,3,4,5\]" run_twice.txt'
screen run_bad 100x24 dyn.onnx ':run<Enter><C-U>x=2x7x4x5<Enter>'
check "dims that contradict the model: one line saying which" last run_bad "dim 1 is 7, the model declares it 3"
screen run_cancel 100x24 dyn.onnx ':run<Enter><Esc>'
check "Esc at the question: not run, and why" last run_cancel "not run: the inputs have dims the model leaves open"
screen r_reuse 100x24 dyn.onnx ':run<Enter><C-U>x=2x3x4x5<Enter><Esc>jR'
check "R after :run runs on the last :run's inputs" last r_reuse "on the last :run's inputs"
check "... of the asked shape" has r_reuse "float32\[2,3,4,5\]"
screen r_first 100x24 dyn.onnx 'jR'
check "R before any :run asks for the dims too" prompt_is r_first "dims to run with: x=batchx3xhxw"
# the inputs of the last :run, not new random ones: run_b's first value equals run_a's
screen r_same_a 100x24 srcnn.onnx ':run --input input=random:7<Enter><Esc>jjv'
screen r_same_b 100x24 srcnn.onnx ':run --input input=random:7<Enter><Esc>jjR'
screen r_plain 100x24 srcnn.onnx 'jjR'
check "R reuses the values, not just the shape (the same conv1 output as :run gave)" \
	sh -c '[ "$(grep "^min " r_same_a.txt)" = "$(grep "^min " r_same_b.txt)" ] && grep -q "^min " r_same_a.txt'
check "... (without a :run before, R's random input gives other values)" \
	sh -c 'grep -q "^min " r_plain.txt && [ "$(grep "^min " r_same_a.txt)" != "$(grep "^min " r_plain.txt)" ]'

# ---- search (point 7) ----
"$PYTHON" "$SRCDIR/bench/make-chain.py" chain.onnx 3000
screen find_exact 100x30 chain.onnx '//blk777/Relu<Enter>'
check "a whole node name: found through the name index, its folded scope opened" \
	sh -c 'tail -1 find_exact.txt | grep -q "node #2332" && grep -q "▶| Relu *#2332" find_exact.txt'
screen find_part 100x30 chain.onnx '/blk777/Relu<Enter>'
check "part of a name inside a folded scope: found, opened" sh -c 'grep -q "▶| Relu *#2332" find_part.txt'
screen find_none 100x30 chain.onnx '/nosuchname<Enter>'
check "not found: says so" last find_none "not found: nosuchname"

done_testing
