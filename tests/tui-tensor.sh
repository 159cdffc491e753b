#!/bin/sh
# The tensor view in the real TUI, headless (--keys/--dump), against expected screens: a small constant, 4-d and 5-d
# weights with the slice cursor moving, NaN and infinities, int64 extremes, an empty tensor, paging and column
# scrolling, float16/bfloat16, a Constant node's value, a subgraph reading an outer initializer, every dtype of
# alltypes.onnx, an edit made from the view, external data that vanished before it was read, and key mashing.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1
export TERM=xterm-256color
unset NO_COLOR

# Models of this test's own: tensors.onnx (one initializer per case) and sub.onnx (an If whose branches read an
# initializer of the main graph and hold a Constant).
"$PYTHON" - "$TMP/m" <<'EOF' || { echo "Bail out! cannot make the tensor test models"; exit 1; }
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as T

def arr(name, a):
    return numpy_helper.from_array(np.asarray(a), name)

def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)

nan, inf = float("nan"), float("inf")
special = np.array([[[0.5, nan, -1.0, inf], [-0.0, 2.5, -inf, 1e-7], [3.0, -2.0, nan, 1e6]],
                    [[1.0, 1.0, 1.0, 1.0], [-1e-3, 0.0, 7.0, -inf], [0.25, 0.125, 65504.0, -8.0]]], np.float32)
inits = [
    arr("special", special),
    arr("big_ints", np.array([[-2**63, -1, 0], [2**53 + 1, 2**63 - 1, 42]], np.int64)),
    arr("empty", np.zeros((3, 0, 2), np.float32)),
    arr("wide", (np.arange(120, dtype=np.float32) * 0.5).reshape(3, 40)),
    arr("long", np.arange(1000, dtype=np.int32) * 3 - 1500),
    arr("rank5", np.arange(48, dtype=np.float32).reshape(2, 2, 2, 2, 3)),
    arr("halfs", np.array([[1.0, -0.5], [inf, nan]], np.float16)),
    helper.make_tensor("bfloats", T.BFLOAT16, [3], [1.0, -3.5, 100.0]),
]
g = helper.make_graph([helper.make_node("Add", ["x", "special"], ["y"], name="add0")], "tensors",
                      [vi("x", T.FLOAT, [2, 3, 4])], [vi("y", T.FLOAT, [2, 3, 4])], initializer=inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="onnxview tests"),
          sys.argv[1] + "/tensors.onnx")

then_g = helper.make_graph([helper.make_node("Identity", ["w_outer"], ["then_out"], name="then_id")],
                           "then_branch", [], [vi("then_out", T.FLOAT, [2, 2])])
else_g = helper.make_graph([helper.make_node("Constant", [], ["else_out"], name="else_const",
                                             value=arr("else_value", np.full((2, 2), -1.0, np.float32)))],
                           "else_branch", [], [vi("else_out", T.FLOAT, [2, 2])])
g = helper.make_graph([helper.make_node("If", ["cond"], ["y"], name="if0", then_branch=then_g, else_branch=else_g)],
                      "sub", [vi("cond", T.BOOL, [])], [vi("y", T.FLOAT, [2, 2])],
                      initializer=[arr("w_outer", np.array([[1, 2], [3, 4]], np.float32))])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="onnxview tests"),
          sys.argv[1] + "/sub.onnx")
EOF

# run NAME SIZE MODEL KEYS [LOCALE]: the TUI on KEYS; the last screen goes to $TMP/NAME.txt
run() {
	name=$1 size=$2 model=$3 keys=$4 loc=${5:-C}
	printf '%s' "$keys" >"$TMP/$name.keys"
	LC_ALL=$loc timeout 20 "$ONNXVIEW" --keys "$TMP/$name.keys" --dump "$TMP/$name.txt" --size "$size" "$model" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
}
# screen NAME SIZE MODEL KEYS [LOCALE]: run, and compare the screen with tests/golden/tui-tensor-NAME.txt
screen() {
	run "$@"
	check "$1: exits 0" [ $? -eq 0 ]
	golden "$TMP/$1.txt" "$SRCDIR/tests/golden/tui-tensor-$1.txt" "$1: screen matches tests/golden/tui-tensor-$1.txt"
}

