#!/bin/sh
# Benchmark of the graph layout (not a test, not run by make check): times layout_compute on residual chains of
# 5,000 / 51,000 / 200,000 boxes and on wide random DAGs, with the memory it takes.  bench-layout.c is compiled
# here with the compiler and flags configure chose for BUILDDIR, so the numbers are those of the real build.
# Usage: bench/run-layout.sh [BUILDDIR] [draw KIND N | time KIND N]   (default BUILDDIR: the source tree)
#   draw KIND N   print the layout of a small graph as ASCII art (KIND: residual random transformer diamond
#                 cycle fanout)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top
case ${1-} in
  "" | draw | time) ;;
  *) build=$(cd "$1" && pwd); shift ;;
esac
if [ ! -f "$build/Makefile" ] || [ ! -f "$build/config.h" ]; then
  echo "run-layout.sh: $build is not a configured build directory" >&2
  exit 2
fi
var() { sed -n "s/^$1 = //p" "$build/Makefile" | head -n 1; }
out=${TMPDIR:-/tmp}/bench-layout.$$
trap 'rm -f "$out"' EXIT INT TERM
# shellcheck disable=SC2046 # the flags are meant to split into words
$(var CC) -std=c11 $(var WARN_CFLAGS) $(var SAN_FLAGS) $(var CFLAGS) -I"$top" -I"$build" \
  "$top/src/present/layout.c" "$top/src/base/error.c" "$here/bench-layout.c" -o "$out"
"$out" "$@"
