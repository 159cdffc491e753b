#!/bin/sh
# House rules of DESIGN.md section 2, checked on the sources: the core never includes curses, and the UI never
# reads protobuf structs behind the core's back (no Onnx__ types, no ->proto fields, no generated header).
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
cd "$SRCDIR" || exit 1
hits=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/)' src/*.c src/*.h src/exec/*.c 2>/dev/null)
check "src/ never includes curses${hits:+ (found in: $hits)}" [ -z "$hits" ]
hits=$(grep -nE 'Onnx__|->proto\b|onnx\.pb-c\.h' ui/*.c ui/*.h 2>/dev/null)
check "ui/ never touches protobuf structs${hits:+ (found: $hits)}" [ -z "$hits" ]
hits=$(grep -lE '\bexit[[:space:]]*\(' src/*.c 2>/dev/null)
check "src/ never calls exit()${hits:+ (found in: $hits)}" [ -z "$hits" ]
done_testing
