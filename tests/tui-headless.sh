#!/bin/sh
# The real TUI, headless: keys from a script (--keys), the screen dumped as text (--dump) at fixed sizes, compared
# with expected screens. Covers the graph of a small CNN, the node panel of a Resize, search, jump to #N, an edit
# through ':', undo, save, the quit-with-changes prompt, help, and a resize.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1
export TERM=xterm-256color
unset NO_COLOR

# screen NAME SIZE MODEL KEYS [LOCALE]: run the TUI on KEYS and compare the last screen with tests/golden/tui-NAME.txt
screen() {
	name=$1 size=$2 model=$3 keys=$4 loc=${5:-C}
	printf '%s' "$keys" >"$TMP/$name.keys"
	LC_ALL=$loc timeout 20 "$ONNXVIEW" --keys "$TMP/$name.keys" --dump "$TMP/$name.txt" --size "$size" "$model" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	check "$name: exits 0" [ $rc -eq 0 ]
	golden "$TMP/$name.txt" "$SRCDIR/tests/golden/tui-$name.txt" "$name: screen matches tests/golden/tui-$name.txt"
}

screen graph-conv-relu 80x24 conv-relu.onnx ''
screen graph-srcnn-160x50 160x50 srcnn.onnx ''
screen graph-srcnn-utf8 100x30 srcnn.onnx '' C.UTF-8
screen resize-panel 80x24 srcnn.onnx 'j<Enter>'
screen search 80x24 srcnn.onnx '/Relu<Enter>n'
screen jump 80x24 srcnn.onnx ':3<Enter>'
screen jump-missing 80x24 srcnn.onnx ':99<Enter>'
screen edit 80x24 srcnn.onnx ':set-dim input 0 batch<Enter>'
screen edit-error 80x24 srcnn.onnx ':set-dim input 7 batch<Enter>'
screen undo 80x24 srcnn.onnx ':set-dim input 0 batch<Enter>u'
screen quit-prompt 80x24 srcnn.onnx ':set-dim input 0 batch<Enter>q'
screen help 80x24 srcnn.onnx '?'
screen model 80x24 srcnn.onnx 'm'
screen resize 80x24 srcnn.onnx 'jj<Resize 120x40>'
screen nodes 80x24 srcnn.onnx 'L'
screen diagnostics 80x24 custom-domain.onnx '!'
screen subgraph 80x24 if-subgraph.onnx 'jjS'
# S on a call of a local function opens its body (the Constants it reads folded into the Clip, as in any graph)
screen function-body 80x24 function.onnx 'jS'
printf 'jjS' >"$TMP/fnone.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/fnone.keys" --dump "$TMP/fnone.txt" --size 80x24 function.onnx >/dev/null 2>&1
check "S on a node with neither: one line saying so" \
	sh -c "tail -n 1 '$TMP/fnone.txt' | grep -q 'this node has no subgraph and calls no local function'"
printf 'jS<Esc>' >"$TMP/fnback.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/fnback.keys" --dump "$TMP/fnback.txt" --size 80x24 function.onnx >/dev/null 2>&1
check "Esc leaves the function's body for the graph it was called from" \
	sh -c "head -n 1 '$TMP/fnback.txt' | grep -q 'graph  *2 nodes'"
# a function that calls itself: each S opens one more body, until the view stack is full, which says so
"$PYTHON" - "$TMP/m/rec.onnx" <<'PY'
import sys, onnx
from onnx import helper, TensorProto as T
ops = [helper.make_opsetid("", 13), helper.make_opsetid("d", 1)]
f = helper.make_function("d", "rec", ["a"], ["b"], [helper.make_node("rec", ["a"], ["b"], domain="d")], ops)
g = helper.make_graph([helper.make_node("rec", ["x"], ["y"], domain="d")], "g",
                      [helper.make_tensor_value_info("x", T.FLOAT, [1])], [helper.make_tensor_value_info("y", T.FLOAT, [1])])
m = helper.make_model(g, opset_imports=ops, functions=[f])
m.ir_version = 8
onnx.save(m, sys.argv[1])
PY
"$PYTHON" -c "print('jS' * 32, end='')" >"$TMP/fnrec.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/fnrec.keys" --dump "$TMP/fnrec.txt" --size 80x24 rec.onnx >/dev/null 2>&1
check "a function calling itself: S opens body after body until the view stack is full, which says so" \
	sh -c "[ $? -eq 0 ] && tail -n 1 '$TMP/fnrec.txt' | grep -q 'too many panels open'"
