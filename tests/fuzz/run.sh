#!/bin/sh
# Build the model-loading fuzzer and run it for a while.
#
# Usage: tests/fuzz/run.sh [SECONDS]        (default 60)
#   BUILD=DIR  build folder (default build-fuzz/ at the top of the source tree; see tests/fuzz/build.sh)
#
# The corpus starts from the models tests/gen-models.py writes, about 200 of the ONNX test suite's node models
# (/usr/share/libonnx-testdata, package libonnx-testdata) and the saved regression inputs in
# tests/fuzz/regress/.  New inputs libFuzzer finds go to BUILD/corpus, which is kept between runs; crashes,
# leaks, timeouts and OOMs go to BUILD/artifacts/ (reproduce with: BUILD/fuzz-model FILE).  The log of the run
# is BUILD/fuzz.log.  Exits non-zero if the fuzzer found something.
#
# The other targets tests/fuzz/build.sh makes run by hand, for example:
#   BUILD/fuzz-npy CORPUS tests/fuzz/seqfile
#                                    tensor files (.npy and .pb) and sequence/optional files (SequenceProto,
#                                    OptionalProto), seeded with numpy.save output, input_0.pb files and
#                                    tests/fuzz/seqfile/*.pb
#   BUILD/fuzz-command CORPUS        the command language, seeded with tests/fuzz/commands/*
#   BUILD/fuzz-plancache CORPUS tests/fuzz/plancache
#                                    the CUDA backend's plan cache file, seeded with a cache a run wrote
#   BUILD/fuzz-exec CORPUS -rss_limit_mb=2048 -dict=tests/fuzz/model.dict
#                                    the executor, seeded with the node tests' model.onnx files,
#                                    tests/fuzz/regress/ and tests/fuzz/loops/ (Loops that never stop: the fuzz
#                                    targets stop them at 10,000 iterations; the command line's default, 10^6, is
#                                    too slow for tests/bad-input.sh's replay of regress/ under the sanitizers)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-fuzz}
secs=${1:-60}
TESTDATA=/usr/share/libonnx-testdata/data/node

"$ROOT/tests/fuzz/build.sh" "$BUILD"
BUILD=$(cd "$BUILD" && pwd)

# Seeds, made afresh each run.
rm -rf "$BUILD/seeds" "$BUILD/gen-models"
mkdir -p "$BUILD/seeds" "$BUILD/gen-models" "$BUILD/corpus" "$BUILD/artifacts"
/usr/bin/python3 "$ROOT/tests/gen-models.py" "$BUILD/gen-models" >/dev/null
find "$BUILD/gen-models" -type f -name '*.onnx' | sort | while read -r f; do
	cp "$f" "$BUILD/seeds/gen-$(echo "${f#"$BUILD/gen-models/"}" | tr / _)"
done
if [ -d "$TESTDATA" ]; then
	n=$(ls "$TESTDATA" | wc -l)
	step=$((n / 200))
	[ "$step" -ge 1 ] || step=1
	ls "$TESTDATA" | awk -v s="$step" 'NR % s == 0' | head -n 200 | while read -r d; do
		[ -f "$TESTDATA/$d/model.onnx" ] && cp "$TESTDATA/$d/model.onnx" "$BUILD/seeds/node-$d.onnx"
	done
else
	echo "run.sh: $TESTDATA not found (libonnx-testdata); seeding from tests/gen-models.py only" >&2
fi
if [ -d "$ROOT/tests/fuzz/regress" ]; then
	for f in "$ROOT"/tests/fuzz/regress/*.onnx; do
		[ -f "$f" ] && cp "$f" "$BUILD/seeds/regress-$(basename "$f")"
	done
fi
echo "seeds: $(ls "$BUILD/seeds" | wc -l) files; corpus: $(ls "$BUILD/corpus" | wc -l) files; running ${secs}s"

status=0
"$BUILD/fuzz-model" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -max_total_time="$secs" \
	-dict="$ROOT/tests/fuzz/model.dict" \
	-print_final_stats=1 -artifact_prefix="$BUILD/artifacts/" \
	"$BUILD/corpus" "$BUILD/seeds" >"$BUILD/fuzz.log" 2>&1 || status=$?

# The last progress line (executions, coverage, corpus size) and libFuzzer's final statistics.
grep -E '^#[0-9]+' "$BUILD/fuzz.log" | tail -n 1
grep -E '^(stat::|Done|SUMMARY|==[0-9]+==ERROR|artifact_prefix|Test unit written)' "$BUILD/fuzz.log" |
	awk '!seen[$0]++' || true
if [ "$status" -ne 0 ]; then
	echo "run.sh: the fuzzer stopped with status $status; see $BUILD/fuzz.log and $BUILD/artifacts/" >&2
	exit "$status"
fi
