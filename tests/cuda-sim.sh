#!/bin/sh
# The CUDA backend on the host simulator (tests/onnxview-cudasim, src/exec/cuda/sim/sim.h), for machines without a
# GPU: the same backend files compiled for the host, with the CUDA runtime, cuBLAS and cuDNN simulated.
# - tests/cuda.sh's device checks, run on the simulator: every op model against the CPU, notes, --tf32,
#   fallbacks, and the conformance list on the CUDA backend;
# - values stay on the device between nodes: the simulator counts the copies, and a chain of CUDA nodes copies
#   each input and constant up once and only the output down; a node left to the CPU costs one copy each way;
# - device errors end the run with one line naming the node (a kernel fault, device memory exhausted, a
#   pointer the device cannot read), and the CPU still runs; the CUDA tests with a GPU are tests/cuda.sh.
. "$(dirname "$0")/lib.sh"

SIM=$BUILDDIR/tests/onnxview-cudasim
[ -x "$SIM" ] || skip_all "no simulator at $SIM (onnxview was built without CUDA)"
have_python_onnx || skip_all "python3 with onnx and numpy is needed to make the models"
scratch
SRCNN=$SRCDIR/share/onnxview/examples/srcnn.onnx

"$SIM" --version >"$TMP/version.txt" 2>&1
check "the simulator names itself as the device" grep -q "device 0: onnxview CUDA simulator (host)" "$TMP/version.txt"

# ---- tests/cuda.sh on the simulator ----
if ONNXVIEW=$SIM GPU_SUITE=$BUILDDIR/tests/gpu-suite-sim sh "$SRCDIR/tests/cuda.sh" >"$TMP/cuda.txt" 2>&1; then
	ok "tests/cuda.sh's device checks pass on the simulator ($(grep -c '^ok' "$TMP/cuda.txt") checks)"
else
	not_ok "tests/cuda.sh's device checks pass on the simulator"
	grep -v '^ok' "$TMP/cuda.txt" | sed 's/^/# /' | head -60
fi

cd "$TMP" || exit 1
run() { "$SIM" run "$@" >out.txt 2>err.txt; echo $? >rc.txt; }
rc() { cat rc.txt; }
stat_of() { sed -n "s/^cudasim: .*$1 \([0-9]*\) copies \([0-9]*\) bytes.*/\1 \2/p" err.txt; }

# ---- values stay on the device ----
"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
rng = np.random.default_rng(3)
w = lambda *s: numpy_helper.from_array(rng.uniform(-0.5, 0.5, s).astype(np.float32), "w%d" % len(inits))
inits = []
nodes, x = [], "x"
for i in range(4):  # Conv -> Relu -> Conv -> Add(bias) -> ... all on CUDA
    inits.append(w(4, 4 if i else 3, 3, 3))
    nodes.append(helper.make_node("Conv", [x, inits[-1].name], ["c%d" % i], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Relu", ["c%d" % i], ["r%d" % i]))
    x = "r%d" % i
nodes.append(helper.make_node("Add", [x, "r0"], ["y"]))
g = helper.make_graph(nodes, "chain", [vi("x", T.FLOAT, [1, 3, 8, 8])], [vi("y", T.FLOAT, [1, 4, 8, 8])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "chain.onnx")
# the same with an Einsum in the middle (here a copy), which CUDA leaves to the CPU
nodes2 = nodes[:4] + [helper.make_node("Einsum", ["r1"], ["f"], equation="abcd->abcd"),
                      helper.make_node("Add", ["f", "r0"], ["y"])]
g = helper.make_graph(nodes2, "mixed", [vi("x", T.FLOAT, [1, 3, 8, 8])], [vi("y", T.FLOAT, [1, 4, 8, 8])],
                      inits[:2])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "mixed.onnx")
EOF
"$SIM" run chain.onnx --input random --save cpu_chain >/dev/null 2>&1
OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda --expect y=cpu_chain/y.npy --rtol 1e-4 --atol 1e-5
check "a chain of Conv, Relu and Add matches the CPU on the simulator" [ "$(rc)" = 0 ]
check "no node of it falls back" sh -c "! grep -q 'on the CPU' out.txt"
check "its input and 4 weights go up once each (5 copies of 768 + 432 + 3 x 576 bytes)" \
	[ "$(stat_of H2D)" = "5 2928" ]
check "and only its output comes down (1 copy of 1 x 4 x 8 x 8 floats)" [ "$(stat_of D2H)" = "1 1024" ]
diag "$(grep '^cudasim:' err.txt)"
check "the device memory is all given back at exit" grep -q ", 0 bytes still allocated" err.txt
check "the run's report counts the same copies as the simulator" \
	grep -q '^copies: 5 to the device (2928 bytes), 1 to the host (1024 bytes)$' out.txt
OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda --all --save all_cuda
check "--all brings every value down once (9 copies)" [ "$(rc) $(stat_of D2H | cut -d' ' -f1)" = "0 9" ]
# a residual block: Conv (bias) -> Add(x) -> Relu -> 1x1 Conv (bias, cuBLAS) -> Clip; the Add, the Relu and the Clip
# are taken into the convolutions' epilogue, to the bits of the separate kernels (--all fuses nothing)
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
rng = np.random.default_rng(5)
a = lambda n, *s: numpy_helper.from_array(rng.uniform(-0.5, 0.5, s).astype(np.float32), n)
nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]),
         helper.make_node("Add", ["c0", "x"], ["s"]),
         helper.make_node("Relu", ["s"], ["r"]),
         helper.make_node("Conv", ["r", "w1", "b1"], ["c1"]),
         helper.make_node("Clip", ["c1", "lo", "hi"], ["y"])]
inits = [a("w0", 6, 6, 3, 3), a("b0", 6), a("w1", 5, 6, 1, 1), a("b1", 5),
         numpy_helper.from_array(np.array(0, np.float32), "lo"), numpy_helper.from_array(np.array(0.3, np.float32), "hi")]
