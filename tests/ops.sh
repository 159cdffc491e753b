#!/bin/sh
# The op reference: `onnxview ops` listings, signatures, suggestions and JSON, against golden files; bad data files.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
scratch
REAL=${ONNXVIEW_DATADIR:-$SRCDIR/share/onnxview}
[ -f "$REAL/opdb.txt" ] || { echo "Bail out! no op database at $REAL/opdb.txt"; exit 1; }

# A data folder of our own: the real database with the sample notes, so the goldens do not move when
# share/onnxview/ops-doc.txt is edited.
mkdir -p "$TMP/data"
ln -s "$REAL/opdb.txt" "$TMP/data/opdb.txt"
cp "$SRCDIR/tests/data/ops-doc-sample.txt" "$TMP/data/ops-doc.txt"
ONNXVIEW_DATADIR=$TMP/data
export ONNXVIEW_DATADIR

# run NAME ARGS...: $TMP/NAME.out, $TMP/NAME.err, and $rc.
run() {
	local name=$1
	shift
	"$ONNXVIEW" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
}
# run_in DATADIR NAME ARGS...: the same with another data folder.
run_in() {
	local dir=$1 name=$2
	shift 2
	ONNXVIEW_DATADIR=$dir "$ONNXVIEW" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
}

matches() { expr "$1" : "$2" >/dev/null; }
have_json() { command -v python3 >/dev/null 2>&1; }
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }

for t in "resize:Resize" "conv:Conv" "upsample-json:--json Upsample"; do
	name=${t%%:*}
	args=${t#*:}
	# shellcheck disable=SC2086
	run "$name" ops $args
	check "ops $args exits 0" [ $rc -eq 0 ]
	check "ops $args writes nothing to stderr" [ ! -s "$TMP/$name.err" ]
	golden "$TMP/$name.out" "$SRCDIR/tests/golden/ops-$name.txt" "ops $args matches tests/golden/ops-$name.txt"
done
if have_json; then
	check "ops --json Upsample is valid JSON" valid_json "$TMP/upsample-json.out"
else
	skip "no python3 to check JSON"
fi

# The listing: too long for a golden; check its shape and a few rows.
run list ops
check "ops exits 0" [ $rc -eq 0 ]
check "ops writes nothing to stderr" [ ! -s "$TMP/list.err" ]
last=$(tail -n 1 "$TMP/list.out")
count_re='[0-9][0-9]* operators, [0-9][0-9]* versions in ai.onnx (opsets 1 to [0-9]*, from onnx .*)$'
check "ops ends with a count line ($last)" matches "$last" "$count_re"
count=$(echo "$last" | cut -d' ' -f1)
rows=$(($(wc -l <"$TMP/list.out") - 1))
check "the count ($count) is the number of rows ($rows), and over 150" [ "$count" -eq "$rows" -a "$count" -gt 150 ]
check "ops lists Resize with its versions, category and summary" \
	grep -q '^Resize  *10 11 13 18 19  *shape  *Scales a tensor' "$TMP/list.out"
check "ops lists Conv 1 11 ..." grep -q '^Conv  *1 11 ' "$TMP/list.out"
check "ops says Upsample was removed at 10" grep -q '^Upsample  *1 7 9 (removed at 10)' "$TMP/list.out"
check "ops lists an undocumented op without notes" grep -q '^Abs  *1 6 13$' "$TMP/list.out"
check "ops lists no ai.onnx.ml op" sh -c "! grep -q '^LinearClassifier ' '$TMP/list.out'"

run ml ops --domain ai.onnx.ml
check "ops --domain ai.onnx.ml exits 0" [ $rc -eq 0 ]
check "ops --domain ai.onnx.ml lists LinearClassifier" grep -q '^LinearClassifier  *1$' "$TMP/ml.out"
check "ops --domain ai.onnx.ml counts its ops" grep -q 'operators, .* versions in ai.onnx.ml ' "$TMP/ml.out"

run listjson ops --json
check "ops --json exits 0" [ $rc -eq 0 ]
if have_json; then
	check "ops --json has the same count as the text listing" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["count"] == int(sys.argv[2]) == len(d["ops"]), "count"
r = [o for o in d["ops"] if o["name"] == "Resize"][0]
assert r["versions"][:3] == [10, 11, 13] and r["category"] == "shape", r
u = [o for o in d["ops"] if o["name"] == "Upsample"][0]
assert u["removed_at"] == 10, u' "$TMP/listjson.out" "$count"
	run conv ops --json Conv
	check "ops --json Conv: typed defaults and a null maximum for variadic" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["schemas"] if x["since_version"] == 11][0]
