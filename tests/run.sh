#!/bin/sh
# `onnxview run`: inputs from files and generators, expectations, cuts, --save, --json, and one clear line (with
# the documented exit status) for every bad input.
. "$(dirname "$0")/lib.sh"

have_python_onnx || skip_all "python3 with onnx and numpy is needed to make the test models"
scratch
cd "$TMP" || exit 1

"$PYTHON" - <<'EOF' || { echo "1..0 # SKIP could not make the test models"; exit 0; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T

def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    onnx.save(m, name + ".onnx")

vi = helper.make_tensor_value_info
W = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
# y = Relu(x) + W, z = y * x2 (a second input that a cut can leak)
save("m", [helper.make_node("Relu", ["x"], ["r"], name="relu"),
           helper.make_node("Add", ["r", "W"], ["y"], name="add"),
           helper.make_node("Mul", ["y", "x2"], ["z"], name="mul")],
     [vi("x", T.FLOAT, [2, 3]), vi("x2", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("z", T.FLOAT, [2, 3])],
     [numpy_helper.from_array(W, "W")])
x = np.array([[0.5, -1, 2], [-3, 4, 0.25]], np.float32)
x2 = np.full((2, 3), 2, np.float32)
y = np.maximum(x, 0) + W
z = y * x2
np.save("x.npy", x); np.save("x2.npy", x2); np.save("y.npy", y); np.save("z.npy", z)
np.save("r.npy", np.maximum(x, 0))
np.save("y_off.npy", y + np.float32(0.01))
np.save("x_f64.npy", x.astype(np.float64))
np.save("x_shape.npy", np.zeros((3, 2), np.float32))
with open("x.npy", "rb") as f:
    data = f.read()
with open("x_trunc.npy", "wb") as f:
    f.write(data[:-5])
import os
os.makedirs("ds", exist_ok=True)
for i, (n, a) in enumerate([("x", x), ("x2", x2)]):
    open(f"ds/input_{i}.pb", "wb").write(numpy_helper.from_array(a, n).SerializeToString())
for i, (n, a) in enumerate([("y", y), ("z", z)]):
    open(f"ds/output_{i}.pb", "wb").write(numpy_helper.from_array(a, n).SerializeToString())
os.makedirs("ds_bad", exist_ok=True)
open("ds_bad/input_0.pb", "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
open("ds_bad/input_1.pb", "wb").write(numpy_helper.from_array(x2, "x2").SerializeToString())
open("ds_bad/output_0.pb", "wb").write(numpy_helper.from_array(y, "y").SerializeToString())
open("ds_bad/output_1.pb", "wb").write(numpy_helper.from_array(z + 1, "z").SerializeToString())
# symbolic batch dim
save("sym", [helper.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, ["batch", 3])], [vi("y", T.FLOAT, ["batch", 3])])
# an op without a kernel
save("noop", [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("NoSuchOp", ["r"], ["y"], name="bad")],
     [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])])
# NaN and Inf go through Identity
save("ident", [helper.make_node("Identity", ["x"], ["y"])], [vi("x", T.FLOAT, [4])], [vi("y", T.FLOAT, [4])])
np.save("nan.npy", np.array([np.nan, np.inf, -np.inf, 1], np.float32))
np.save("nan_want.npy", np.array([np.nan, np.inf, -np.inf, 1], np.float32))
np.save("nan_bad.npy", np.array([0, np.inf, np.inf, 1], np.float32))
# int64 inputs for the generators
save("ints", [helper.make_node("Identity", ["i"], ["o"])], [vi("i", T.INT64, [5])], [vi("o", T.INT64, [5])])
# dynamic dims and several inputs: audio [batch, samples] + state [2, batch, 4] + a sample rate, as a VAD
save("dyn", [helper.make_node("ReduceMean", ["audio"], ["m"], axes=[1], keepdims=1),
             helper.make_node("Cast", ["sr"], ["srf"], to=T.FLOAT),
             helper.make_node("Mul", ["m", "srf"], ["y"]),
             helper.make_node("Add", ["state", "state"], ["s2"]),
             helper.make_node("Cast", ["num_steps"], ["o_steps"], to=T.FLOAT)],
     [vi("audio", T.FLOAT, ["batch", "samples"]), vi("state", T.FLOAT, [2, "batch", 4]), vi("sr", T.INT64, []),
      vi("num_steps", T.INT64, [1])],
     [vi("y", T.FLOAT, ["batch", 1]), vi("s2", T.FLOAT, [2, "batch", 4]), vi("o_steps", T.FLOAT, [1])])
# Paddle2ONNX's -1 and "?" dims
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "paddle", [vi("x", T.FLOAT, [-1, 3, "?", "?"])],
                      [vi("y", T.FLOAT, [-1, 3, "?", "?"])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "paddle.onnx")
save("badseed", [helper.make_node("RandomUniform", [], ["o"], shape=[3], seed=1e30)], [], [vi("o", T.FLOAT, [3])])
EOF

run() { "$ONNXVIEW" run "$@" >out.txt 2>err.txt; echo $? >rc.txt; }
rc() { cat rc.txt; }
one_line() { [ "$(wc -l <err.txt)" -eq 1 ]; }

run m.onnx --input x=x.npy --input x2=x2.npy
check "a model runs with .npy inputs (exit 0)" [ "$(rc)" = 0 ]
check "each output is printed with dtype and shape" grep -q "output 'y' float32\[2,3\]" out.txt
check "outputs come with statistics" grep -q "output 'z' float32\[2,3\]  min .* max .* mean .* std" out.txt

run m.onnx --input x=x.npy --input x2=x2.npy --expect y=y.npy --expect z=z.npy
check "--expect NAME=FILE passes (exit 0)" [ "$(rc)" = 0 ]
check "the pass is reported" grep -q "^PASS: 2 of 2" out.txt

run m.onnx --input x=x.npy --input x2=x2.npy --expect y=y_off.npy
check "a mismatch exits 1" [ "$(rc)" = 1 ]
check "a mismatch names where and how much" grep -q "FAIL against y_off.npy: 6 of 6 differ, max abs 0.01.* at \[" out.txt
check "a mismatch gives the tolerances that would pass" grep -q "would pass with --atol 0.01.* or --rtol" out.txt
run m.onnx --input x=x.npy --input x2=x2.npy --expect y=y_off.npy --atol 0.02
check "--atol loosens the check" [ "$(rc)" = 0 ]