printf 'jS:set-dim x 0 batch<Enter>' >"$TMP/fnedit.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/fnedit.keys" --dump "$TMP/fnedit.txt" --size 80x24 function.onnx >/dev/null 2>&1
check "an edit closes the body's view (it shows the model as it was)" \
	sh -c "head -n 1 '$TMP/fnedit.txt' | grep -q 'graph  *2 nodes  1 edit'"

# Folding by module scope: a 1,050-node model with PyTorch-style names opens folded; Enter opens a scope, z folds it,
# jumping to a node inside a folded scope opens it, and a scope of one node never folds (z on it says so).
"$PYTHON" - "$TMP/m/scoped.onnx" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
nodes, inits, x = [], [], "x"
for i in range(150):
    p = f"/encoder/layer.{i}"
    w = f"layer{i}.w"
    inits.append(numpy_helper.from_array(np.eye(4, dtype=np.float32), w))
    nodes += [helper.make_node("MatMul", [x, w], [f"{p}/mm"], name=f"{p}/attn/MatMul"),
              helper.make_node("Relu", [f"{p}/mm"], [f"{p}/ar"], name=f"{p}/attn/Relu"),
              helper.make_node("Neg", [f"{p}/ar"], [f"{p}/an"], name=f"{p}/attn/Neg"),
              helper.make_node("Relu", [f"{p}/an"], [f"{p}/r"], name=f"{p}/mlp/Relu"),
              helper.make_node("Neg", [f"{p}/r"], [f"{p}/n"], name=f"{p}/mlp/Neg"),
              helper.make_node("Sigmoid", [f"{p}/n"], [f"{p}/s"], name=f"{p}/mlp/Sigmoid"),
              # a scope of one node: it never folds (a box for it would hide as much as it shows)
              helper.make_node("Add", [x, f"{p}/s"], [f"{p}/out"], name=f"{p}/out/Add")]
    x = f"{p}/out"