g = helper.make_graph(nodes, "resid", [vi("x", T.FLOAT, [2, 6, 7, 9])], [vi("y", T.FLOAT, [2, 5, 7, 9])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "resid.onnx")
# Linear layers: MatMul + Add(bias over the last axis) + Relu; MatMul + Add(a value of its shape); Gemm + Clip
nodes = [helper.make_node("MatMul", ["x", "w0"], ["m0"]), helper.make_node("Add", ["m0", "b0"], ["a0"]),
         helper.make_node("Relu", ["a0"], ["r0"]), helper.make_node("MatMul", ["r0", "w1"], ["m1"]),
         helper.make_node("Add", ["x", "m1"], ["y"]), helper.make_node("Reshape", ["y", "s2"], ["y2"]),
         helper.make_node("Gemm", ["y2", "w2"], ["g"], transB=1), helper.make_node("Clip", ["g", "lo", "hi"], ["z"])]
inits = [a("w0", 8, 5), a("b0", 5), a("w1", 5, 8), a("w2", 3, 8), numpy_helper.from_array(np.array([6, 8], np.int64), "s2"),
         numpy_helper.from_array(np.array(-0.1, np.float32), "lo"), numpy_helper.from_array(np.array(0.2, np.float32), "hi")]
g = helper.make_graph(nodes, "lin", [vi("x", T.FLOAT, [2, 3, 8])], [vi("z", T.FLOAT, [6, 3])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "lin.onnx")
EOF2
"$SIM" run resid.onnx --input random --save cpu_resid >/dev/null 2>&1
OV_CUDA_CONV_BLAS=1 run resid.onnx --input random --backend cuda --save fused_resid --expect y=cpu_resid/y.npy \
	--rtol 1e-4 --atol 1e-5
check "a residual block as cuBLAS products (OV_CUDA_CONV_BLAS=1) matches the CPU on the simulator" [ "$(rc)" = 0 ]
check "the 3x3 convolution through im2col, the 1x1 straight, both cuBLAS products" sh -c \
	"grep -q '^note: #3 Conv: a 1x1 convolution as a cuBLAS product (full float32), OV_CUDA_CONV_BLAS=1' out.txt &&
	 grep -q '^note: #0 Conv: im2col as a cuBLAS product (full float32), OV_CUDA_CONV_BLAS=1' out.txt"
OV_CUDA_CONV_BLAS=1 run resid.onnx --input random --backend cuda --all --save all_resid
check "the Add, Relu and Clip taken into the convolutions give the bits of the kernels run apart (--all)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && cmp fused_resid/y.npy all_resid/y.npy"
OV_CUDA_CONV_BLAS=2 run resid.onnx --input random --backend cuda --save merged_resid --expect y=cpu_resid/y.npy \
	--rtol 1e-4 --atol 1e-5
check "the images of the batch side by side in one product each (OV_CUDA_CONV_BLAS=2): the CPU's values" sh -c \
	"[ \$(cat rc.txt) = 0 ] && grep -q '^note: #0 Conv: im2col, the images side by side, as a cuBLAS product' out.txt &&
	 grep -q '^note: #3 Conv: a 1x1 convolution, the images side by side, as a cuBLAS product' out.txt"
OV_CUDA_CONV_BLAS=2 run resid.onnx --input random --backend cuda --all --save merged_all_resid
check "and put back in order with the epilogue, the bits of the kernels run apart (--all)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && cmp merged_resid/y.npy merged_all_resid/y.npy"
run resid.onnx --input random --backend cuda --profile --json
check "and the fused nodes take no time of their own: 2 kernels' worth of nodes" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); ops = [n["op"] for n in d["profile"]["nodes"] if n["host_ms"] > 0.05]
assert sorted(set(ops)) <= ["Conv"], d["profile"]["nodes"]'
run resid.onnx --input random --backend cuda --repeat 2 --expect y=cpu_resid/y.npy --rtol 1e-4 --atol 1e-5
check "repeated, timed (cuDNN's Find against cuBLAS and the direct kernel; on the simulator any may win), each Conv's note says which won" "$PYTHON" -c '
import re; notes = [l.rstrip() for l in open("out.txt") if re.match(r"note: #[03] Conv: ", l)]
assert len(notes) == 2, notes
for t in notes:
    m = re.search(r"cuBLAS product \(full float32\), ([0-9.]+) ms against cuDNN.s [A-Z_]+ ([0-9.]+) ms, timed", t)
    d = re.search(r"the direct kernel \(full float32\), ([0-9.]+) ms against cuDNN.s [A-Z_]+ ([0-9.]+) ms", t)
    assert ((m and float(m.group(1)) < float(m.group(2)) and t.endswith(", timed (direct kernel slower)")) or
            (d and float(d.group(1)) < float(d.group(2))) or t.endswith("(cuBLAS, direct kernel slower)")), t'
check "and matches the CPU" [ "$(rc)" = 0 ]
"$SIM" run lin.onnx --input random --save cpu_lin >/dev/null 2>&1
run lin.onnx --input random --backend cuda --save fused_lin --expect z=cpu_lin/z.npy --rtol 1e-4 --atol 1e-5
check "Linear layers (MatMul + bias + Relu, MatMul + residual, Gemm + Clip) match the CPU on the simulator" [ "$(rc)" = 0 ]
run lin.onnx --input random --backend cuda --all --save all_lin --profile --json
check "their Adds, Relu and Clip taken into the products give the bits of the kernels run apart (--all)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && cmp fused_lin/z.npy all_lin/z.npy"
run lin.onnx --input random --backend cuda --profile --json
check "fused, only the products and the Reshape run kernels of their own" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); ops = {n["op"] for n in d["profile"]["nodes"] if n["host_ms"] > 0.05}
assert ops <= {"MatMul", "Gemm", "Reshape"}, d["profile"]["nodes"]'
# a SiLU (Sigmoid, then a Mul of the Conv's output by it, either order) taken into the convolution's epilogue: the
# CPU's values (its NaN where the CPU has one), and the bits of the kernels run apart (--all) but for a NaN's sign
"$PYTHON" - <<'EOF2'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi, nd = helper.make_tensor_value_info, helper.make_node
rng = np.random.default_rng(9)
a = lambda n, *s: numpy_helper.from_array(rng.uniform(-2, 2, s).astype(np.float32), n)
nodes = [nd("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), nd("Sigmoid", ["c0"], ["s0"]),
         nd("Mul", ["c0", "s0"], ["y0"]), nd("Conv", ["y0", "w1", "b1"], ["c1"]), nd("Sigmoid", ["c1"], ["s1"]),
         nd("Mul", ["s1", "c1"], ["y"])]
g = helper.make_graph(nodes, "silu", [vi("x", T.FLOAT, [2, 6, 7, 9])], [vi("y", T.FLOAT, None)],
                      [a("w0", 8, 6, 3, 3), a("b0", 8), a("w1", 5, 8, 1, 1), a("b1", 5)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "silu.onnx")
x = rng.standard_normal((2, 6, 7, 9)).astype(np.float32) * 3
x[0, 0, 3, 4] = np.nan
np.save("silu_x.npy", x)
EOF2
"$SIM" run silu.onnx --input x=silu_x.npy --save cpu_silu >/dev/null 2>&1
run silu.onnx --input x=silu_x.npy --backend cuda --save cuda_silu --profile --json
cp out.txt silu_prof.json
run silu.onnx --input x=silu_x.npy --backend cuda --all --save all_silu
for v in 1 2; do # the cuBLAS products' epilogue, and the one that puts the images side by side back in order
	OV_CUDA_CONV_BLAS=$v "$SIM" run silu.onnx --input x=silu_x.npy --backend cuda --save blas${v}_silu >/dev/null 2>&1
	OV_CUDA_CONV_BLAS=$v "$SIM" run silu.onnx --input x=silu_x.npy --backend cuda --all --save blas${v}_all >/dev/null 2>&1
done
check "a SiLU taken into the convolutions' epilogue (own kernels, cuBLAS products): the CPU's values, and the bits of the kernels run apart (--all)" \
	"$PYTHON" -c '
import json, numpy as np
same = lambda a, b: np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a[~np.isnan(a)].view(np.uint32), b[~np.isnan(b)].view(np.uint32))
c, d, e = (np.load(p + "/y.npy") for p in ("cpu_silu", "cuda_silu", "all_silu"))
f = ~np.isnan(c)
assert np.isnan(d).any() and np.array_equal(np.isnan(c), np.isnan(d)) and np.allclose(c[f], d[f], rtol=1e-4, atol=1e-5)
assert same(d, e)
for v in "12":
    b, ba = np.load("blas%s_silu/y.npy" % v), np.load("blas%s_all/y.npy" % v)
    assert same(b, ba) and np.allclose(b[f], c[f], rtol=1e-4, atol=1e-5), v
n = json.load(open("silu_prof.json"))["profile"]["nodes"]
assert [x["node"] for x in n if x["fused"]] == [1, 2, 4, 5], n'

OV_CUDA_CONV_BLAS=0 run resid.onnx --input random --backend cuda --expect y=cpu_resid/y.npy --rtol 1e-4 --atol 1e-5
check "OV_CUDA_CONV_BLAS=0: cuDNN alone, neither cuBLAS nor the direct kernel timed" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '#3 Conv: cudnn algo' out.txt && ! grep -q 'cuBLAS\\|direct' out.txt"
# the plan cache: timed choices kept in a file for the next process
plans=$TMP/cache/sub/plans
OV_CUDA_PLAN_CACHE=$plans OV_CUDASIM_STATS=1 run resid.onnx --input random --backend cuda
check "plan cache: a run of its own (no --repeat) times nothing, writes no plan cache, and starts no library (own kernels)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ ! -e $TMP/cache ] && [ \$(grep -c 'Conv: the own .*for a run of its own (no library)' out.txt) = 2 ] &&
	       grep -q 'cuBLAS started 0, cuDNN started 0' err.txt"
OV_CUDA_PLAN_CACHE=$plans OV_CUDASIM_STATS=1 run resid.onnx --input random --backend cuda --repeat 2 --save cold_resid
check "plan cache: a repeated run times the convolutions and writes one line each (folders made)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c '^v2 onnxview_CUDA_simulator_(host)_cc9.0_cudnn[0-9]* [-0-9,]* ' $plans) = 2 ] &&
	       [ \$(stat -c %a $plans) = 600 ]"
OV_CUDA_CONV_OWN=0 OV_CUDA_PLAN_CACHE=$plans OV_CUDASIM_STATS=1 run resid.onnx --input random --backend cuda --save warm_resid
check "the next process, a run of its own without the own kernels (OV_CUDA_CONV_OWN=0), takes them (no heuristics asked, no timing), says so, and computes the same bits" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c 'by an earlier run (plan cache)' out.txt) = 2 ] &&
	       grep -q ' 0 convolution heuristics' err.txt && cmp cold_resid/y.npy warm_resid/y.npy"