a = {x["name"]: x for x in s["attributes"]}
assert a["auto_pad"]["default"] == "NOTSET" and a["group"]["default"] == 1, a
assert a["kernel_shape"]["default"] is None and not a["kernel_shape"]["required"]
assert d["schemas"][0]["since_version"] > d["schemas"][-1]["since_version"], "newest first"
assert d["doc"]["category"] == "conv"' "$TMP/conv.out"
	run concat ops --json Concat
	check "ops --json Concat: variadic input, max_inputs null" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["schemas"][0]
assert s["inputs"][0]["option"] == "variadic" and s["max_inputs"] is None and s["min_inputs"] == 1, s' "$TMP/concat.out"
else
	skip "no python3 to check JSON"
	skip "no python3 to check JSON"
	skip "no python3 to check JSON"
fi

# Unknown ops: exit 1 and a suggestion.
expect_unknown() {
	local op=$1 want=$2
	run unknown ops "$op"
	check "ops $op exits 1" [ $rc -eq 1 ]
	check "ops $op prints nothing on stdout" [ ! -s "$TMP/unknown.out" ]
	if [ "$(cat "$TMP/unknown.err")" = "$want" ]; then
		ok "ops $op says: $want"
	else
		not_ok "ops $op says: $want"
		sed 's/^/# got: /' "$TMP/unknown.err"
	fi
}
expect_unknown Foo "onnxview: ops: no operator 'Foo' in ai.onnx; did you mean 'Floor'?"
expect_unknown resize "onnxview: ops: no operator 'resize' in ai.onnx; did you mean 'Resize'?"
expect_unknown GridSampler "onnxview: ops: no operator 'GridSampler' in ai.onnx; did you mean 'GridSample'?"
expect_unknown interpolate "onnxview: ops: no operator 'interpolate' in ai.onnx; did you mean 'Resize' \
(PyTorch: F.interpolate(x, scale_factor=2, mode='nearest'))?"
expect_unknown Qwxzjkv "onnxview: ops: no operator 'Qwxzjkv' in ai.onnx"

run scaler ops Scaler
check "ops Scaler finds the ai.onnx.ml op" grep -q '^Scaler-1 (ai.onnx.ml, since opset 1)$' "$TMP/scaler.out"
run scaler ops --domain ai.onnx Scaler
check "ops --domain ai.onnx Scaler exits 1 and names its domain" \
	sh -c "[ $rc -eq 1 ] && grep -q \"no operator 'Scaler' in ai.onnx; it is in ai.onnx.ml\" '$TMP/scaler.err'"
run dom ops --domain com.example
check "ops --domain com.example exits 1" sh -c "[ $rc -eq 1 ] && grep -q \"no domain 'com.example'\" '$TMP/dom.err'"

run opset ops --opset 12 Resize
check "ops --opset 12 Resize shows Resize-11 only" \
	sh -c "[ $rc -eq 0 ] && grep -q '^Resize-11 ' '$TMP/opset.out' &&
		[ \$(grep -c '^Resize-[0-9]' '$TMP/opset.out') -eq 1 ]"
run opset ops --opset 11 GridSample
check "ops --opset 11 GridSample exits 1 and names the first version" \
	sh -c "[ $rc -eq 1 ] &&
		grep -q 'GridSample does not exist at opset 11 of ai.onnx (its first version is 16)' '$TMP/opset.err'"

for args in "--opset" "--opset x Resize" "Resize Conv" "--bogus" "--opset 3"; do
	# shellcheck disable=SC2086
	run usage ops $args
	check "ops $args is a usage error (exit 2)" sh -c "[ $rc -eq 2 ] && grep -q '^usage: onnxview ops' '$TMP/usage.err'"
done
run help ops --help
check "ops --help exits 0 with the usage line" sh -c "[ $rc -eq 0 ] && grep -q '^usage: onnxview ops' '$TMP/help.out'"
run help --help
check "onnxview --help lists ops" grep -q '^  ops ' "$TMP/help.out"