g = helper.make_graph(nodes, "scoped", [helper.make_tensor_value_info("x", T.FLOAT, [1, 4])],
                      [helper.make_tensor_value_info(x, T.FLOAT, [1, 4])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
screen fold-open 80x24 scoped.onnx ''
screen fold-expand 80x24 scoped.onnx 'j<Enter>'
screen fold-refold 80x24 scoped.onnx 'j<Enter>jz'
screen fold-jump 80x24 scoped.onnx ':201<Enter><Enter>'
printf '' >"$TMP/none.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/none.keys" --dump "$TMP/fold40.txt" --size 80x40 scoped.onnx >/dev/null 2>&1
check "a scope of one node stays open (its node's box, not a group)" grep -q -- "+-/encoder/layer.0/out/Add-*+" "$TMP/fold40.txt"
check "... while the scopes of three nodes fold" grep -q "| 3 nodes " "$TMP/fold40.txt"
check "no group box of one node" sh -c '! grep -q "| 1 nodes\\? " "$1"' - "$TMP/fold40.txt"

# Saving from the TUI: a new file, byte-identical after an edit and its undo.
printf ':set-dim input 0 batch<Enter>u:w %s<Enter>' "$TMP/saved.onnx" >"$TMP/save.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/save.keys" --size 80x24 srcnn.onnx >/dev/null 2>&1
check "TUI :w PATH after edit+undo writes the original bytes" cmp -s srcnn.onnx "$TMP/saved.onnx"
printf ':set-dim input 0 batch<Enter>:w %s<Enter>' "$TMP/saved.onnx" >"$TMP/save2.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/save2.keys" --dump "$TMP/save2.txt" --size 80x24 srcnn.onnx >/dev/null 2>&1
check "TUI :w onto an existing file refuses, and says the TUI's way (:w!)" \
	grep -q ":w! replaces what is there: .*saved.onnx exists" "$TMP/save2.txt"
check "... not the command line's --force" sh -c '! grep -q -- "--force" "$1"' - "$TMP/save2.txt"
check "... and leaves it as it was" cmp -s srcnn.onnx "$TMP/saved.onnx"
printf ':set-dim input 0 batch<Enter>:w! %s<Enter>' "$TMP/saved.onnx" >"$TMP/save3.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/save3.keys" --size 80x24 srcnn.onnx >/dev/null 2>&1
"$PYTHON" -c 'import onnx,sys; assert onnx.load(sys.argv[1]).graph.input[0].type.tensor_type.shape.dim[0].dim_param=="batch"' "$TMP/saved.onnx"
check ":w! replaces it with the edited model" [ $? -eq 0 ]
# After :w OTHER the title names OTHER, unmodified; :w then offers to replace OTHER, not the model first opened.
cp srcnn.onnx "$TMP/first.onnx"
printf ':set-dim input 0 batch<Enter>:w %s<Enter>' "$TMP/other.onnx" >"$TMP/saveas.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/saveas.keys" --dump "$TMP/saveas.txt" --size 100x24 "$TMP/first.onnx" >/dev/null 2>&1
check ":w OTHER: the title names OTHER" sh -c 'head -1 "$1" | grep -q "other.onnx  graph"' - "$TMP/saveas.txt"
check "... and the model is no longer marked modified" sh -c '! head -1 "$1" | grep -q "modified"' - "$TMP/saveas.txt"
rm -f "$TMP/other.onnx"
printf ':set-dim input 0 batch<Enter>:w %s<Enter>:set-dim input 0 N<Enter>:w<Enter>y' "$TMP/other.onnx" >"$TMP/saveas2.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/saveas2.keys" --dump "$TMP/saveas2.txt" --size 100x24 "$TMP/first.onnx" >/dev/null 2>&1
check "... then :w replaces OTHER (the second edit is in it)" "$PYTHON" -c 'import onnx,sys; assert onnx.load(sys.argv[1]).graph.input[0].type.tensor_type.shape.dim[0].dim_param=="N"' "$TMP/other.onnx"
check "... and leaves the first file alone" cmp -s srcnn.onnx "$TMP/first.onnx"
# [modified] follows the state on screen: an edit after saving sets it, undoing back to the saved state clears it.
printf ':set-dim input 0 batch<Enter>:w %s<Enter>:set-dim input 0 N<Enter>' "$TMP/undo-saved.onnx" >"$TMP/undo-saved.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/undo-saved.keys" --dump "$TMP/undo-saved1.txt" --size 100x24 srcnn.onnx >/dev/null 2>&1
check "an edit after saving: [modified]" sh -c 'head -1 "$1" | grep -q "\[modified\]"' - "$TMP/undo-saved1.txt"
rm -f "$TMP/undo-saved.onnx"
printf 'u' >>"$TMP/undo-saved.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/undo-saved.keys" --dump "$TMP/undo-saved.txt" --size 100x24 srcnn.onnx >/dev/null 2>&1
check "undo back to the saved state: [modified] goes away" sh -c '! head -1 "$1" | grep -q "modified"' - "$TMP/undo-saved.txt"
printf ':set-dim input 0 batch<Enter>uu<C-R>' >"$TMP/redo.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/redo.keys" --dump "$TMP/redo.txt" --size 100x24 srcnn.onnx >/dev/null 2>&1
check "redo away from the saved state: [modified] again" sh -c 'head -1 "$1" | grep -q "\[modified\]"' - "$TMP/redo.txt"
printf ':set-dim input 0 batch<Enter>u:set-dim input 0 N<Enter>' >"$TMP/branch.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/branch.keys" --dump "$TMP/branch.txt" --size 100x24 srcnn.onnx >/dev/null 2>&1
check "a new edit after an undo: [modified]" sh -c 'head -1 "$1" | grep -q "\[modified\]"' - "$TMP/branch.txt"
cp srcnn.onnx "$TMP/orig.onnx"
printf ':set-dim input 0 batch<Enter>:wq<Enter>n' >"$TMP/wq.keys"
timeout 20 "$ONNXVIEW" --keys "$TMP/wq.keys" --size 80x24 "$TMP/orig.onnx" >/dev/null 2>&1
check ":wq answered 'n' does not replace the original" cmp -s srcnn.onnx "$TMP/orig.onnx"

# Hostile keys and sizes never crash it.
printf '%s' 'jjjjkkkkhhhhllll<Tab><Tab><Tab><PgDn><PgUp><End><Home>?<Esc>m<Esc>L<End><Enter>!<Esc>c<Esc>I<Enter>r<Esc>:<Esc>/<Esc>zZ<C-r>uuuu<Resize 20x5><Resize 300x100>' >"$TMP/mash.keys"
for m in conv-relu srcnn if-subgraph function custom-domain dangling unsorted alltypes sparse external/model; do
	timeout 20 "$ONNXVIEW" --keys "$TMP/mash.keys" --size 80x24 "$m.onnx" >/dev/null 2>"$TMP/err"
	check "key mash on $m.onnx: exits 0" [ $? -eq 0 ]
done
printf 'j' >"$TMP/j.keys"
"$ONNXVIEW" --keys "$TMP/j.keys" --size 5x5 srcnn.onnx >/dev/null 2>"$TMP/err"
check "--size 5x5 is refused (status 2)" [ $? -eq 2 ]
printf '<Bogus>' >"$TMP/bogus.keys"
"$ONNXVIEW" --keys "$TMP/bogus.keys" srcnn.onnx >/dev/null 2>"$TMP/err"
check "an unknown <key> in a key script is refused with its name" grep -q "unknown key <Bogus>" "$TMP/err"
done_testing
