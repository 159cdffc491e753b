#!/bin/sh
# Micro-benchmark of the CPU's depthwise convolution and pooling kernels on MobileNetV2's and ResNet-18's shapes
# (not a test, not run by make check).  bench-pool-dw.c is compiled here with the compiler and flags configure
# chose for BUILDDIR and linked with that build's executor libraries (build them first: make), so the numbers are
# those of the real build.  With --against REV, a second binary is linked with src/exec/cpu/depthwise.c and
# pool.c as they were at git revision REV, and the two run in turns (ROUNDS times, 3 by default) so that both see
# the same load; each case's figure is its best median over the rounds, and the table gives the ratio new/old
# (REV must have src/exec/cpu/depthwise.c: 63b3b8f or later).
# Usage: bench/run-pool-dw.sh [BUILDDIR] [--against REV [--rounds N]] [SECONDS_PER_CASE [FILTER]]
#        (default BUILDDIR: the source tree; SECONDS_PER_CASE 0.5)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top
if [ -n "${1-}" ] && [ -d "$1" ]; then
  build=$(cd "$1" && pwd)
  shift
fi
against='' rounds=3
while :; do
  case ${1-} in
    --against) against=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ ! -f "$build/Makefile" ] || [ ! -f "$build/config.h" ] || [ ! -f "$build/libovexec.a" ]; then
  echo "run-pool-dw.sh: $build is not a built build directory" >&2
  exit 2
fi
var() { sed -n "s/^$1 = //p" "$build/Makefile" | head -n 1; }
# the libraries the kernel unit tests link with, as make expands them
# shellcheck disable=SC2016 # make, not the shell, expands $(EXEC_LIBS)
libs=$(cd "$build" && printf 'print-libs:\n\t@echo $(EXEC_LIBS) $(LIBS)\n' | make -s -f Makefile -f - print-libs)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-pool-dw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cflags="-std=c11 $(var WARN_CFLAGS) $(var SAN_FLAGS) $(var CFLAGS) -DHAVE_CONFIG_H -I$top -I$build -I$build/gen $(var PROTOBUF_C_CFLAGS)"
# shellcheck disable=SC2086 # the flags are meant to split into words
(cd "$build" && $(var CC) $cflags "$here/bench-pool-dw.c" $libs -o "$tmp/new")
# BENCH_KEEP=PATH keeps a copy of the binary (to profile it: perf record PATH SECONDS FILTER)
[ -z "${BENCH_KEEP-}" ] || cp "$tmp/new" "$BENCH_KEEP"
export OPENBLAS_NUM_THREADS=1
if [ -z "$against" ]; then
  "$tmp/new" "$@"
  exit
fi
# the old kernels, compiled apart; linked before the libraries, they replace those members of libovexec.a
mkdir "$tmp/old-src"
for f in depthwise pool; do
  git -C "$top" show "$against:src/exec/cpu/$f.c" >"$tmp/old-src/$f.c"
  # shellcheck disable=SC2086
  (cd "$build" && $(var CC) $cflags -c "$tmp/old-src/$f.c" -o "$tmp/old-$f.o")
done
# shellcheck disable=SC2086
(cd "$build" && $(var CC) $cflags "$here/bench-pool-dw.c" "$tmp/old-depthwise.o" "$tmp/old-pool.o" $libs \
  -o "$tmp/old")
i=0
while [ "$i" -lt "$rounds" ]; do
  "$tmp/old" "$@" | sed -n 's/^case|/old|/p' >>"$tmp/runs"
  "$tmp/new" "$@" | sed -n 's/^case|/new|/p' >>"$tmp/runs"
  i=$((i + 1))
done
awk -F'|' -v rev="$against" '
  { k = $2; if (!(k in seen)) { seen[k] = 1; order[n++] = k; count[k] = $5 }
    if (!((k, $1) in med) || $3 < med[k, $1]) med[k, $1] = $3
    if (!((k, $1) in best) || $4 < best[k, $1]) best[k, $1] = $4 }
  END {
    printf "%-36s %12s %12s %8s %12s %12s\n", "kernel (best median of the rounds)", rev " ms", "now ms", "ratio", \
      "model " rev, "model now"
    for (i = 0; i < n; i++) {
      k = order[i]
      printf "%-36s %12.4f %12.4f %7.2fx %12.4f %12.4f\n", k, med[k, "old"], med[k, "new"], \
        med[k, "new"] / med[k, "old"], med[k, "old"] * count[k], med[k, "new"] * count[k]
      if (k ~ / dw /) { dwo += med[k, "old"] * count[k]; dwn += med[k, "new"] * count[k] }
      to += med[k, "old"] * count[k]; tn += med[k, "new"] * count[k]
    }
    if (dwo > 0)
      printf "MobileNetV2 depthwise Convs in all: %.3f ms -> %.3f ms (%.2fx)\n", dwo, dwn, dwn / dwo
    printf "every case by its nodes: %.3f -> %.3f ms (%.2fx)\n", to, tn, tn / to
  }' "$tmp/runs"
