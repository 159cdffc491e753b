#!/bin/sh
# `onnxview compare`: two models, a model and saved tensors, (two backends), on the same inputs; the first node
# whose output differs, with its inputs and attributes on both sides; one clear line for every bad request.
. "$(dirname "$0")/lib.sh"

have_python_onnx || skip_all "python3 with onnx and numpy is needed to make the test models"
scratch
cd "$TMP" || exit 1
M="$SRCDIR/share/onnxview/examples/srcnn.onnx"

"$PYTHON" - <<'EOF' || { echo "1..0 # SKIP could not make the test models"; exit 0; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info

def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")

x = [vi("x", T.FLOAT, [2, 8])]
save("ident", [helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("Identity", ["r"], ["y"], name="out")],
     x, [vi("y", T.FLOAT, [2, 8])])
# the same values in half precision: compared as double, within tolerance
save("half", [helper.make_node("Relu", ["x"], ["r"], name="relu"),
              helper.make_node("Cast", ["r"], ["y"], name="out", to=T.FLOAT16)], x, [vi("y", T.FLOAT16, [2, 8])])
# NaN where A has numbers, and a value only B has
save("nan", [helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("Neg", ["x"], ["n"], name="neg"),
             helper.make_node("Sqrt", ["n"], ["y"], name="out")], x, [vi("y", T.FLOAT, [2, 8])])
# B declares another input shape
save("wide", [helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("Identity", ["r"], ["y"], name="out")],
     [vi("x", T.FLOAT, [2, 9])], [vi("y", T.FLOAT, [2, 9])])
# two inputs with dynamic dims, and a copy whose Add became a Sub
for name, op in (("dyn", "Add"), ("dyn_sub", "Sub")):
    save(name, [helper.make_node("Relu", ["a"], ["r"], name="relu"), helper.make_node(op, ["r", "b"], ["y"], name="mix")],
         [vi("a", T.FLOAT, ["batch", "n"]), vi("b", T.FLOAT, ["batch", 1])], [vi("y", T.FLOAT, ["batch", "n"])])
np.save("x.npy", np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8))
open("garbage.onnx", "wb").write(b"\x0a\xff\xff\xff\xff\x0f not a model")
EOF

# --- two models ---
"$ONNXVIEW" compare "$M" "$M" >same.out 2>same.err; rc=$?
check "the same model twice: exit 0" [ $rc -eq 0 ]
check "the same model twice: no divergence" grep -q "no divergence" same.out
check "the same model twice: 6 values match" grep -q "compared 6 values (|got-want| <= 1e-06 + 0.001\*|want| + 1e-05\*max|want|, integers exact; --strict for ONNX's rtol 1e-3, atol 1e-7): 6 match, 0 differ" same.out
check "an input nobody named is random and said so" grep -q "^input 'input' float32\[1,1,16,16\] from random (uniform in \[-1,1)) (no --input named it)" same.out

"$ONNXVIEW" edit "$M" -e 'set-attr resize0 mode linear' -o lin.onnx 2>/dev/null
"$ONNXVIEW" compare "$M" lin.onnx >lin.out 2>lin.err; rc=$?
check "an edited attribute: exit 1" [ $rc -eq 1 ]
check "an edited attribute: first divergence at the Resize" grep -q "^first divergence: #0 'resize0' Resize -> 'upscaled'" lin.out
check "an edited attribute: the attribute is named with both values" grep -q "attribute 'mode': A \"cubic\", B \"linear\"" lin.out
check "an edited attribute: the fed input is the same" grep -q "input 0 'input' is fed, the same tensor to both" lin.out
check "an edited attribute: the scales are the same" grep -q "input 2 'scales' is a constant, the same in both \[1, 1, 3, 3\]" lin.out
check "an edited attribute: the output differs too" grep -q "^output 'output' differs" lin.out
check "an edited attribute: max abs with its index and both values" grep -Eq "max abs [0-9.e-]+ at \[0,0,[0-9]+,[0-9]+\] \(A [0-9.e-]+, B [0-9.e-]+\)" lin.out
check "an edited attribute: the tolerance that would pass" grep -q "would pass with --atol" lin.out

"$ONNXVIEW" edit "$M" -e 'set-tensor scales [1,1,2,2]' -o s2.onnx 2>/dev/null
"$ONNXVIEW" compare "$M" s2.onnx --list >s2.out 2>&1; rc=$?
check "edited scales: exit 1" [ $rc -eq 1 ]
check "edited scales: the shapes differ at the Resize" grep -q "shapes differ: float32\[1,1,48,48\] against float32\[1,1,32,32\]" s2.out
check "edited scales: the constant that differs, both values" grep -q "input 2 'scales' is a constant that differs: A float32\[4\] \[1, 1, 3, 3\], B float32\[4\] \[1, 1, 2, 2\]" s2.out
check "--list: one line per value" [ "$(grep -c '^  DIFFER #' s2.out)" -eq 6 ]

