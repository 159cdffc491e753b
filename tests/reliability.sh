#!/bin/sh
# Reliability, round 2 (issue 14): one or more regression checks per finding, each failing without its fix.
#  1 Einsum and every shape rule filled from a model: bounded (the overflows are caught by ASan in CI)
#  2/9 Loops: scan outputs over the memory limit, runs over the iteration or time limit, stopped with a message
#  4 --journal never destroys the input, is written after the model, never beside a refused save
#  5 run --save: no writing through planted symbolic links, no silent replacing
#  6 names with a NUL byte refused at load     7 -o onto non-regular files, links to the input, external data
# 10 check linear in local functions          12 a failing command writes nothing, `save` included
# 13 C1 and bidirectional controls, combining marks    14 the small ones
# (3 SIGBUS, 8 shrinking external data, 11 signals during a save: tests/unit/test-core.c)
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
"$PYTHON" "$SRCDIR/tests/gen-reliability-models.py" "$TMP/r" >/dev/null || { echo "Bail out! gen-reliability-models.py failed"; exit 1; }
cd "$TMP/r" || exit 1
cp "$TMP/m/srcnn.onnx" "$TMP/m/conv-relu.onnx" .
OV() { timeout 60 "$ONNXVIEW" "$@"; }
# no_crash RC: a status the program chose (a signal gives 128 + N, timeout 124)
no_crash() { [ "$1" -lt 124 ]; }

# ---- 1. Einsum, and the other shape rules that fill fixed arrays from the model ------------------------------
for f in einsum-2000 einsum-70 einsum-implicit einsum-rank einsum-nonascii squeeze-axes slice-long slice-axes \
	reduce-axes resize-axes gathernd-batch split-long conv-dilation pad-huge convt-huge reshape-rank; do
	OV dump $f.onnx >"$TMP/out" 2>"$TMP/err"
	rc=$?
	OV check $f.onnx >/dev/null 2>&1
	rc2=$?
	check "1: dump and check of $f.onnx finish (status $rc, $rc2)" sh -c "[ $rc -eq 0 ] && [ $rc2 -lt 2 ]"
done
OV dump einsum-2000.onnx | grep -q '  out  t  float32\[\.\.\.\] (inferred)'
check "1: an Einsum output of 2000 letters is left unknown (rank over 64)" [ $? -eq 0 ]
OV dump einsum-implicit.onnx | grep -q '  out  t  float32\[\.\.\.\] (inferred)'
check "1: an implicit output of 60 ellipsis dims and 52 letters is left unknown" [ $? -eq 0 ]
OV dump einsum-middle.onnx | grep -q '  out  t  float32\[5,3,4,2\] (inferred)'
check "1: 'i...j->j...i' takes the ellipsis dims from the middle of the input: [5,3,4,2]" [ $? -eq 0 ]
OV dump einsum-bcast.onnx | grep -q '  out  t  float32\[7,5,2,4\] (inferred)'
check "1: ellipses broadcast together, right-aligned: [7,5,2,4]" [ $? -eq 0 ]
OV dump conv-dilation.onnx | grep -q '  out  y  float32\[1,1,?,?\] (inferred)'
check "14: Conv with dilations near 2^62: unknown spatial dims, no signed overflow" [ $? -eq 0 ]
OV run einsum-2000.onnx --input x0=zeros >"$TMP/out" 2>"$TMP/err"
rc=$?
check "1: running the 2000-letter Einsum fails with one line, no crash (status $rc)" \
	sh -c "[ $rc -ge 1 ] && [ $rc -le 3 ] && [ \$(wc -l <'$TMP/err') -eq 1 ]"

# ---- 2 and 9. Loops that would fill the memory or never stop --------------------------------------------------
OV run loop-scan.onnx --input v0=zeros >"$TMP/out" 2>"$TMP/err"
rc=$?
check "2: a Loop stacking 4 MB x 10^6 iterations stops before iterating on (status 3)" [ $rc -eq 3 ]
check "... naming the scan outputs and the limit" grep -q "Loop: its scan outputs would take .* over 1000000 iterations, more than the" "$TMP/err"
OV run loop-while-scan.onnx --input v0=zeros >"$TMP/out" 2>"$TMP/err"
check "2: a while loop (trip count INT64_MAX, a computed condition) is not judged by its trip count" \
	sh -c "[ $? -eq 0 ] && grep -q \"output 'scans' float32\[3,256,256\]\" '$TMP/out'"
