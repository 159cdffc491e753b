#!/bin/sh
# `onnxview check`: one model per diagnostic code (tests/gen-check-models.py), text output compared with
# tests/golden/check-NAME.txt, the codes and exit status each model must give, valid JSON that agrees with the
# text, and no crash on any model of tests/gen-models.py.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
: "${ONNXVIEW_DATADIR:=$SRCDIR/share/onnxview}"
export ONNXVIEW_DATADIR
scratch
mkdir -p "$TMP/c" && "$PYTHON" "$SRCDIR/tests/gen-check-models.py" "$TMP/c" ||
	{ echo "Bail out! tests/gen-check-models.py failed"; exit 1; }
mkdir -p "$TMP/c2" && "$PYTHON" "$SRCDIR/tests/gen-check-models.py" "$TMP/c2" >/dev/null 2>&1
check "gen-check-models.py writes the same bytes twice" diff -r "$TMP/c" "$TMP/c2"

# model, exit status, every code it must give (and no other): the rule it is made for, plus the companions it
# cannot avoid.
cat >"$TMP/expect" <<'EOF'
clean 0 -
op-not-in-opset 1 op-not-in-opset
op-removed 1 op-removed
unknown-op 1 unknown-op
domain-not-imported 1 domain-not-imported
custom-domain 1 custom-domain
aten-fallback 1 aten-fallback
ort-only 0 ort-only
opset-newer-than-db 0 opset-newer-than-db
dangling-input 1 dangling-input
produced-twice 1 produced-twice
output-not-produced 1 output-not-produced
not-sorted 1 not-sorted
cycle 1 cycle
duplicate-name 0 duplicate-name
duplicate-input 1 duplicate-input
unused-initializer 0 unused-initializer
dead-node 0 dead-node
initializer-is-input 0 initializer-is-input
unknown-attribute 1 unknown-attribute
missing-attribute 1 missing-attribute
attribute-type 1 attribute-type
input-count 1 input-count
input-count-empty 1 input-count
output-count 1 output-count
type-conflict 1 type-conflict
shape-conflict 1 shape-conflict
fixed-batch 0 fixed-batch
fixed-batch-on-purpose 0 -
fixed-batch-two 0 fixed-batch
negative-dim 0 negative-dim
baked-shape 0 baked-shape
baked-shape-fixed 0 baked-shape,fixed-batch
resize-computed 0 resize-computed
resize-align-corners 0 resize-align-corners
gather-on-shape 0 gather-on-shape
s3-opset11 1 op-not-in-opset,resize-align-corners
s3-opset9 1 op-not-in-opset,unknown-attribute
s5-node2-gather 0 gather-on-shape
EOF

# Every code of DIAG_TABLE (src/check/check.h) has a model here, and every model here was generated.
sed -n 's/^[[:space:]]*X(\([a-z_]*\), *[A-Z]*,.*/\1/p' "$SRCDIR/src/check/check.h" | tr _ - | sort >"$TMP/codes.all"
awk '{ print $3 }' "$TMP/expect" | tr , '\n' | grep -v '^-$' | sort -u >"$TMP/codes.tested"
check "DIAG_TABLE has codes" [ -s "$TMP/codes.all" ]
if diff "$TMP/codes.all" "$TMP/codes.tested" >"$TMP/codes.diff"; then
	ok "every diagnostic code of src/check/check.h has a test model"
else
	not_ok "every diagnostic code of src/check/check.h has a test model"
	sed 's/^/# /' "$TMP/codes.diff"
fi
# ... and the man page's DIAGNOSTICS lists each with its severity.
sed -n 's/^[[:space:]]*X(\([a-z_]*\), *\([A-Z]*\),.*/\1 \2/p' "$SRCDIR/src/check/check.h" | while read -r code sev; do
	entry=".BR $(echo "$code" | sed 's/_/\\-/g') \" ($(echo "$sev" | tr A-Z a-z))\""
	grep -qxF "$entry" "$SRCDIR/man/onnxview.1" || echo "$entry"
done >"$TMP/man.missing"
if [ -s "$TMP/man.missing" ]; then
	not_ok "man/onnxview.1 DIAGNOSTICS lists every code with its severity"
	sed 's/^/# missing: /' "$TMP/man.missing"
else
	ok "man/onnxview.1 DIAGNOSTICS lists every code with its severity"
