#!/bin/sh
# Conformance: run ONNX backend test models with `onnxview run MODEL --expect test_data_set_N` and the ONNX backend
# test runner's tolerances (rtol 1e-3, atol 1e-7), in two suites, each with its own checked-in list of passing tests:
#   debian       Debian's libonnx-testdata (ONNX 1.12: node, pytorch-converted, pytorch-operator, simple),
#                list tests/conformance-pass.txt (CPU) or tests/conformance-pass-cuda.txt (ONNXVIEW_BACKEND=cuda);
#   onnx-1.23.2  the node tests of the current ONNX release, generated from the onnx wheel on PyPI
#                (scripts/gen-node-tests.py in a virtual environment) into a cache outside the tree,
#                list tests/conformance-pass-onnx-1.23.2.txt (CPU) or tests/conformance-pass-onnx-1.23.2-cuda.txt
#                (ONNXVIEW_BACKEND=cuda).
#
#   tests/conformance.sh                 TAP, per suite: every test on its list must pass (a list may only grow:
#                                        new passes are reported as a note), and no test may end with a status
#                                        other than 0 (pass) or 1 (mismatch, unsupported op): that is a crash.
#   tests/conformance.sh --suite NAME    only that suite (debian or onnx-1.23.2)
#   tests/conformance.sh --suite NAME --list FILE
#                                        write the names of that suite's passing tests to FILE (sorted), e.g. to
#                                        regenerate its list
#   tests/conformance.sh --verbose       also print one line per failing test with onnxview's reason
#
# A test passes when every one of its data sets passes.  ONNXVIEW_BACKEND=cuda runs the tests on that backend
# (`run --backend cuda`; nodes it cannot run fall back to the CPU; tests/cuda.sh and tests/cuda-sim.sh do this).
# ONNXVIEW_TESTDATA overrides Debian's data folder.  The current suite lives in
# ${ONNXVIEW_CACHE:-~/.cache/onnxview}/node-tests-1.23.2 (ONNXVIEW_NODE_TESTS overrides it); when it is missing it is
# made with the python of ONNX_PYTHON (default /opt/onnxview-onnx, which scripts/install-deps.sh makes) or of a
# virtual environment made in the cache (pip install onnx==1.23.2); when neither works, that suite is skipped with
# a message.
. "$(dirname "$0")/lib.sh"

BACKEND=${ONNXVIEW_BACKEND:-cpu}
case $BACKEND in
cpu|cuda) ;;
*) echo "$0: ONNXVIEW_BACKEND is cpu or cuda, not '$BACKEND'" >&2; exit 2 ;;
esac
ONNX_VERSION=1.23.2
CACHE=${ONNXVIEW_CACHE:-${HOME:-/tmp}/.cache/onnxview}
suites="debian onnx-$ONNX_VERSION"
list_out=
verbose=
while [ $# -gt 0 ]; do
	case $1 in
	--one) ONE=$2; shift ;;
	--suite)
		case $2 in
		debian|onnx-$ONNX_VERSION) suites=$2 ;;
		*) echo "$0: --suite is debian or onnx-$ONNX_VERSION, not '$2'" >&2; exit 2 ;;
		esac
		shift ;;
	--list) list_out=$2; shift ;;
	--verbose) verbose=1 ;;
	*) echo "usage: $0 [--suite debian|onnx-$ONNX_VERSION] [--list FILE] [--verbose]" >&2; exit 2 ;;
	esac
	shift
done
case $suites in
*" "*) [ -z "$list_out" ] || { echo "$0: --list needs --suite" >&2; exit 2; } ;;
esac

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
[ -x "$ONNXVIEW" ] || skip_all "no onnxview binary at $ONNXVIEW"
scratch

