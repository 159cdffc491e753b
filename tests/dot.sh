#!/bin/sh
# `onnxview dot`: DOT text (golden, deterministic, parsed by Graphviz's own dot), SVG (valid XML with every op) and
# PNG through libgvc, a missing renderer, --focus on a ResNet-18 export (exactly the boxes within the radius, cut
# edges as stubs), no overwrite without --force, hostile names, and the size limit on layouts.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1
# Graphviz 2.42 and the font libraries under it keep memory they never free (each gvContext's plugin
# configuration, the HTML-label parser, fontconfig's and pango's caches): under the sanitizers, leaks whose stack
# runs through them are not onnxview's.  (libcgraph is left out: misusing its strings would be ours.)
for lib in libgvc.so libgvplugin_ libfontconfig.so libpango libglib-2.0.so libcairo.so; do
	echo "leak:$lib"
done >"$TMP/lsan.supp"
LSAN_OPTIONS="suppressions=$TMP/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
have_dot() { command -v dot >/dev/null 2>&1; }
quiet_ok() { [ "$1" -eq 0 ] && [ ! -s "$TMP/err" ]; } # STATUS: success with nothing on stderr

# ---- DOT text -----------------------------------------------------------------------------------------------
for model in conv-relu srcnn; do
	"$ONNXVIEW" dot $model.onnx >"$TMP/$model.dot" 2>"$TMP/err"
	check "$model: dot to standard output succeeds" quiet_ok $?
	golden "$TMP/$model.dot" "$SRCDIR/tests/golden/dot-$model.dot" "$model: DOT text matches tests/golden/dot-$model.dot"
	"$ONNXVIEW" dot $model.onnx >"$TMP/$model-again.dot"
	check "$model: the DOT text is the same every time" cmp -s "$TMP/$model.dot" "$TMP/$model-again.dot"
	if have_dot; then
		check "$model: Graphviz's dot reads it and lays it out (dot -Tsvg)" \
			sh -c "dot -Tsvg '$TMP/$model.dot' >'$TMP/$model-by-dot.svg' 2>'$TMP/err' && [ ! -s '$TMP/err' ]"
	else
		skip "$model: no dot program to read the DOT text (Debian: graphviz)"
	fi
done
"$ONNXVIEW" dot srcnn.onnx -o "$TMP/srcnn-o.dot"
check "-o FILE.dot writes the same text as standard output" cmp -s "$TMP/srcnn.dot" "$TMP/srcnn-o.dot"
check "srcnn: Resize shows its constant scales inside its box" grep -q 'scales = \[1, 1, 3, 3\]' "$TMP/srcnn.dot"
check "srcnn: weights are rows like W <8x1x9x9> (escaped)" grep -q 'W &lt;8x1x9x9&gt;' "$TMP/srcnn.dot"
check "srcnn: edges are labelled with shapes" grep -q 'label=<1x8x48x48>' "$TMP/srcnn.dot"
"$ONNXVIEW" dot custom-domain.onnx >"$TMP/custom.dot"
check "a custom-domain op gets the warning colour and border" grep -q 'color="#c62828"' "$TMP/custom.dot"

# ---- SVG and PNG --------------------------------------------------------------------------------------------
svg_ops() { # FILE.svg MODEL.onnx: valid XML whose text names every node's op
	"$PYTHON" - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET, onnx
root = ET.parse(sys.argv[1]).getroot()
text = " ".join(t for e in root.iter() for t in (e.text, e.tail) if t)
m = onnx.load(sys.argv[2])
missing = {n.op_type for n in m.graph.node} - set(text.split())
assert not missing, "ops missing from the SVG: %s" % missing
PY
}
start=$(date +%s%N)
"$ONNXVIEW" dot srcnn.onnx -o "$TMP/srcnn.svg" 2>"$TMP/err"
rc=$?
diag "srcnn.svg: $(( ($(date +%s%N) - start) / 1000000 )) ms"
check "-o FILE.svg succeeds" quiet_ok $rc
check "... valid XML naming every op of the model" svg_ops "$TMP/srcnn.svg" srcnn.onnx
check "... and its node names as titles" grep -q '<title>n1</title>' "$TMP/srcnn.svg"
"$ONNXVIEW" dot conv-relu.onnx -o "$TMP/UPPER.SVG"
check "the extension is read in any case (.SVG)" svg_ops "$TMP/UPPER.SVG" conv-relu.onnx