run m.onnx --expect ds
check "--expect DIR reads the data set's inputs and outputs (exit 0)" [ "$(rc)" = 0 ]
check "both outputs of the data set are compared" grep -q "^PASS: 2 of 2" out.txt
run m.onnx --expect ds_bad
check "a data set that disagrees exits 1" [ "$(rc)" = 1 ]
check "the failing output is named" grep -q "FAIL against ds_bad/output_1.pb" out.txt
# a folder with no output_N.pb (say, .npy files saved by --save) would compare nothing: a usage error saying so
mkdir -p npy_only && cp y.npy npy_only/
run m.onnx --input x=x.npy --input x2=x2.npy --expect npy_only
check "--expect DIR without output_0.pb: exit 2, one line naming the folder and --expect NAME=FILE" \
	sh -c "[ \$(cat rc.txt) = 2 ] && [ \$(wc -l <err.txt) = 1 ] &&
	       grep -q 'expect npy_only: no output_0.pb there .*--expect NAME=FILE' err.txt"

# (the first line holds the time taken)
run m.onnx --input x=random --input x2=random:7
tail -n +2 out.txt >r1.txt
run m.onnx --input x=random --input x2=random:7
tail -n +2 out.txt >r2.txt
check "random inputs are deterministic" cmp -s r1.txt r2.txt
run m.onnx --input x=random:1 --input x2=random:7
tail -n +2 out.txt >r2.txt
check "the seed changes random inputs" sh -c '! cmp -s r1.txt r2.txt'
run m.onnx --input x=zeros --input x2=ones --expect y=y.npy
check "zeros and ones fill inputs (Relu(0)+W is W)" grep -q "output 'y' float32\[2,3\]  min -6 max 5" out.txt
run badseed.onnx
check "a random op's seed that no integer holds is refused with one line naming the node (exit 1)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(wc -l <err.txt) = 1 ] && grep -q \"#0 RandomUniform: seed 1e+30 is not a usable seed\" err.txt"
run ints.onnx --input i=random:3
check "random integer inputs are small integers" grep -qE "output 'o' int64\[5\]  min -?[0-5] max -?[0-5]" out.txt

run m.onnx --input x=x.npy --input x2=x2.npy --json
check "--json is valid JSON with the values" "$PYTHON" -c '
import json; d = json.load(open("out.txt"))
assert [v["name"] for v in d["values"]] == ["y", "z"], d
assert d["values"][0]["shape"] == [2, 3] and d["values"][0]["dtype"] == "float32"
assert d["nodes_run"] == 3 and d["pass"] is True'
run m.onnx --input x=x.npy --input x2=x2.npy --expect y=y_off.npy --json
check "--json carries the comparison" "$PYTHON" -c '
import json; d = json.load(open("out.txt"))
e = d["values"][0]["expect"]
assert e["pass"] is False and e["mismatches"] == 6 and len(e["max_abs_at"]) == 2 and e["min_atol"] > 0.009
assert d["pass"] is False'

# --repeat: the same cut again in the same process, constants kept from the first run
run m.onnx --input x=x.npy --input x2=x2.npy --repeat 4 --expect y=y.npy
check "--repeat 4 runs four times and reports the first time, the median and the minimum (exit 0)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -qE '^repeat: 4 runs: the first in [0-9.]+ ms, then median [0-9.]+ ms, min [0-9.]+ ms' out.txt"
check "--repeat says every run gave the same bits" grep -q "^repeat: every run gave the same bits$" out.txt
check "--repeat still compares the first run's values" grep -q "^PASS: 1 of 1" out.txt
run m.onnx --input x=x.npy --input x2=x2.npy --repeat 3 --json
check "--repeat in --json: runs, first/median/min times, copies and same_bits" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); r = d["repeat"]
assert r["runs"] == 3 and r["same_bits"] is True and r["differing_run"] is None, r
assert r["min_ms"] <= r["median_ms"] and r["first_ms"] == d["ms"] and r["copies"]["to_device"] == 0, r'
run m.onnx --input x=x.npy --input x2=x2.npy --repeat 1 --json
check "--repeat 1 runs once: no warm times" "$PYTHON" -c '
import json; r = json.load(open("out.txt"))["repeat"]
assert r["runs"] == 1 and r["median_ms"] is None and r["min_ms"] is None, r'
run m.onnx --input x=x.npy --input x2=x2.npy
check "without --repeat the report has no repeat line" sh -c '! grep -q "^repeat" out.txt'
# --profile: every node timed, by op and by node
run m.onnx --input x=x.npy --input x2=x2.npy --repeat 3 --profile
check "--profile ends the report with the last run's profile (exit 0)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -qE '^profile of run 3: [0-9]+ nodes?, [0-9.]+ ms on the host \(no device times' out.txt"
check "--profile has a table by op with a dash for the device times on the CPU" \
	grep -qE '^  (Add|Mul|Relu|MatMul|Sub) +[0-9]+ +[0-9.]+ +-$' out.txt
run m.onnx --input x=x.npy --input x2=x2.npy --profile --json
check "--profile in --json: every node run timed once, ops summed from them, device times null on the CPU" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); p = d["profile"]
assert p["run"] == 1 and len(p["nodes"]) == d["nodes_run"] > 0, p
assert len({n["node"] for n in p["nodes"]}) == len(p["nodes"])
assert all(n["host_ms"] >= 0 and n["device_ms"] is None for n in p["nodes"])
assert sum(o["nodes"] for o in p["ops"]) == len(p["nodes"])
for o in p["ops"]:
    assert abs(o["host_ms"] - sum(n["host_ms"] for n in p["nodes"] if n["op"] == o["op"])) < 1e-6'
run m.onnx --input x=x.npy --input x2=x2.npy
check "without --profile the report has no profile" sh -c '! grep -q "^profile" out.txt'
for bad in 0 -3 x 100001 4.5 ""; do
	run m.onnx --input x=x.npy --input x2=x2.npy --repeat "$bad"
	check "--repeat '$bad' is a usage error naming the range (exit 2)" \
		sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"run: --repeat wants a count from 1 to 100000, not '$bad'\" err.txt"
done
run m.onnx --input x=x.npy --input x2=x2.npy --repeat
check "--repeat without a count is a usage error (exit 2)" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q 'run: --repeat needs a value' err.txt"

run m.onnx --input x=x.npy --input x2=x2.npy --save saved
check "--save writes every output as NAME.npy" "$PYTHON" -c '
import numpy as np
assert np.array_equal(np.load("saved/y.npy"), np.load("y.npy")) and np.array_equal(np.load("saved/z.npy"), np.load("z.npy"))'
check "--save without --all keeps intermediates out" [ ! -e saved/r.npy ]
run m.onnx --input x=x.npy --input x2=x2.npy --all --save all
check "--all --save writes the intermediates too" "$PYTHON" -c '
import numpy as np; assert np.array_equal(np.load("all/r.npy"), np.load("r.npy"))'
check "--all lists the intermediates" grep -q "^value 'r' float32\[2,3\]" out.txt