cp "$plans" plans.good
printf 'garbage\nv1 x 1,2 3\n' >"$plans"
sed 's/^\(v2 [^ ]* [^ ]*\) [0-9]* [0-9]* /\1 7 0 /' plans.good >>"$plans"
printf 'v1 cut short' >>"$plans"
OV_CUDA_PLAN_CACHE=$plans run resid.onnx --input random --backend cuda --repeat 2 --expect y=cpu_resid/y.npy --rtol 1e-4 --atol 1e-5
check "lines that do not parse, or name an algorithm that rounds otherwise (FFT, default math), are passed over" \
	sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'plan cache' out.txt && [ \$(grep -c '^v2 onnx' $plans) = 4 ]"
ln -s plans.good link_plans
OV_CUDA_PLAN_CACHE=$TMP/link_plans run resid.onnx --input random --backend cuda --repeat 2
check "a plan cache that is a link is neither read nor written" \
	sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'plan cache' out.txt && cmp -s plans.good link_plans"
mkfifo fifo_plans
OV_CUDA_PLAN_CACHE=$TMP/fifo_plans timeout 60 "$SIM" run resid.onnx --input random --backend cuda --repeat 2 >out.txt 2>err.txt
echo $? >rc.txt
check "a plan cache that is a FIFO is neither read nor written, and nothing waits for a writer" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ -p fifo_plans ] && ! grep -q 'plan cache' out.txt"
OV_CUDA_PLAN_CACHE=/proc/nonexistent/plans run resid.onnx --input random --backend cuda --repeat 2
check "an unwritable plan cache changes nothing but the time" [ "$(rc)" = 0 ]
"$SIM" run mixed.onnx --input random --save cpu_mixed >/dev/null 2>&1
OV_CUDASIM_STATS=1 run mixed.onnx --input random --backend cuda --expect y=cpu_mixed/y.npy
check "a chain with a node the CPU runs matches the CPU" [ "$(rc)" = 0 ]
diag "$(grep '^on the CPU\|^cudasim:' out.txt err.txt)"
check "the CPU's node takes its input down once and its output up once (D2H 2, H2D 3 + 1)" \
	[ "$(stat_of D2H | cut -d' ' -f1) $(stat_of H2D | cut -d' ' -f1)" = "2 4" ]
check "and the report counts them too" grep -q '^copies: 4 to the device (2800 bytes), 2 to the host (2048 bytes)$' out.txt
OV_CUDASIM_STATS=1 run mixed.onnx --input random --backend cuda --json
check "--json gives the copies" "$PYTHON" -c "
import json; c = json.load(open('out.txt'))['copies']
assert (c['to_device'], c['to_device_bytes'], c['to_host'], c['to_host_bytes']) == (4, 2800, 2, 2048), c"

# the report's count of copies agrees with the simulator's on the example (Resize's tables go up too)
OV_CUDASIM_STATS=1 run "$SRCNN" --input random --backend cuda
sim_counts=$(sed -n 's/^cudasim: H2D \([0-9]*\) copies \([0-9]*\) bytes, D2H \([0-9]*\) copies \([0-9]*\) bytes.*/\1 \2 \3 \4/p' err.txt)
report_counts=$(sed -n 's/^copies: \([0-9]*\) to the device (\([0-9]*\) bytes), \([0-9]*\) to the host (\([0-9]*\) bytes)$/\1 \2 \3 \4/p' out.txt)
check "the example runs every node on CUDA and its report counts the copies the simulator saw ($sim_counts)" \
	sh -c "[ -n '$sim_counts' ] && [ '$sim_counts' = '$report_counts' ] && ! grep -q 'on the CPU' out.txt"

# indices computed on the device (by a Gather) come to the host once, for the CPU's checks that GatherElements
# makes before it runs; they go back up resolved to data offsets (12 x 8 bytes); the Gather's own 3 indices go to
# its kernel as an argument (up to 8 do), no copy
"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("Gather", ["table", "pick"], ["ids"]),
                       helper.make_node("GatherElements", ["x", "ids"], ["y"], axis=0)],
                      "dev_ids", [vi("x", T.FLOAT, [6, 4])], [vi("y", T.FLOAT, [3, 4])],
                      [numpy_helper.from_array(np.array([[0, 1, 2, 3], [5, 5, 5, 5], [-1, -2, 0, 4]], np.int64), "table"),
                       numpy_helper.from_array(np.array([2, 0, 1], np.int64), "pick")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "dev_ids.onnx")
EOF
OV_CUDASIM_STATS=1 run dev_ids.onnx --input x=random --backend cuda
check "indices a CUDA node computed cross to the host once for the checks, and both nodes run on CUDA" \
	sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'on the CPU' out.txt &&
	       grep -q '^cudasim: H2D 3 copies 288 bytes, D2H 2 copies 144 bytes' err.txt"
diag "$(grep '^cudasim:' err.txt)"

# what TF32 does: the CPU against CUDA with TF32 names the first convolution, whose inputs agree
"$SIM" compare "$SRCNN" --vs cuda --tf32 >out.txt 2>err.txt
echo $? >rc.txt
check "compare --vs cuda --tf32: the first divergence is conv1, inside the node (exit 1)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && grep -q '^B: .* on cuda with TF32:' out.txt &&
	       grep -q \"^first divergence: #1 'conv1' Conv\" out.txt && grep -q 'the difference starts inside this node' out.txt"
"$SIM" compare "$SRCNN" --vs cuda >out.txt 2>err.txt
check "and without --tf32 every value matches" grep -q "^no divergence" out.txt

# ---- device errors ----
OV_CUDASIM_FAULT=conv_each_kernel run "$SRCNN" --input random --backend cuda
check "a kernel that faults ends the run (exit 1)" [ "$(rc)" = 1 ]
check "with one line naming the node and the device's error" \
	sh -c "[ \$(grep -vc '^cudasim:' err.txt) = 1 ] && grep -q \"^onnxview: .*#1 'conv1' Conv: CUDA error .*illegal memory access\" err.txt"
diag "$(grep -v '^cudasim:' err.txt)"
OV_CUDASIM_FAULT=conv_each_kernel "$SIM" compare "$SRCNN" --vs cuda >out.txt 2>err.txt
echo $? >rc.txt
check "compare --vs cuda with a faulting device fails (exit 1) with one line" \
	sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(grep -vc '^cudasim:' err.txt) = 1 ]"
# the TUI: a device fault is one message, later CUDA runs say the device is lost, the CPU still runs
cp "$SRCNN" srcnn.onnx
tui() { # NAME KEYS
	printf '%s' "$2" >"$1.keys"
	OV_CUDASIM_FAULT=conv_each_kernel LC_ALL=C.UTF-8 timeout 20 "$SIM" --keys "$1.keys" --dump "$1.txt" --size 100x30 \
		srcnn.onnx >"$1.out" 2>"$1.err"
	echo $? >"$1.rc"
}
tui fault ':run --backend cuda<Enter>'
check "TUI: a kernel fault during :run --backend cuda is a message naming the node, and the TUI lives on" \
	sh -c "[ \$(cat fault.rc) = 0 ] && grep -q \"^#1 'conv1' Conv: CUDA error .*illegal memory access\" fault.txt"
tui again ':run --backend cuda<Enter>:run --backend cuda<Enter>'
check "TUI: the next CUDA run says the device failed earlier in this session" \
	grep -q "^the CUDA device failed earlier in this session (an illegal memory access" again.txt
tui cpu ':run --backend cuda<Enter>:run<Enter>'
check "TUI: and :run on the CPU still works" grep -q "^ran 6 nodes on cpu" cpu.txt
printf ':run --backend cuda --tf32<Enter>' >tf32.keys
LC_ALL=C.UTF-8 timeout 20 "$SIM" --keys tf32.keys --dump tf32.txt --size 100x30 srcnn.onnx >tf32.out 2>tf32.err
check "TUI: :run --backend cuda --tf32 runs with TF32 and says so" grep -q "^ran 6 nodes on cuda with TF32" tf32.txt
printf ':compare --vs cuda<Enter><Esc>jjjV' >cmp.keys
LC_ALL=C.UTF-8 timeout 20 "$SIM" --keys cmp.keys --dump cmp.txt --size 100x30 srcnn.onnx >cmp.out 2>cmp.err
check "TUI: :compare --vs cuda, then V: the CPU's and the GPU's values side by side where they differ most" \
	sh -c 'grep -q "^A - B of the last :compare" cmp.txt && grep -q "^the [1-5] largest differences, A and B side by side:" cmp.txt'