"$ONNXVIEW" dot srcnn.onnx -o "$TMP/srcnn.png" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'cannot write PNG' "$TMP/err"; then
	skip "PNG: this Graphviz has no cairo or gd plugin ($(cat "$TMP/err"))"
else
	check "-o FILE.png succeeds" [ $rc -eq 0 ]
	check "... and writes a PNG image" sh -c "head -c 8 '$TMP/srcnn.png' | od -An -tx1 | tr -d ' \n' |
		grep -qx 89504e470d0a1a0a"
fi

# Graphviz with its core and dot plugins only (GVBINDIR names the plugin folder): no PNG renderer.
gvdir=$(pkg-config --variable=libdir libgvc 2>/dev/null)/graphviz
if [ -f "$gvdir/config6a" ] && ls "$gvdir"/libgvplugin_core.so.* >/dev/null 2>&1 &&
	ls "$gvdir"/libgvplugin_dot_layout.so.* >/dev/null 2>&1; then
	mkdir -p "$TMP/gv"
	ln -s "$gvdir"/libgvplugin_core.so* "$gvdir"/libgvplugin_dot_layout.so* "$TMP/gv/"
	awk '/^libgvplugin_/{keep = /^libgvplugin_(core|dot_layout)\./} keep' "$gvdir/config6a" >"$TMP/gv/config6a"
	GVBINDIR=$TMP/gv "$ONNXVIEW" dot srcnn.onnx -o "$TMP/nopng.png" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check "no PNG renderer: status 1" [ $rc -eq 1 ]
	check "... one line saying so" sh -c "[ \$(wc -l <'$TMP/err') -eq 1 ] &&
		grep -q '^onnxview: $TMP/nopng.png: this Graphviz cannot write PNG: its cairo (or gd) plugin is missing' '$TMP/err'"
	check "... and no file" sh -c "[ ! -e '$TMP/nopng.png' ] && [ \$(ls -A '$TMP' | grep -c onnxview-) -eq 0 ]"
	GVBINDIR=$TMP/gv "$ONNXVIEW" dot srcnn.onnx -o "$TMP/core.svg" 2>"$TMP/err"
	check "... while SVG still works with the core plugin" svg_ops "$TMP/core.svg" srcnn.onnx
else
	skip "no Graphviz plugin folder found to hide the PNG renderer from"
fi

# ---- no overwrite -------------------------------------------------------------------------------------------
printf 'keep me\n' >"$TMP/taken.svg"
"$ONNXVIEW" dot srcnn.onnx -o "$TMP/taken.svg" 2>"$TMP/err"
rc=$?
check "an existing file without --force: status 1" [ $rc -eq 1 ]
check "... says so" grep -qx "onnxview: $TMP/taken.svg: exists; use --force to replace it" "$TMP/err"
check "... and leaves it untouched" [ "$(cat "$TMP/taken.svg")" = "keep me" ]
printf 'keep me\n' >"$TMP/taken.dot"
"$ONNXVIEW" dot srcnn.onnx -o "$TMP/taken.dot" 2>/dev/null
check "... .dot too" sh -c "[ $? -eq 1 ] && [ \"\$(cat '$TMP/taken.dot')\" = 'keep me' ]"
"$ONNXVIEW" dot srcnn.onnx -o "$TMP/taken.svg" --force
check "--force replaces it" svg_ops "$TMP/taken.svg" srcnn.onnx
check "no temporary file is left behind" [ "$(ls -A "$TMP" | grep -c onnxview-)" -eq 0 ]
"$ONNXVIEW" dot srcnn.onnx -o "$TMP/no/such/dir/x.svg" 2>"$TMP/err"
check "a missing folder: status 1 and the reason" sh -c "[ $? -eq 1 ] && grep -q 'No such file or directory' '$TMP/err'"

