#!/bin/sh
# Saving: byte-exact load+save, no overwrite without --force, in-place save on purpose, failed saves leave every
# file as it was, external data travels with a model saved elsewhere.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1
ls_tmp() { ls -A "$1" | grep -c '\.onnxview-' ; }

"$ONNXVIEW" edit srcnn.onnx -o "$TMP/out.onnx"
check "edit with no commands saves" [ $? -eq 0 ]
check "load + save reproduces the file byte for byte" cmp -s srcnn.onnx "$TMP/out.onnx"
check "no temporary file is left behind" [ "$(ls_tmp "$TMP")" -eq 0 ]
check "the saved file gets ordinary permissions (not mkstemp's 0600)" \
	[ "$(stat -c %a "$TMP/out.onnx")" = "$(umask 022; touch "$TMP/p"; stat -c %a "$TMP/p")" ]

cp conv-relu.onnx "$TMP/victim.onnx"
"$ONNXVIEW" edit srcnn.onnx -o "$TMP/victim.onnx" 2>"$TMP/err"
rc=$?
check "-o onto an existing file without --force: status 1" [ $rc -eq 1 ]
check "... says so" grep -q "onnxview: $TMP/victim.onnx: exists; use --force to replace it" "$TMP/err"
check "... and leaves it untouched" cmp -s conv-relu.onnx "$TMP/victim.onnx"
"$ONNXVIEW" edit srcnn.onnx -o "$TMP/victim.onnx" --force
check "--force replaces it" cmp -s srcnn.onnx "$TMP/victim.onnx"

cp conv-relu.onnx "$TMP/inplace.onnx"
ino=$(stat -c %i "$TMP/inplace.onnx")
"$ONNXVIEW" edit "$TMP/inplace.onnx" -o "$TMP/inplace.onnx"
check "-o MODEL saves in place without --force" [ $? -eq 0 ]
check "... with the same bytes" cmp -s conv-relu.onnx "$TMP/inplace.onnx"
check "... through a new file renamed over the old (atomic)" [ "$(stat -c %i "$TMP/inplace.onnx")" != "$ino" ]

"$ONNXVIEW" edit srcnn.onnx -o "$TMP/no/such/dir/x.onnx" 2>"$TMP/err"
check "saving into a missing folder: status 1 and a reason" sh -c "[ $? -eq 1 ] && grep -q 'No such file or directory' '$TMP/err'"

# A read-only folder (as an unprivileged user: root ignores permissions).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$TMP/ro" && cp conv-relu.onnx "$TMP/ro/keep.onnx" && chmod 755 "$TMP" "$TMP/m" && chmod 555 "$TMP/ro"
	chmod 644 srcnn.onnx
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ONNXVIEW" edit srcnn.onnx -o "$TMP/ro/keep.onnx" --force \
		2>"$TMP/err"
	rc=$?
	check "read-only folder: save fails with status 1" [ $rc -eq 1 ]
	check "... naming the reason" grep -q 'Permission denied' "$TMP/err"
	check "... the existing file is untouched" cmp -s conv-relu.onnx "$TMP/ro/keep.onnx"
	check "... and no temporary file is left" [ "$(ls_tmp "$TMP/ro")" -eq 0 ]
elif [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$TMP/ro" && cp conv-relu.onnx "$TMP/ro/keep.onnx" && chmod 555 "$TMP/ro"
	"$ONNXVIEW" edit srcnn.onnx -o "$TMP/ro/keep.onnx" --force 2>"$TMP/err"
	check "read-only folder: save fails with status 1" [ $? -eq 1 ]
	check "... the existing file is untouched" cmp -s conv-relu.onnx "$TMP/ro/keep.onnx"
else
	skip "read-only folder: running as root without setpriv"
fi

# External data goes along when the model is saved to another folder.
mkdir -p "$TMP/elsewhere"
"$ONNXVIEW" edit external/model.onnx -o "$TMP/elsewhere/model.onnx"
check "a model with external data saves to another folder" [ $? -eq 0 ]
check "... its weights file is copied beside it" cmp -s external/weights.bin "$TMP/elsewhere/weights.bin"
"$ONNXVIEW" info "$TMP/elsewhere/model.onnx" >/dev/null
check "... and it loads there" [ $? -eq 0 ]
check "... with the same bytes" cmp -s external/model.onnx "$TMP/elsewhere/model.onnx"
"$PYTHON" -c 'import onnx,sys; m=onnx.load(sys.argv[1]); assert len(m.graph.initializer[0].raw_data) > 0' \
	"$TMP/elsewhere/model.onnx"
check "... and python's onnx.load reads the weights there" [ $? -eq 0 ]
mkdir -p "$TMP/clash" && printf 'other' >"$TMP/clash/weights.bin"
"$ONNXVIEW" edit external/model.onnx -o "$TMP/clash/model.onnx" 2>"$TMP/err"
check "an existing weights file with other contents is not replaced without --force" \
	sh -c "[ $? -eq 1 ] && [ \"\$(cat '$TMP/clash/weights.bin')\" = other ] && [ ! -e '$TMP/clash/model.onnx' ]"
"$ONNXVIEW" edit external/model.onnx -o "$TMP/clash/model.onnx" --force
check "... and is with --force" cmp -s external/weights.bin "$TMP/clash/weights.bin"
done_testing