OV run loop-forever.onnx --input v0=zeros --max-iterations 1000 >"$TMP/out" 2>"$TMP/err"
rc=$?
check "9: trip count 10^18: stopped by --max-iterations (status 3)" [ $rc -eq 3 ]
check "... saying what stopped it" grep -q "the run stopped after 1000 loop iterations, its limit (--max-iterations raises it)" "$TMP/err"
OV run loop-nocount.onnx --input v0=zeros --max-iterations 100000000 --time-limit 0.3 >"$TMP/out" 2>"$TMP/err"
rc=$?
check "9: no trip count, a condition that stays true: stopped by --time-limit (status 3)" [ $rc -eq 3 ]
check "... saying what stopped it" grep -q "the run stopped after 0.3 s, its time limit (--time-limit raises it)" "$TMP/err"
OV compare loop-forever.onnx loop-forever.onnx --input v0=zeros --max-iterations 50 >"$TMP/out" 2>"$TMP/err"
check "9: compare takes --max-iterations too" grep -q "stopped after 50 loop iterations" "$TMP/err"
for bad in "--max-iterations 0" "--max-iterations x" "--time-limit -1" "--time-limit 0"; do
	OV run loop-forever.onnx $bad >/dev/null 2>&1
	check "9: run $bad is a usage error" [ $? -eq 2 ]
done

# ---- 4. --journal --------------------------------------------------------------------------------------------
cp srcnn.onnx in.onnx
OV edit in.onnx -e 'set-dim input 0 batch' -o out.onnx --journal in.onnx --force 2>"$TMP/err"
rc=$?
check "4: --journal naming the input is refused (status 2)" [ $rc -eq 2 ]
check "... the input keeps every byte, and no output appears" sh -c "cmp -s in.onnx srcnn.onnx && [ ! -e out.onnx ]"
check "... saying why" grep -q "onnxview: in.onnx: the journal is the model being edited" "$TMP/err"
ln -s in.onnx in-link.onnx
OV edit in.onnx -e 'set-dim input 0 batch' -o out.onnx --journal in-link.onnx --force 2>/dev/null
check "4: ... and through a symbolic link to it" sh -c "[ $? -eq 2 ] && cmp -s in.onnx srcnn.onnx && [ -L in-link.onnx ]"
OV edit in.onnx -e 'set-dim input 0 batch' -o same.onnx --journal same.onnx 2>"$TMP/err"
rc=$?
check "4: --journal X -o X is refused as such, not as 'exists' (status 2)" sh -c "[ $rc -eq 2 ] && [ ! -e same.onnx ]"
check "... saying so" grep -q "the journal is the output (-o) too" "$TMP/err"
mkdir -p ext && cp "$TMP/m/external/model.onnx" "$TMP/m/external/weights.bin" ext/
cp ext/weights.bin weights.orig
OV edit ext/model.onnx -e 'set-dim x 0 batch' -o ext/out.onnx --journal ext/weights.bin --force 2>/dev/null
check "4: --journal onto the model's external data is refused, the weights intact" \
	sh -c "[ $? -eq 2 ] && cmp -s ext/weights.bin weights.orig"
cp conv-relu.onnx exists.onnx
OV edit in.onnx -e 'set-dim input 0 batch' -o exists.onnx --journal j1.txt 2>/dev/null
check "4: a refused save writes no journal" sh -c "[ $? -eq 1 ] && [ ! -e j1.txt ]"
OV edit in.onnx -e 'set-dim input 0 batch' -e 'bogus' -o new.onnx --journal j2.txt 2>/dev/null
check "4: a failing command writes neither the model nor the journal" sh -c "[ $? -eq 2 ] && [ ! -e j2.txt ] && [ ! -e new.onnx ]"
OV edit in.onnx -e 'set-dim input 0 batch' -e 'set-tensor scales [1,1,2,2]' -o new.onnx --journal j3.txt 2>/dev/null
check "4: a journal is written with the model" sh -c "[ $? -eq 0 ] && [ -s j3.txt ] && [ -s new.onnx ]"
OV edit in.onnx -s j3.txt -o replay.onnx 2>/dev/null
check "... and replays into the same model" cmp -s new.onnx replay.onnx
check "... through a temporary file (none left)" [ "$(ls -A | grep -c '\.onnxview-')" -eq 0 ]
cp conv-relu.onnx j4.txt
OV edit in.onnx -e 'set-dim input 0 batch' -o new4.onnx --journal j4.txt 2>/dev/null
check "4: an existing journal file needs --force, and then nothing is written" \
	sh -c "[ $? -eq 1 ] && cmp -s j4.txt conv-relu.onnx && [ ! -e new4.onnx ]"

