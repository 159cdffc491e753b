#!/bin/sh
# Running and comparing from the TUI, headless: R runs up to the selected node and shows its output in the tensor
# view, v shows any computed value, :run takes run's options, :compare marks every compared node (match or differ)
# and names the first divergence; an edit clears results and marks; bad requests get one status line, no crash.
. "$(dirname "$0")/lib.sh"

scratch
M="$SRCDIR/share/onnxview/examples/srcnn.onnx"
cp "$M" "$TMP/srcnn.onnx"
cd "$TMP" || exit 1
"$ONNXVIEW" edit srcnn.onnx -e 'set-attr resize0 mode linear' -o lin.onnx 2>/dev/null
"$ONNXVIEW" edit srcnn.onnx -e 'set-tensor scales [1,1,2,2]' -o s2.onnx 2>/dev/null

screen() { # NAME SIZE KEYS [OPTIONS...]
	local name=$1 size=$2 keys=$3
	shift 3
	printf '%s' "$keys" >"$name.keys"
	LC_ALL=C.UTF-8 timeout 20 "$ONNXVIEW" "$@" --keys "$name.keys" --dump "$name.txt" --size "$size" srcnn.onnx \
		>"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}
has() { grep -q -- "$2" "$1.txt"; }
clean() { [ "$(cat "$1.rc")" -eq 0 ] && [ ! -s "$1.err" ]; }

screen run_to 100x30 'jjR'
check "R: runs and exits cleanly" clean run_to
check "R on conv1: its output in the tensor view" has run_to "value c1"
check "R: the computed tensor's dtype and shape" has run_to "^c1  float32\[1,8,48,48\]  18432 values"
check "R: says where the values come from" has run_to "computed by the last run (2 nodes)"
check "R: statistics of the computed values" has run_to "^min -\?[0-9.]* at \[0, [0-9]*, [0-9]*, [0-9]*\]"
check "R: the status line sums up the run" has run_to "ran 2 nodes in [0-9.]* ms"

screen view_result 80x24 'jjR<Esc>kv'
check "v after a run: another computed value" has view_result "value upscaled"
screen view_missing 80x24 'jR<Esc>jjv'
check "v on a node the run did not reach: says so" has view_missing "the last run did not compute 'r1'"
screen view_none 80x24 'jv'
check "v before any run: says how to run" has view_none "nothing run yet: R runs up to the selected node"

screen run_cmd 100x30 ':run --input input=zeros<Enter>'
check ":run: the report with the input's source" has run_cmd "^input 'input' float32\[1,1,16,16\] from zeros"
check ":run: every node of the model ran" has run_cmd "^ran 6 nodes on cpu"
check ":run: the output's statistics" has run_cmd "^output 'output' float32\[1,1,48,48\]  min "
check ":run: the constants kept for the next run" has run_cmd "^constants: 8 kept until the model changes (3188 bytes)$"

# the constants are kept from one run to the next, until the model changes
screen rerun 100x30 ':run<Enter><Esc>:set-tensor conv3.bias [5]<Enter>:run<Enter><Esc>u:run<Enter>'
check ":run after an edit of a weight, then undo: the old value again" has rerun "^output 'output' float32\[1,1,48,48\]  min -0\.1"
check "and the TUI exits cleanly" clean rerun
screen rerun_edit 100x30 ':run<Enter><Esc>:set-tensor conv3.bias [5]<Enter>:run<Enter>'
check ":run after the edit: the output moved by the new bias" has rerun_edit "^output 'output' float32\[1,1,48,48\]  min 4\.9"

"$ONNXVIEW" run srcnn.onnx --input input=random --all --save mine >/dev/null 2>&1
"$ONNXVIEW" run lin.onnx --input input=random --all --save other >/dev/null 2>&1
screen expect_pass 100x30 ':run --expect upscaled=mine/upscaled.npy<Enter>'
check ":run --expect: a matching .npy passes" has expect_pass "^PASS 'upscaled' against mine/upscaled.npy: 0 of 2304 differ"
screen expect_fail 100x30 ':run --expect upscaled=other/upscaled.npy<Enter>'
check ":run --expect: a different .npy fails, counted" has expect_fail "^FAIL 'upscaled' against other/upscaled.npy: [0-9]* of 2304 differ, max abs"
check ":run --expect: the status line says so" has expect_fail "some values differ from what --expect gave"
screen expect_bad 100x30 ':run --expect upscaled=nofile.npy<Enter>'
check ":run --expect with a missing file: the message names it" has expect_bad "nofile.npy"

screen cmp_diff 100x30 ':compare lin.onnx<Enter><Esc>'
check ":compare with a changed model: exits cleanly" clean cmp_diff
# The marks sit on the bottom border, right, so that they never cover a name on the top border.
check ":compare: the differing node is marked" sh -c 'grep -A1 "mode = \"cubic\"" cmp_diff.txt | grep -q "^ *+-* ✗ -+"'
check ":compare: the first divergence is selected" grep -q "▶| Resize" cmp_diff.txt
screen cmp_report 100x30 ':compare lin.onnx<Enter>'
check ":compare: the report names the first divergence" has cmp_report "^first divergence: #0 'resize0' Resize -> 'upscaled'"
check ":compare: and the attribute that differs" has cmp_report "attribute 'mode': A \"cubic\", B \"linear\""
screen cmp_jump 100x30 ':compare lin.onnx<Enter>jjjj<Enter>'
check ":compare: Enter on the first-divergence line goes to the node" grep -q "▶| Resize" cmp_jump.txt

screen cmp_same 100x30 ':compare srcnn.onnx<Enter><Esc>' --ascii
check ":compare with itself: every node marked as matching (ASCII)" sh -c 'grep -A1 "mode = \"cubic\"" cmp_same.txt | grep -q "^ *+-* ok -+"'
screen cmp_tall 100x60 ':compare srcnn.onnx<Enter><Esc>' --ascii
check ":compare: a short name stays whole beside the marks" sh -c \
	'grep -A2 "+-relu1-*+" cmp_tall.txt | grep -q "+-* ok -+" && grep -q "| Relu *#2 |" cmp_tall.txt'
check ":compare with itself: nothing marked as differing" sh -c '! grep -q " !! " cmp_same.txt'
screen cmp_edit 100x30 ':compare srcnn.onnx<Enter><Esc>:set-dim input 0 batch<Enter>' --ascii
check "an edit clears the marks" sh -c '! grep -q " ok -+" cmp_edit.txt'
screen cmp_edited 100x30 ':set-attr resize0 mode linear<Enter>:compare srcnn.onnx<Enter>'
check ":compare runs the model as edited in memory" has cmp_edited "^A: (edited in memory) on cpu"

screen cmp_diffview 100x30 ':compare lin.onnx<Enter><Esc>V'
check "V after :compare: the first divergence's output as A - B" has cmp_diffview "^upscaled  float64\[1,1,48,48\]  2304 values"
check "V: says what it shows" has cmp_diffview "^A - B of the last :compare, as float64"
check "V: the largest difference is the one the report names" has cmp_diffview "max 0.38927 at \[0, 0, 35, 47\]"
check "V: the largest differences with both sides' values, side by side" sh -c \
	'grep -q "^the 5 largest differences, A and B side by side:" cmp_diffview.txt &&
	 grep -q "^  \[0, 0, 35, 47\]  A 1.13125563  B 0.74198544  A-B 0.38927$" cmp_diffview.txt'
screen cmp_aview 100x30 ':compare lin.onnx<Enter><Esc>v'
check "v after :compare: side A's value" has cmp_aview "^computed by the last :compare, side A"
screen diff_none 100x30 'V'
check "V before any :compare: says what to do" has diff_none "no comparison yet: :compare OTHER"
screen diff_shapes 100x30 ':compare s2.onnx<Enter><Esc>V'
check "V where the shapes differ: says so" has diff_shapes "has other shapes on the two sides"
screen diff_cleared 100x30 ':compare lin.onnx<Enter><Esc>:set-dim input 0 batch<Enter>V'
check "an edit clears the comparison's values too" has diff_cleared "no comparison yet"

screen cmp_list 100x30 ':compare lin.onnx<Enter><Esc>L'
check ":compare: the node list starts each line with the node's mark" has cmp_list "^✗ #0      Resize  resize0"
screen cmp_list_f 100x30 ':compare srcnn.onnx<Enter><Esc>Lf!!<Enter>' --ascii
check ":compare then f !! in the node list: no node differs from itself" has cmp_list_f "0 of 6 lines match '!!'"

screen bad_none 100x30 ':compare<Enter>'
check ":compare with nothing: one message, no crash" sh -c 'clean bad_none 2>/dev/null; [ "$(cat bad_none.rc)" -eq 0 ] && grep -q "nothing to compare" bad_none.txt'
screen bad_missing 100x30 ':compare missing.onnx<Enter>'
check ":compare with a missing file: the message names it" has bad_missing "missing.onnx"
screen bad_opt 100x30 ':run --bogus<Enter>'
check ":run with an unknown option: says which" has bad_opt "unknown option '--bogus'"
screen bad_to 100x30 ':run --to nope<Enter>'
check ":run --to a name that is not there" has bad_to "'nope', which is no value of the graph"
screen bad_cuda 100x30 ':run --backend cuda<Enter>'
check ":run --backend cuda where it cannot run: a message naming CUDA" sh -c '[ "$(cat bad_cuda.rc)" -eq 0 ] && grep -qi "cuda" bad_cuda.txt'
screen bad_tf32 100x30 ':run --tf32<Enter>'
check ":run --tf32 without --backend cuda: says what it is for" has bad_tf32 "run: --tf32 is for --backend cuda"
# The TUI keeps the constants from run to run (the weights packed once), a single `run` keeps none: products of
# constant weights (a MatMul past the size the own kernel takes for any B, a batch-one Gemm) give the same bits
if have_python_onnx; then
	"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(9)
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"]),
                       helper.make_node("Gemm", ["x1", "V", "vb"], ["v"], transB=1)], "fc",
                      [vi("x", T.FLOAT, [3, 600]), vi("x1", T.FLOAT, [1, 600])],
                      [vi("y", T.FLOAT, [3, 130]), vi("v", T.FLOAT, [1, 33])],
                      [numpy_helper.from_array(r.standard_normal((600, 130)).astype(np.float32), "W"),
                       numpy_helper.from_array(r.standard_normal((33, 600)).astype(np.float32), "V"),
                       numpy_helper.from_array(r.standard_normal(33).astype(np.float32), "vb")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "fc.onnx")