# run --profile on CUDA: device times from events between the nodes
run "$SRCNN" --input random --backend cuda --repeat 2 --profile --json
check "run --profile on CUDA: every node has a host and a device time" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); p = d["profile"]
assert p["run"] == 2 and len(p["nodes"]) == d["nodes_run"] == 6, p
assert all(n["host_ms"] >= 0 and n["device_ms"] is not None and n["device_ms"] >= 0 for n in p["nodes"])
assert {o["op"] for o in p["ops"]} == {"Conv", "Relu", "Resize"}'
run "$SRCNN" --input random --backend cuda --profile
check "run --profile on CUDA: the text gives the device's total" \
	grep -qE '^profile of run 1: 6 nodes, [0-9.]+ ms on the host, [0-9.]+ ms on the device$' out.txt

# constants stay on the device from one run to the next: run --repeat, and the TUI's runs until an edit (node by
# node: without the graph a warm run is by default)
OV_CUDA_GRAPH=0 OV_CUDASIM_STATS=1 run "$SRCNN" --input random --backend cuda --repeat 3
check "run --repeat 3: a later run copies the input and Resize's tables up, not the weights" \
	grep -q '^repeat: a later run copies 2 to the device (6208 bytes), 1 to the host (9216 bytes)$' out.txt
check "and every kept constant leaves the device when the program ends" grep -q ', 0 bytes still allocated$' err.txt
# freed buffers wait on the host by size for the next node that asks (cuda/backend.cu's cache): a warm run takes
# all its buffers from there, so 5 runs ask the pool for no more memory than 2 do, and all of it goes back at exit
allocs_of() { sed -n 's/^cudasim: .* \([0-9]*\) allocations,.*/\1/p' err.txt; }
OV_CUDASIM_STATS=1 run "$SRCNN" --input random --backend cuda --repeat 2
allocs2=$(allocs_of)
OV_CUDASIM_STATS=1 run "$SRCNN" --input random --backend cuda --repeat 5
allocs5=$(allocs_of)
check "warm runs take their device buffers from the cache: 5 runs allocate as often as 2 ($allocs5, $allocs2)" \
	sh -c "[ -n '$allocs2' ] && [ '$allocs5' = '$allocs2' ] && grep -q ', 0 bytes still allocated$' err.txt"
# what depends only on shapes is decided once: chain's 4 convolutions have 2 geometries, asked about once each
# over 3 runs; warm runs wait for the device once at the end, not after every node (OV_CUDA_SYNC=1 waits after each)
count_of() { sed -n "s/^cudasim: .* \([0-9]*\) $1.*/\1/p" err.txt; }
OV_CUDA_CONV_BLAS=0 OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda --repeat 3
check "cuDNN's heuristics are asked once per convolution geometry (2 for chain's 4 Convs over 3 runs)" \
	[ "$(count_of 'convolution heuristics')" = 2 ]
check "and the workspace goes back at exit" grep -q ', 0 bytes still allocated$' err.txt
check "the Conv's note says its algorithm is the fastest of those timed that add up the products (not Winograd)" \
	grep -q "^note: #0 Conv: cudnn algo GEMM, FMA math (full float32), workspace 4096 bytes, the fastest of those timed" out.txt
waits_async=$(count_of waits)
OV_CUDA_SYNC=1 OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda --repeat 3
waits_sync=$(count_of waits)
check "warm runs do not wait after every node: $waits_async waits for 3 runs, $waits_sync with OV_CUDA_SYNC=1" \
	sh -c "[ '$waits_async' -gt 0 ] && [ \$(( $waits_sync - $waits_async )) -ge 8 ]"
check "and give the same bits each run" sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'differ' out.txt"
OV_CUDA_CONV_OWN=0 OV_CUDA_CONV_FIND=0 OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda
check "OV_CUDA_CONV_FIND=0: the heuristics' choice" \
	grep -q "^note: #0 Conv: cudnn algo GEMM, FMA math (full float32), workspace 4096 bytes, the heuristics' choice" out.txt
# libraries are loaded by the first node that needs them: no cuDNN for a model without convolutions
"$PYTHON" - <<'EOF'
import onnx
from onnx import helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["s"]), helper.make_node("Relu", ["s"], ["y"])], "small",
                      [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "small.onnx")