# ---- 7. -o destinations -----------------------------------------------------------------------------------------
mkfifo afifo
OV edit srcnn.onnx -o afifo --force 2>"$TMP/err"
check "7: -o onto a FIFO with --force is refused" sh -c "[ $? -eq 1 ] && [ -p afifo ]"
check "... naming what it is" grep -q "afifo: a FIFO: only regular files are replaced, --force or not" "$TMP/err"
OV edit srcnn.onnx -o /dev/null --force 2>"$TMP/err"
check "7: -o onto a device node with --force is refused" sh -c "[ $? -eq 1 ] && [ -c /dev/null ]"
mkdir -p adir
OV edit srcnn.onnx -o adir --force 2>"$TMP/err"
check "7: -o onto a folder is refused as one" sh -c "[ $? -eq 1 ] && grep -q 'a directory: only regular files' '$TMP/err'"
cp srcnn.onnx target.onnx
ln -s target.onnx link-to-target.onnx
OV edit target.onnx -e 'set-dim input 0 batch' -o link-to-target.onnx 2>/dev/null
check "7: -o through a symbolic link to the input saves in place without --force" [ $? -eq 0 ]
check "... the link is still a link, to the edited model" sh -c "[ -L link-to-target.onnx ] && ! cmp -s target.onnx srcnn.onnx"
OV info target.onnx | grep -q 'input  float32\[batch,1,16,16\]'
check "... which holds the edit" [ $? -eq 0 ]
ln -s nowhere.onnx dangling.onnx
OV edit srcnn.onnx -o dangling.onnx --force 2>"$TMP/err"
check "7: a dangling symbolic link is not followed" sh -c "[ $? -eq 1 ] && [ ! -e nowhere.onnx ]"
OV edit ext/model.onnx -e 'set-dim x 0 batch' -o ext/weights.bin --force 2>"$TMP/err"
check "7: -o onto the model's own external data is refused" sh -c "[ $? -eq 1 ] && cmp -s ext/weights.bin weights.orig"
check "... saying why" grep -q "one of the model's own external data files" "$TMP/err"

# ---- 5. run --save DIR ------------------------------------------------------------------------------------------
mkdir -p save && echo precious >victim
ln -s "$TMP/r/victim" save/output.npy
OV run srcnn.onnx --input input=zeros --save save >/dev/null 2>"$TMP/err"
check "5: a symbolic link planted in the save folder is not written through" sh -c "[ $? -ne 0 ] && [ \"\$(cat victim)\" = precious ]"
check "... it counts as a file that exists" grep -q "exists; use --force to replace it" "$TMP/err"
OV run srcnn.onnx --input input=zeros --save save --force >/dev/null 2>"$TMP/err"
check "5: with --force the link itself is replaced, its target untouched" \
	sh -c "[ $? -eq 0 ] && [ ! -L save/output.npy ] && [ -s save/output.npy ] && [ \"\$(cat victim)\" = precious ]"
cp save/output.npy keep.npy
OV run conv-relu.onnx --input x=ones --save save >/dev/null 2>&1 || true
mkdir -p save2 && cp keep.npy save2/output.npy
OV run srcnn.onnx --input input=ones --save save2 >/dev/null 2>"$TMP/err"
check "5: an existing .npy is not replaced without --force (as edit and dot)" sh -c "[ $? -eq 1 ] && cmp -s keep.npy save2/output.npy"
OV run srcnn.onnx --input input=zeros --force >/dev/null 2>&1
check "5: --force without --save is a usage error" [ $? -eq 2 ]

# ---- 6. names with a NUL byte -----------------------------------------------------------------------------------
for f in nul-input nul-init nul-doc; do
	OV check $f.onnx >/dev/null 2>"$TMP/err"
	rc=$?
	check "6: $f.onnx is refused at load (status 3), not read cut short" sh -c "[ $rc -eq 3 ] && grep -q 'has a NUL byte at position' '$TMP/err'"
done
OV check nul-input.onnx 2>&1 | grep -q "NodeProto.input 'x' has a NUL byte at position 1"
check "6: ... naming the field and what precedes the NUL" [ $? -eq 0 ]
"$PYTHON" - <<'PY'
import onnx
from onnx import helper, TensorProto
t = helper.make_tensor("wAz", TensorProto.FLOAT, [1], [1.0])
open("nul-name.pb", "wb").write(t.SerializeToString().replace(b"wAz", b"w\0z"))
PY
OV edit srcnn.onnx -e 'set-tensor scales @nul-name.pb' -o nul-out.onnx 2>"$TMP/err"
check "6: a .pb tensor file with a NUL in its name is refused too" sh -c "[ $? -eq 3 ] && grep -q 'has a NUL byte' '$TMP/err'"

