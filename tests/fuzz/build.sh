#!/bin/sh
# Build the libFuzzer targets for model loading (tests/fuzz/fuzz-model.c), tensor files (tests/fuzz/fuzz-npy.c) and
# the command language (tests/fuzz/fuzz-command.c), and the executor (tests/fuzz/fuzz-exec.c) out of tree, without
# autotools.
#
# Usage: tests/fuzz/build.sh [BUILD_DIR]
#   BUILD_DIR defaults to $BUILD, else build-fuzz/ at the top of the source tree (git ignores /build*/).
#   The fuzzers are written to BUILD_DIR/fuzz-model (run it with tests/fuzz/run.sh) and BUILD_DIR/fuzz-npy (run
#   it with BUILD_DIR/fuzz-npy CORPUS_DIR, seeded with files numpy.save writes and ONNX test data input_*.pb).
#
# Needs clang with libFuzzer and the sanitizer runtimes (Debian: apt-get install clang libclang-rt-14-dev),
# protoc-c and libprotobuf-c (protobuf-c-compiler, libprotobuf-c-dev) and /usr/include/onnx/onnx.proto
# (libonnx-dev).  CC, ONNX_PROTO and SOURCES (the core sources to compile, relative to the source tree; default
# the C files of libovcore_a_SOURCES in Makefile.am) may be set in the environment.
#
# Every core source is compiled directly (src/ never includes curses), plus the CUDA stub and the
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

# A minimal config.h, found before a configured tree's own: the sources only need PACKAGE_VERSION (cli/version.c)
# and OV_NO_CUDA_REASON (src/exec/cuda/stub.c); _GNU_SOURCE, which the real
# build gets from AC_USE_SYSTEM_EXTENSIONS, and OV_DATADIR (Makefile.am's AM_CPPFLAGS; here the source tree's
# share/onnxview) are passed on the command line below.
cat >"$BUILD/config.h" <<'CONFIG'
/* config.h for the fuzz build (tests/fuzz/build.sh) */
#define PACKAGE_VERSION "fuzz"
#define OV_NO_CUDA_REASON "the fuzz build compiles the CUDA stub"
CONFIG

CFLAGS="-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
CPPFLAGS="-D_GNU_SOURCE -DOV_DATADIR=\"$ROOT/share/onnxview\" -I$BUILD -I$ROOT -I$BUILD/gen $(pkg-config --cflags libprotobuf-c libgvc libcgraph)"
LIBS="$(pkg-config --libs libprotobuf-c libgvc libcgraph) -lopenblas -lm"
WARN="-Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla" # as configure.ac

