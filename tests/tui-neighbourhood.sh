#!/bin/sh
# D in the TUI, headless: Graphviz's layout of the selected node's neighbourhood drawn in cells (boxes, edges with
# arrows and shapes), the selection moving to the nearest box, Enter back to the graph on that node, + and - on the
# radius, --ascii, small and large screens, Esc; and models that are hard on it (thousands of consumers, a cycle,
# the generated hostile models, a 20x6 screen) never crash it or let Graphviz write to the terminal.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

scratch
cp "$SRCDIR/share/onnxview/examples/srcnn.onnx" "$TMP/srcnn.onnx"
cd "$TMP" || exit 1
export TERM=xterm-256color
unset NO_COLOR
# Graphviz keeps memory it never frees (see tests/dot.sh): under the sanitizers, not onnxview's leaks.
for lib in libgvc.so libgvplugin_ libfontconfig.so libpango libglib-2.0.so libcairo.so; do
	echo "leak:$lib"
done >"$TMP/lsan.supp"
LSAN_OPTIONS="suppressions=$TMP/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

screen() { # NAME SIZE MODEL KEYS [OPTIONS...]: run the TUI in UTF-8, screen in NAME.txt
	local name=$1 size=$2 model=$3 keys=$4
	shift 4
	printf '%s' "$keys" >"$name.keys"
	LC_ALL=C.UTF-8 timeout 60 "$ONNXVIEW" "$@" --keys "$name.keys" --dump "$name.txt" --size "$size" "$model" \
		>"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}
has() { grep -q -- "$2" "$1.txt"; }
clean() { [ "$(cat "$1.rc")" -eq 0 ] && [ ! -s "$1.err" ]; }
line_of() { grep -n -- "$2" "$1.txt" | head -1 | cut -d: -f1; } # NAME PATTERN: the first line that has it
last() { tail -n 1 "$1.txt" | grep -q -- "$2"; } # NAME PATTERN: the status line has it
# all CMD... -- CMD... -- ...: every command succeeds
all() {
	local cmd=""
	for a in "$@" --; do
		if [ "$a" = -- ]; then
			eval "$cmd" || return 1
			cmd=""
		else
			cmd="$cmd '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
		fi
	done
}
# above NAME A B: the line with A comes before the line with B
above() { local a b; a=$(line_of "$1" "$2"); b=$(line_of "$1" "$3"); [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; }
# arrow_between NAME A B: a 'v' arrow on a line after A's and before B's, with an edge line on the line above it
arrow_between() {
	local a b
	a=$(line_of "$1" "$2"); b=$(line_of "$1" "$3")
	[ -n "$a" ] && [ -n "$b" ] && sed -n "$((a + 1)),$((b - 1))p" "$1.txt" | grep -q '^ *[|+-]*.*v' &&
		sed -n "$((a + 1)),$((b - 1))p" "$1.txt" | grep -q '|'
}

# ---- srcnn: conv1 (#1) is the third box of the graph view ---------------------------------------------------------
screen open 100x30 srcnn.onnx 'jjD'
check "D opens the view and exits cleanly, nothing on stderr" clean open
check "the title names the node and the radius" has open "Graphviz: #1 conv1, radius 2"
check "the status line gives the radius and the box count" last open "^radius 2: 6 boxes laid out by Graphviz"
check "conv1 is selected (the marker left of its box)" has open "▶| Conv "
check "Resize is drawn above conv1" above open "| Resize " "▶| Conv "
check "Relu is drawn below conv1" above open "▶| Conv " "| Relu "
check "an edge with its arrow from Resize down to conv1" arrow_between open "| Resize " "▶| Conv "
check "an edge with its arrow from conv1 down to Relu" arrow_between open "▶| Conv " "| Relu "
check "edges carry their shapes (UTF-8: ≈ marks an inferred one)" has open "| ≈1×8×48×48"
check "the box text is the scene's (the constant scales inside the Resize box)" has open "| scales = \[1, 1, 3, 3\] |"

screen up 100x30 srcnn.onnx 'jjDk'
check "k moves the selection to the box above (Resize)" has up "▶| Resize "
check "... and the status line says what it is" sh -c 'tail -n 1 up.txt | grep -q "^#0 resize0 Resize"'
screen down 100x30 srcnn.onnx 'jjDjj'
check "j j moves down twice (Relu, then conv2)" all last down "^#3 conv2 Conv" -- has down "^ *▶| Conv "
screen sideways 100x30 srcnn.onnx 'jjDhl'
check "h and l with nothing beside: the selection stays, no crash" all clean sideways -- has sideways "▶| Conv "
screen home 100x30 srcnn.onnx 'jjDkk<Home>'
check "Home goes back to the focused node" has home "▶| Conv "

screen enter 100x30 srcnn.onnx 'jjDk<Enter>'
check "Enter goes back to the graph view" sh -c 'head -n 1 enter.txt | grep -q "srcnn.onnx  graph "'
check "... with that node (Resize) selected there" has enter "▶| Resize "
screen enter_stub 100x30 srcnn.onnx 'jjD-jj<Enter>'
check "Enter on a stub (conv2, outside radius 1) selects that node in the graph" sh -c \
	'head -n 1 enter_stub.txt | grep -q " graph " && grep -A1 "▶| Conv" enter_stub.txt | grep -q "W ⟨4×8×1×1⟩"'
screen enter_input 100x30 srcnn.onnx 'jjDkk<Enter>'
check "Enter on a graph input: a message, the view stays" \
	all last enter_input "a graph input: Enter goes to nodes" -- has enter_input "^ onnxview .*Graphviz"

screen plus 100x30 srcnn.onnx 'jjD+'
check "+ widens the radius: the status line says radius 3 and the box count" last plus "^radius 3: 7 boxes$"
check "... and the title follows" has plus "Graphviz: #1 conv1, radius 3"
screen minus 100x50 srcnn.onnx 'jjD-'
check "- narrows it: radius 1, 5 boxes" last minus "^radius 1: 5 boxes$"
check "... boxes outside are stubs (… and the op)" all has minus "| … Conv " -- has minus "| … input "
screen keep 100x30 srcnn.onnx 'jjD-jj+'
check "the selection survives a new radius (the conv2 stub becomes the conv2 box)" \
	sh -c 'grep -A1 "▶| Conv" keep.txt | grep -q "W ⟨4×8×1×1⟩"'
screen zero 100x30 srcnn.onnx 'jjD---'
check "the radius stops at 0" last zero "the radius goes from 0 to"
screen refocus 100x30 srcnn.onnx 'jjDjD'
check "D in the view lays out the selected node's neighbourhood" has refocus "Graphviz: #2 relu1, radius 2"

screen ascii 100x30 srcnn.onnx 'jjD' --ascii
check "--ascii: the view opens" all clean ascii -- has ascii ">| Conv "
check "--ascii: only ASCII on the screen" sh -c '[ "$(LC_ALL=C tr -d "\n -~" <ascii.txt | wc -c)" -eq 0 ]'
check "--ascii: shapes as 1x8x48x48, ~ for inferred" has ascii "| ~1x8x48x48"
screen ascii_stub 100x50 srcnn.onnx 'jjD-' --ascii
check "--ascii: stubs with ... and nothing but ASCII" sh -c \
	'grep -q "| \.\.\. Conv " ascii_stub.txt && [ "$(LC_ALL=C tr -d "\n -~" <ascii_stub.txt | wc -c)" -eq 0 ]'

screen small 80x24 srcnn.onnx 'jjD'
check "80x24: conv1 selected, the boxes around it shown" \
	all clean small -- has small "▶| Conv " -- has small "| mode = "
widest() { LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m }' "$1.txt"; }
fits() { [ "$(wc -l <"$1.txt")" -eq "$2" ] && [ "$(widest "$1")" -le "$3" ]; } # NAME ROWS COLS
check "80x24: the screen is 24 lines of at most 80 columns" fits small 24 80
screen large 200x60 srcnn.onnx 'jjD'
check "200x60: the whole neighbourhood fits (input to the conv2 box and the relu2 stub)" \
	all clean large -- has large "| input " -- has large "▶| Conv " -- has large "| … Relu "
check "200x60: the drawing is centred" sh -c '! grep -q "^[+|]" large.txt'

screen esc 100x30 srcnn.onnx 'jjD<Esc>'
check "Esc closes the view: the graph, conv1 still selected" sh -c \
	'head -n 1 esc.txt | grep -q " graph " && grep -A1 "▶| Conv" esc.txt | grep -q "W ⟨8×1×9×9⟩"'
screen on_input 100x30 srcnn.onnx 'D'
check "D on a graph input box: a message, no view" sh -c \
	'tail -n 1 on_input.txt | grep -q "select a node" && head -n 1 on_input.txt | grep -q " graph "'
screen search 100x30 srcnn.onnx 'jjD/Relu<Enter>'
check "/ searches the boxes of the view" has search "▶| Relu "
screen help 100x60 srcnn.onnx '?'
check "the help lists D" grep -q "^ *D .*view-neighbourhood *Graphviz lays out the node's neighbourhood" help.txt
screen edit 100x30 srcnn.onnx 'jjD:set-attr conv1 kernel_shape [3,3]<Enter>'
check "an edit while the view is open: it is laid out again" \
	all clean edit -- has edit "kernel_shape = \[3, 3\]" -- has edit "^ onnxview .*Graphviz: #1 conv1"
screen tab 100x30 srcnn.onnx 'jjD<Tab><Tab><PgDn><PgUp>'
check "Tab and PgDn/PgUp: no crash" clean tab

# ---- models that are hard on it ------------------------------------------------------------------------------------
screen tiny 20x6 srcnn.onnx 'jjDjjkk+-<Resize 30x8>hl<Enter>'
check "a 20x6 screen: no crash" clean tiny
screen tiny2 20x6 srcnn.onnx 'jjD<Resize 20x5>jk+<Resize 200x60>' --ascii
check "resizing while the view is open: no crash" clean tiny2

if have_python_onnx; then
	"$PYTHON" - <<'PY'
import onnx
from onnx import helper, TensorProto as T
def save(nodes, outs, name):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", T.FLOAT, [4])],
                          [helper.make_tensor_value_info(o, T.FLOAT, [4]) for o in outs])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")
# one value read by 3,100 nodes: over the limit even at radius 0; 200 consumers: a very wide drawing
for n in (3100, 200):
    save([helper.make_node("Relu", ["x"], ["r"], name="src")] +
         [helper.make_node("Neg", ["r"], ["y%d" % i], name="neg%d" % i) for i in range(n)],
         ["y%d" % i for i in range(n)], "fan%d" % n)
# a cycle (dot turns an edge round) and a node reading its own output
save([helper.make_node("Add", ["x", "c"], ["a"], name="add0"), helper.make_node("Relu", ["a"], ["b"], name="relu1"),
      helper.make_node("Neg", ["b"], ["c"], name="neg2"), helper.make_node("Identity", ["b"], ["y"], name="id3"),
      helper.make_node("Relu", ["s"], ["s"], name="self4")], ["y"], "cycle")
PY
	screen fan3100 100x30 fan3100.onnx 'jD'
	check "3,100 consumers: refused with one status line naming the limit" all clean fan3100 -- \
		last fan3100 "^3102 boxes within 0 edges of #0, more than Graphviz lays out quickly (3000)$"
	check "... and the graph view stays" sh -c 'head -n 1 fan3100.txt | grep -q " graph "'
	screen fan200 100x30 fan200.onnx 'jDjjjjllllhhhh+-kk<Enter>'
	check "200 consumers: laid out, moved around in, back to the graph" \
		all clean fan200 -- has fan200 "^ onnxview .* graph "
	screen fan200_open 100x30 fan200.onnx 'jD'
	check "... the status line counts its boxes" sh -c 'tail -n 1 fan200_open.txt | grep -q "^radius 2: 402 boxes"'
	screen cycle 100x30 cycle.onnx ':0<Enter>D'
	check "a cycle: laid out, the edge dot turned round drawn with an upward arrow" \
		all clean cycle -- has cycle "\^" -- has cycle "▶| Add "
	screen cycle_walk 100x30 cycle.onnx ':0<Enter>Djjjkkkhlhl+++---<Enter>:4<Enter>D+<Esc>'
	check "a cycle and a self-loop: moving, radius, Enter, no crash" clean cycle_walk
else
	skip "no python3 with onnx (Debian: python3-onnx) to make the models with thousands of consumers and cycles"
fi
if have_python_onnx && gen_models "$TMP/m"; then
	printf '%s' 'D+-jjjkkkhhllD<Tab><Enter>' >"$TMP/mash.keys"
	for m in conv-relu srcnn if-subgraph function custom-domain dangling unsorted alltypes sparse external/model; do
		rc=0
		for k in '' j jj jjj jjjj; do
			printf '%s%s' "$k" "$(cat "$TMP/mash.keys")" >"$TMP/k.keys"
			LC_ALL=C.UTF-8 timeout 60 "$ONNXVIEW" --keys "$TMP/k.keys" --size 80x24 "$TMP/m/$m.onnx" >/dev/null \
				2>"$TMP/err" || rc=1
			[ -s "$TMP/err" ] && rc=1
		done
		check "D and the view's keys on every box of $m.onnx: exits 0, nothing on stderr" [ $rc -eq 0 ]
	done
	screen subgraph 80x24 "$TMP/m/if-subgraph.onnx" 'jjSD'
	check "D in a subgraph view: a message" sh -c 'tail -n 1 subgraph.txt | grep -q "D works in the main graph"'
else
	skip "no python3 with onnx to make the generated models"
fi
done_testing