# ---- 10. check and local functions ------------------------------------------------------------------------------
"$PYTHON" - <<'PY'
import onnx
from onnx import helper, TensorProto as T
n = 50000
fs = [helper.make_function("local", "f%d" % i, ["a"], ["b"],
                           [helper.make_node("f%d" % (i + 1), ["a"], ["b"], domain="local") if i + 1 < n else
                            helper.make_node("Relu", ["a"], ["b"])],
                           [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)]) for i in range(n)]
g = helper.make_graph([helper.make_node("f0", ["x"], ["y"], domain="local")], "g",
                      [helper.make_tensor_value_info("x", T.FLOAT, [1])], [helper.make_tensor_value_info("y", T.FLOAT, [1])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)], functions=fs)
m.ir_version = 8
onnx.save(m, "functions-50000.onnx")
PY
timeout 30 "$ONNXVIEW" check functions-50000.onnx >"$TMP/out" 2>&1
check "10: check of 50,000 local functions finishes in 30 s (it took minutes: quadratic)" [ $? -eq 0 ]

# ---- 10b. run with many opset imports (the runner looked each node's opset up by a scan: quadratic) -------------
"$PYTHON" - <<'PY'
import onnx
from onnx import helper, TensorProto as T
n = 100000
nodes = [helper.make_node("Relu", ["x" if i == 0 else "v%d" % (i - 1)], ["v%d" % i if i < n - 1 else "y"])
         for i in range(n)]
