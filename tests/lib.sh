# Shared helpers for the shell tests: TAP output, temporary folders, skipping.
# Sourced by tests/*.sh; the environment (ONNXVIEW, PYTHON, SRCDIR, BUILDDIR) comes from `make check`.

: "${SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${BUILDDIR:=$SRCDIR}"
: "${ONNXVIEW:=$BUILDDIR/onnxview}"
: "${ROUNDTRIP:=$BUILDDIR/tests/roundtrip}"
: "${PYTHON:=/usr/bin/python3}"
# The CUDA backend's plan cache (src/exec/cuda/plancache.h) would carry choices from one test to the next and into
# the user's home: off unless a test names a file of its own.
: "${OV_CUDA_PLAN_CACHE:=0}"
export OV_CUDA_PLAN_CACHE

tap_n=0
tap_failed=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - # SKIP $*"; }
diag() { printf '# %s\n' "$@"; }
# check DESCRIPTION COMMAND...: one TAP line from a command's success.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }

# A private scratch folder, removed on exit.
scratch() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/onnxview-test.XXXXXX")
	trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
}

have_python_onnx() { [ "$PYTHON" != none ] && "$PYTHON" -c 'import onnx' >/dev/null 2>&1; }

# Generate the test models into $1 (once per folder).
gen_models() {
	[ -f "$1/.done" ] && return 0
	mkdir -p "$1" && "$PYTHON" "$SRCDIR/tests/gen-models.py" "$1" >/dev/null && touch "$1/.done"
}

# Compare a file with its expected copy; UPDATE_GOLDEN=1 rewrites the expected copy instead.
golden() {
	local got=$1 want=$2 desc=$3
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$got" "$want"
		ok "$desc (golden updated)"
	elif [ ! -f "$want" ]; then
		not_ok "$desc: no golden file $want (run with UPDATE_GOLDEN=1)"
	elif diff -u "$want" "$got" >"$got.diff"; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/# /' "$got.diff" | head -40
	fi
}

# onnxruntime lives in its own virtual environment (scripts/install-deps.sh), away from Debian's python3-onnx.
: "${ORT_PYTHON:=/opt/onnxview-ort/bin/python}"
have_ort() { [ -x "$ORT_PYTHON" ] && "$ORT_PYTHON" -c 'import onnxruntime, numpy' >/dev/null 2>&1; }