# ---- usage ----------------------------------------------------------------------------------------------------
"$ONNXVIEW" dot srcnn.onnx -o "$TMP/x.jpg" 2>"$TMP/err"
check "an unknown extension is a usage error (status 2) naming the formats" \
	sh -c "[ $? -eq 2 ] && grep -q '.dot, .svg or .png' '$TMP/err'"
"$ONNXVIEW" dot srcnn.onnx --radius 2 2>/dev/null
check "--radius without --focus: status 2" [ $? -eq 2 ]
"$ONNXVIEW" dot srcnn.onnx --focus conv1 --radius -1 2>/dev/null
check "a negative --radius: status 2" [ $? -eq 2 ]
"$ONNXVIEW" dot 2>/dev/null
check "no model: status 2" [ $? -eq 2 ]
"$ONNXVIEW" dot bad-truncated.onnx 2>"$TMP/err" >/dev/null
check "an unreadable model: status 3" [ $? -eq 3 ]
"$ONNXVIEW" dot srcnn.onnx --focus nosuch 2>"$TMP/err"
check "--focus on a missing node: status 1, one line" sh -c "[ $? -eq 1 ] &&
	grep -qx \"onnxview: srcnn.onnx: --focus: no node named 'nosuch' (use #N for a node's index)\" '$TMP/err'"
"$ONNXVIEW" dot srcnn.onnx --focus '#99' 2>"$TMP/err"
check "--focus #N out of range: status 1" sh -c "[ $? -eq 1 ] && grep -q 'nodes #0 to #5' '$TMP/err'"
"$ONNXVIEW" dot resize-constant.onnx --focus scales_const --radius 0 >"$TMP/folded.dot"
check "--focus on a Constant folded into its consumer centres on that consumer" \
	sh -c "grep -q '^	n1	' '$TMP/folded.dot' && ! grep -q '^	n0' '$TMP/folded.dot'"

# ---- hostile names --------------------------------------------------------------------------------------------
"$PYTHON" - "$TMP/hostile.onnx" <<'PY' || { echo "Bail out! could not write the hostile model"; exit 1; }
import sys, onnx
from onnx import helper as h, TensorProto as T
evil = '</TD></TR></TABLE>><script>alert("x")</script>&amp;'
nodes = [
    h.make_node("Relu", ['in"put<&>\\'], ["mid\nline\x1b[31m"], name=evil),
    h.make_node("Op<b>", ["mid\nline\x1b[31m"], ["o]\\N\\"], name='c"ustom\\', domain='evil"dom',
                **{'a]\\N': '"\\"; rm -rf /\n\x07'}),
    h.make_node("Identity", ["o]\\N\\"], ["out\\"], name="QQQQ"),
]
g = h.make_graph(nodes, 'graph"name\\', [h.make_tensor_value_info('in"put<&>\\', T.FLOAT, ['b"<&>\\', 3])],
                 [h.make_tensor_value_info("out\\", T.FLOAT, ['b"<&>\\', 3])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13), h.make_opsetid('evil"dom', 1)])