fi
(cd "$TMP/c" && ls -- *.onnx | sed 's/\.onnx$//') | sort >"$TMP/models.made"
awk '{ print $1 }' "$TMP/expect" | sort >"$TMP/models.listed"
check "tests/check.sh lists every model gen-check-models.py makes" diff "$TMP/models.made" "$TMP/models.listed"

# What one `check --json` says: exit status, codes, counts, the node of the S5 Gather.
cat >"$TMP/verify.py" <<'PY'
import json, sys
path, text, rc, want_rc, want_codes, name = sys.argv[1:7]
j = json.load(open(path))
diags = j["diagnostics"]
for key in ("file", "errors", "warnings", "infos", "diagnostics"):
    assert key in j, "no key " + key
for d in diags:
    assert sorted(d) == sorted(["severity", "code", "where", "node", "node_desc", "value", "message",
                                "hint"]), "diagnostic keys: %s" % sorted(d)
    assert d["severity"] in ("error", "warning", "info"), d["severity"]
    assert (d["node"] is None) == (d["node_desc"] is None), "node and node_desc"
    assert d["node_desc"] is None or d["node_desc"].startswith("#%d " % d["node"]), d["node_desc"]
count = {s: sum(d["severity"] == s for d in diags) for s in ("error", "warning", "info")}
assert (j["errors"], j["warnings"], j["infos"]) == (count["error"], count["warning"], count["info"]), "counts"
order = {"error": 0, "warning": 1, "info": 2}
assert [order[d["severity"]] for d in diags] == sorted(order[d["severity"]] for d in diags), "errors first"
assert int(rc) == (1 if j["errors"] else 0), "exit status %s with %d errors" % (rc, j["errors"])
assert int(rc) == int(want_rc), "exit status %s, want %s" % (rc, want_rc)
got = sorted(set(d["code"] for d in diags))
want = [] if want_codes == "-" else sorted(want_codes.split(","))
assert got == want, "codes %s, want %s" % (got, want)
summary = open(text).read().splitlines()[-1]
plural = lambda n, w: "%d %s%s" % (n, w, "" if n == 1 else "s")
assert summary == ", ".join([plural(j["errors"], "error"), plural(j["warnings"], "warning"),
                             plural(j["infos"], "info")]), "text summary: " + summary
if name == "s5-node2-gather":
    assert [d["node"] for d in diags if d["code"] == "gather-on-shape"] == [2], "the Gather is node #2"
PY

while read -r m want_rc want_codes; do
	out="$TMP/$m.txt" js="$TMP/$m.json"
	"$ONNXVIEW" check "$TMP/c/$m.onnx" >"$out" 2>"$out.err"
	rc=$?
	"$ONNXVIEW" check --json "$TMP/c/$m.onnx" >"$js" 2>"$js.err"
	jrc=$?
	check "check $m.onnx exits $want_rc" [ $rc -eq "$want_rc" ]
	check "check --json $m.onnx exits as the text form does" [ $jrc -eq $rc ]
	cat "$out.err" "$js.err" >"$out.errs"
	check "check $m.onnx writes nothing to stderr" [ ! -s "$out.errs" ]
	golden "$out" "$SRCDIR/tests/golden/check-$m.txt" "check $m.onnx matches tests/golden/check-$m.txt"
	if "$PYTHON" "$TMP/verify.py" "$js" "$out" $rc "$want_rc" "$want_codes" "$m" >"$js.why" 2>&1; then
		ok "check --json $m.onnx is valid JSON with codes $want_codes"
	else
		not_ok "check --json $m.onnx is valid JSON with codes $want_codes"
		sed 's/^/# /' "$js.why" | tail -5
	fi
done <"$TMP/expect"

# Every model of tests/gen-models.py: 0 or 1 if it loads, 3 with one error line if it cannot be read; never a crash.
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
for f in $(cd "$TMP/m" && find . -name '*.onnx' | sed 's|^\./||' | sort); do
	for flag in "" --json; do
		"$ONNXVIEW" check $flag "$TMP/m/$f" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		name="check${flag:+ $flag} $f"
		case $f:$rc in
		bad-*:3 | */bad-*:3) check "$name refuses it with one error line" [ "$(wc -l <"$TMP/err")" -eq 1 ] ;;
		*:0 | *:1) check "$name exits 0 or 1, nothing on stderr" [ ! -s "$TMP/err" ] ;;
		*) not_ok "$name exits $rc"; sed 's/^/# /' "$TMP/err" | head -5 ;;
		esac
	done
done
done_testing