# The core: the C files of libovcore_a_SOURCES in Makefile.am (so that files not yet part of the build cannot
# break this one), else every src/*.c; or the files named in $SOURCES (paths relative to the source tree).
if [ -z "${SOURCES:-}" ]; then
	SOURCES=$(awk '/^libov[a-z]+_a_SOURCES \+?= /{on=1} on{print; if (!/\\$/) on=0}' "$ROOT/Makefile.am" |
		tr -s ' \t\\' '\n\n\n' | grep '^src/.*\.c$' | grep -v '^src/exec/cuda/stub\.c$' || true)
	[ -n "$SOURCES" ] || SOURCES=$(cd "$ROOT" && printf '%s ' src/*/*.c src/*/*/*.c | sed 's|src/exec/cuda/stub.c||')
fi
SOURCES=$(for f in $SOURCES; do printf '%s ' "$ROOT/$f"; done)

# Compile the core once, JOBS files at a time (default: the number of CPUs), for both fuzzers.
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
OBJ="$BUILD/obj"
rm -rf "$OBJ"
mkdir -p "$OBJ"
OBJS=
pids=
n=0
failed=0
for f in $SOURCES "$ROOT/src/exec/cuda/stub.c" "$BUILD/gen/onnx.pb-c.c"; do
	o="$OBJ/$(echo "${f#"$ROOT"/}" | tr / -)"; o="${o%.c}.o" # the path, since basenames repeat across layers
	# shellcheck disable=SC2086 # the flag variables are word lists
	$CC $CFLAGS $CPPFLAGS $WARN -c "$f" -o "$o" &
	pids="$pids $!"
	OBJS="$OBJS $o"
	n=$((n + 1))
	if [ $((n % JOBS)) -eq 0 ]; then
		for p in $pids; do wait "$p" || failed=1; done
		pids=
	fi
done
for p in $pids; do wait "$p" || failed=1; done
if [ "$failed" -ne 0 ]; then
	echo "build.sh: compiling the core failed" >&2
	exit 1
fi

# shellcheck disable=SC2086 # the flag variables are word lists
$CC $CFLAGS $CPPFLAGS $WARN -o "$BUILD/fuzz-model" "$ROOT/tests/fuzz/fuzz-model.c" $OBJS $LIBS
echo "built $BUILD/fuzz-model"

# shellcheck disable=SC2086 # the flag variables are word lists
$CC $CFLAGS $CPPFLAGS $WARN -o "$BUILD/fuzz-npy" "$ROOT/tests/fuzz/fuzz-npy.c" $OBJS $LIBS
echo "built $BUILD/fuzz-npy"

# shellcheck disable=SC2086 # the flag variables are word lists
$CC $CFLAGS $CPPFLAGS $WARN -o "$BUILD/fuzz-command" "$ROOT/tests/fuzz/fuzz-command.c" $OBJS $LIBS
echo "built $BUILD/fuzz-command"

# shellcheck disable=SC2086 # the flag variables are word lists
$CC $CFLAGS $CPPFLAGS $WARN -o "$BUILD/fuzz-exec" "$ROOT/tests/fuzz/fuzz-exec.c" $OBJS $LIBS
echo "built $BUILD/fuzz-exec"

# shellcheck disable=SC2086 # the flag variables are word lists
$CC $CFLAGS $CPPFLAGS $WARN -o "$BUILD/fuzz-plancache" "$ROOT/tests/fuzz/fuzz-plancache.c" $OBJS $LIBS
echo "built $BUILD/fuzz-plancache"

# The CUDA backend on the host simulator (src/exec/cuda/sim/sim.h), against the CPU (tests/fuzz/fuzz-exec-cuda.c):
# where the CUDA toolkit's headers are, the backend's files (CUDA_SRCS in Makefile.am, not the loaders) and the
# simulator's are compiled as C++ with -DOV_CUDA_SIM and take the place of the CUDA stub.
CXX=${CXX:-clang++}
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
if [ -f "$CUDA_INC/cuda_runtime.h" ] && [ -f "$CUDA_INC/cudnn.h" ] && command -v "$CXX" >/dev/null 2>&1; then
	CUDA_FILES=$(awk '/^CUDA_SRCS \+?= /{print $3}' "$ROOT/Makefile.am")
	CXXFLAGS="-std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined"
	CXXFLAGS="$CXXFLAGS -fno-sanitize-recover=undefined -Wno-deprecated-declarations -DOV_CUDA_SIM -I$CUDA_INC"
	SIM_OBJS=
	for f in $CUDA_FILES src/exec/cuda/sim/sim.cc src/exec/cuda/sim/blas.cc src/exec/cuda/sim/dnn.cc; do
		o="$OBJ/sim-$(echo "$f" | tr / - | sed 's/\.[a-z]*$//').o"
		# shellcheck disable=SC2086 # the flag variables are word lists
		$CXX $CXXFLAGS $CPPFLAGS -x c++ -c "$ROOT/$f" -o "$o"
		SIM_OBJS="$SIM_OBJS $o"
	done
	# the backend's plain C helpers (src/exec/cuda/geom.c) are in the core build above; the stub makes way
	CORE_OBJS=$(for o in $OBJS; do case $o in */src-exec-cuda-stub.o) ;; *) printf '%s ' "$o" ;; esac; done)
	# shellcheck disable=SC2086 # the flag variables are word lists
	$CC $CFLAGS $CPPFLAGS $WARN -c "$ROOT/tests/fuzz/fuzz-exec-cuda.c" -o "$OBJ/fuzz-exec-cuda.o"
	# shellcheck disable=SC2086 # the flag variables are word lists
	$CXX $CFLAGS -o "$BUILD/fuzz-exec-cuda" "$OBJ/fuzz-exec-cuda.o" $CORE_OBJS $SIM_OBJS $LIBS
	echo "built $BUILD/fuzz-exec-cuda"
else
	echo "no CUDA headers in $CUDA_INC (or no $CXX): fuzz-exec-cuda not built"
fi
