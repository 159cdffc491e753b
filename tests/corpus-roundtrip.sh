#!/bin/sh
# Byte-exact round trip (load, then serialise with no edit) of every model in Debian's libonnx-testdata,
# and `info` on each without a crash.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
CORPUS=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
[ -d "$CORPUS" ] || skip_all "no $CORPUS (Debian: libonnx-testdata)"
scratch
find "$CORPUS" -name model.onnx | sort >"$TMP/list"
n=$(wc -l <"$TMP/list")
"$ROUNDTRIP" --tap - <"$TMP/list"
rc=$?
# info must work on every one of them (status 0, or 3 with a message, never a crash).
bad=0
while read -r f; do
	"$ONNXVIEW" info "$f" >/dev/null 2>"$TMP/err"
	r=$?
	if [ $r -ne 0 ]; then
		bad=$((bad + 1))
		diag "info $f: status $r: $(cat "$TMP/err")"
	fi
done <"$TMP/list"
echo "ok $((n + 1)) - info succeeds on all $n corpus models ($bad failures)" | sed "s/^ok/$([ $bad -eq 0 ] && echo ok || echo 'not ok')/"
echo "1..$((n + 1))"
[ $rc -eq 0 ] && [ $bad -eq 0 ]