# Damaged or missing data files.
mkdir -p "$TMP/bad"
sed '12s/.*/in 0 X sometimes T 1 1/' "$REAL/opdb.txt" >"$TMP/bad/opdb.txt"
run_in "$TMP/bad" bad ops Resize
check "a damaged database: exit 3" [ $rc -eq 3 ]
check "a damaged database: the error names the file and line" grep -q "^onnxview: $TMP/bad/opdb.txt:12: " "$TMP/bad.err"
head -n 200 "$REAL/opdb.txt" >"$TMP/bad/opdb.txt"
run_in "$TMP/bad" bad ops
check "a truncated database: exit 3, 'truncated'" sh -c "[ $rc -eq 3 ] && grep -q 'truncated' '$TMP/bad.err'"
run_in "$TMP/nowhere" bad ops
check "no database: exit 3, one line naming the path as a missing data file (as for ops-doc.txt)" \
	sh -c "[ $rc -eq 3 ] && [ \$(wc -l <'$TMP/bad.err') -eq 1 ] &&
		grep -q \"^onnxview: the op database $TMP/nowhere/opdb.txt is missing: .*ONNXVIEW_DATADIR\" '$TMP/bad.err'"
run_in "$TMP/nowhere" bad check "$SRCDIR/share/onnxview/examples/srcnn.onnx"
check "no database: check says so in its note, naming the path" \
	grep -q "the op database $TMP/nowhere/opdb.txt is missing" "$TMP/bad.out"
ln -sf "$REAL/opdb.txt" "$TMP/bad/opdb.txt"
printf '== Resize\nsummary: one\nsummary: two\n' >"$TMP/bad/ops-doc.txt"
run_in "$TMP/bad" bad ops Resize
check "damaged notes: ops still works (exit 0)" [ $rc -eq 0 ]
check "damaged notes: a warning naming the line" grep -q "^onnxview: warning: $TMP/bad/ops-doc.txt:3: " "$TMP/bad.err"

# The real data folder, whatever notes it has: they load, and every record names a known op.
run_in "$REAL" real ops
check "ops with the installed data writes nothing to stderr" sh -c "[ $rc -eq 0 ] && [ ! -s '$TMP/real.err' ]"
if [ -f "$REAL/ops-doc.txt" ]; then
	awk '/^== /{if (n) print d, n; n=$2; d="ai.onnx"} /^domain:/{if (n) d=$2} END{if (n) print d, n}' \
		"$REAL/ops-doc.txt" >"$TMP/documented"
	unknown=
	while read -r d n; do
		ONNXVIEW_DATADIR=$REAL "$ONNXVIEW" ops --domain "$d" "$n" >/dev/null 2>&1 || unknown="$unknown $d:$n"
	done <"$TMP/documented"
	check "every op in ops-doc.txt is in the database${unknown:+ (not:$unknown)}" [ -z "$unknown" ]
	bad_cat=$(sed -n 's/^category: *//p' "$REAL/ops-doc.txt" | sort -u |
		grep -vxE 'shape|conv|activation|norm|pool|elementwise|reduce|logic|data|control|quant|attention|detection|ml|other' |
		tr '\n' ' ')
	check "every category in ops-doc.txt is a known one${bad_cat:+ (not: $bad_cat)}" [ -z "$bad_cat" ]
else
	skip "no share/onnxview/ops-doc.txt yet"
	skip "no share/onnxview/ops-doc.txt yet"
fi

