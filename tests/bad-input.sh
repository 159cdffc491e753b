#!/bin/sh
# Bad input: every broken or hostile file gets exit status 3 and exactly one line on stderr naming the file and
# what is wrong; nothing on stdout, no crash, no hang. Usage errors get status 2.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1
mkdir -p adir
mkfifo afifo
# What torch.save writes (a zip whose entries are NAME/data.pkl, NAME/data/0...; before PyTorch 1.6 a pickle that
# starts with its magic number), made without torch; and a zip that is neither.
"$PYTHON" - <<'PY'
import zipfile
with zipfile.ZipFile("torch-checkpoint.pt", "w") as z:
    z.writestr("checkpoint/data.pkl", b"\x80\x02}q\x00.")
    z.writestr("checkpoint/data/0", b"\0" * 16)
    z.writestr("checkpoint/version", b"3\n")
with zipfile.ZipFile("other.zip", "w") as z:
    z.writestr("readme.txt", b"hello")
open("torch-legacy.pt", "wb").write(b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.")
PY

# expect STATUS 'exact stderr line' ARGS...
expect() {
	want_rc=$1 want_err=$2
	shift 2
	timeout 20 "$ONNXVIEW" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	got_err=$(cat "$TMP/err")
	lines=$(wc -l <"$TMP/err")
	if [ $rc -eq "$want_rc" ] && [ "$got_err" = "$want_err" ] && [ "$lines" -eq 1 ] && [ ! -s "$TMP/out" ]; then
		ok "onnxview $* -> $want_rc: $want_err"
	else
		not_ok "onnxview $* -> $want_rc: $want_err"
		diag "got status $rc, $lines stderr lines:" "$got_err" "stdout bytes: $(wc -c <"$TMP/out")"
	fi
}

for cmd in info dump; do
	expect 3 "onnxview: missing.onnx: cannot open: No such file or directory" $cmd missing.onnx
	expect 3 "onnxview: adir: is a directory, not a model file" $cmd adir
	expect 3 "onnxview: afifo: not a regular file" $cmd afifo
	expect 3 "onnxview: /dev/null: not a regular file" $cmd /dev/null
	expect 3 "onnxview: bad-empty.onnx: empty file (0 bytes), not an ONNX model" $cmd bad-empty.onnx
	expect 3 "onnxview: bad-truncated.onnx: byte 63: ModelProto field 7 declares 836 bytes but only 401 remain (truncated or corrupt file)" $cmd bad-truncated.onnx
	expect 3 "onnxview: bad-random.onnx: byte 18: ModelProto: invalid field number 1326615600 (not a protobuf message, or corrupt)" $cmd bad-random.onnx
	expect 3 "onnxview: bad-no-graph.onnx: not an ONNX model: it decodes as protobuf but has no graph (ModelProto.graph is missing)" $cmd bad-no-graph.onnx
	expect 3 "onnxview: bad-negative-dim.onnx: initializer 'w': dim 0 is negative (-1)" $cmd bad-negative-dim.onnx
	expect 3 "onnxview: bad-overflow-dims.onnx: initializer 'w': dims overflow: the product of the dims exceeds 2^53 elements" $cmd bad-overflow-dims.onnx
	expect 3 "onnxview: bad-rawdata-size.onnx: initializer 'w': raw_data has 20 bytes, but FLOAT of this shape needs 24" $cmd bad-rawdata-size.onnx
	expect 3 "onnxview: bad-huge-length.onnx: byte 3: ModelProto field 7 declares 3000000000 bytes but only 4 remain (truncated or corrupt file)" $cmd bad-huge-length.onnx
	expect 3 "onnxview: bad-deep-nesting.onnx: byte 968: messages nested more than 64 deep" $cmd bad-deep-nesting.onnx
	expect 3 "onnxview: bad-group.onnx: byte 2: ModelProto field 7 should hold a message but has wire type 3" $cmd bad-group.onnx
	expect 3 "onnxview: torch-checkpoint.pt: this is a PyTorch checkpoint (a zip written by torch.save), not an ONNX model: load it in PyTorch and export it with torch.onnx.export" $cmd torch-checkpoint.pt
	expect 3 "onnxview: torch-legacy.pt: this is a PyTorch checkpoint (a pickle written by torch.save), not an ONNX model: load it in PyTorch and export it with torch.onnx.export" $cmd torch-legacy.pt
	expect 3 "onnxview: other.zip: this is a zip archive, not an ONNX model (an ONNX file is a protobuf ModelProto; unpack the archive first)" $cmd other.zip
	expect 3 "onnxview: bad-ext-abs.onnx: initializer 'w': external data location '/etc/passwd' is an absolute path; it must be relative to the model's folder" $cmd bad-ext-abs.onnx
	expect 3 "onnxview: bad-ext-dotdot.onnx: initializer 'w': external data location '../weights.bin' climbs out of the model's folder ('..')" $cmd bad-ext-dotdot.onnx
	expect 3 "onnxview: bad-ext-pastend.onnx: initializer 'w': external data at offset 8, 64 bytes, runs past the end of 'weights-small.bin' (16 bytes)" $cmd bad-ext-pastend.onnx
	expect 3 "onnxview: bad-ext-symlink/model.onnx: initializer 'w': external data location 'w.bin' leads out of the model's folder through a symbolic link (to $(readlink -f bad-ext-symlink/w.bin))" $cmd bad-ext-symlink/model.onnx
done

# A file whose structure would unpack to far more memory than its size is refused before unpacking.
"$PYTHON" - "$TMP/m/bad-bomb.onnx" <<'PY'
import sys
# ModelProto.graph containing 4M empty NodeProto entries (2 bytes each in the file, ~100 bytes each unpacked).
node = b"\x0a\x00" * (4 << 20)
def ld(field, payload):
    n = len(payload); v = b""
    while True:
        b = n & 0x7f; n >>= 7
        v += bytes([b | (0x80 if n else 0)])
        if not n: break
    return bytes([(field << 3) | 2]) + v + payload
open(sys.argv[1], "wb").write(ld(7, node))
PY
timeout 20 "$ONNXVIEW" info bad-bomb.onnx >/dev/null 2>"$TMP/err"
rc=$?
check "a memory bomb (4M empty nodes) is refused with status 3" [ $rc -eq 3 ]
check "the refusal names the memory limit" grep -q "would need about .* MiB of memory" "$TMP/err"

# Negative declared dims (Paddle2ONNX writes -1) load as dynamic dims, as onnxruntime and onnx.checker read them.
for cmd in info dump check; do
	"$ONNXVIEW" $cmd bad-neg-valueinfo.onnx >"$TMP/out" 2>"$TMP/err"
	check "a negative declared dim: $cmd exits 0, nothing on stderr" sh -c "[ $? -eq 0 ] && [ ! -s '$TMP/err' ]"
done
"$ONNXVIEW" info bad-neg-valueinfo.onnx >"$TMP/out"
check "a negative declared dim reads as dynamic (?)" grep -q "x  *float32\[?\]" "$TMP/out"
"$ONNXVIEW" check bad-neg-valueinfo.onnx >"$TMP/out"
check "check names the negative dim and the set-dim that names it" \
	sh -c "grep -q \"input 'x' declares dim 0 (-3)\" '$TMP/out' && grep -q \"set-dim x 0 batch\" '$TMP/out'"
"$ONNXVIEW" run bad-neg-valueinfo.onnx --shape x=3 --input random >"$TMP/out" 2>"$TMP/err"
check "a negative declared dim runs once --shape gives it a size" grep -q "output 'y' float32\[3\]" "$TMP/out"

# A model whose node refers to a value nobody defines still loads; info flags it.
"$ONNXVIEW" info dangling.onnx >"$TMP/out" 2>"$TMP/err"
check "dangling reference: info exits 0" [ $? -eq 0 ]
check "dangling reference: info names the node and the value" \
	grep -q "node #1 'add0' (Add) input 1 'does_not_exist' is not a graph input, initializer or node output" "$TMP/out"

# Hostile names cannot drive the terminal: control characters come out escaped.
"$PYTHON" - "$TMP/m/escape.onnx" <<'PY'
import sys, onnx
from onnx import helper, TensorProto
n = helper.make_node("Relu", ["x"], ["y"], name="evil\x1b]0;pwned\x07\x1b[2J")
g = helper.make_graph([n], "g\x1b[31m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
onnx.save(helper.make_model(g, producer_name="p\x1b[5m"), sys.argv[1])
PY
"$ONNXVIEW" dump escape.onnx >"$TMP/out" 2>&1
check "dump escapes control characters in names" sh -c "! grep -q \"$(printf '\033')\" '$TMP/out'"
check "dump shows the escape visibly" grep -q 'evil\\x1b]0;pwned' "$TMP/out"
"$ONNXVIEW" info escape.onnx >"$TMP/out" 2>&1
check "info escapes control characters in producer and graph names" sh -c "! grep -q \"$(printf '\033')\" '$TMP/out'"

# Usage errors: status 2.
for args in "info" "dump" "info --bogus x.onnx" "frobnicate" "info a.onnx b.onnx" "edit conv-relu.onnx" "edit -o"; do
	timeout 10 "$ONNXVIEW" $args >/dev/null 2>"$TMP/err"
	rc=$?
	check "onnxview $args: usage error, status 2" [ $rc -eq 2 ]
	check "onnxview $args: says what is wrong on stderr" grep -q '^onnxview: ' "$TMP/err"
done
timeout 10 "$ONNXVIEW" >/dev/null 2>&1
check "no arguments: status 2" [ $? -eq 2 ]
"$ONNXVIEW" --help >"$TMP/out"
check "--help exits 0 and lists the commands" grep -q 'info \[--json\] MODEL' "$TMP/out"
"$ONNXVIEW" --version >"$TMP/out"
check "--version names the program and the CUDA backend state" sh -c "grep -q '^onnxview ' '$TMP/out' && grep -q '^CUDA backend: ' '$TMP/out'"
# The TUI refuses to start without a terminal instead of scribbling on a pipe.
timeout 10 "$ONNXVIEW" srcnn.onnx </dev/null >"$TMP/out" 2>"$TMP/err"
check "the TUI without a terminal: status 2 and a hint" sh -c "[ $? -eq 2 ] && grep -q 'needs a terminal' '$TMP/err'"
# An element type newer than onnxview (a later onnx.proto's) is refused as such, exit 1, not as a broken file
"$PYTHON" - <<'PY'
from onnx import TensorProto, helper
t = TensorProto(name="w", data_type=29, dims=[2], raw_data=b"\0\0")
g = helper.make_graph([helper.make_node("Identity", ["w"], ["y"])], "g", [],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [t])
open("future-type.onnx", "wb").write(helper.make_model(g).SerializeToString())
open("future-type.pb", "wb").write(t.SerializeToString())
PY
expect 1 "onnxview: future-type.onnx: initializer 'w': element type 29 is newer than the types onnxview knows (up to 28, FLOAT6E3M2, as in onnx 1.23)" info future-type.onnx
expect 1 "onnxview: srcnn.onnx: future-type.pb: element type 29 is newer than the types onnxview knows (up to 28, FLOAT6E3M2, as in onnx 1.23)" run srcnn.onnx --input input=future-type.pb
# Every input the fuzzers ever found a problem with (tests/fuzz/regress): each reading command ends with one of
# the documented statuses (0 to 3), never a crash or a hang.
for f in "$SRCDIR"/tests/fuzz/regress/*; do
	bad=
	for cmd in info dump check "run --input random"; do
		# shellcheck disable=SC2086
		timeout 60 "$ONNXVIEW" $cmd "$f" >/dev/null 2>&1
		rc=$?
		[ $rc -le 3 ] || bad="$bad $cmd:$rc"
	done
	check "fuzz regression input $(basename "$f"): info, dump, check and run end with a documented status${bad:+ (got$bad)}" \
		[ -z "$bad" ]
done
done_testing