run m.onnx --input x=x.npy --to r --expect r=r.npy
check "--to runs a cut up to an intermediate" [ "$(rc)" = 0 ]
check "--to needs only the inputs of the cut (x2 not asked for)" grep -q "ran 1 node" out.txt
run m.onnx --from r,x2 --to z --input r=r.npy --input x2=x2.npy --expect z=z.npy
check "--from starts a cut at an intermediate" [ "$(rc)" = 0 ]
run m.onnx --from r --to z --input r=r.npy
check "a cut that leaks exits 2" [ "$(rc)" = 2 ]
check "a cut that leaks names what it needs, in one line" sh -c "grep -q \"needs 'x2' (graph input)\" err.txt && [ \$(wc -l <err.txt) -eq 1 ]"

run m.onnx --input x=x_trunc.npy --input x2=x2.npy
check "a truncated .npy exits 3" [ "$(rc)" = 3 ]
check "a truncated .npy is one line naming the file" sh -c 'grep -q "x_trunc.npy" err.txt && [ $(wc -l <err.txt) -eq 1 ]'
mkfifo fifo.npy
timeout 10 "$ONNXVIEW" run m.onnx --input x=fifo.npy --input x2=x2.npy >out.txt 2>err.txt
echo $? >rc.txt
check "a FIFO as a tensor file: refused at once, exit 3 (never waits for a writer)" [ "$(cat rc.txt)" = 3 ]
check "a FIFO as a tensor file: says it is not a regular file" grep -q "fifo.npy: not a regular file" err.txt
run m.onnx --input x=x_f64.npy --input x2=x2.npy
check "a wrong dtype exits 2" [ "$(rc)" = 2 ]
check "a wrong dtype names the input, what it got and what the model declares" \
	grep -q "input 'x': x_f64.npy is float64\[2,3\], the model declares float32\[2,3\]" err.txt
run m.onnx --input x=x_shape.npy --input x2=x2.npy
check "a wrong shape exits 2 with one line" sh -c '[ $(cat rc.txt) = 2 ] && [ $(wc -l <err.txt) -eq 1 ] && grep -q "float32\[3,2\]" err.txt'
run m.onnx --input x=nofile.npy --input x2=x2.npy
check "a missing file exits 3" [ "$(rc)" = 3 ]
run m.onnx --input x=x.npy
check "a missing input exits 2 and names it" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"'x2'\" err.txt"
run m.onnx --input nosuch=x.npy --input x2=x2.npy
check "an unknown input name exits 2" [ "$(rc)" = 2 ]
run m.onnx --to nosuch --input x=x.npy
check "an unknown --to value exits 2" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"'nosuch' is not a value\" err.txt"
run sym.onnx --input x=random
check "random with a symbolic dim exits 2, asking for --shape or --dim" sh -c '[ $(cat rc.txt) = 2 ] && grep -q "give --shape x=Nx3, or --dim batch=N" err.txt'
run noop.onnx --input x=x.npy
check "an op without a kernel exits 1" [ "$(rc)" = 1 ]
check "an op without a kernel names the node" grep -q "#1 'bad' NoSuchOp: no CPU kernel for NoSuchOp (opset 13)" err.txt
check "an op without a kernel is one line" one_line
"$PYTHON" - <<'EOFD'
import onnx
from onnx import helper, TensorProto as T
for name, node, dom in [("ml-nokernel.onnx", helper.make_node("LinearRegressor", ["x"], ["y"], domain="ai.onnx.ml",
                                                                coefficients=[1.0, 2.0]), ("ai.onnx.ml", 3)),
                        ("dom-nokernel.onnx", helper.make_node("Foo", ["x"], ["y"], domain="my.dom"), ("my.dom", 1))]:
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", T.FLOAT, [1, 2])],
                          [helper.make_tensor_value_info("y", T.FLOAT, [1, 1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(*dom)])
    m.ir_version = 8
    onnx.save(m, name)
EOFD
run ml-nokernel.onnx --input ones
check "an ai.onnx.ml op without a kernel: the message lists the ml ops the CPU runs" sh -c "[ \$(cat rc.txt) = 1 ] &&
	grep -q 'no CPU kernel for LinearRegressor of domain ai.onnx.ml (of that domain the CPU runs .*TreeEnsemble' err.txt"
run dom-nokernel.onnx --input ones
check "an op of a domain the CPU knows nothing of: the message says so" sh -c "[ \$(cat rc.txt) = 1 ] &&
	grep -q 'no CPU kernel for Foo of domain my.dom (the CPU runs no op of that domain' err.txt"

run ident.onnx --input x=nan.npy --expect y=nan_want.npy
check "NaN matches NaN, Inf the same Inf" [ "$(rc)" = 0 ]
run ident.onnx --input x=nan.npy --expect y=nan_bad.npy --atol 1e9
check "NaN never passes against a number, whatever the tolerance" [ "$(rc)" = 1 ]
check "NaN counts are reported" grep -q "NaN got 1 want 0" out.txt
check "Inf counts count -Inf too" grep -q "Inf got 2 want 2" out.txt
check "statistics count NaN and Inf" grep -q "NaN 1 +Inf 1 -Inf 1" out.txt

# the first opsets' defaults: Concat-1's axis is 1; Split-1 takes its parts from its optional second input
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("Concat", ["a", "b"], ["y"])], "c1",
                      [vi("a", T.FLOAT, [2, 3]), vi("b", T.FLOAT, [2, 1])], [vi("y", T.FLOAT, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 1)]), "concat1.onnx")
g = helper.make_graph([helper.make_node("Split", ["x", "parts"], ["p", "q"], axis=0)], "s1",
                      [vi("x", T.FLOAT, [5, 2])], [vi("p", T.FLOAT, None), vi("q", T.FLOAT, None)],
                      [numpy_helper.from_array(np.array([1, 4], np.int64), "parts")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 1)]), "split1.onnx")
EOF2
run concat1.onnx --input a=random --input b=random
check "Concat-1 without an axis concatenates on axis 1" grep -q "^output 'y' float32\[2,4\]" out.txt
run split1.onnx --input x=random
check "Split-1 takes its parts from its optional input" \
	sh -c "grep -q \"^output 'p' float32\\[1,2\\]\" out.txt && grep -q \"^output 'q' float32\\[4,2\\]\" out.txt"

# --- dynamic dims: --shape, --dim, an unnamed --input random ---
run dyn.onnx --input random --dim batch=2 --dim samples=8
check "--dim sizes every dim of that name, in every input (exit 0)" [ "$(rc)" = 0 ]
check "an unnamed --input random fills every input" \
	sh -c "grep -q \"^input 'audio' float32\\[2,8\\] from random (uniform in \\[-1,1))\" out.txt &&
	       grep -q \"^input 'state' float32\\[2,2,4\\] from random\" out.txt"
check "a sample rate by its name is 16000, and the report says so" \
	grep -q "^input 'sr' int64\[\] from random (16000: a sample rate, by its name)" out.txt
check "a count by its name is in [1,10], and the report says so" \
	grep -q "^input 'num_steps' int64\[1\] from random (integers in \[1,10\]: a size or count, by its name)" out.txt
