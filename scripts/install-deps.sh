#!/bin/sh
# Install the Debian packages onnxview needs, in two steps.
# Usage: scripts/install-deps.sh build|test     (as root, or through sudo when run as another user)
#   build: what building onnxview and opening a model needs: autotools, a C compiler, protobuf-c (+ protoc-c), the
#          ONNX schema (libonnx-dev), ncursesw, Graphviz, OpenBLAS.
#   test:  build's packages, and what the test suite needs besides: ONNX's backend test data, python3-onnx/numpy
#          (test models), python3-torch/torchvision (real exports, 1.8 GB), tmux (terminal tests), clang + its
#          runtime (libFuzzer, sanitizers), graphviz (its dot program reads the DOT text `onnxview dot` writes), jq
#          (the README's examples), and onnxruntime from PyPI in /opt/onnxview-ort (differential tests).
# With no argument it does both, as `test` does.
# The CUDA backend is built when the CUDA toolkit (nvcc) is already installed; this script does not install it.
set -eu
BUILD="build-essential autoconf automake pkg-config protobuf-c-compiler libprotobuf-c-dev libonnx-dev
       libncurses-dev libgraphviz-dev libopenblas-dev"
TEST="libonnx-testdata python3 python3-onnx python3-numpy python3-torch python3-torchvision python3-venv tmux
      clang libclang-rt-14-dev util-linux graphviz jq"
case "${1:-test}" in
build) PKGS=$BUILD ;;
test) PKGS="$BUILD $TEST" ;;
*)
	echo "usage: scripts/install-deps.sh build|test" >&2
	exit 2
	;;
esac
[ $# -le 1 ] || { echo "usage: scripts/install-deps.sh build|test" >&2; exit 2; }
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $PKGS
[ "${1:-test}" = test ] || exit 0

# onnxruntime (PyPI) for the differential tests, in its own virtual environment: its protobuf must not replace
# the one Debian's python3-onnx is built against. Tests skip with a message when it is missing.
ORT=/opt/onnxview-ort
if ! "$ORT/bin/python" -c 'import onnxruntime, numpy' >/dev/null 2>&1; then
	$SUDO /usr/bin/python3 -m venv "$ORT" &&
		$SUDO "$ORT/bin/pip" install -q --disable-pip-version-check onnxruntime numpy ||
		echo "install-deps: onnxruntime could not be installed; differential tests will be skipped" >&2
fi

# onnx from PyPI at the release whose node tests the conformance suite runs (tests/conformance.sh generates them
# with scripts/gen-node-tests.py into ~/.cache/onnxview); its own environment for the same reason. The test makes
# one in its cache when this one is missing, and skips that suite with a message when neither can be had.
ONNXPY=/opt/onnxview-onnx
# onnxscript (pinned with what it needs) writes the models of tests/transformer-ops.sh as torch's new exporter does.
if ! "$ONNXPY/bin/python" -c "import onnx, onnxscript, numpy; assert onnx.__version__ == '1.23.2'" >/dev/null 2>&1; then
	$SUDO /usr/bin/python3 -m venv "$ONNXPY" &&
		$SUDO "$ONNXPY/bin/pip" install -q --disable-pip-version-check onnx==1.23.2 numpy onnxscript==0.7.2 \
			onnx-ir==1.1.0 ||
		echo "install-deps: onnx 1.23.2 or onnxscript could not be installed; their tests will be skipped" >&2
fi