data = m.SerializeToString()
open(sys.argv[1], "wb").write(data.replace(b"QQQQ", b"Q\xff\xfeQ"))  # a name that is not UTF-8
PY
"$ONNXVIEW" dot "$TMP/hostile.onnx" >"$TMP/hostile.dot" 2>"$TMP/err"
check "hostile names: DOT text written" [ $? -eq 0 ]
check "... with no control bytes in it" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$TMP/hostile.dot' ||
	[ \"\$(LC_ALL=C tr -d '\t\n' <'$TMP/hostile.dot' | LC_ALL=C grep -c '[[:cntrl:]]')\" -eq 0 ]"
check "... and no markup from the model" sh -c "! grep -q '<script' '$TMP/hostile.dot'"
if have_dot; then
	check "... Graphviz's dot reads it" sh -c "dot -Tsvg '$TMP/hostile.dot' >/dev/null 2>'$TMP/err' && [ ! -s '$TMP/err' ]"
else
	skip "no dot program to read the DOT text"
fi
"$ONNXVIEW" dot "$TMP/hostile.onnx" -o "$TMP/hostile.svg" 2>"$TMP/err"
check "hostile names: SVG written" [ $? -eq 0 ]
check "... valid XML that shows the names as text" "$PYTHON" - "$TMP/hostile.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
text = [t for e in root.iter() for t in (e.text,) if t]
assert '</TD></TR></TABLE>><script>alert("x")</script>&amp;' in text, text
assert 'c"ustom\\' in text, text
assert "evil\"dom::Op<b>" in text, text
assert "Q\\xff\\xfeQ" in text, text
assert any(t.startswith('a]\\N = ') for t in text), text  # not "a]n1": Graphviz's \N stays text
assert not any(c < " " for t in text if t.strip() for c in t), text
PY

# ---- --focus on ResNet-18 -------------------------------------------------------------------------------------
if "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	"$PYTHON" "$SRCDIR/tests/export-torch.py" "$TMP/t" >"$TMP/log" 2>&1 ||
		{ sed 's/^/# /' "$TMP/log"; echo "Bail out! export failed"; exit 1; }
	r18=$TMP/t/resnet18.onnx
	# The expected neighbourhood, from the model: boxes are graph inputs, nodes (a Constant with one consumer
	# is folded into it) and graph outputs; edges follow the tensors.
	near() { # NODE RADIUS -> node indices within RADIUS edges, one per line, sorted
		"$PYTHON" - "$r18" "$1" "$2" <<'PY'
import sys, onnx, collections
m = onnx.load(sys.argv[1]); g = m.graph; ref = sys.argv[2]; radius = int(sys.argv[3])
inits = {t.name for t in g.initializer}
uses = collections.Counter(i for n in g.node for i in n.input)
outs = {o.name for o in g.output}
folded = {i for i, n in enumerate(g.node) if n.op_type == "Constant" and uses[n.output[0]] == 1
          and n.output[0] not in outs}
box_of = {}  # value -> producing box
for v in g.input:
    if v.name not in inits:
        box_of[v.name] = "i:" + v.name
for i, n in enumerate(g.node):
    for o in n.output:
        box_of[o] = "n%d" % i
adj = collections.defaultdict(set)
for i, n in enumerate(g.node):
    if i in folded:
        continue
    for v in n.input:
        src = box_of.get(v)
        if src and not (src[0] == "n" and int(src[1:]) in folded):
            adj[src].add("n%d" % i); adj["n%d" % i].add(src)
for o in g.output:
    if o.name in box_of:
        adj[box_of[o.name]].add("o:" + o.name); adj["o:" + o.name].add(box_of[o.name])
start = "n%d" % (int(ref[1:]) if ref.startswith("#") else [n.name for n in g.node].index(ref))
dist = {start: 0}; queue = [start]
for b in queue:
    if dist[b] < radius:
        for c in sorted(adj[b]):
            if c not in dist:
                dist[c] = dist[b] + 1; queue.append(c)
print("\n".join(sorted(b[1:] for b in dist if b[0] == "n")))
PY
	}
	got() { sed -n 's/^	n\([0-9]*\)	.*/\1/p; s/^	n\([0-9]*\);$/\1/p' "$1" | sort; }
	total=$("$PYTHON" -c 'import onnx,sys; print(len(onnx.load(sys.argv[1]).graph.node))' "$r18")
	name=$("$PYTHON" -c 'import onnx,sys; print(onnx.load(sys.argv[1]).graph.node[int(sys.argv[2])].name)' "$r18" 40)
	"$ONNXVIEW" dot "$r18" --focus '#40' >"$TMP/f40.dot"
	near '#40' 3 >"$TMP/want40"
	got "$TMP/f40.dot" >"$TMP/got40"
	check "resnet18 --focus #40: exactly the nodes within 3 edges ($(wc -l <"$TMP/want40") of $total)" \
		sh -c "cmp -s '$TMP/want40' '$TMP/got40' && [ \$(wc -l <'$TMP/got40') -lt $total ]"
	check "... the focused node is outlined" grep -q '^	n40	.*color="#1565c0"' "$TMP/f40.dot"
	check "... cut edges end in dashed stubs" sh -c "grep -q '^	s[0-9]*	' '$TMP/f40.dot' &&
		grep -q 'style=dashed' '$TMP/f40.dot'"
	"$ONNXVIEW" dot "$r18" --focus "$name" --radius 1 >"$TMP/fname.dot"
	near '#40' 1 >"$TMP/want1"
	got "$TMP/fname.dot" >"$TMP/got1"
	check "--focus by name with --radius 1" cmp -s "$TMP/want1" "$TMP/got1"
	"$ONNXVIEW" dot "$r18" --focus '#40' --radius 0 >"$TMP/f0.dot"
	check "--radius 0: the node alone, with its stubs" sh -c "[ '$(got "$TMP/f0.dot")' = 40 ] &&
		[ \$(grep -c '^	s[0-9]*	' '$TMP/f0.dot') -ge 2 ]"
	"$ONNXVIEW" dot "$r18" --focus '#40' -o "$TMP/f40.svg"
	check "... and the neighbourhood lays out as SVG, one box each" "$PYTHON" - "$TMP/f40.svg" "$TMP/f40.dot" <<'PY'
import re, sys, xml.etree.ElementTree as ET
g = ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}g")
drawn = sum(1 for e in g if e.get("class") == "node")
assert drawn == len(re.findall(r"^\t[nsio][0-9]+\t", open(sys.argv[2]).read(), re.M)), drawn
PY
	if have_dot; then
		check "... and as DOT text Graphviz's dot reads" sh -c "dot -Tsvg '$TMP/f40.dot' >/dev/null 2>'$TMP/err' &&
			[ ! -s '$TMP/err' ]"
	fi
