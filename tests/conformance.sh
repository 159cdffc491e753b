#!/bin/sh
# Conformance: run the ONNX backend test models (Debian libonnx-testdata: node, pytorch-converted,
# pytorch-operator, simple) on the CPU backend with `onnxview run MODEL --expect test_data_set_N`, with the ONNX
# backend test runner's tolerances (rtol 1e-3, atol 1e-7 for every test that ships its model.onnx).
#
#   tests/conformance.sh                 TAP: every test in tests/conformance-pass.txt must pass (the list may only
#                                        grow: new passes are reported as a note), and no test may end with a status
#                                        other than 0 (pass) or 1 (mismatch, unsupported op): that is a crash.
#   tests/conformance.sh --list FILE     write the names of the passing tests to FILE (sorted), e.g. to regenerate
#                                        tests/conformance-pass.txt
#   tests/conformance.sh --verbose       also print one line per failing test with onnxview's reason
#
# A test passes when every one of its data sets passes.  ONNXVIEW_TESTDATA overrides the data folder;
# ONNXVIEW_BACKEND=cuda runs the tests on that backend (`run --backend cuda`; nodes it cannot run fall back to the
# CPU), against the same list (tests/cuda.sh does this when a GPU is present).
. "$(dirname "$0")/lib.sh"

DATA=${ONNXVIEW_TESTDATA:-/usr/share/libonnx-testdata/data}
BACKEND=${ONNXVIEW_BACKEND:-cpu}
case $BACKEND in
cpu|cuda) ;;
*) echo "$0: ONNXVIEW_BACKEND is cpu or cuda, not '$BACKEND'" >&2; exit 2 ;;
esac
PASSLIST=$SRCDIR/tests/conformance-pass.txt
list_out=
verbose=
while [ $# -gt 0 ]; do
	case $1 in
	--one) ONE=$2; shift ;;
	--list) list_out=$2; shift ;;
	--verbose) verbose=1 ;;
	*) echo "usage: $0 [--list FILE] [--verbose]" >&2; exit 2 ;;
	esac
	shift
done

[ -d "$DATA/node" ] || skip_all "no ONNX test data in $DATA (Debian: libonnx-testdata)"
[ -x "$ONNXVIEW" ] || skip_all "no onnxview binary at $ONNXVIEW"

# One line per test: KIND/NAME STATUS (the worst status over its data sets: a crash beats a failure beats a pass)
run_one() {
	dir=$1
	name=$(basename "$dir")
	kind=$(basename "$(dirname "$dir")")
	worst=0
	reason=
	for ds in "$dir"/test_data_set_*; do
		[ -d "$ds" ] || continue
		out=$(timeout 120 "$ONNXVIEW" run "$dir/model.onnx" --expect "$ds" --rtol 1e-3 --atol 1e-7 --backend "$BACKEND" 2>&1)
		st=$?
		if [ "$st" -ne 0 ]; then
			[ -z "$reason" ] && reason=$(printf '%s\n' "$out" | grep -v '^onnxview: note:' | grep -E '^onnxview:|^  FAIL|ERROR|runtime error' |
				head -1 | sed "s|$dir/||g")
			if [ "$st" -ne 1 ] || [ "$worst" -eq 0 ]; then
				worst=$st
			fi
		fi
	done
	printf '%s/%s %s %s\n' "$kind" "$name" "$worst" "$reason"
}

# Under the sanitizers an error must not pass for a mismatch (ASan exits 1 by default): give them their own status.
ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=87:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

if [ -n "${ONE:-}" ]; then
	run_one "$ONE"
	exit 0
fi
scratch
for kind in node pytorch-converted pytorch-operator simple; do
	for dir in "$DATA/$kind"/*/; do
		dir=${dir%/}
		[ -f "$dir/model.onnx" ] && echo "$dir"
	done
done >"$TMP/dirs"

# run the tests in parallel, each data set one small process
export ONNXVIEW SRCDIR BUILDDIR
xargs -P "$(nproc 2>/dev/null || echo 2)" -n 1 sh "$0" --one <"$TMP/dirs" >"$TMP/results"

sort -o "$TMP/results" "$TMP/results"
awk '$2 == 0 { print $1 }' "$TMP/results" >"$TMP/pass"
total=$(wc -l <"$TMP/results")
npass=$(wc -l <"$TMP/pass")
diag "$npass of $total ONNX backend tests pass on the $BACKEND backend"

if [ -n "$list_out" ]; then
	cp "$TMP/pass" "$list_out"
	diag "wrote $list_out"
fi

if [ -n "$verbose" ]; then
	awk '$2 != 0' "$TMP/results" | sed 's/^/# /'
fi

# no crashes: every status is 0 or 1
awk '$2 != 0 && $2 != 1' "$TMP/results" >"$TMP/crashes"
if [ -s "$TMP/crashes" ]; then
	not_ok "every test ends with status 0 or 1 ($(wc -l <"$TMP/crashes") do not)"
	sed 's/^/#   /' "$TMP/crashes" | head -50
else
	ok "every test ends with status 0 or 1"
fi

# the checked-in list only grows
if [ -f "$PASSLIST" ]; then
	grep -v '^#' "$PASSLIST" | grep . | sort >"$TMP/want"
	comm -23 "$TMP/want" "$TMP/pass" >"$TMP/lost"
	comm -13 "$TMP/want" "$TMP/pass" >"$TMP/new"
	if [ -s "$TMP/lost" ]; then
		not_ok "every test in tests/conformance-pass.txt passes ($(wc -l <"$TMP/lost") no longer do)"
		while read -r t; do
			grep "^$t " "$TMP/results" | sed 's/^/#   /'
		done <"$TMP/lost"
	else
		ok "every test in tests/conformance-pass.txt passes ($(wc -l <"$TMP/want") tests)"
	fi
	if [ -s "$TMP/new" ]; then
		diag "note: $(wc -l <"$TMP/new") tests pass that tests/conformance-pass.txt does not list; add them" \
			"(tests/conformance.sh --list tests/conformance-pass.txt):"
		sed 's/^/#   /' "$TMP/new" | head -40
	fi
else
	not_ok "tests/conformance-pass.txt exists (tests/conformance.sh --list tests/conformance-pass.txt)"
fi

done_testing