check "the outputs follow the sizes given" \
	sh -c "grep -q \"^output 'y' float32\\[2,1\\]\" out.txt && grep -q \"^output 's2' float32\\[2,2,4\\]\" out.txt"
run dyn.onnx --input random --shape audio=1x16 --shape state=2x1x4
check "--shape gives each input its whole shape (exit 0)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q \"^input 'audio' float32\\[1,16\\]\" out.txt"
run dyn.onnx --input random --dim batch=1 --shape audio=1x5 --input sr=zeros
check "a named --input wins over the unnamed one" grep -q "^input 'sr' int64\[\] from zeros" out.txt
run dyn.onnx --input random --dim batch=1
check "a dim left open: exit 2, one line naming it and the options that size it" \
	sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"input 'audio' is float32\\[batch,samples\\]: dim 1 (samples) has no size: give --shape audio=1xD1, or --dim samples=N\" err.txt" && one_line
run dyn.onnx --input random --dim batch=1 --dim samples=4 --dim btach=3
check "a --dim no input has: exit 2, named" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"no input of this run has a dim named 'btach'\" err.txt"
run dyn.onnx --input random --dim batch=1 --dim samples=4 --shape nosuch=1
check "a --shape for no input: exit 2, named" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"'nosuch' is no input of this run\" err.txt"
run dyn.onnx --input random --dim samples=4 --shape state=3x1x4
check "a --shape that contradicts a declared number: exit 2" \
	sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"dim 0 is 3, the model declares it 2\" err.txt"
run dyn.onnx --input random --dim samples=4 --shape state=2x4
check "a --shape of another rank: exit 2" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"2 dims given, the model declares 'state' with 3\" err.txt"
for bad in "audio=1xx2" "audio=" "=1x2" "audio=1x-2" "audio=1x"; do
	run dyn.onnx --input random --shape "$bad"
	check "--shape '$bad' is a usage error (exit 2)" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q -- '--shape' err.txt"
done
run dyn.onnx --input random --dim batch
check "--dim without =N is a usage error" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q 'give SYMBOL=N' err.txt"
run dyn.onnx --input x=x.npy --input random --input zeros
check "two unnamed generators: usage error" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q 'unnamed generator is given already' err.txt"
run m.onnx --input x=x.npy
check "a missing input suggests --input random for all" grep -q "or --input random for all" err.txt
run paddle.onnx --input random --shape x=1x3x4x5
check "Paddle2ONNX's -1 and '?' dims run once --shape sizes them" grep -q "^output 'y' float32\[1,3,4,5\]" out.txt
run paddle.onnx --input random
check "... and without it the error names no '?' symbol" \
	sh -c "grep -q 'dims 0, 2 and 3 have no size: give --shape x=Nx3xD2xD3\$' err.txt"

# --- the verdict ---
"$PYTHON" - <<'EOF3'
import numpy as np
# outputs near 300 and near 0 from one computation: a cancellation error of 1e-4 on the small ones
w = np.array([[300.0, 0.001, 150.0], [0.0005, 299.9, 1.0]], np.float32)
g = w + np.array([[1e-4, 1e-4, -1e-4], [1e-4, 0, 0]], np.float32)
np.save("near.npy", g); np.save("near_want.npy", w)
np.save("far.npy", w * np.float32(1.01))
EOF3
"$PYTHON" -c "
import onnx
from onnx import helper, TensorProto as T
g = helper.make_graph([helper.make_node('Identity', ['x'], ['y'])], 'i', [helper.make_tensor_value_info('x', T.FLOAT, [2, 3])],
                      [helper.make_tensor_value_info('y', T.FLOAT, [2, 3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), 'ident23.onnx')"
run ident23.onnx --input x=near.npy --expect y=near_want.npy
check "default verdict: errors of 1e-4 on values near 0 in a tensor that reaches 300 PASS" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^PASS: 1 of 1 compared value match (|got-want| <= 1e-06 + 0.001\\*|want| + 1e-05\\*max|want|, integers exact; --strict' out.txt"
run ident23.onnx --input x=near.npy --expect y=near_want.npy --strict
check "--strict: ONNX's rule fails them, and says its rule" \
	sh -c "[ \$(cat rc.txt) = 1 ] && grep -q '^FAIL: 1 of 1 compared value differ (rtol 0.001, atol 1e-07)' out.txt"
run ident23.onnx --input x=near.npy --expect y=near_want.npy --atol 1e-3
check "--atol alone is ONNX's rule with that atol" sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '(rtol 0.001, atol 0.001)' out.txt"
run ident23.onnx --input x=far.npy --expect y=near_want.npy
check "default verdict: 1% off everywhere FAILs" sh -c "[ \$(cat rc.txt) = 1 ] && grep -q '^FAIL' out.txt"
run ident23.onnx --input x=near.npy --expect y=near_want.npy --json
check "--json: the rule, and the statistics from the one writer" "$PYTHON" -c "
import json; d = json.load(open('out.txt'))
assert d['scale'] == 1e-05 and d['exact_ints'] is True and d['rule'].startswith('|got-want|'), d
e = d['values'][0]['expect']
for k in ('pass', 'n', 'mismatches', 'max_abs', 'max_abs_at', 'max_rel', 'max_rel_at', 'mean_abs', 'nan_got', 'nan_want', 'min_atol', 'min_rtol'):
    assert k in e, k
assert d['inputs'][0]['name'] == 'x' and d['inputs'][0]['source'] == 'near.npy'
"

# --- the option parser: one wording for every command ---
run m.onnx --json=yes
check "a flag given a value: usage error naming it" sh -c "[ \$(cat rc.txt) = 2 ] && grep -q \"run: --json takes no value ('--json=yes')\" err.txt"
run m.onnx --input=x=x.npy --input x2=x2.npy --backend=cpu
check "--opt=VALUE is read as --opt VALUE" [ "$(rc)" = 0 ]
run m.onnx --backend cpu --backend cpu
check "an option that does not repeat, given twice: usage error" grep -q "run: --backend is given twice ('cpu' and 'cpu')" err.txt
run m.onnx --backend tpu
check "a value outside the choices: named with the choices" grep -q "run: --backend is cpu or cuda, not 'tpu'" err.txt
run m.onnx --input
check "a missing value: named with its placeholder" grep -q "run: --input needs a value (--input \[NAME=\]SPEC)" err.txt
"$ONNXVIEW" run --help >out.txt
check "--help lists every option with its help" sh -c "grep -q '^  --shape NAME=DxD..  *the shape of an input' out.txt && grep -q '^  --strict  *ONNX' out.txt"
for cmd in info dump check dot edit ops compare; do
	"$ONNXVIEW" $cmd --frobnicate >out.txt 2>err.txt
	echo $? >rc.txt
	check "$cmd --frobnicate: the same wording (exit 2)" sh -c "[ \$(cat rc.txt) -eq 2 ] && grep -q \"^onnxview: $cmd: unknown option '--frobnicate'\\\$\" err.txt"
done

# A binary op applies the Relu or Clip after it (the runner's offer) to the same bits as the activation's own
# kernel: the fused run against --all (which keeps every value, so nothing fuses) and against numpy
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
lo, hi = numpy_helper.from_array(np.array(-0.5, np.float32), "lo"), numpy_helper.from_array(np.array(2.0, np.float32), "hi")
g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Relu", ["s"], ["r"]),
                       helper.make_node("Mul", ["a", "b"], ["p"]), helper.make_node("Clip", ["p", "lo", "hi"], ["c"])],
                      "actfuse", [vi("a", T.FLOAT, [3, 7]), vi("b", T.FLOAT, [7])],
                      [vi("r", T.FLOAT, None), vi("c", T.FLOAT, None)], [lo, hi])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "actfuse.onnx")