# From the initializer list (I, a search for the line, T) and from the graph (T on the selected node).
screen scales 80x24 srcnn.onnx 'I/scales<Enter>T'
screen conv-weight 80x24 srcnn.onnx 'jjT'
screen conv-weight-moved 80x24 srcnn.onnx 'jjT]]}lj'
screen conv-weight-utf8 100x36 srcnn.onnx 'jjT' C.UTF-8
screen nan-inf 80x24 tensors.onnx 'I/special<Enter>T'
screen int64 80x24 tensors.onnx 'I/big_ints<Enter>T'
screen empty 80x24 tensors.onnx 'I/empty<Enter>T'
screen wide-scrolled 80x24 tensors.onnx 'I/wide<Enter>Tllllll'
screen long-end 80x24 tensors.onnx 'I/long<Enter>TG'
screen long-paged 80x24 tensors.onnx 'I/long<Enter>T<PgDn><PgDn>k'
screen rank5 80x24 tensors.onnx 'I/rank5<Enter>T]]]}'
screen halfs 80x24 tensors.onnx 'I/halfs<Enter>T'
screen bfloats 80x24 tensors.onnx 'I/bfloats<Enter>T'
screen constant-node 80x24 resize-constant.onnx 'jT'
# The node panel: Enter on a constant's line (here a folded Constant, whose "from #0" would only lead back).
screen node-panel-enter 80x24 resize-constant.onnx 'j<Enter>jjjjjjjj<Enter>'
screen subgraph-outer 80x24 sub.onnx 'jS<Esc>ST'
screen subgraph-constant 80x24 sub.onnx 'jST'
# An edit from the view (e pre-fills set-tensor): the view shows the new values.
screen edited 80x24 tensors.onnx 'I/halfs<Enter>Te[[1,2],[3,4]]<Enter>'

# Every dtype of alltypes.onnx opens; one expected file holds all their screens.
: >"$TMP/alltypes.txt"
ok_all=1
for t in t_float t_int8 t_int16 t_int64 t_string t_bool t_double t_uint32 t_uint64 t_complex64 t_bfloat16 \
	t_uint8 t_uint16 t_int32 t_float16 t_complex128 t_float_raw t_scalar t_empty; do
	run "alltypes-$t" 80x12 alltypes.onnx "I/$t<Enter>T" || ok_all=0
	cat "$TMP/alltypes-$t.txt" >>"$TMP/alltypes.txt"
done
check "alltypes: every dtype's tensor view exits 0" [ $ok_all -eq 1 ]
golden "$TMP/alltypes.txt" "$SRCDIR/tests/golden/tui-tensor-alltypes.txt" \
	"alltypes: screens match tests/golden/tui-tensor-alltypes.txt"
run newtypes 80x12 newtypes.onnx 'I/t_float8e4m3fn<Enter>T'
check "float8: exits 0" [ $? -eq 0 ]
check "float8: shows the values" grep -q "^0  *0  *1  *-1  *448" "$TMP/newtypes.txt"

# What has no tensor says so, and the view stays where it was.
run no-constant 80x24 conv-relu.onnx 'jjT'
check "T on a node without constants: a message" grep -q "has no constant input" "$TMP/no-constant.txt"
run graph-input 80x24 conv-relu.onnx 'T'
check "T on a graph input: not a constant" grep -q "'x' (graph input) is not a constant" "$TMP/graph-input.txt"
run panel-line 80x24 conv-relu.onnx 'j<Enter>jjjjjT'
check "T on a node panel line without a constant: a message" grep -q "no constant on this line" "$TMP/panel-line.txt"

# External data that can no longer be read when the view opens: the reason is shown, nothing crashes. The keys come
# through a FIFO, so that the file can go away after the model loaded and before the view reads it.
mkdir -p vanish && cp external/model.onnx external/weights.bin vanish/
if mkfifo "$TMP/keys.fifo" 2>/dev/null; then
	LC_ALL=C timeout 20 "$ONNXVIEW" --keys "$TMP/keys.fifo" --dump "$TMP/vanished.txt" --size 80x24 \
		vanish/model.onnx >/dev/null 2>&1 &
	pid=$!
	timeout 20 sh -c 'exec 3>"$1"; rm -f "$2"; printf "jT" >&3' sh "$TMP/keys.fifo" vanish/weights.bin
	wait $pid
	check "external data gone: exits 0" [ $? -eq 0 ]
	golden "$TMP/vanished.txt" "$SRCDIR/tests/golden/tui-tensor-vanished.txt" \
		"external data gone: screen matches tests/golden/tui-tensor-vanished.txt"
else
	skip "no mkfifo: external data that vanishes"
	skip "no mkfifo: external data that vanishes (screen)"
fi

# Hostile keys and sizes in the view never crash it.
mash='T[[[]]]{{{}}}}}jjjkkkhhhllll<PgDn><PgDn><PgUp><End><Home>GgT/x<Enter>n'
mash="$mash"'<Resize 20x5>]<Resize 200x60>}<Resize 30x8>lll<Esc>'
for m in srcnn tensors alltypes newtypes sub resize-constant external/model; do
	run mash 80x24 "$m.onnx" "I/ <Enter>$mash"
	check "key mash in the tensor view of $m.onnx: exits 0" [ $? -eq 0 ]
	run mash 80x24 "$m.onnx" "jj$mash"
	check "key mash from the graph of $m.onnx: exits 0" [ $? -eq 0 ]
done
done_testing
