#!/bin/sh
# Golden tests: `info` and `dump`, as text and JSON, on small models made by tests/gen-models.py.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1

for m in conv-relu srcnn resize-constant dynamic alltypes newtypes sparse function if-subgraph custom-domain \
	dangling unsorted external/model; do
	g=$(echo "$m" | tr / -)
	for cmd in info dump; do
		for fmt in text json; do
			flag=; [ $fmt = json ] && flag=--json
			name="$cmd${flag:+ $flag} $m.onnx"
			out="$TMP/$g.$cmd.$fmt"
			"$ONNXVIEW" $cmd $flag "$m.onnx" >"$out" 2>"$out.err"
			rc=$?
			check "$name exits 0" [ $rc -eq 0 ]
			check "$name writes nothing to stderr" [ ! -s "$out.err" ]
			golden "$out" "$SRCDIR/tests/golden/$g.$cmd.$fmt" "$name matches tests/golden/$g.$cmd.$fmt"
			if [ $fmt = json ]; then
				check "$cmd --json $m.onnx is valid JSON" "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' "$out"
			fi
		done
	done
done

# JSON agrees with the onnx package on the facts scripts rely on.
cat >"$TMP/agree.py" <<'PY'
import json, sys, onnx
path, info, dump = sys.argv[1:4]
m = onnx.load(path, load_external_data=False)
i = json.load(open(info)); d = json.load(open(dump))
assert i["ir_version"] == m.ir_version, "ir_version"
assert [o["version"] for o in i["opsets"]] == [o.version for o in m.opset_import], "opsets"
assert i["nodes"] == len(m.graph.node), "node count"
assert [x["name"] for x in i["inputs"]] == [x.name for x in m.graph.input], "inputs"
assert [x["name"] for x in i["outputs"]] == [x.name for x in m.graph.output], "outputs"
assert i["initializers"] == len(m.graph.initializer), "initializers"
assert [n["op_type"] for n in d["graph"]["nodes"]] == [n.op_type for n in m.graph.node], "op types"
assert [n["name"] for n in d["graph"]["nodes"]] == [n.name for n in m.graph.node], "node names"
for jn, pn in zip(d["graph"]["nodes"], m.graph.node):
    assert [x["name"] for x in jn["inputs"]] == list(pn.input), "inputs of " + pn.name
    assert [a["name"] for a in jn["attributes"]] == [a.name for a in pn.attribute], "attributes of " + pn.name
PY
for m in conv-relu srcnn resize-constant dynamic alltypes if-subgraph function custom-domain; do
	"$ONNXVIEW" info --json "$m.onnx" >"$TMP/i.json" && "$ONNXVIEW" dump --json "$m.onnx" >"$TMP/d.json"
	check "info/dump --json of $m.onnx agree with python's onnx.load" \
		"$PYTHON" "$TMP/agree.py" "$m.onnx" "$TMP/i.json" "$TMP/d.json"
done
done_testing
