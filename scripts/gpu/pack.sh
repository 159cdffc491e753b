#!/bin/bash
# Pack what a GPU machine without a package registry needs to run onnxview's GPU checks (scripts/gpu/run.sh there):
# from the CUDA build in this checkout, into .gpu/ (ignored by git; the device tool carries it: carry [".gpu"]):
#   .gpu/onnxview-gpu.tar.xz   bin/onnxview, bin/gpu-suite (tests/gpu-suite.c), lib/ (every library `ldd` lists for
#                              them but glibc's own, and the CBLAS they load when a product needs it: protobuf-c,
#                              Graphviz, OpenBLAS with libgfortran and libquadmath, ncursesw, libstdc++...),
#                              share/onnxview, testdata/ (the ONNX backend tests that
#                              tests/conformance-pass.txt lists, from Debian's libonnx-testdata)
#   .gpu/PACKED.txt            what was packed: the commit, the build's --version, the libraries, the sizes
# The test scripts and bench/ travel as files of the checkout; the op models are made there by tests/cuda.sh
# (python3 with onnx and numpy), the PyTorch models exported there by bench/bench-cuda.py export.
# Usage: scripts/gpu/pack.sh [--sim]   (--sim: pack the host simulator's builds, tests/onnxview-cudasim and
#        tests/gpu-suite-sim, instead, to try scripts/gpu/run.sh on a machine without a GPU)
# At most 50 MiB in all (the device tool carries 64); exit 1 with a line saying why otherwise.
set -eu -o pipefail
cd "$(dirname "$0")/../.."
root=$PWD
ov=onnxview suite=tests/gpu-suite
if [ "${1:-}" = --sim ]; then
	ov=tests/onnxview-cudasim suite=tests/gpu-suite-sim
elif [ $# -gt 0 ]; then
	echo "usage: scripts/gpu/pack.sh [--sim]" >&2
	exit 2
fi
[ -f Makefile ] || { echo "pack.sh: no configured build here (./autogen.sh && ./configure)" >&2; exit 1; }
make -j2 -s "$ov" "$suite" >/dev/null
"./$ov" --version | grep -q '^CUDA backend: built' ||
	{ echo "pack.sh: $ov was built without CUDA ($("./$ov" --version | grep '^CUDA backend'))" >&2; exit 1; }

out=$root/.gpu
stage=$out/stage
rm -rf "$stage" "$out/onnxview-gpu.tar.xz"
mkdir -p "$stage/bin" "$stage/lib" "$stage/share" "$stage/testdata"
cp "$ov" "$stage/bin/onnxview"
cp "$suite" "$stage/bin/gpu-suite"
strip --strip-debug "$stage/bin/onnxview" "$stage/bin/gpu-suite" 2>/dev/null || true
# every library the two programs load, but glibc's (the GPU machine has its own) and the CUDA driver's; and the
# CBLAS library, which they load with dlopen (src/exec/cpu/cblas.c: the soname configure found), with its own
cblas=$(sed -n 's/^#define OV_CBLAS_SONAME "\(.*\)"$/\1/p' config.h)
# (awk reads ldconfig's list to its end: leaving early would stop ldconfig with SIGPIPE, which pipefail and set -e
# turn into an exit of this script, now and then)
cblas_path=$( [ -n "$cblas" ] && /sbin/ldconfig -p 2>/dev/null | awk -v s="$cblas" '$1 == s && !f { print $NF; f = 1 }')
[ -n "$cblas_path" ] ||
	echo "pack.sh: the CBLAS library ($cblas) not found: the CPU's products will run through a plain loop there" >&2
{
	ldd "$ov" "$suite"
	[ -n "$cblas_path" ] && echo "	$cblas => $cblas_path (0)" && ldd "$cblas_path"
} | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*|libcuda|libnvidia[^/]*)\.so' |
	while read -r lib; do
		cp -L "$lib" "$stage/lib/"
	done
cp -r share/onnxview "$stage/share/"
# the conformance tests the suite runs (tests/conformance-pass.txt), from Debian's libonnx-testdata
data=${ONNXVIEW_TESTDATA:-/usr/share/libonnx-testdata/data}
if [ -d "$data/node" ]; then
	grep -v '^#' tests/conformance-pass.txt | grep . | while read -r t; do
		[ -d "$data/$t" ] && mkdir -p "$stage/testdata/$(dirname "$t")" && cp -r "$data/$t" "$stage/testdata/$t"
	done
else
	echo "pack.sh: no ONNX test data in $data (Debian: libonnx-testdata): the conformance run is left out" >&2
fi
# the current ONNX release's node tests on the CUDA list (tests/conformance.sh generates them into its cache), for
# the GPU suite to run in one process there (the GPU machine has no onnx of that version to make them)
nodetests=${ONNXVIEW_NODE_TESTS:-${ONNXVIEW_CACHE:-$HOME/.cache/onnxview}/node-tests-1.23.2}
if [ -d "$nodetests/node" ]; then
	grep -v '^#' tests/conformance-pass-onnx-1.23.2-cuda.txt | grep . | while read -r t; do
		[ -d "$nodetests/$t" ] && mkdir -p "$stage/nodetests/$(dirname "$t")" && cp -r "$nodetests/$t" "$stage/nodetests/$t"
	done
	cp tests/conformance-pass-onnx-1.23.2-cuda.txt "$stage/nodetests/list.txt"
else
	echo "pack.sh: no node tests in $nodetests (run tests/conformance.sh once): the current suite is left out" >&2
fi
tar -C "$stage" -cJf "$out/onnxview-gpu.tar.xz" .
{
	echo "packed $(date -u '+%Y-%m-%d %H:%M UTC') from $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
	echo "programs: $ov as bin/onnxview, $suite as bin/gpu-suite"
	"./$ov" --version | sed 's/^/  /'
	echo "libraries:"
	(cd "$stage/lib" && ls -l | awk 'NR > 1 { printf "  %s %d\n", $NF, $5 }')
	echo "conformance tests: $(find "$stage/testdata" -name model.onnx | wc -l) (Debian), $(find "$stage/nodetests" -name model.onnx 2>/dev/null | wc -l) (onnx 1.23.2)"
	echo "unpacked $(du -sh "$stage" | cut -f1), packed $(du -h "$out/onnxview-gpu.tar.xz" | cut -f1)"
} >"$out/PACKED.txt"
rm -rf "$stage"
bytes=$(stat -c %s "$out/onnxview-gpu.tar.xz")
cat "$out/PACKED.txt"
if [ "$bytes" -gt $((50 * 1024 * 1024)) ]; then
	echo "pack.sh: the pack is $((bytes >> 20)) MiB, over 50 MiB" >&2
	exit 1
fi