a = np.random.default_rng(3).standard_normal((3, 7)).astype(np.float32) * 3
a[0, :4] = [np.nan, -0.0, np.inf, -np.inf]
b = np.array([1, 0, -1, 2, -0.0, 0.5, np.nan], np.float32)
np.save("fa.npy", a); np.save("fb.npy", b)
s = a + b
np.save("fr.npy", np.where(s < 0, np.float32(0), s).astype(np.float32))
p = a * b
np.save("fc.npy", np.where(p < -0.5, np.float32(-0.5), np.where(p > 2, np.float32(2), p)).astype(np.float32))
EOF2
"$ONNXVIEW" run actfuse.onnx --input a=fa.npy --input b=fb.npy --save fused >/dev/null 2>&1
"$ONNXVIEW" run actfuse.onnx --input a=fa.npy --input b=fb.npy --all --save unfused >/dev/null 2>&1
check "Add then Relu, Mul then Clip: the fused run gives the bits of the unfused one" \
	sh -c 'cmp -s fused/r.npy unfused/r.npy && cmp -s fused/c.npy unfused/c.npy'
run actfuse.onnx --input a=fa.npy --input b=fb.npy --expect r=fr.npy --expect c=fc.npy --atol 0 --rtol 0
check "the fused Relu and Clip agree with numpy exactly (NaN, -0 and the infinities too)" [ "$(rc)" = 0 ]