"$ONNXVIEW" edit "$M" -e 'set-op relu1 Sigmoid' -o sig.onnx 2>/dev/null
"$ONNXVIEW" compare "$M" sig.onnx --input input=zeros >sig.out 2>&1; rc=$?
check "a swapped op: exit 1" [ $rc -eq 1 ]
check "a swapped op: first divergence at the swapped node" grep -q "^first divergence: #2 'relu1' Relu -> 'r1'" sig.out
check "a swapped op: both ops named" grep -q "op: A Relu, B Sigmoid" sig.out
check "a swapped op: its input matches" grep -q "input 0 'c1' matches (max abs 0)" sig.out
check "a swapped op: the verdict" grep -q "every input agrees: the node itself differs" sig.out
check "--input zeros is used for both" grep -q "^input 'input' float32\[1,1,16,16\] from zeros$" sig.out

"$ONNXVIEW" compare "$M" lin.onnx --to c1 --input input=zeros >cut.out 2>&1
check "--to: a cut of both models" grep -q "compared 2 values" cut.out

"$ONNXVIEW" compare ident.onnx half.onnx --input x=x.npy --json >half.json 2>half.err; rc=$?
check "float32 against float16: within tolerance, exit 0" [ $rc -eq 0 ]
check "float32 against float16: compared as double" "$PYTHON" -c "
import json; d = json.load(open('half.json'))
y = [v for v in d['values'] if v['name'] == 'y'][0]
assert y['converted'] and y['status'] == 'match' and d['pass'] and d['first'] is None, d
assert d['inputs'][0]['source'] == 'x.npy' and not d['inputs'][0]['defaulted']"

"$ONNXVIEW" compare ident.onnx nan.onnx --input x=x.npy >nan.out 2>&1; rc=$?
check "NaN on one side: exit 1" [ $rc -eq 1 ]
check "NaN on one side: counted and no tolerance passes" grep -q "NaN A 0 B [1-9].*no tolerance passes" nan.out
check "values only one side computes are counted" grep -q "only in A 1, only in B 1" nan.out

"$ONNXVIEW" compare "$M" lin.onnx --json >lin.json 2>/dev/null
check "--json: the first divergence and every value" "$PYTHON" -c "
import json; d = json.load(open('lin.json'))
assert d['first'] == {'value': 'upscaled', 'node': 0, 'op': 'Resize', 'node_name': 'resize0'}, d['first']
assert d['compared'] == 6 and d['differ'] == 6 and d['pass'] is False
assert d['a']['backend'] == 'cpu' and d['b']['model'] == 'lin.onnx'
v = d['values'][0]; assert v['status'] == 'differ' and len(v['max_abs_at']) == 4"

# --- saved tensors ---
"$ONNXVIEW" run lin.onnx --input input=random --all --save saved >/dev/null 2>&1
"$ONNXVIEW" compare "$M" --against saved >ag.out 2>&1; rc=$?
check "--against DIR: exit 1 when they differ" [ $rc -eq 1 ]
check "--against DIR: the first divergence" grep -q "^first divergence: #0 'resize0' Resize" ag.out
check "--against DIR: same model, so the kernel is where it starts" grep -q "the difference starts inside this node" ag.out
"$ONNXVIEW" run "$M" --input input=random --all --save mine >/dev/null 2>&1
"$ONNXVIEW" compare "$M" --against mine >mine.out 2>&1; rc=$?
check "--against the model's own saved run: exit 0" [ $rc -eq 0 ]
check "--against: every saved value is compared" grep -q "compared 6 values.*6 match" mine.out