# The current ONNX release's node tests, made once into the cache: prints the folder, or why it cannot be had.
node_tests() {
	dir=${ONNXVIEW_NODE_TESTS:-$CACHE/node-tests-$ONNX_VERSION}
	if [ -f "$dir/onnx-version" ]; then
		echo "$dir"
		return 0
	fi
	mkdir -p "$CACHE" 2>/dev/null || { echo "cannot make the cache folder $CACHE"; return 1; }
	# one maker at a time (the CPU and the CUDA runs of `make check` may both get here)
	(
		flock 9 2>/dev/null
		[ -f "$dir/onnx-version" ] && exit 0
		py=${ONNX_PYTHON:-/opt/onnxview-onnx/bin/python}
		want="import onnx, numpy; assert onnx.__version__ == '$ONNX_VERSION'"
		if ! "$py" -c "$want" >/dev/null 2>&1; then
			venv=$CACHE/venv-onnx-$ONNX_VERSION
			py=$venv/bin/python
			if ! "$py" -c "$want" >/dev/null 2>&1; then
				{ /usr/bin/python3 -m venv "$venv" &&
					"$venv/bin/pip" install -q --disable-pip-version-check "onnx==$ONNX_VERSION" numpy; } \
					>"$TMP/venv.log" 2>&1 || exit 3
			fi
		fi
		"$py" "$SRCDIR/scripts/gen-node-tests.py" "$dir" >"$TMP/gen.log" 2>&1 || exit 4
	) 9>"$CACHE/.node-tests.lock"
	case $? in
	0) echo "$dir" ;;
	3) echo "no python with onnx $ONNX_VERSION: a virtual environment with it could not be made ($(tail -1 "$TMP/venv.log"))"; return 1 ;;
	*) echo "scripts/gen-node-tests.py failed ($(tail -1 "$TMP/gen.log"))"; return 1 ;;
	esac
}

# run_suite NAME DATA PASSLIST KIND...
run_suite() {
	suite=$1 data=$2 passlist=$3
	shift 3
	for kind in "$@"; do
		for dir in "$data/$kind"/*/; do
			dir=${dir%/}
			[ -f "$dir/model.onnx" ] && echo "$dir"
		done
	done >"$TMP/dirs"
	# run the tests in parallel, each data set one small process
	export ONNXVIEW SRCDIR BUILDDIR BACKEND
	start=$(date +%s)
	xargs -P "$(nproc 2>/dev/null || echo 2)" -n 1 sh "$0" --one <"$TMP/dirs" >"$TMP/results"
	secs=$(($(date +%s) - start))

	sort -o "$TMP/results" "$TMP/results"
	awk '$2 == 0 { print $1 }' "$TMP/results" >"$TMP/pass"
	total=$(wc -l <"$TMP/results")
	npass=$(wc -l <"$TMP/pass")
	diag "$suite: $npass of $total ONNX backend tests pass on the $BACKEND backend (${secs}s)"

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
		not_ok "$suite: every test ends with status 0 or 1 ($(wc -l <"$TMP/crashes") do not)"
		sed 's/^/#   /' "$TMP/crashes" | head -50
	else
		ok "$suite: every test ends with status 0 or 1"
	fi

	# the checked-in list only grows
	rel=${passlist#"$SRCDIR"/}
	if [ -f "$passlist" ]; then
		grep -v '^#' "$passlist" | grep . | sort >"$TMP/want"
		comm -23 "$TMP/want" "$TMP/pass" >"$TMP/lost"
		comm -13 "$TMP/want" "$TMP/pass" >"$TMP/new"
		if [ -s "$TMP/lost" ]; then
			not_ok "$suite: every test in $rel passes ($(wc -l <"$TMP/lost") no longer do)"
			while read -r t; do
				grep "^$t " "$TMP/results" | sed 's/^/#   /'
			done <"$TMP/lost"
		else
			ok "$suite: every test in $rel passes ($(wc -l <"$TMP/want") tests)"
		fi
		if [ -s "$TMP/new" ]; then
			diag "note: $(wc -l <"$TMP/new") tests pass that $rel does not list; add them" \
				"(tests/conformance.sh --suite $suite --list $rel):"
			sed 's/^/#   /' "$TMP/new" | head -40
		fi
	else
		not_ok "$suite: $rel exists (tests/conformance.sh --suite $suite --list $rel)"
	fi
}

for suite in $suites; do
	case $suite in
	debian)
		data=${ONNXVIEW_TESTDATA:-/usr/share/libonnx-testdata/data}
		list=$SRCDIR/tests/conformance-pass.txt
		[ "$BACKEND" = cuda ] && list=$SRCDIR/tests/conformance-pass-cuda.txt
		if [ -d "$data/node" ]; then
			run_suite debian "$data" "$list" node pytorch-converted pytorch-operator simple
		else
			skip "debian: no ONNX test data in $data (Debian: libonnx-testdata)"
		fi
		;;
	*)
		list=$SRCDIR/tests/conformance-pass-$suite.txt
		[ "$BACKEND" = cuda ] && list=$SRCDIR/tests/conformance-pass-$suite-cuda.txt
		if data=$(node_tests); then
			run_suite "$suite" "$data" "$list" node
		else
			skip "$suite: $data"
		fi
		;;
	esac
done

done_testing