# A Conv applies the SiLU after it (Sigmoid(y) and Mul of y by it: YOLO's activation) to the same bits as the two
# nodes' kernels (NaN and the infinities among the inputs): on each of the Conv paths (pointwise, 3x3 Winograd,
# strided, depthwise), with the Mul's operands either way round; a Sigmoid whose output is also read elsewhere, and
# a Conv output read by a third node, stay unfused.  Against --all (nothing fuses), and numpy.
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi, nd = helper.make_tensor_value_info, helper.make_node
rng = np.random.default_rng(7)
init, nodes, outs = [], [], []
x = rng.standard_normal((1, 32, 13, 11)).astype(np.float32) * 4
x[0, 0, 0, :4] = [np.nan, -0.0, np.inf, -np.inf]
def conv(name, m, k, s, g):
    w = rng.standard_normal((m, 32 // g, k, k)).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    init.extend([numpy_helper.from_array(w, name + "w"), numpy_helper.from_array(b, name + "b")])
    nodes.append(nd("Conv", ["x", name + "w", name + "b"], [name + "y"], kernel_shape=[k, k], strides=[s, s],
                    pads=[k // 2] * 4, group=g))
    return name + "y"
for name, m, k, s, g, order in [("pw", 24, 1, 1, 1, 0), ("wg", 32, 3, 1, 1, 1), ("st", 8, 3, 2, 1, 0),
                                ("dw", 32, 3, 1, 32, 1)]:
    y = conv(name, m, k, s, g)
    nodes.append(nd("Sigmoid", [y], [name + "s"]))
    nodes.append(nd("Mul", [y, name + "s"] if order == 0 else [name + "s", y], [name]))
    outs.append(name)
y = conv("so", 8, 1, 1, 1)  # the Sigmoid's output is a graph output too
nodes += [nd("Sigmoid", [y], ["sos"]), nd("Mul", [y, "sos"], ["so"])]
outs += ["sos", "so"]
y = conv("th", 8, 1, 1, 1)  # the Conv's output goes to a third node
nodes += [nd("Sigmoid", [y], ["ths"]), nd("Mul", [y, "ths"], ["th"]), nd("Neg", [y], ["thn"])]
outs += ["th", "thn"]
g = helper.make_graph(nodes, "silu", [vi("x", T.FLOAT, list(x.shape))], [vi(o, T.FLOAT, None) for o in outs], init)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "silu.onnx")
np.save("sx.npy", x)
EOF2
"$ONNXVIEW" run silu.onnx --input x=sx.npy --save silu_fused >/dev/null 2>&1
"$ONNXVIEW" run silu.onnx --input x=sx.npy --all --save silu_unfused >/dev/null 2>&1
"$ONNXVIEW" run silu.onnx --input x=sx.npy --profile --json >silu_prof.json 2>&1
check "the profile marks the four Sigmoid and Mul pairs fused into their Conv, and no other node" \
	"$PYTHON" -c 'import json,sys; n=json.load(open("silu_prof.json"))["profile"]["nodes"]; sys.exit([x["node"] for x in n if x["fused"]] != [1, 2, 4, 5, 7, 8, 10, 11])'
"$ONNXVIEW" run silu.onnx --input x=sx.npy --profile >silu_prof.txt 2>&1
check "the text profile counts the fused nodes" grep -q "^  8 nodes were fused into a node before them, which did their work$" silu_prof.txt
"$PYTHON" - >silu_np.txt 2>&1 <<'EOF2'
import numpy as np, onnx
from onnx import numpy_helper
# the same bits but for a NaN's sign and payload (a product of two NaNs takes either operand's, as the compiler
# orders them)
same = []
for o in ["pw", "wg", "st", "dw", "so", "sos", "th", "thn"]:
    a, b = np.load("silu_fused/%s.npy" % o), np.load("silu_unfused/%s.npy" % o)
    same.append(np.array_equal(np.isnan(a), np.isnan(b)) and
                np.array_equal(a.view(np.uint32)[~np.isnan(a)], b.view(np.uint32)[~np.isnan(b)]))
print("same:", all(same))
m = onnx.load("silu.onnx")
x = np.load("sx.npy").astype(np.float64)
w = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
def conv(n, k, s, g):
    W, B = w[n + "w"], w[n + "b"]
    p = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    H, Wd = (x.shape[2] + 2 * p - k) // s + 1, (x.shape[3] + 2 * p - k) // s + 1
    y = np.zeros((1, W.shape[0], H, Wd))
    cg, mg = 32 // g, W.shape[0] // g
    for o in range(W.shape[0]):
        c0 = (o // mg) * cg
        for i in range(k):
            for j in range(k):
                patch = xp[0, c0:c0 + cg, i:i + s * H:s, j:j + s * Wd:s]
                y[0, o] += np.tensordot(W[o, :, i, j], patch, axes=1)
        y[0, o] += B[o]
    return y
bad = []
with np.errstate(all="ignore"):
    for n, k, s, g in [("pw", 1, 1, 1), ("wg", 3, 1, 1), ("st", 3, 2, 1), ("dw", 3, 1, 32)]:
        y = conv(n, k, s, g)
        want = y / (1 + np.exp(-y))
        got = np.load("silu_fused/%s.npy" % n).astype(np.float64)
        f = np.isfinite(want)
        if not (np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(got[np.isinf(want)], want[np.isinf(want)])
                and np.allclose(got[f], want[f], rtol=1e-4, atol=1e-4)):
            bad.append(n)
print("bad:", bad)
EOF2
check "Conv then SiLU (Sigmoid and Mul) on four Conv paths: the fused run gives the bits of the unfused one" \
	grep -q "^same: True$" silu_np.txt
check "the fused SiLU agrees with numpy (float64) within 1e-4, NaN and infinities where numpy has them (Winograd's path leaves such inputs to the direct one)" \
	grep -q "^bad: \[\]$" silu_np.txt

# BatchNormalization, HardSwish, HardSigmoid, Sigmoid and Tanh overwrite their input in place when they are its last
# reader: the same bits as --all (which keeps every value, so nothing is taken); the graph input they read first is
# fed, so never overwritten, and the value a second node reads stays whole for it
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi, nd, fa = helper.make_tensor_value_info, helper.make_node, numpy_helper.from_array
rng = np.random.default_rng(11)
c = 6
init = [fa(rng.standard_normal(c).astype(np.float32), n) for n in ("s", "b", "m")]
init.append(fa(rng.random(c).astype(np.float32) + 0.5, "v"))
nodes = [nd("HardSwish", ["x"], ["h0"]), nd("BatchNormalization", ["h0", "s", "b", "m", "v"], ["bn"]),
         nd("HardSwish", ["bn"], ["hs"]), nd("HardSigmoid", ["hs"], ["hg"], alpha=0.3, beta=0.4),
         nd("Sigmoid", ["hg"], ["sg"]), nd("Tanh", ["sg"], ["th"]), nd("Neg", ["sg"], ["ng"])]
g = helper.make_graph(nodes, "inplace", [vi("x", T.FLOAT, [2, c, 7, 5])], [vi("th", T.FLOAT, None),
                      vi("ng", T.FLOAT, None), vi("x2", T.FLOAT, None)], init)
g.node.append(nd("Identity", ["x"], ["x2"]))
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)]), "inplace.onnx")
x = rng.standard_normal((2, c, 7, 5)).astype(np.float32) * 5
x[0, 0, 0, :3] = [np.nan, np.inf, -np.inf]
np.save("ix.npy", x)
EOF2
"$ONNXVIEW" run inplace.onnx --input x=ix.npy --save inplace_run >/dev/null 2>&1
"$ONNXVIEW" run inplace.onnx --input x=ix.npy --all --save inplace_all >/dev/null 2>&1
check "element-wise nodes over their input in place: the bits of a run that keeps every value" \
	sh -c 'for o in th ng x2; do cmp -s inplace_run/$o.npy inplace_all/$o.npy || exit 1; done && cmp -s inplace_run/x2.npy ix.npy'

# A Conv applies the inference BatchNormalization after it, and the Relu, Clip, HardSwish or HardSigmoid after that,
# to the same bits as those nodes' kernels (NaN and the infinities among the inputs), on several Conv paths and with
# a 1x1 output (the kernel's per-element path); a BatchNormalization whose output is read twice fuses without the
# activation, and one in training mode, one after a Conv output read elsewhere, stay unfused.  Against --all
# (nothing fuses), the profile's fused nodes, and numpy.
"$PYTHON" - <<'EOF2'
import json, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi, nd, fa = helper.make_tensor_value_info, helper.make_node, numpy_helper.from_array
rng = np.random.default_rng(5)
init, nodes, outs, fused, spec = [], [], [], [], []
x = rng.standard_normal((2, 16, 9, 7)).astype(np.float32) * 3
x[1, 2, 4, :3] = [np.nan, np.inf, -np.inf]
init += [fa(np.float32(-1.0), "lo"), fa(np.float32(2.5), "hi")]
def conv(name, m, k, s, g, pads):
    init.extend([fa(rng.standard_normal((m, 16 // g) + k).astype(np.float32), name + "w"),
                 fa(rng.standard_normal(m).astype(np.float32), name + "b")])
    nodes.append(nd("Conv", ["x", name + "w", name + "b"], [name + "y"], kernel_shape=list(k), strides=[s, s],
                    pads=pads, group=g))
    return name + "y"
def bn(name, y, m, scale=None, **attrs):
    init.extend([fa(rng.standard_normal(m).astype(np.float32), name + "s") if scale is None else None,
                 fa(rng.standard_normal(m).astype(np.float32), name + "sh"),
                 fa(rng.standard_normal(m).astype(np.float32), name + "m"),
                 fa(rng.random(m).astype(np.float32) + 0.25, name + "v")])
    while None in init:
        init.remove(None)
    nodes.append(nd("BatchNormalization", [y, scale or name + "s", name + "sh", name + "m", name + "v"],
                    [name + "n"], **attrs))
    return name + "n"
# name, channels, kernel, stride, group, pads, activation, fuses
for name, m, k, s, g, pads, act, fuses in [
        ("pw", 24, (1, 1), 1, 1, [0] * 4, "HardSwish", 2), ("st", 8, (3, 3), 2, 1, [1] * 4, "HardSigmoid", 2),
        ("dw", 16, (3, 3), 1, 16, [1] * 4, "Relu", 2), ("k3", 12, (3, 3), 1, 1, [1] * 4, "Clip", 2),
        ("one", 6, (9, 7), 1, 1, [0] * 4, None, 1), ("ep", 8, (1, 1), 1, 1, [0] * 4, None, 1)]:
    y = bn(name, conv(name, m, k, s, g, pads), m, epsilon=1e-3) if name == "ep" else bn(name, conv(name, m, k, s, g, pads), m)
    fused += [len(nodes) - 1 + i for i in range(fuses)]
    if act == "HardSigmoid":
        nodes.append(nd(act, [y], [name], alpha=0.3, beta=0.4))
    elif act == "Clip":
        nodes.append(nd(act, [y, "lo", "hi"], [name]))
    elif act:
        nodes.append(nd(act, [y], [name]))
    else:
        nodes.append(nd("Identity", [y], [name]))
    outs.append(name)
    spec.append((name, m, k, s, g, pads, act))
# read twice: the BatchNormalization fuses, the HardSwish and the Neg run
y = bn("tw", conv("tw", 8, (1, 1), 1, 1, [0] * 4), 8)
fused.append(len(nodes) - 1)
nodes += [nd("HardSwish", [y], ["tw"]), nd("Neg", [y], ["twn"])]
outs += ["tw", "twn"]
# training mode, and a Conv output read elsewhere: nothing fuses
y = bn("tr", conv("tr", 8, (1, 1), 1, 1, [0] * 4), 8, training_mode=1)
nodes.append(nd("Relu", [y], ["tr"]))
y = conv("nc", 8, (1, 1), 1, 1, [0] * 4)
nodes += [nd("Neg", [y], ["ncn"])]
nodes.append(nd("Relu", [bn("nc", y, 8)], ["nc"]))
outs += ["tr", "ncn", "nc"]
# HardSwish written out as nodes (Paddle's export): Add, Clip or Relu, Mul, Div, with the operands either way
# round; with a per-channel Add (no scalar), the BatchNormalization fuses into the Conv, and the Clip into the Add
init += [fa(np.float32(3.0), "three"), fa(np.float32(6.0), "six"), fa(np.float32(5.0), "five"),
         fa(np.full((1, 8, 1, 1), 3.0, np.float32), "threes")]
for name, act, swap, fuses in [("hn", "Clip", False, 5), ("hr", "Relu", True, 5), ("hx", "Clip", False, 1)]:
    y = bn(name, conv(name, 8, (3, 3), 1, 1, [1] * 4), 8)
    fused += [len(nodes) - 1 + i for i in range(fuses)] + ([len(nodes) + 1] if name == "hx" else [])
    c = "threes" if name == "hx" else "three"
    nodes.append(nd("Add", [c, y] if swap else [y, c], [name + "ad"]))
    nodes.append(nd("Clip", [name + "ad", "lo", "six"], [name + "cl"]) if act == "Clip" else
                 nd("Relu", [name + "ad"], [name + "cl"]))
    nodes.append(nd("Mul", [name + "cl", y] if swap else [y, name + "cl"], [name + "mu"]))
    nodes.append(nd("Div", [name + "mu", "five" if swap else "six"], [name]))
    outs.append(name)
    spec.append((name, 8, (3, 3), 1, 1, [1] * 4, "nodes-" + act))
# the scale fed as a graph input
y = bn("fd", conv("fd", 8, (3, 3), 1, 1, [1] * 4), 8, scale="fs")
fused.append(len(nodes) - 1)
nodes.append(nd("Identity", [y], ["fd"]))
outs.append("fd")
g = helper.make_graph(nodes, "bnfuse", [vi("x", T.FLOAT, list(x.shape)), vi("fs", T.FLOAT, [8])],
                      [vi(o, T.FLOAT, None) for o in outs], init)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)]), "bnfuse.onnx")