else
	skip "resnet18 --focus: no python3-torch to export it"
fi

# ---- big graphs: tall PNGs, the size limit on layouts ---------------------------------------------------------
chain() { # FILE N: a chain of N Relu nodes
	"$PYTHON" - "$1" "$2" <<'PY' || { echo "Bail out! could not write the chain model"; exit 1; }
import sys, onnx
from onnx import helper as h, TensorProto as T
n = int(sys.argv[2])
nodes = [h.make_node("Relu", ["v%d" % i], ["v%d" % (i + 1)], name="relu%d" % i) for i in range(n)]
g = h.make_graph(nodes, "big", [h.make_tensor_value_info("v0", T.FLOAT, [4])],
                 [h.make_tensor_value_info("v%d" % n, T.FLOAT, [4])])
open(sys.argv[1], "wb").write(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]).SerializeToString())
PY
}
chain "$TMP/tall.onnx" 400
if [ -s "$TMP/srcnn.png" ]; then
	"$ONNXVIEW" dot "$TMP/tall.onnx" -o "$TMP/tall.png" 2>"$TMP/err"
	check "a PNG too tall for cairo's bitmaps is scaled down quietly (nothing from Graphviz on stderr)" quiet_ok $?
fi
chain "$TMP/big.onnx" 3100
"$ONNXVIEW" dot "$TMP/big.onnx" -o "$TMP/big.svg" 2>"$TMP/err"
rc=$?
check "3,102 boxes to SVG: refused with status 1" sh -c "[ $rc -eq 1 ] && [ ! -e '$TMP/big.svg' ]"
check "... in one line that suggests --focus and .dot" sh -c "[ \$(wc -l <'$TMP/err') -eq 1 ] &&
	grep -q '^onnxview: $TMP/big.onnx: 3102 boxes are too many for a Graphviz layout (at most 3000' '$TMP/err' &&
	grep -q -- '--focus NODE' '$TMP/err' && grep -q 'FILE.dot' '$TMP/err'"
"$ONNXVIEW" dot "$TMP/big.onnx" -o "$TMP/big.dot"
check "... while its DOT text is written" sh -c "[ $? -eq 0 ] && [ \$(grep -c -- '->' '$TMP/big.dot') -eq 3101 ]"
"$ONNXVIEW" dot "$TMP/big.onnx" -o "$TMP/big-focus.svg" --focus relu1500 --radius 5
check "... and a --focus neighbourhood of it lays out" sh -c "[ $? -eq 0 ] &&
	[ \$(grep -c 'class=\"node\"' '$TMP/big-focus.svg') -eq 13 ]"
done_testing
