#!/bin/sh
# Lists in the TUI, headless: f filters any list (nodes by op type, initializers by name), a quoted term matches a
# whole word only, the heading stays, Enter still jumps from a filtered line, an empty filter shows everything.
. "$(dirname "$0")/lib.sh"

scratch
cp "$SRCDIR/share/onnxview/examples/srcnn.onnx" "$TMP/srcnn.onnx"
cd "$TMP" || exit 1

screen() { # NAME KEYS
	printf '%s' "$2" >"$1.keys"
	LC_ALL=C.UTF-8 timeout 20 "$ONNXVIEW" --keys "$1.keys" --dump "$1.txt" --size 100x30 srcnn.onnx >"$1.out" 2>"$1.err"
	echo $? >"$1.rc"
}
lines() { sed -n '2,28p' "$1.txt" | grep -c "$2"; }

screen conv 'Lf"Conv"<Enter>'
check "f \"Conv\" in the node list: the three Conv nodes" [ "$(lines conv '^#[0-9]* *Conv ')" -eq 3 ]
check "f \"Conv\": no other op is left" [ "$(lines conv '^#[0-9]* *\(Relu\|Resize\) ')" -eq 0 ]
check "f: the heading stays" grep -q "^6 nodes" conv.txt
check "f: the status line counts the matches" grep -q "3 of 6 lines match '\"Conv\"'" conv.txt
screen conv_jump 'Lf"Conv"<Enter><Enter>'
check "Enter on a filtered line jumps to that node" grep -q "▶| Conv" conv_jump.txt
screen relu 'LfRelu<Enter>'
check "f with a plain term: substrings match" [ "$(lines relu '^#[0-9]* *Relu ')" -eq 2 ]
screen both 'LfConv "conv3"<Enter>'
check "f with two terms: both must match" [ "$(lines both '^#')" -eq 1 ]
screen none 'Lfnosuchthing<Enter>'
check "f matching nothing: just the heading, no crash" sh -c '[ "$(cat none.rc)" -eq 0 ] && grep -q "0 of 6 lines match" none.txt'
screen reset 'Lf"Conv"<Enter>f<C-u><Enter>'
check "f with an empty line shows every line again" [ "$(lines reset '^#')" -eq 6 ]
screen inits 'IfW<Enter>'
check "f in the initializer list" sh -c '[ "$(cat inits.rc)" -eq 0 ] && grep -q "lines match .W." inits.txt'
screen help '?'
check "the help lists f" grep -q "^ *f .*show only lines with every term" help.txt
done_testing
