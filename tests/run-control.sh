#!/bin/sh
# Control flow in the executor: If (both branches, values captured from the graph around it, an If nested in a
# Loop body capturing from two levels up), Loop (trip count, a condition the body computes, loop-carried values,
# scan outputs stacked, zero iterations), Scan (axes, reversed directions, opset 8's batch form); values checked
# against numpy; malformed nodes get one line each.
. "$(dirname "$0")/lib.sh"

have_python_onnx || skip_all "python3 with onnx and numpy is needed to make the test models"
scratch
cd "$TMP" || exit 1

"$PYTHON" - <<'EOF' || { echo "1..0 # SKIP could not make the test models"; exit 0; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), name + ".onnx")

w = numpy_helper.from_array(np.array([10, 20, 30], np.float32), "w")
then_g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["t"])], "then", [], [vi("t", T.FLOAT, [3])])
else_g = helper.make_graph([helper.make_node("Sub", ["x", "w"], ["e"])], "else", [], [vi("e", T.FLOAT, [3])])
save("if", [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
     [vi("c", T.BOOL, []), vi("x", T.FLOAT, [3])], [vi("y", T.FLOAT, [3])], [w])

# Loop: M = 5, stop when i == 3 (the body says cond = i < 3), carried s += x * i, scan output i
body = helper.make_graph([
    helper.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
    helper.make_node("Mul", ["x", "fi"], ["xi"]),
    helper.make_node("Add", ["s_in", "xi"], ["s_out"]),
    helper.make_node("Less", ["i", "three"], ["c_out"]),
    helper.make_node("Identity", ["i"], ["i_scan"]),
    # a nested If that reads w from the main graph, two levels up
    helper.make_node("If", ["c_out"], ["nested"], then_branch=helper.make_graph(
        [helper.make_node("Identity", ["w"], ["wt"])], "nt", [], [vi("wt", T.FLOAT, [3])]),
        else_branch=helper.make_graph([helper.make_node("Neg", ["w"], ["wn"])], "ne", [], [vi("wn", T.FLOAT, [3])])),
], "body", [vi("i", T.INT64, []), vi("c_in", T.BOOL, []), vi("s_in", T.FLOAT, [3])],
   [vi("c_out", T.BOOL, []), vi("s_out", T.FLOAT, [3]), vi("i_scan", T.INT64, []), vi("nested", T.FLOAT, [3])],
   [numpy_helper.from_array(np.array(3, np.int64), "three")])
save("loop", [helper.make_node("Loop", ["M", "", "s0"], ["s", "is", "ws"], body=body)],
     [vi("M", T.INT64, []), vi("s0", T.FLOAT, [3]), vi("x", T.FLOAT, [3])],
     [vi("s", T.FLOAT, [3]), vi("is", T.INT64, [None]), vi("ws", T.FLOAT, [None, 3])], [w])

# Scan (opset 11): running sum over axis 1 of x [2,4], reversed; the scan output stacked along axis 1
sbody = helper.make_graph([helper.make_node("Add", ["acc", "col"], ["acc2"]),
                           helper.make_node("Identity", ["acc2"], ["out"])], "sbody",
                          [vi("acc", T.FLOAT, [2]), vi("col", T.FLOAT, [2])], [vi("acc2", T.FLOAT, [2]), vi("out", T.FLOAT, [2])])
save("scan", [helper.make_node("Scan", ["a0", "x"], ["a", "ys"], body=sbody, num_scan_inputs=1,
                               scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])],
     [vi("a0", T.FLOAT, [2]), vi("x", T.FLOAT, [2, 4])], [vi("a", T.FLOAT, [2]), vi("ys", T.FLOAT, [2, 4])], opset=11)
# a Scan whose scan input is a scalar: nothing to scan along
save("scan_bad", [helper.make_node("Scan", ["a0", "x"], ["a", "ys"], body=sbody, num_scan_inputs=1)],
     [vi("a0", T.FLOAT, [2]), vi("x", T.FLOAT, [])], [vi("a", T.FLOAT, [2]), vi("ys", T.FLOAT, None)], opset=11)

np.save("x3.npy", np.array([1, 2, 3], np.float32))
np.save("true.npy", np.array(True)); np.save("false.npy", np.array(False))
np.save("cond2.npy", np.array([True, False]))
np.save("m5.npy", np.array(5, np.int64)); np.save("m0.npy", np.array(0, np.int64))
np.save("s0.npy", np.zeros(3, np.float32))
x = np.arange(8, dtype=np.float32).reshape(2, 4)
np.save("x24.npy", x); np.save("a0.npy", np.zeros(2, np.float32))
# expected values
np.save("if_true.npy", np.array([11, 22, 33], np.float32)); np.save("if_false.npy", np.array([-9, -18, -27], np.float32))
# i = 0..3 run (cond after i=3 is False): s = x*(0+1+2+3)
np.save("loop_s.npy", np.array([6, 12, 18], np.float32)); np.save("loop_is.npy", np.arange(4, dtype=np.int64))
np.save("loop_ws.npy", np.array([[10, 20, 30]] * 3 + [[-10, -20, -30]], np.float32))
acc, outs = np.zeros(2, np.float32), []
for t in reversed(range(4)):
    acc = acc + x[:, t]; outs.append(acc)
np.save("scan_a.npy", acc); np.save("scan_ys.npy", np.stack(outs, axis=1))
EOF

r() { "$ONNXVIEW" run "$@" >out.txt 2>err.txt; echo $? >rc.txt; }
r if.onnx --input c=true.npy --input x=x3.npy --expect y=if_true.npy
check "If, condition true: the then branch, reading w from the graph around it" [ "$(cat rc.txt)" = 0 ]
r if.onnx --input c=false.npy --input x=x3.npy --expect y=if_false.npy
check "If, condition false: the else branch" [ "$(cat rc.txt)" = 0 ]
r if.onnx --input c=cond2.npy --input x=x3.npy
check "If with a condition of two elements: exit 2, one line" sh -c '[ "$(cat rc.txt)" -ne 0 ] && [ $(wc -l <err.txt) -eq 1 ]'
r loop.onnx --input M=m5.npy --input s0=s0.npy --input x=x3.npy --expect s=loop_s.npy --expect is=loop_is.npy --expect ws=loop_ws.npy
check "Loop: stops when the body's condition turns false, carried sum and scan outputs" [ "$(cat rc.txt)" = 0 ]
check "Loop: a nested If reads w from two levels up" grep -q "PASS: 3 of 3" out.txt
r loop.onnx --input M=m0.npy --input s0=s0.npy --input x=x3.npy --expect s=s0.npy
check "Loop with M = 0: the initial values, no iteration" [ "$(cat rc.txt)" = 0 ]
check "Loop with M = 0: empty scan outputs" grep -q "^output 'is' int64\[0\]" out.txt
r scan.onnx --input a0=a0.npy --input x=x24.npy --expect a=scan_a.npy --expect ys=scan_ys.npy
check "Scan along axis 1, reversed, stacked along axis 1" [ "$(cat rc.txt)" = 0 ]
r scan_bad.onnx --input a0=a0.npy --input x=random
check "Scan of a scalar: one line saying why" sh -c '[ "$(cat rc.txt)" -ne 0 ] && grep -q "nothing to scan along" err.txt && [ $(wc -l <err.txt) -eq 1 ]'
r loop.onnx --input M=m5.npy --input s0=s0.npy --input x=x3.npy --all
check "--all keeps the main graph's values of a model with a Loop" grep -q "^output 'ws' float32\[4,3\]" out.txt
done_testing