# --- bad requests: one line, the documented status ---
expect_fail() { # STATUS PATTERN DESCRIPTION ARGS...
	local st=$1 pat=$2 d=$3; shift 3
	"$ONNXVIEW" compare "$@" >bad.out 2>bad.err; local rc=$?
	if [ $rc -eq "$st" ] && grep -q -- "$pat" bad.err && [ ! -s bad.out ]; then ok "$d"; else
		not_ok "$d (exit $rc)"; sed 's/^/# /' bad.err | head -5; fi
}
expect_fail 2 "nothing to compare" "one model and nothing else: usage error" "$M"
expect_fail 2 "no model given" "no model: usage error"
expect_fail 2 "takes no OTHER" "--against with OTHER: usage error" "$M" lin.onnx --against saved
expect_fail 2 "already" "--vs the same backend: usage error" "$M" --vs cpu
expect_fail 2 "cpu or cuda" "--vs a backend that does not exist" "$M" --vs tpu
expect_fail 2 "unknown option" "an unknown option" "$M" lin.onnx --frobnicate
expect_fail 2 "at most 2 models" "three models" "$M" lin.onnx sig.onnx
expect_fail 2 "wants a number" "a bad tolerance" "$M" lin.onnx --rtol abc
expect_fail 3 "no such directory" "--against a missing folder" "$M" --against nowhere
mkdir -p emptydir
expect_fail 2 "no file there is named after a value" "--against a folder with nothing matching" "$M" --against emptydir
expect_fail 2 "'nosuch', which is no value" "--to a value that is not there" "$M" lin.onnx --to nosuch
expect_fail 2 "'nope' is not a value" "--input for a value that is not there" "$M" lin.onnx --input nope=zeros
expect_fail 3 "missing.onnx" "OTHER missing" "$M" missing.onnx
expect_fail 3 "garbage.onnx" "OTHER not a model" "$M" garbage.onnx
expect_fail 2 "wide.onnx: input 'x'" "the fed tensor does not fit OTHER's declared input" ident.onnx wide.onnx
"$ONNXVIEW" compare "$M" --vs cuda >cuda.out 2>cuda.err; rc=$?
check "--vs cuda where CUDA cannot run: one line naming CUDA, not 0" sh -c "[ $rc -ne 0 ] && [ \$(wc -l <cuda.err) -eq 1 ] && grep -qi cuda cuda.err"

"$ONNXVIEW" compare --help >help.out 2>&1
check "--help prints the usage" grep -q "usage: onnxview compare MODEL \[OTHER\]" help.out
# dynamic dims: --dim and --shape size both sides' inputs, an unnamed generator fills them all
"$ONNXVIEW" compare dyn.onnx dyn_sub.onnx --input zeros --dim batch=2 --dim n=5 >out.txt 2>err.txt
echo $? >rc.txt
check "compare with --dim and an unnamed --input zeros: Add against Sub of zeros agree (exit 0)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q \"^input 'a' float32\\[2,5\\] from zeros\$\" out.txt && grep -q \"^input 'b' float32\\[2,1\\] from zeros\$\" out.txt"
"$ONNXVIEW" compare dyn.onnx dyn_sub.onnx --shape a=3x4 --dim batch=3 >out.txt 2>err.txt
echo $? >rc.txt
check "compare with --shape: random inputs, the swapped op diverges (exit 1)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && grep -q \"^input 'a' float32\\[3,4\\] from random (uniform in \\[-1,1)) (no --input named it)\" out.txt && grep -q \"first divergence: #1 'mix' Add\" out.txt"
"$ONNXVIEW" compare dyn.onnx dyn_sub.onnx >out.txt 2>err.txt
echo $? >rc.txt
check "compare with open dims: exit 2, naming --shape and --dim" \
	sh -c "[ \$(cat rc.txt) = 2 ] && grep -q 'give --shape a=NxD1, or --dim batch=N --dim n=N' err.txt"
"$ONNXVIEW" compare dyn.onnx dyn_sub.onnx --dim batch=1 --dim n=2 --dim m=3 >out.txt 2>err.txt
echo $? >rc.txt
check "compare --dim for no input: exit 2" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"no input of this run has a dim named 'm'\" err.txt"
"$ONNXVIEW" compare dyn.onnx dyn.onnx --dim batch=1 --dim n=2 --json >out.txt 2>err.txt
check "compare --json: the rule and the inputs' generators" "$PYTHON" -c "
import json; d = json.load(open('out.txt'))
assert d['rule'].startswith('|got-want|') and d['scale'] == 1e-05, d
assert d['inputs'][0]['how'] == 'uniform in [-1,1)', d['inputs']
v = d['values'][0]
for k in ('pass', 'max_abs', 'max_abs_at', 'nan_a', 'nan_b', 'inf_a', 'inf_b', 'min_atol'):
    assert k in v, k
"

"$ONNXVIEW" compare "$SRCDIR/share/onnxview/examples/srcnn.onnx" --against . --tf32 >out.txt 2>err.txt
echo $? >rc.txt
check "--tf32 without a CUDA side is a usage error naming it (exit 2)" \
	sh -c "[ \$(cat rc.txt) = 2 ] && grep -q 'tf32 is for a CUDA side' err.txt"
done_testing
