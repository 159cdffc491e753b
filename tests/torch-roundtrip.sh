#!/bin/sh
# Real PyTorch exports (ResNet-18, MobileNetV2, a transformer encoder block) made by tests/export-torch.py with
# Debian's python3-torch: byte-exact round trip, info and dump on each.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx"
"$PYTHON" -c 'import torch' >/dev/null 2>&1 || skip_all "no python3-torch to export models"
scratch
"$PYTHON" "$SRCDIR/tests/export-torch.py" "$TMP" >"$TMP/log" 2>&1 || { sed 's/^/# /' "$TMP/log"; echo "Bail out! export failed"; exit 1; }
for f in "$TMP"/*.onnx; do
	b=$(basename "$f")
	"$ROUNDTRIP" "$f" >"$TMP/rt" 2>&1
	check "$b: load + save is byte-exact" [ $? -eq 0 ]
	"$ONNXVIEW" info "$f" >"$TMP/info" 2>&1
	check "$b: info" [ $? -eq 0 ]
	"$ONNXVIEW" dump --json "$f" >"$TMP/dump.json" 2>&1
	check "$b: dump --json is valid JSON with every node" "$PYTHON" -c '
import json, sys, onnx
d = json.load(open(sys.argv[1])); m = onnx.load(sys.argv[2])
assert len(d["graph"]["nodes"]) == len(m.graph.node)' "$TMP/dump.json" "$f"
	"$ONNXVIEW" edit "$f" -o "$TMP/saved-$b"
	check "$b: edit -o saves identical bytes" cmp -s "$f" "$TMP/saved-$b"
done
done_testing