np.save("bx.npy", x)
np.save("bfs.npy", rng.standard_normal(8).astype(np.float32))
json.dump({"fused": fused, "outs": outs, "spec": spec}, open("bnfuse.json", "w"))
EOF2
"$ONNXVIEW" run bnfuse.onnx --input x=bx.npy --input fs=bfs.npy --save bn_fused >/dev/null 2>&1
"$ONNXVIEW" run bnfuse.onnx --input x=bx.npy --input fs=bfs.npy --all --save bn_unfused >/dev/null 2>&1
"$ONNXVIEW" run bnfuse.onnx --input x=bx.npy --input fs=bfs.npy --profile --json >bn_prof.json 2>&1
check "the profile marks the BatchNormalizations (and their activations) fused into their Conv, and no other node" \
	"$PYTHON" -c 'import json,sys; n=json.load(open("bn_prof.json"))["profile"]["nodes"]; sys.exit([x["node"] for x in n if x["fused"]] != json.load(open("bnfuse.json"))["fused"])'
"$PYTHON" - >bn_np.txt 2>&1 <<'EOF2'
import json, numpy as np, onnx
from onnx import numpy_helper
spec = json.load(open("bnfuse.json"))
same = []
for o in spec["outs"]:
    a, b = np.load("bn_fused/%s.npy" % o), np.load("bn_unfused/%s.npy" % o)
    same.append(a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and
                np.array_equal(a.view(np.uint32)[~np.isnan(a)], b.view(np.uint32)[~np.isnan(b)]))