np.save("fx.npy", r.standard_normal((3, 600)).astype(np.float32))
np.save("fx1.npy", r.standard_normal((1, 600)).astype(np.float32))
EOF2
	"$ONNXVIEW" run fc.onnx --input x=fx.npy --input x1=fx1.npy --save fc_one >/dev/null 2>&1
	printf '%s' ':run --input x=fx.npy --input x1=fx1.npy --expect y=fc_one/y.npy --expect v=fc_one/v.npy --rtol 0 --atol 0<Enter>' >fc.keys
	LC_ALL=C.UTF-8 timeout 20 "$ONNXVIEW" --keys fc.keys --dump fc.txt --size 120x30 fc.onnx >fc.out 2>fc.err
	check "the TUI's run (constants kept) gives the bits of a single run: a MatMul and a batch-one Gemm of weights" \
		sh -c "grep -q \"^PASS 'y' against fc_one/y.npy: 0 of 390 differ\" fc.txt &&
		       grep -q \"^PASS 'v' against fc_one/v.npy: 0 of 33 differ\" fc.txt"
else
	skip "python3 with onnx is needed to make the products' model"
fi

screen help 100x60 '?'
check "the help lists R, v and V" sh -c 'grep -q "^ *R .*run the model up to the selected node" help.txt && grep -q "^ *v .*computed output" help.txt && grep -q "^ *V .*A - B" help.txt'
done_testing
