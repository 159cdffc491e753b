#!/bin/sh
# Build the libFuzzer target for model loading (tests/fuzz/fuzz-model.c) out of tree, without autotools.
#
# Usage: tests/fuzz/build.sh [BUILD_DIR]
#   BUILD_DIR defaults to $BUILD, else build-fuzz/ at the top of the source tree (git ignores /build*/).
#   The fuzzer is written to BUILD_DIR/fuzz-model; run it with tests/fuzz/run.sh.
#
# Needs clang with libFuzzer and the sanitizer runtimes (Debian: apt-get install clang libclang-rt-14-dev),
# protoc-c and libprotobuf-c (protobuf-c-compiler, libprotobuf-c-dev) and /usr/include/onnx/onnx.proto
# (libonnx-dev).  CC, ONNX_PROTO and SOURCES (the core sources to compile, relative to the source tree; default
# every src/*.c) may be set in the environment.
#
# Every core source in src/ is compiled directly (src/ never includes curses), plus the CUDA stub and the
# protobuf-c code generated from onnx.proto, with -fsanitize=fuzzer,address,undefined; undefined behaviour
# aborts (-fno-sanitize-recover) so that libFuzzer records it as a crash.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build-fuzz}}
CC=${CC:-clang}
ONNX_PROTO=${ONNX_PROTO:-/usr/include/onnx/onnx.proto}

mkdir -p "$BUILD/gen"
BUILD=$(cd "$BUILD" && pwd)

# The generated schema code, as Makefile.am makes it.
protoc-c --proto_path="$(dirname "$ONNX_PROTO")" --c_out="$BUILD/gen" "$ONNX_PROTO"

# A minimal config.h: the sources only need PACKAGE_VERSION (src/version.c); _GNU_SOURCE, which the real
# build gets from AC_USE_SYSTEM_EXTENSIONS, and OV_DATADIR (Makefile.am's AM_CPPFLAGS; here the source tree's
# share/onnxview) are passed on the command line below.
cat >"$BUILD/config.h" <<'CONFIG'
/* config.h for the fuzz build (tests/fuzz/build.sh) */
#define PACKAGE_VERSION "fuzz"
CONFIG

CFLAGS="-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
CPPFLAGS="-D_GNU_SOURCE -DOV_DATADIR=\"$ROOT/share/onnxview\" -I$ROOT -I$BUILD -I$BUILD/gen $(pkg-config --cflags libprotobuf-c)"
LIBS="$(pkg-config --libs libprotobuf-c) -lm"
WARN="-Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla" # as configure.ac

# The core: every src/*.c, or the files named in $SOURCES (paths relative to the source tree).
if [ -n "${SOURCES:-}" ]; then
	SOURCES=$(for f in $SOURCES; do printf '%s ' "$ROOT/$f"; done)
else
	SOURCES=$(printf '%s ' "$ROOT"/src/*.c)
fi

# shellcheck disable=SC2086 # the flag variables are word lists
$CC $CFLAGS $CPPFLAGS $WARN \
	-o "$BUILD/fuzz-model" \
	"$ROOT/tests/fuzz/fuzz-model.c" $SOURCES "$ROOT/src/exec/cuda-stub.c" "$BUILD/gen/onnx.pb-c.c" \
	$LIBS
echo "built $BUILD/fuzz-model"