print("same:", all(same))
m = onnx.load("bnfuse.onnx")
x = np.load("bx.npy").astype(np.float64)
w = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
def conv(n, k, s, g, pads):
    W, B = w[n + "w"], w[n + "b"]
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    H, Wd = (xp.shape[2] - k[0]) // s + 1, (xp.shape[3] - k[1]) // s + 1
    y = np.zeros((2, W.shape[0], H, Wd))
    cg, mg = 16 // g, W.shape[0] // g
    for o in range(W.shape[0]):
        c0 = (o // mg) * cg
        for i in range(k[0]):
            for j in range(k[1]):
                patch = xp[:, c0:c0 + cg, i:i + s * H:s, j:j + s * Wd:s]
                y[:, o] += np.einsum("c,nchw->nhw", W[o, :, i, j], patch)
        y[:, o] += B[o]
    return y
bad = []
with np.errstate(all="ignore"):
    for n, mch, k, s, g, pads, act in spec["spec"]:
        eps = 1e-3 if n == "ep" else 1e-5
        r = lambda v: v.reshape(1, -1, 1, 1)
        y = (conv(n, k, s, g, pads) - r(w[n + "m"])) / np.sqrt(r(w[n + "v"]) + eps) * r(w[n + "s"]) + r(w[n + "sh"])
        if act == "HardSwish":
            y = y * np.clip(y / 6 + 0.5, 0, 1)
        elif act == "HardSigmoid":
            y = np.where(np.isnan(y), y, np.clip(0.3 * y + 0.4, 0, 1))
        elif act == "Relu":
            y = np.where(y < 0, 0, y)
        elif act == "Clip":
            y = np.where(y < -1, -1, np.where(y > 2.5, 2.5, y))
        elif act == "nodes-Clip":
            t = y + 3
            y = y * np.where(t < -1, -1, np.where(t > 6, 6, t)) / 6
        elif act == "nodes-Relu":
            t = y + 3
            y = y * np.where(t < 0, 0, t) / 5
        got = np.load("bn_fused/%s.npy" % n).astype(np.float64)
        f = np.isfinite(y)
        if not (got.shape == y.shape and np.array_equal(np.isnan(got), np.isnan(y)) and
                np.array_equal(got[np.isinf(y)], y[np.isinf(y)]) and np.allclose(got[f], y[f], rtol=1e-4, atol=1e-4)):
            bad.append(n)
print("bad:", bad)
EOF2
check "Conv then BatchNormalization (and Relu, Clip, HardSwish, HardSigmoid, HardSwish as nodes): the fused run gives the bits of the unfused one" \
	grep -q "^same: True$" bn_np.txt
check "the fused BatchNormalization and activations agree with numpy (float64) within 1e-4, NaN and infinities where numpy has them" \
	grep -q "^bad: \[\]$" bn_np.txt

# one thread while it computes: a vector times a matrix goes through CBLAS (GEMV), which the first product loads
# (src/exec/cpu/cblas.c) after cli/main.c set OPENBLAS_NUM_THREADS to 1 (else OpenBLAS starts a worker a core past
# the first); sampled from 0.3 s on (start-up is a few ms), for as long as the run lasts (about a second)
"$PYTHON" - <<'EOF2'
import onnx
from onnx import helper, TensorProto as T
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "mv",
                      [helper.make_tensor_value_info("x", T.FLOAT, [1, 2048]),
                       helper.make_tensor_value_info("w", T.FLOAT, [2048, 2048])],
                      [helper.make_tensor_value_info("y", T.FLOAT, [1, 2048])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "mv.onnx")
EOF2
(unset OPENBLAS_NUM_THREADS OMP_NUM_THREADS; exec "$ONNXVIEW" run mv.onnx --input x=random --input w=random \
	--repeat 3000 >/dev/null 2>&1) &
spin=$!
sleep 0.3
threads=0 samples=0
while [ -d "/proc/$spin/task" ] && [ $samples -lt 20 ]; do
	t=$(ls "/proc/$spin/task" 2>/dev/null | wc -l)
	[ "$t" -gt "$threads" ] && threads=$t
	samples=$((samples + 1))
	sleep 0.05
done
kill "$spin" 2>/dev/null
wait "$spin" 2>/dev/null
if [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ]; then
	skip "run computes in one thread (one core here: OpenBLAS would start no workers)"
else
	check "run computes in one thread, OPENBLAS_NUM_THREADS unset ($threads at most, in $samples samples)" \
		[ "$threads" = 1 -a "$samples" -ge 3 ]
fi

# without a CBLAS library (OV_CBLAS naming one that is not there): --version says so, and the products CBLAS takes
# (two inputs, no constant: a matrix product and a vector times a matrix) run through the plain loop, right
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["p"]), helper.make_node("MatMul", ["v", "b"], ["q"])],
                      "nb", [vi("a", T.FLOAT, [70, 300]), vi("b", T.FLOAT, [300, 260]), vi("v", T.FLOAT, [1, 300])],
                      [vi("p", T.FLOAT, [70, 260]), vi("q", T.FLOAT, [1, 260])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "nb.onnx")
r = np.random.default_rng(5)
a, b, v = (r.standard_normal(s).astype(np.float32) for s in ((70, 300), (300, 260), (1, 300)))
for n, x in (("a", a), ("b", b), ("v", v)):
    np.save(n + ".npy", x)
np.save("p.npy", (a.astype(np.float64) @ b).astype(np.float32))
np.save("q.npy", (v.astype(np.float64) @ b).astype(np.float32))
EOF2
OV_CBLAS=/nonexistent/libcblas.so "$ONNXVIEW" --version >ver.txt 2>&1
check "OV_CBLAS naming no library: --version says none was found, and which name it tried" \
	grep -q '^CBLAS: none found (tried /nonexistent/libcblas.so): products .* plain loop' ver.txt
OV_CBLAS="$(printf '/x\033[31m')" "$ONNXVIEW" --version >ver.txt 2>&1
check "the name it tried is shown with its escape byte escaped" \
	sh -c 'grep -q "tried /x\\\\x1b\[31m)" ver.txt && ! grep -q "$(printf "\033")" ver.txt'
OV_CBLAS=/nonexistent/libcblas.so "$ONNXVIEW" run nb.onnx --input a=a.npy --input b=b.npy --input v=v.npy \
	--expect p=p.npy --expect q=q.npy --rtol 1e-5 --atol 1e-5 >out.txt 2>&1
check "without CBLAS, a matrix product and a vector times a matrix of inputs agree with numpy (the plain loop)" \
	grep -q '^PASS: 2 of 2' out.txt
"$ONNXVIEW" --version >ver.txt 2>&1
check "--version names the CBLAS library it loads" grep -q '^CBLAS: lib.*\.so' ver.txt

# CBLAS is opened by the first product that needs it, not by every run (2 to 4 ms of a process): the node that
# opened it says so, and the time is taken out of the run's; a run whose products the own kernels take (a Gemm of
# constant weights, convolutions) never opens it
"$ONNXVIEW" run nb.onnx --input a=a.npy --input b=b.npy --input v=v.npy --json >cb.json 2>&1
check "a product of two inputs opens CBLAS once, and its node's note says so with the time it took" \
	"$PYTHON" -c 'import json,sys; n=json.load(open("cb.json"))["notes"]; sys.exit(not (len(n) == 1 and n[0]["node"] == 0 and
		n[0]["text"].startswith("opened the CBLAS library lib") and "ms, not counted in the times" in n[0]["text"]))'
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(6)
g = helper.make_graph([helper.make_node("Gemm", ["x", "w", "c"], ["g"], transB=1), helper.make_node("Relu", ["g"], ["y"]),
                       helper.make_node("Conv", ["i", "k"], ["z"], pads=[1, 1, 1, 1])], "own",
                      [helper.make_tensor_value_info("x", T.FLOAT, [5, 64]),
                       helper.make_tensor_value_info("i", T.FLOAT, [1, 8, 12, 12])],
                      [helper.make_tensor_value_info("y", T.FLOAT, [5, 32]), helper.make_tensor_value_info("z", T.FLOAT, None)],
                      [numpy_helper.from_array(r.standard_normal((32, 64)).astype(np.float32), "w"),
                       numpy_helper.from_array(r.standard_normal(32).astype(np.float32), "c"),
                       numpy_helper.from_array(r.standard_normal((16, 8, 3, 3)).astype(np.float32), "k")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "own.onnx")
EOF2
LD_DEBUG=files "$ONNXVIEW" run own.onnx --input random >own.txt 2>&1
check "a run whose products the own kernels take opens no CBLAS library, and notes none" \
	sh -c 'grep -q "^ran 3 nodes" own.txt && ! grep -q "file=lib.*blas" own.txt && ! grep -q "CBLAS" own.txt'

run m.onnx --bogus
check "an unknown option exits 2" [ "$(rc)" = 2 ]
run m.onnx --rtol abc
check "a bad tolerance exits 2" [ "$(rc)" = 2 ]
run m.onnx --input x=x.npy --input x2=x2.npy --backend cuda
check "--backend cuda without the CUDA backend fails with a reason" sh -c '[ $(cat rc.txt) != 0 ] && grep -q CUDA err.txt'
run
check "no model exits 2" [ "$(rc)" = 2 ]

done_testing