g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, [4])],
                      [helper.make_tensor_value_info("y", T.FLOAT, [4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("d%d" % i, 1) for i in range(n)] +
                      [helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.save(m, "imports-100000.onnx")
PY
timeout 30 "$ONNXVIEW" run imports-100000.onnx --input ones >"$TMP/out" 2>&1
check "10: run of 100,000 nodes under 100,001 opset imports finishes in 30 s (73 s before: quadratic)" \
	sh -c "[ $? -eq 0 ] && grep -q 'y' '$TMP/out'"
timeout 30 "$ONNXVIEW" edit imports-100000.onnx -e 'set-opset 14' -o imports-14.onnx >/dev/null 2>&1 &&
	timeout 30 "$ONNXVIEW" info imports-14.onnx >"$TMP/out" 2>&1
check "10: after set-opset the model reads the new version (the index follows the edit)" \
	grep -q 'ai.onnx 14' "$TMP/out"

# ---- 12. `save` and "a failing command writes nothing" -------------------------------------------------------
OV edit srcnn.onnx -e 'save side.onnx' -e bogus -o out12.onnx 2>/dev/null
check "12: -e 'save side.onnx' -e bogus writes nothing" sh -c "[ $? -eq 2 ] && [ ! -e side.onnx ] && [ ! -e out12.onnx ]"
OV edit srcnn.onnx -e 'set-dim input 0 batch' -e 'save side.onnx' -e 'set-dim input 0 8' -o out12.onnx 2>/dev/null
check "12: with every command succeeding, 'save PATH' writes the model as it was then" \
	sh -c "[ $? -eq 0 ] && '$ONNXVIEW' info side.onnx | grep -q 'input  float32\[batch' && '$ONNXVIEW' info out12.onnx | grep -q 'input  float32\[8,'"
OV edit srcnn.onnx -e 'set-dim input 0 batch' -e save -o out12b.onnx 2>"$TMP/err"
check "12: -e save -o OUT writes OUT once, without 'exists'" sh -c "[ $? -eq 0 ] && [ -s out12b.onnx ] && ! grep -q exists '$TMP/err'"
check "... and no temporary file is left" [ "$(ls -A | grep -c '\.onnxview-')" -eq 0 ]

OV edit srcnn.onnx -e 'set-dim input 0 batch' -e 'journal j12.txt' -o out12c.onnx 2>/dev/null
check "3/12: the journal command writes the applied commands as a script (what the TUI keeps when the file changed)" \
	sh -c "[ $? -eq 0 ] && grep -qx 'set-dim input 0 batch' j12.txt"
OV edit srcnn.onnx -e 'journal j12b.txt' -e bogus -o out12d.onnx 2>/dev/null
check "12: ... and, under edit, only once every command succeeded" sh -c "[ $? -eq 2 ] && [ ! -e j12b.txt ]"
OV edit srcnn.onnx -e 'journal srcnn.onnx' -o out12e.onnx 2>/dev/null
check "4: ... never over the model" sh -c "[ $? -eq 1 ] && cmp -s srcnn.onnx '$TMP/m/srcnn.onnx'"

# ---- 13. terminal spoofing -----------------------------------------------------------------------------------
OV dump --json spoof.onnx >"$TMP/out" 2>&1
check "13: --json writes U+009B (CSI to xterm and VTE) as \\u009b" sh -c "grep -q 'a\\\\u009b31mb' '$TMP/out' && ! grep -q \"\$(printf '\\302\\233')\" '$TMP/out'"
check "13: ... and the bidi controls as \\u202e, \\u2066" sh -c "grep -q 'b\\\\u202etxt.exe\\\\u2066c' '$TMP/out' && ! grep -q \"\$(printf '\\342\\200\\256')\" '$TMP/out'"
OV dump spoof.onnx >"$TMP/out" 2>&1
check "13: text output shows the bidi controls instead of obeying them" \
	sh -c "grep -q 'b\\\\u202etxt.exe\\\\u2066c' '$TMP/out' && ! grep -q \"\$(printf '\\342\\200\\256')\" '$TMP/out'"
printf 'j<Enter>' >"$TMP/keys"
LC_ALL=C.UTF-8 TERM=xterm-256color timeout 20 "$ONNXVIEW" --keys "$TMP/keys" --dump "$TMP/screen" --size 100x30 marks.onnx \
	>/dev/null 2>&1
check "13: the TUI keeps 300 combining marks in one cell: the name and what follows it stay in place" \
	grep -q "^#0 'AB\.\.\.' Relu" "$TMP/screen"
LC_ALL=C.UTF-8 TERM=xterm-256color timeout 20 "$ONNXVIEW" --keys "$TMP/keys" --dump "$TMP/screen" --size 100x30 spoof.onnx \
	>/dev/null 2>&1
check "13: the TUI shows the bidi controls as text" grep -q '\\u202etxt.exe\\u2066' "$TMP/screen"

# ---- 14. the small ones --------------------------------------------------------------------------------------
OV check dup-init.onnx >"$TMP/out" 2>&1
check "14: check reports initializers that share a name (status 1)" sh -c "[ $? -eq 1 ] && grep -q \"produced-twice.*initializer 'w'\" '$TMP/out'"
"$PYTHON" - <<'PY'
import numpy as np
np.save("strings.npy", np.array(["a", "b", "c", "d"]))
PY
OV edit srcnn.onnx -e 'set-tensor scales @strings.npy' -o o14.onnx 2>/dev/null
check "14: a tensor file of an unsupported dtype is unreadable input: status 3, as a malformed one" [ $? -eq 3 ]
"$PYTHON" - <<'PY'
import onnx
m = onnx.load("ext/model.onnx", load_external_data=False)
for e in m.graph.initializer[0].external_data:
    if e.key == "offset":
        e.value = "99999999999999999999"
onnx.save(m, "ext/offset.onnx")
PY
OV info ext/offset.onnx 2>"$TMP/err"
check "14: an offset past 2^64 is 'out of range', not 'not a number'" \
	grep -q "external data offset '99999999999999999999' is out of range" "$TMP/err"
printf 'set-dim nope 0 batch\n' >s.txt
OV edit srcnn.onnx -s s.txt -o o14.onnx 2>"$TMP/err"
check "14: script errors name the model, the script and the line, no empty field" \
	grep -q "^onnxview: srcnn.onnx: s.txt:1: " "$TMP/err"
hint=$("$ONNXVIEW" check hint-name.onnx | sed -n "s/.*-e '\(.*\)' -o OUT (or export.*/\1/p")
check "14: check's hint quotes an odd name as the command language reads it" [ "$hint" = 'set-dim "in \x27put\x1b" 0 batch' ]
OV edit hint-name.onnx -e "$hint" -o hinted.onnx 2>/dev/null
check "... and works when pasted" sh -c "[ $? -eq 0 ] && '$ONNXVIEW' info hinted.onnx | grep -q 'float32\[batch,3,8,8\]'"
OV edit srcnn.onnx -e 'set-tensor scales [1,1,0x10,2]' -o o14.onnx 2>"$TMP/err"
check "14: set-tensor refuses 0x10 (values are read strictly)" sh -c "[ $? -ne 0 ] && grep -q \"'0x10' is not a number\" '$TMP/err'"
OV edit srcnn.onnx -e 'set-attr conv1 dilations [1,1]' -e 'set-attr conv1 strides [0,0]' -o o14b.onnx 2>"$TMP/err"
check "14: set-attr strides [0,0] is taken with a warning" \
	sh -c "[ $? -eq 0 ] && grep -q \"warning: #1 'conv1' Conv: strides\[0\] is 0; it must be at least 1\" '$TMP/err'"

done_testing
