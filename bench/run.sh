#!/bin/sh
# Benchmarks (not tests): `onnxview info` on torchvision AlexNet (~244 MB) against cat and python's onnx.load.
# Usage: bench/run.sh [BUILDDIR]   (BUILDDIR holds the built onnxview; default: the source tree)
# The model is exported once by bench/make-alexnet.py (Debian's python3-torch, random weights) into bench/data/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/..}
mkdir -p "$here/data"
[ -f "$here/data/alexnet.onnx" ] || /usr/bin/python3 "$here/make-alexnet.py" "$here/data/alexnet.onnx"
/usr/bin/python3 "$here/bench-info.py" "$build/onnxview" "$here/data/alexnet.onnx" 15