# The reference covers the database: every op of opdb.txt (ai.onnx, ai.onnx.ml and the preview domains) has a
# record in ops-doc.txt, and each record's history lines name exactly the op's since-versions, in order, so the
# notes cannot drift from the schemas when opdb.txt is regenerated.
# db_versions OPDB: "DOMAIN OP V1 V2 ..." for every op, sorted.
db_versions() {
	awk '$1 == "op" { k = $2 " " $3; if (!(k in v)) { v[k] = k; n++ } v[k] = v[k] " " $4 }
		END { for (k in v) print v[k] }' "$1" | LC_ALL=C sort
}
# doc_versions OPS-DOC: the same from the records' history lines (text blocks skipped; ai.onnx by default).
doc_versions() {
	awk 'function flush() { if (name != "") print dom " " name hist }
		/^== / { flush(); name = $2; dom = "ai.onnx"; hist = ""; intext = 0; next }
		name == "" || intext { next }
		/^text:/ { intext = 1; next }
		/^domain:/ { dom = $2; next }
		/^history:/ { v = $2; sub(/:.*/, "", v); hist = hist " " v }
		END { flush() }' "$1" | LC_ALL=C sort
}
# doc_drift OPDB OPS-DOC: one line per op whose versions differ or that has no record ("-" what opdb.txt says,
# "+" what ops-doc.txt says); nothing when they agree. Records of ops the database lacks are the check above.
doc_drift() {
	db_versions "$1" >"$TMP/drift.db"
	doc_versions "$2" >"$TMP/drift.doc"
	awk 'NR == FNR { k = $1 " " $2; db[k] = $0; next }
		{ k = $1 " " $2; if (k in db) { if (db[k] != $0) print "- " db[k] "  + " $0; delete db[k] } }
		END { for (k in db) print "- " db[k] "  + (no record)" }' "$TMP/drift.db" "$TMP/drift.doc" | LC_ALL=C sort
}
if [ -f "$REAL/ops-doc.txt" ]; then
	doc_drift "$REAL/opdb.txt" "$REAL/ops-doc.txt" >"$TMP/drift"
	missing=$(grep -c '(no record)$' "$TMP/drift")
	check "every op of opdb.txt has a record in ops-doc.txt ($missing missing)" [ "$missing" -eq 0 ]
	grep '(no record)$' "$TMP/drift" | head -40 | sed 's/^/# /'
	wrong=$(grep -vc '(no record)$' "$TMP/drift")
	check "every record's history versions are opdb.txt's since-versions ($wrong differ)" [ "$wrong" -eq 0 ]
	grep -v '(no record)$' "$TMP/drift" | head -40 | sed 's/^/# /'
	# The check itself: a dropped history line, an extra one and a missing record are each caught, and a line
	# starting "history:" inside a text block is not taken for a version.
	awk '/^== / { rec = $2 }
		rec == "Conv" && /^history: 22:/ { next }
		rec == "Gradient" { next }
		{ print }
		rec == "And" && /^history: 7:/ { print "history: 9: not a version of And" }
		rec == "Det" && /^text:/ { print "history: 99: text, not a version" }' "$REAL/ops-doc.txt" >"$TMP/drift-doc"
	doc_drift "$REAL/opdb.txt" "$TMP/drift-doc" >"$TMP/drift2"
	check "the drift check names a dropped version (Conv 22), an extra one (And 9) and a missing record (Gradient)" \
		sh -c "grep -q '^- ai.onnx Conv 1 11 22  + ai.onnx Conv 1 11\$' '$TMP/drift2' &&
			grep -q '^- ai.onnx And 1 7  + ai.onnx And 1 7 9\$' '$TMP/drift2' &&
			grep -q '^- ai.onnx.preview.training Gradient 1  + (no record)\$' '$TMP/drift2' &&
			! grep -q ' Det ' '$TMP/drift2' && [ \$(comm -13 '$TMP/drift' '$TMP/drift2' | wc -l) -le 3 ]"
else
	skip "no share/onnxview/ops-doc.txt yet"
	skip "no share/onnxview/ops-doc.txt yet"
	skip "no share/onnxview/ops-doc.txt yet"
fi
# The shipped documentation loads without a word: an entry written twice (two branches documenting one op) makes
# every panel lose its notes, so it must fail here first.
"$ONNXVIEW" ops Resize >/dev/null 2>"$TMP/docs.err"
check "the shipped ops-doc.txt and opdb.txt load with no warning${TMP:+ ($(head -c 200 "$TMP/docs.err"))}" [ ! -s "$TMP/docs.err" ]
# Without ops-doc.txt the TUI's node panel says why its reference is missing instead of leaving it out.
mkdir -p "$TMP/nodocs" && cp "$SRCDIR/share/onnxview/opdb.txt" "$TMP/nodocs/"
printf 'j<Enter>' >"$TMP/keys"
ONNXVIEW_DATADIR=$TMP/nodocs "$ONNXVIEW" --keys "$TMP/keys" --dump "$TMP/panel.txt" --size 120x40 \
	"$SRCDIR/share/onnxview/examples/srcnn.onnx" >/dev/null 2>&1
check "the node panel names a missing ops-doc.txt" grep -q "unavailable: the op documentation .*ops-doc.txt is missing" "$TMP/panel.txt"
done_testing