g = helper.make_graph([helper.make_node("MatMul", ["x", "x"], ["y"])], "mm", [vi("x", T.FLOAT, [3, 3])],
                      [vi("y", T.FLOAT, [3, 3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "mm.onnx")
EOF
OV_CUDASIM_STATS=1 run small.onnx --input random --backend cuda
check "a model of element-wise ops starts neither cuBLAS nor cuDNN" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0, cuDNN started 0' err.txt"
OV_CUDASIM_STATS=1 run mm.onnx --input random --backend cuda
check "a small MatMul starts neither (the backend's own product)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0, cuDNN started 0' err.txt"
OV_CUDA_MATMUL_BLAS=1 OV_CUDASIM_STATS=1 run mm.onnx --input random --backend cuda
check "with OV_CUDA_MATMUL_BLAS=1 it starts cuBLAS only" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 1, cuDNN started 0' err.txt"
OV_CUDA_CONV_BLAS=0 OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda
check "a Conv starts cuDNN only (OV_CUDA_CONV_BLAS=0)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0, cuDNN started 1' err.txt"
OV_CUDA_CONV_OWN=0 OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda --expect y=cpu_chain/y.npy --rtol 1e-4 --atol 1e-5
check "OV_CUDA_CONV_OWN=0: a run of its own takes the heuristics' choice: a Conv starts cuDNN only, and matches the CPU" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0, cuDNN started 1' err.txt &&
	       [ \$(grep -c \"^note: #[0-9] Conv: cudnn algo GEMM, FMA math (full float32), workspace 4096 bytes, the heuristics' choice for one run\" out.txt) = 4 ]"
OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda --expect y=cpu_chain/y.npy --rtol 1e-4 --atol 1e-5
check "a run of its own computes its convolutions in the own kernels: no library started, the CPU's values" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0, cuDNN started 0, 0 convolution heuristics' err.txt &&
	       [ \$(grep -c '^note: #[0-9] Conv: the own per-output kernel (full float32, 4 output channels per group), for a run of its own (no library)$' out.txt) = 4 ]"
OV_CUDASIM_STATS=1 run "$SRCNN" --input random --backend cuda
check "so does the example (srcnn: three convolutions, neither cuDNN nor cuBLAS)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0, cuDNN started 0' err.txt"
diag "srcnn, a run of its own: $(grep '^cudasim:' err.txt)"
OV_CUDA_CONV_OWN=0 OV_CUDASIM_STATS=1 run "$SRCNN" --input random --backend cuda
diag "srcnn, a run of its own with OV_CUDA_CONV_OWN=0 (cuDNN's heuristics): $(grep '^cudasim:' err.txt)"
OV_CUDASIM_STATS=1 run chain.onnx --input random --backend cuda --repeat 3 --expect y=cpu_chain/y.npy --rtol 1e-4 --atol 1e-5
# (the first Conv, on 3 channels, is the direct kernel's too: on the simulator, whose timing is the host's, any of
# the three may win)
check "run --repeat 3 times the convolutions against cuBLAS products (cuBLAS started too), the notes say so" "$PYTHON" -c '
import re, sys
assert open("rc.txt").read().strip() == "0"
assert "cuBLAS started 1, cuDNN started 1" in open("err.txt").read()
notes = [l for l in open("out.txt") if re.match(r"note: #[0-9] Conv: ", l)]
assert len(notes) == 4, notes
for t in notes:
    assert re.search(r"cuBLAS product \(full float32\), [0-9.]+ ms against cuDNN.s [A-Z_]+ [0-9.]+ ms, timed", t) or \
        re.search(r"the direct kernel \(full float32\), [0-9.]+ ms against cuDNN.s [A-Z_]+ [0-9.]+ ms", t) or \
        re.search(r"the fastest of those timed \((cuBLAS was slower|cuBLAS, direct kernel slower|direct kernel slower)\)$", t.rstrip()), t'

# ---- small products in the backend's own kernel (cuda/gemm.cu's small_sgemm), cuBLAS never started ----
# odd sizes (1x1, 17x33x65, K=1, a dot product, 1-D on either side), batches (B shared by all, broadcast both ways,
# mixed so that the batches' offsets do not step evenly), Gemm with transA, transB, alpha, beta and C of every
# broadcast, float16, and the epilogue (a bias over the last axis with Relu, a residual Add, Gemm's Relu)
"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, TensorProto as T
vi = helper.make_tensor_value_info
ins, outs, nodes = {}, [], []
def x(name, shape, t=T.FLOAT):
    ins[name] = vi(name, t, shape)
    return name
def mm(y, a, b, shape, op="MatMul", t=T.FLOAT, **kw):
    nodes.append(helper.make_node(op, (a if isinstance(a, list) else [a]) + [b], [y], **kw))
    outs.append(vi(y, t, shape))
mm("p_1x1", x("a1", [1, 1]), x("b1", [1, 1]), [1, 1])
mm("p_odd", x("a2", [17, 65]), x("b2", [65, 33]), [17, 33])
mm("p_k1", x("a3", [5, 1]), x("b3", [1, 7]), [5, 7])
mm("p_dot", x("v1", [65]), x("v2", [65]), [])
mm("p_vec_left", "v1", "b2", [33])
mm("p_vec_right", "a2", "v2", [17])
mm("p_shared_b", x("a4", [4, 7, 6]), x("b4", [6, 5]), [4, 7, 5])
mm("p_mixed", x("a5", [2, 3, 17, 9]), x("b5", [3, 9, 33]), [2, 3, 17, 33])
mm("p_both", x("a6", [2, 1, 5, 6]), x("b6", [1, 3, 6, 4]), [2, 3, 5, 4])
mm("p_f16", x("a7", [9, 13], T.FLOAT16), x("b7", [13, 10], T.FLOAT16), [9, 10], t=T.FLOAT16)
mm("g_t_row", [x("ga1", [65, 17]), x("gb1", [33, 65])], x("gc1", [33]), [17, 33], op="Gemm", transA=1, transB=1,
   alpha=0.5, beta=2.0)
mm("g_col", ["a2", "b2"], x("gc2", [17, 1]), [17, 33], op="Gemm", alpha=1.5, beta=-1.0)
mm("g_full_k1", [x("ga3", [1, 17]), x("gb3", [1, 33])], x("gc3", [17, 33]), [17, 33], op="Gemm", transA=1)
nodes.append(helper.make_node("Gemm", ["a2", "gb1"], ["g_noc"], transB=1))
outs.append(vi("g_noc", T.FLOAT, [17, 33]))
# the epilogue: MatMul + Add(bias) + Relu, Add(residual, MatMul), Gemm + Relu
nodes += [helper.make_node("MatMul", ["a2", "b2"], ["m1"]), helper.make_node("Add", ["m1", x("bias", [33])], ["s1"]),
          helper.make_node("Relu", ["s1"], ["e_bias_relu"]),
          helper.make_node("MatMul", ["a5", "b5"], ["m2"]),
          helper.make_node("Add", [x("res", [2, 3, 17, 33]), "m2"], ["e_resid"]),
          helper.make_node("Gemm", ["ga1", "gb1", "gc1"], ["m3"], transA=1, transB=1),
          helper.make_node("Relu", ["m3"], ["e_relu"])]
outs += [vi("e_bias_relu", T.FLOAT, [17, 33]), vi("e_resid", T.FLOAT, [2, 3, 17, 33]), vi("e_relu", T.FLOAT, [17, 33])]
g = helper.make_graph(nodes, "prods", list(ins.values()), outs)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "prods.onnx")
# the bounds: 64 x 256 x 256 = 2^22 multiply-adds in the own kernel, 64 x 257 x 256 past it in cuBLAS; sums of
# 2048 terms in the own kernel, of 2049 in cuBLAS
for name, m, k, n in (("bound", 64, 256, 256), ("past", 64, 257, 256), ("long", 3, 2048, 2), ("longer", 3, 2049, 2)):
    g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], name,
                          [vi("a", T.FLOAT, [m, k]), vi("b", T.FLOAT, [k, n])], [vi("y", T.FLOAT, [m, n])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")
EOF
"$SIM" run prods.onnx --input random --save cpu_prods >/dev/null 2>&1
expect_prods=$(for f in cpu_prods/*.npy; do printf ' --expect %s=%s' "$(basename "$f" .npy)" "$f"; done)
OV_CUDASIM_STATS=1 run prods.onnx --input random --backend cuda --save sim_prods $expect_prods --rtol 1e-4 --atol 1e-5
check "small products (1x1, 17x33x65, K=1, 1-D, batched and broadcast, transposed Gemm, float16) match the CPU" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^PASS: 17 of 17 compared values match' out.txt && ! grep -q 'on the CPU' out.txt"
check "and never start cuBLAS" grep -q 'cuBLAS started 0, cuDNN started 0' err.txt
check "the epilogues taken in launch nothing of their own (24 launches: 17 products, 4 beta C, 3 float16 conversions)" \
	grep -q ' 24 launches,' err.txt
run prods.onnx --input random --backend cuda --all --save all_prods
check "the epilogue taken in (bias and Relu, residual Add, Gemm's Relu) gives the bits of the kernels run apart (--all)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && cmp sim_prods/e_bias_relu.npy all_prods/e_bias_relu.npy &&
	       cmp sim_prods/e_resid.npy all_prods/e_resid.npy && cmp sim_prods/e_relu.npy all_prods/e_relu.npy"
OV_CUDA_MATMUL_BLAS=1 OV_CUDASIM_STATS=1 run prods.onnx --input random --backend cuda $expect_prods --rtol 1e-4 --atol 1e-5
check "OV_CUDA_MATMUL_BLAS=1: the same products through cuBLAS match the CPU too" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^PASS: 17 of 17' out.txt && grep -q 'cuBLAS started 1, cuDNN started 0' err.txt"
OV_CUDASIM_STATS=1 run lin.onnx --input random --backend cuda --expect z=cpu_lin/z.npy --rtol 1e-4 --atol 1e-5
check "the Linear layers above (MatMul + bias + Relu, MatMul + residual, Gemm + Clip) ran without cuBLAS" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0' err.txt"
for m in bound past long longer; do
	"$SIM" run $m.onnx --input random --save cpu_$m >/dev/null 2>&1
	OV_CUDASIM_STATS=1 run $m.onnx --input random --backend cuda --expect y=cpu_$m/y.npy --rtol 1e-4 --atol 1e-5
	if grep -q 'cuBLAS started 1' err.txt; then echo "$(rc) cublas" >$m.got; else echo "$(rc) own" >$m.got; fi
done
check "a product of 2^22 multiply-adds is the own kernel's, one more term per sum goes to cuBLAS; both the CPU's values" \
	sh -c "[ \"\$(cat bound.got)\" = '0 own' ] && [ \"\$(cat past.got)\" = '0 cublas' ]"
check "sums of 2048 terms are the own kernel's, of 2049 cuBLAS's (few outputs, long sums); both the CPU's values" \
	sh -c "[ \"\$(cat long.got)\" = '0 own' ] && [ \"\$(cat longer.got)\" = '0 cublas' ]"
OV_CUDA_MATMUL_BLAS=0 OV_CUDASIM_STATS=1 run past.onnx --input random --backend cuda --expect y=cpu_past/y.npy --rtol 1e-4 --atol 1e-5
check "OV_CUDA_MATMUL_BLAS=0: past the bound too, without cuBLAS" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuBLAS started 0' err.txt"
printf ':run --backend cuda<Enter><Esc>:run --backend cuda<Enter>' >kept.keys
OV_CUDASIM_STATS=1 LC_ALL=C.UTF-8 timeout 20 "$SIM" --keys kept.keys --dump kept.txt --size 100x30 srcnn.onnx >kept.out 2>kept.err
check "TUI: its runs are runs of their own: srcnn's 3 convolutions in the own kernels, no library started" \
	grep -q 'cuBLAS started 0, cuDNN started 0, 0 convolution heuristics' kept.err
check "TUI: the second :run --backend cuda finds the weights on the device (2 copies up instead of 8)" \
	grep -q '^copies: 2 to the device (6208 bytes)' kept.txt
check "TUI: the report says what is kept (Resize's roi and scales are read on the host, never uploaded)" \
	grep -q '^constants: 8 kept until the model changes (3188 bytes; 6 of them on the device too)$' kept.txt
printf ':run --backend cuda<Enter><Esc>:set-tensor conv3.bias [5]<Enter>:run --backend cuda<Enter>' >edit.keys
LC_ALL=C.UTF-8 timeout 20 "$SIM" --keys edit.keys --dump edit.txt --size 100x30 srcnn.onnx >edit.out 2>edit.err
check "TUI: after an edit of a weight the next CUDA run uploads the model anew and uses the new value" \
	sh -c "grep -q '^copies: 8 to the device (9380 bytes)' edit.txt &&
	       grep -q \"^output 'output' float32\[1,1,48,48\]  min 4\.9\" edit.txt"

OV_CUDASIM_MEM=4096 run "$SRCNN" --input random --backend cuda
check "device memory running out ends the run (exit 1) with one line naming what did not fit" \
	sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(wc -l <err.txt) = 1 ] && grep -q 'cannot allocate [0-9]* bytes on the CUDA device' err.txt"
diag "$(cat err.txt)"
# buffers waiting in the cache (cuda/backend.cu) go back to the pool when an allocation fails, and it is tried
# again: in 30000 bytes of device memory this chain (x 4000 bytes, Slice to 2000, Pad to 6000 with its tables) fits
# only so (peak 36864 bytes with nothing short of memory; 26624 this way)
"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
n = helper.make_node
g = helper.make_graph([n("Relu", ["x"], ["a"]), n("Slice", ["a", "s0", "s1"], ["b"]), n("Relu", ["b"], ["c"]),
                       n("Pad", ["c", "pads"], ["d"]), n("Relu", ["d"], ["y"])], "mem",
                      [helper.make_tensor_value_info("x", T.FLOAT, [1000])],
                      [helper.make_tensor_value_info("y", T.FLOAT, [1500])],
                      [i64("s0", [0]), i64("s1", [500]), i64("pads", [0, 1000])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "memflush.onnx")
EOF
"$ONNXVIEW" run memflush.onnx --input x=random --save cpu_memflush >/dev/null 2>&1
OV_CUDA_GRAPH=0 OV_CUDASIM_MEM=30000 run memflush.onnx --input x=random --backend cuda --expect y=cpu_memflush/y.npy
check "device memory short: the cached buffers go back and the allocation is tried again, the run goes on" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'PASS' out.txt"
# a device that stops answering: every wait has a deadline (OV_CUDA_TIMEOUT), so the run ends with one line
OV_CUDA_TIMEOUT=1 OV_CUDASIM_HANG=conv_each_kernel timeout 60 "$SIM" run "$SRCNN" --input random --backend cuda >out.txt 2>err.txt
echo $? >rc.txt
check "a kernel that never ends: the run ends after OV_CUDA_TIMEOUT (exit 1), one line naming the node" \
	sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(grep -vc '^cudasim:' err.txt) = 1 ] &&
	       grep -q \"#1 'conv1' Conv: the CUDA device did not finish the work within 1 s (OV_CUDA_TIMEOUT)\" err.txt"
diag "$(grep -v '^cudasim:' err.txt)"
# the GPU suite's watchdog: with no deadline in the backend (OV_CUDA_TIMEOUT=0) the suite still ends, reporting
# the model and its summary; with one, the suite goes on to the next model (the device is then given up)
SUITE=$BUILDDIR/tests/gpu-suite-sim
if [ -x "$SUITE" ]; then
	cp "$SRCNN" srcnn.onnx
	printf 'srcnn 0 srcnn.onnx --input random\nsrcnn_again 0 srcnn.onnx --input random\n' >runs.txt
	OV_CUDA_TIMEOUT=0 OV_CUDASIM_HANG=conv_each_kernel timeout 60 "$SUITE" --timeout 2 --progress 0 --runs runs.txt \
		>suite.txt 2>suite.err
	echo $? >rc.txt
	check "GPU suite: a model that hangs is stopped by the watchdog, reported, and the suite ends (exit 1)" \
		sh -c "[ \$(cat rc.txt) = 1 ] &&
		       grep -q '^not ok 1 - srcnn: did not finish within 2 s (the watchdog, --timeout); the suite ends here' suite.txt &&
		       grep -q '^# gpu-suite: 1 models in .*0 pass, 1 fail, 0 skipped, ended by the watchdog' suite.txt &&
		       grep -q '^1\.\.1$' suite.txt && grep -q '^Bail out!' suite.txt"
	sed 's/^/# /' suite.txt
	OV_CUDA_TIMEOUT=1 OV_CUDASIM_HANG=conv_each_kernel timeout 60 "$SUITE" --timeout 20 --progress 0 --runs runs.txt \
		>suite.txt 2>suite.err
	echo $? >rc.txt
	check "GPU suite: with the backend's deadline the hanging model fails and the next one says the device is given up" \
		sh -c "[ \$(cat rc.txt) = 1 ] && grep -q '^not ok 1 - srcnn: the CUDA run failed' suite.txt &&
		       grep -q 'did not finish its work within 1 s (OV_CUDA_TIMEOUT) earlier in this session' suite.txt &&
		       grep -q '^# gpu-suite: 2 models in .*0 pass, 2 fail' suite.txt"
	"$SUITE" --timeout 20 --progress 0 --total 1e-9 --runs runs.txt >suite.txt 2>suite.err
	check "GPU suite: past --total the models left are skipped" \
		sh -c "grep -c '^ok [0-9] - # SKIP srcnn.*the suite.s time limit' suite.txt | grep -q 2"
	"$SUITE" --frobnicate >suite.txt 2>suite.err
	check "GPU suite: an unknown option is a usage error (exit 2)" [ $? = 2 ]
else
	skip "no $SUITE"
fi

# ---- the direct convolution kernel (cuda/conv-direct.cu) and the 2-D MaxPool (cuda/pool.cu) ----
# (their values against the CPU, forced and timed, are tests/cuda.sh's, run above; here what a GPU run leaves alone)
"$PYTHON" "$SRCDIR/tests/gen-conv-direct.py" direct || not_ok "the direct kernel's models could not be made"
cd direct || exit 1
"$SIM" run stem.onnx --input random --save cpu_stem >/dev/null 2>&1
"$SIM" run odd.onnx --input random --save cpu_odd >/dev/null 2>&1
odd_expect=""
for o in ya yb yc yd ye yf; do odd_expect="$odd_expect --expect $o=cpu_odd/$o.npy"; done
OV_CUDA_CONV_BLAS=3 run stem.onnx --input random --backend cuda --save dir_stem
# the plan cache keeps the direct kernel as a way of its own (v2 lines); v1 lines, written before it, still read
dplans=$TMP/direct/plans
OV_CUDA_PLAN_CACHE=$dplans run stem.onnx --input random --backend cuda --repeat 2
check "plan cache: a timed choice is written as a v2 line naming its way" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(wc -l <$dplans) = 1 ] &&
	       grep -Eq '^v2 [^ ]+ [-0-9,]+ [0-9]+ [0-9]+ (cudnn|blas|blas-merged|direct) [-0-9.e]+ [-0-9.e]+ [-0-9.e]+$' $dplans"
sed -E 's/^(v2 [^ ]+ [^ ]+ [0-9]+ [0-9]+) [a-z-]+ .*/\1 direct 0.3 0.2 0.1/' "$dplans" >plans.direct
cp plans.direct "$dplans"
OV_CUDA_CONV_OWN=0 OV_CUDA_PLAN_CACHE=$dplans run stem.onnx --input random --backend cuda --save cached_stem
check "a direct kernel kept in the plan cache is taken, said, and computes the forced kernel's bits" \
	sh -c "[ \$(cat rc.txt) = 0 ] && cmp plans.direct $dplans && cmp dir_stem/y.npy cached_stem/y.npy &&
	       grep -q '^note: #0 Conv: the direct kernel (full float32), 0.100 ms against cuDNN.s [A-Z_]* 0.200 ms and cuBLAS.s 0.300 ms, timed by an earlier run (plan cache)$' out.txt"
sed -E 's/^v2 ([^ ]+ [^ ]+ [0-9]+ [0-9]+) [a-z-]+ .*/v1 \1 0 0.3 0.2/' plans.direct >"$dplans"
OV_CUDA_CONV_OWN=0 OV_CUDA_PLAN_CACHE=$dplans run stem.onnx --input random --backend cuda --expect y=cpu_stem/y.npy --rtol 1e-4 --atol 1e-5
check "a v1 line (cuDNN, before the direct kernel) is still read and taken" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(wc -l <$dplans) = 1 ] &&
	       grep -q '^note: #0 Conv: cudnn algo .*by an earlier run (plan cache) (cuBLAS was slower)$' out.txt"
sed 's/ direct / winograd9 /' plans.direct >"$dplans"
OV_CUDA_PLAN_CACHE=$dplans run stem.onnx --input random --backend cuda --repeat 2 --expect y=cpu_stem/y.npy --rtol 1e-4 --atol 1e-5
check "a v2 line naming a way this build does not know is passed over: timed again, a line of its own appended" \
	sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'plan cache' out.txt && [ \$(wc -l <$dplans) = 2 ] &&
	       [ \$(grep -c ' winograd9 ' $dplans) = 1 ]"
oplans=$TMP/direct/odd-plans
OV_CUDA_PLAN_CACHE=$oplans run odd.onnx --input random --backend cuda --repeat 2
sed 's/^\(v2 [^ ]* 0,0,32,2,1,32,8,1,[-0-9,]* [0-9]* [0-9]*\) [a-z-]* /\1 direct /' "$oplans" >plans.odd
cp plans.odd "$oplans"
OV_CUDA_CONV_OWN=0 OV_CUDA_PLAN_CACHE=$oplans run odd.onnx --input random --backend cuda $odd_expect --rtol 1e-4 --atol 1e-5
check "a plan cache naming the direct kernel for a geometry it does not fit (32 input channels) is passed over" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c '^v2 [^ ]* 0,0,32,2,1,32,8,1,[-0-9,]* [0-9]* [0-9]* direct ' plans.odd) = 1 ] && [ \$(grep -c 'plan cache' out.txt) = 5 ] &&
	       grep '^note: #6 Conv: ' out.txt | grep -v 'plan cache' | grep -vq 'the direct kernel'"
# the 2-D MaxPool kernel is the one that runs the 2-D pools (tests/cuda.sh compares their bits with the CPU's)
OV_CUDASIM_FAULT=maxpool2d_kernel run pools.onnx --input x=px.npy --backend cuda
check "the 2-D MaxPools run in the 2-D kernel (a fault planted in it ends the run at the first, #0)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && grep -q '^onnxview: pools.onnx: #0 MaxPool: CUDA error .*illegal memory access' err.txt"
cd "$TMP" || exit 1

# ---- the own convolution kernels (cuda/conv-igemm.cu): a run of its own starts no library ----
# (their values against the CPU, forced and not, are tests/cuda.sh's, run above; here what a run starts)
"$PYTHON" "$SRCDIR/tests/gen-conv-igemm.py" own || not_ok "the own kernels' models could not be made"
cd own || exit 1
for m in resnet mobilenet; do
	"$SIM" run $m.onnx --input random --save cpu_$m >/dev/null 2>&1
	OV_CUDASIM_STATS=1 run $m.onnx --input random --backend cuda --expect y=cpu_$m/y.npy --rtol 1e-4 --atol 1e-5
	check "a small $m-like model, a run of its own: the CPU's values, every node on CUDA, neither cuDNN nor cuBLAS started" \
		sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'on the CPU' out.txt &&
		       grep -q 'cuBLAS started 0, cuDNN started 0, 0 convolution heuristics' err.txt"
	diag "$m, a run of its own: $(grep '^cudasim:' err.txt)"
	OV_CUDA_CONV_OWN=0 OV_CUDASIM_STATS=1 run $m.onnx --input random --backend cuda
	diag "$m, a run of its own with OV_CUDA_CONV_OWN=0: $(grep '^cudasim:' err.txt)"
done
OV_CUDASIM_STATS=1 run resnet.onnx --input random --backend cuda --repeat 2
check "repeated (--repeat 2), the ResNet's convolutions are timed with cuDNN again (cuDNN started)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'cuDNN started 1' err.txt && [ \$(grep -c 'Conv: .*timed' out.txt) = 6 ]"
OV_CUDASIM_FAULT=conv_each_kernel run mobilenet.onnx --input random --backend cuda
check "the depthwise convolutions run in the per-output loop (a fault planted in it ends the run at the first, #4)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && grep -q '^onnxview: mobilenet.onnx: #4 Conv: CUDA error .*illegal memory access' err.txt"
OV_CUDASIM_FAULT=conv_parts_kernel run geoms.onnx --input random --backend cuda
check "a product of few tiles and long sums (y12: 130 channels of 20 x 20, 360 terms) adds parts of its sums (a fault planted in that pass ends the run there, #11)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && grep -q '^onnxview: geoms.onnx: #11 Conv: CUDA error .*illegal memory access' err.txt"
cd "$TMP" || exit 1

# ---- rows of 16 lanes (cuda/norm.cu): Softmax, LogSoftmax, LayerNormalization, Group- and InstanceNormalization ----
# The kernels give a row to 16 threads that fold their sums with warp shuffles (the simulator runs them): on rows of
# 1 to 1000 in batches of 7, with NaN, infinities, a row of -inf, a row of zeros of both signs and a row where the
# sum's order shows (1e30, 1, -1e30 at 16), every output is the CPU's bit for bit (NaN matching NaN), float32,
# float64 and float16, with LayerNormalization's Mean and InvStdDev, and no node falls back to the CPU.
mkdir rows && (cd rows && "$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
rng = np.random.default_rng(5)
B = 7
def save(g, name, opset):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, name + ".onnx")
def params(n, dt):
    return [numpy_helper.from_array(rng.uniform(-2, 2, n).astype(dt), nm) for nm in ("s", "b")]
types = (("f32", T.FLOAT, np.float32), ("f64", T.DOUBLE, np.float64), ("f16", T.FLOAT16, np.float16))
for n in (1, 3, 15, 16, 17, 128, 197, 512, 768, 1000):
    x = rng.uniform(-16, 16, (B, n)).astype(np.float32)
    x[0, n // 2] = np.nan
    x[1, -1] = np.inf
    x[2, 0] = -np.inf
    x[3, :] = -np.inf
    x[4, :] = np.where(rng.integers(0, 2, n) == 1, -0.0, 0.0)
    if n > 16:
        x[5, :] = 0
        x[5, 0], x[5, 1], x[5, 16] = 1e30, 1, -1e30
    with np.errstate(over="ignore"):
        for tn, _, dt in types:
            np.save("x_%s_%d.npy" % (tn, n), x.astype(dt))
    for op in ("Softmax", "LogSoftmax"):
        g = helper.make_graph([helper.make_node(op, ["x"], ["y"], axis=-1)], "rows", [vi("x", T.FLOAT, [B, n])],
                              [vi("y", T.FLOAT, [B, n])])
        save(g, "%s_f32_%d" % (op, n), 13)
    for tn, t, dt in types:
        g = helper.make_graph([helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "m", "iv"])], "rows",
                              [vi("x", t, [B, n])], [vi("y", t, [B, n]), vi("m", T.FLOAT, [B, 1]),
                                                     vi("iv", T.FLOAT, [B, 1])], params(n, dt))
        save(g, "LayerNorm_%s_%d" % (tn, n), 17)
    # GroupNormalization: 7 groups of 2 channels of n / 2 (rows of n, n even); InstanceNormalization: 7 of n
    for tn, t, dt in types[:2]:
        xs = [1, 14, n // 2] if n % 2 == 0 else [1, 7, n]
        op = "GroupNormalization" if n % 2 == 0 else "InstanceNormalization"
        g = helper.make_graph([helper.make_node(op, ["x", "s", "b"], ["y"], **({"num_groups": 7} if n % 2 == 0 else {}))],
                              "rows", [vi("x", t, xs)], [vi("y", t, xs)], params(7 if n % 2 == 0 else 7, dt))
        save(g, "GroupInst_%s_%d" % (tn, n), 18)
        np.save("xg_%s_%d.npy" % (tn, n), np.load("x_%s_%d.npy" % (tn, n)).reshape(xs))
EOF
) || not_ok "the row models could not be made"
rows_fail=0
rows_fallback=0
for f in rows/*.onnx; do
	b=$(basename "$f" .onnx)
	x=rows/x_${b#*_}.npy
	[ "${b#GroupInst}" != "$b" ] && x=rows/xg_${b#*_}.npy
	"$SIM" run "$f" --input "x=$x" --save "rows/cpu_$b" >/dev/null 2>&1 || rows_fail=$((rows_fail + 1))
	"$SIM" run "$f" --input "x=$x" --backend cuda --save "rows/sim_$b" >rows/out.txt 2>&1 || rows_fail=$((rows_fail + 1))
	grep -q "on the CPU" rows/out.txt && rows_fallback=$((rows_fallback + 1))
done
check "the row models run on the CPU and the simulator ($(ls rows/*.onnx | wc -l) models; $rows_fail runs failed)" \
	[ "$rows_fail" = 0 ]
check "and none of their nodes falls back to the CPU ($rows_fallback did)" [ "$rows_fallback" = 0 ]
check "every output of the row kernels is the CPU's bit for bit (NaN matching NaN)" "$PYTHON" -c '
import glob, os, sys
import numpy as np
n = bad = 0
for d in sorted(glob.glob("rows/cpu_*")):
    for f in sorted(os.listdir(d)):
        a, b = np.load(os.path.join(d, f)), np.load(os.path.join(d.replace("/cpu_", "/sim_"), f))
        n += 1
        same = (a.view("u%d" % a.itemsize) == b.view("u%d" % b.itemsize)) | (np.isnan(a) & np.isnan(b))
        if a.shape != b.shape or not same.all():
            bad += 1
            print("# %s/%s: %d elements differ" % (d, f, (~same).sum()))
print("# %d outputs compared" % n)
sys.exit(bad != 0 or n != 130)
'

# ---- CUDA graphs (the default; OV_CUDA_GRAPH=0 turns them off): run 2 of --repeat recorded, later runs one launch of the graph ----
# the simulator records a captured stream's work instead of running it, gives graph memory fixed addresses live only
# during a launch, and invalidates a capture at a call it cannot take (a wait, pageable memory, a foreign free)
"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Reshape", ["r", "s"], ["y"])],
                      "hostread", [vi("x", T.FLOAT, [2, 6]), vi("s", T.INT64, [2])], [vi("y", T.FLOAT, [3, 4])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "hostread.onnx")
zero = numpy_helper.from_array(np.array([0, 0], dtype=np.int64), "zero")
g = helper.make_graph([helper.make_node("Add", ["s", "zero"], ["s2"]), helper.make_node("Relu", ["x"], ["r"]),
                       helper.make_node("Reshape", ["r", "s2"], ["y"])], "readback",
                      [vi("x", T.FLOAT, [2, 6]), vi("s", T.INT64, [2])], [vi("y", T.FLOAT, [3, 4])], [zero])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "readback.onnx")
np.save("shape34.npy", np.array([3, 4], dtype=np.int64))
np.save("x26.npy", np.arange(12, dtype=np.float32).reshape(2, 6) - 5)
EOF
# (cuDNN alone in both processes: the simulator's timing of the three ways is the host's, and may choose otherwise
# in another process)
OV_CUDA_CONV_BLAS=0 OV_CUDA_GRAPH=0 run "$SRCNN" --input random --backend cuda --repeat 4 --save nograph
OV_CUDA_CONV_BLAS=0 OV_CUDASIM_STATS=1 run "$SRCNN" --input random --backend cuda --repeat 4 --save graph
check "by default run 2 is recorded as a graph and runs 3 and 4 launch it" \
	grep -q "^repeat: run 2 was recorded as a graph of the device's work; 2 later runs launched it$" out.txt
check "and every run gives the bits of the runs without a graph" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^repeat: every run gave the same bits' out.txt && cmp -s nograph/output.npy graph/output.npy"
check "a launch copies the input up and the output down, nothing else" \
	grep -q '^repeat: a later run copies 1 to the device (1024 bytes), 1 to the host (9216 bytes)$' out.txt
check "and the graph's memory is given back at exit" grep -q ', 0 bytes still allocated$' err.txt
OV_CUDA_GRAPH=0 run "$SRCNN" --input random --backend cuda --repeat 3
check "with OV_CUDA_GRAPH=0 no run is recorded and the report says nothing of graphs" sh -c '! grep -qi graph out.txt'
OV_CUDA_GRAPH=1 run "$SRCNN" --input random --backend cuda --repeat 3 --json
check "JSON: repeat.graph gives the run recorded, the launches and no reason" "$PYTHON" -c '
import json; g = json.load(open("out.txt"))["repeat"]["graph"]
assert g == {"recorded_run": 2, "replays": 1, "why_not": None}, g'
OV_CUDA_GRAPH=1 run "$SRCNN" --input random --backend cuda --repeat 3 --profile
check "--profile runs node by node (no recording)" sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -qi graph out.txt"
# (cuDNN alone: the simulator's timing of cuBLAS against cuDNN is the host's, and may choose either way per process)
OV_CUDA_CONV_BLAS=0 run chain.onnx --input random --backend cuda --save chain_nograph
OV_CUDA_CONV_BLAS=0 OV_CUDA_GRAPH=1 run chain.onnx --input random --backend cuda --repeat 3 --save chain_graph
check "chain (convolutions, fused Relus and a residual Add) recorded and replayed, the same bits" \
	sh -c "grep -q '1 later run launched it' out.txt && cmp -s chain_graph/y.npy chain_nograph/y.npy"
OV_CUDA_CONV_BLAS=0 run mixed.onnx --input random --backend cuda --save mixed_nograph
OV_CUDA_CONV_BLAS=0 OV_CUDA_GRAPH=1 run mixed.onnx --input random --backend cuda --repeat 3 --save mixed_graph
check "a node left to the CPU (it reads a device value): not recorded, named, the run redone node by node" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q \"^repeat: not replayed as a graph: #4 Einsum: input 0 'r1': .*stream is capturing\" out.txt && cmp -s mixed_graph/y.npy mixed_nograph/y.npy"
OV_CUDA_GRAPH=1 OV_CUDASIM_STATS=1 run readback.onnx --input x=x26.npy --input s=shape34.npy --backend cuda --repeat 3
check "a node reading a value the device computed (a shape): not recorded, named, the run redone" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^repeat: not replayed as a graph: #2 Reshape: input 1: .*stream is capturing' out.txt && grep -q '^output .y. float32\[3,4\]  min 0 max 6 mean 1.75 ' out.txt"
check "and the recording thrown away leaves no device memory behind" grep -q ', 0 bytes still allocated$' err.txt
OV_CUDA_GRAPH=1 run hostread.onnx --input x=x26.npy --input s=shape34.npy --backend cuda --repeat 3
check "an input read on the host (Reshape's shape) is recorded with its bytes, and replayed" \
	sh -c "grep -q '1 later run launched it' out.txt && grep -q '^output .y. float32\[3,4\]  min 0 max 6 mean 1.75 ' out.txt"

# an input the device cannot hold (a string), placed after one it can: the run goes on unrecorded, and the first
# input is uploaded as usual (the recording's memory it held went with the recording)
"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Identity", ["s"], ["t"])], "strin",
                      [vi("x", T.FLOAT, [2, 3]), vi("s", T.STRING, [2])], [vi("y", T.FLOAT, [2, 3]), vi("t", T.STRING, [2])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "strin.onnx")
open("s.pb", "wb").write(numpy_helper.from_array(np.array([b"a", b"bc"], dtype=object), "s").SerializeToString())
EOF
OV_CUDA_GRAPH=1 OV_CUDASIM_STATS=1 run strin.onnx --input x=random --input s=s.pb --backend cuda --repeat 3
check "a string input: not recorded (named), the float input uploaded as usual, the values right" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q \"^repeat: not replayed as a graph: input 's': string, which the device cannot hold$\" out.txt &&
	       grep -q 'every run gave the same bits' out.txt && grep -q ', 0 bytes still allocated$' err.txt"

# the OV_CUDA_* switches: a value none of them takes is named in one warning (shown safely) and the default used
OV_CUDA_GRAPH=yes OV_CUDA_CONV_BLAS=7 OV_CUDA_TIMEOUT="$(printf '1\033[31m')" OV_CUDA_SYNC=1 \
	run "$SRCNN" --input random --backend cuda --repeat 3
check "switches not understood: one warning naming each, the run as by default" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c '^onnxview: warning: ' err.txt) = 1 ] &&
	       grep -q \"OV_CUDA_CONV_BLAS='7' is not understood (it takes 0 to 3): it is ignored; \" err.txt &&
	       grep -q \"; OV_CUDA_GRAPH='yes' is not understood (it takes 0 or 1): it is ignored; \" err.txt &&
	       grep -q \"; OV_CUDA_TIMEOUT='1?\[31m' is not understood (it takes seconds, a number of 0 or more)\" err.txt &&
	       ! grep -q 'OV_CUDA_SYNC' err.txt && ! grep -q 'recorded as a graph' out.txt && ! grep -q \"\$(printf '\\033')\" err.txt"
OV_CUDA_GRAPH=1 OV_CUDA_CONV_BLAS=0 OV_CUDA_TIMEOUT=30 run "$SRCNN" --input random --backend cuda --repeat 3
check "switches set right: no warning" sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q warning err.txt && grep -q 'recorded as a graph' out.txt"

OV_CUDASIM_DEVICES=0 run "$SRCNN" --input random --backend cuda
check "no device: one line saying so (exit 1)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(wc -l <err.txt) = 1 ] && grep -q 'no CUDA device' err.txt"
OV_CUDASIM_DEVICES=0 run "$SRCNN" --input random
check "and the CPU runs in the same build" [ "$(rc)" = 0 ]

done_testing
