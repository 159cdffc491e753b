#!/bin/sh
# The CUDA backend from the command line.
# - Built without CUDA: `run --backend cuda` fails with one line saying so; the rest is skipped.
# - Built with CUDA: --version names the cuBLAS and cuDNN versions; --tf32 is refused without --backend cuda.
# - No usable device (or driver): `run --backend cuda` fails with one line naming why, and the CPU still runs
#   in the same build; the GPU checks are skipped, saying why.
# - With a device: every op the backend runs is compared with the CPU on random inputs of several shapes and
#   types (the CPU's outputs saved with --save, checked with --expect, and no node may fall back to the CPU),
#   Conv reports its cuDNN algorithm, --tf32 runs, declined nodes fall back and are reported, and the ONNX
#   conformance tests of tests/conformance-pass.txt pass on the CUDA backend.  The models run in one process, the
#   GPU suite (tests/gpu-suite.c, $GPU_SUITE: one CUDA context, a watchdog per model, GPU_SUITE_TIMEOUT seconds,
#   default 120).  The current ONNX release's node tests run on the CUDA backend too (tests/conformance.sh
#   --suite onnx-1.23.2 with ONNXVIEW_BACKEND=cuda, against tests/conformance-pass-onnx-1.23.2-cuda.txt).
#   CUDA_CONFORMANCE=0 leaves the conformance runs out.
. "$(dirname "$0")/lib.sh"

scratch
cd "$TMP" || exit 1
# Under AddressSanitizer the CUDA driver needs the shadow gap left unprotected to map device memory.
ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86}:protect_shadow_gap=0
export ASAN_OPTIONS
SRCNN=$SRCDIR/share/onnxview/examples/srcnn.onnx

"$ONNXVIEW" --version >version.txt 2>&1
state=$(sed -n 's/^CUDA backend: //p' version.txt)

# (Under AddressSanitizer, the simulator's first side-by-side block makes ASan warn once that it does not fully
# support swapcontext: a line about the test's build, not the program's output.)
run() {
	"$ONNXVIEW" run "$@" >out.txt 2>err.raw
	echo $? >rc.txt
	grep -v "^==[0-9]*==WARNING: ASan doesn't fully support makecontext/swapcontext" err.raw >err.txt
}
rc() { cat rc.txt; }
one_line() { [ "$(wc -l <err.txt)" -eq 1 ]; }

run "$SRCNN" --input random --backend cpu
check "the CPU backend runs the example model" [ "$(rc)" = 0 ]

case $state in
"not built"*)
	run "$SRCNN" --input random --backend cuda
	check "without CUDA, --backend cuda exits 1" [ "$(rc)" = 1 ]
	check "with one line saying the build has no CUDA" sh -c "grep -q 'onnxview was built without CUDA' err.txt && [ \$(wc -l <err.txt) -eq 1 ]"
	diag "$(cat err.txt)"
	skip "onnxview was built without CUDA: no CUDA checks"
	done_testing
	exit $?
	;;
esac

check "--version names the cuBLAS version" grep -q 'cuBLAS [0-9][0-9]*\.[0-9]' version.txt
check "--version names the cuDNN version" grep -q 'cuDNN [0-9][0-9]*\.[0-9]' version.txt
sed "s/^/# /" version.txt
run "$SRCNN" --input random --tf32
check "--tf32 without --backend cuda is a usage error (exit 2)" [ "$(rc)" = 2 ]

case $state in
*"no usable device"*|*"cannot be queried"*)
	reason=$(printf '%s\n' "$state" | sed 's/.*no usable device: //')
	run "$SRCNN" --input random --backend cuda
	check "without a device, --backend cuda exits 1" [ "$(rc)" = 1 ]
	check "with one line naming the model and the missing device" \
		sh -c "one_line() { [ \$(wc -l <err.txt) -eq 1 ]; }; one_line && grep -q '^onnxview: .*srcnn.onnx: no CUDA device: ' err.txt"
	diag "$(cat err.txt)"
	run "$SRCNN" --input random --backend cuda --json
	check "--json does not change that (exit 1, nothing on stdout)" sh -c "[ \$(cat rc.txt) = 1 ] && [ ! -s out.txt ]"
	run "$SRCNN" --input random
	check "the CPU still runs in the same build" [ "$(rc)" = 0 ]
	skip "no CUDA device: $reason (the CPU-vs-CUDA comparisons and the CUDA conformance run need one)"
	done_testing
	exit $?
	;;
esac

# ---- a device is present ----
diag "device: $state"
have_python_onnx || { skip "python3 with onnx and numpy is needed to make the op models"; done_testing; exit $?; }

"$PYTHON" - <<'EOF' || { not_ok "the op models could not be made"; done_testing; exit 1; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T

manifest = open("manifest.txt", "w")
F, H, B = T.FLOAT, T.FLOAT16, T.BFLOAT16

def model(name, op, ins, out_shape, attrs=None, inits=(), opset=18, tol="1e-5 1e-6", out_type=None,
          node_inputs=None, more_outs=(), fallbacks=0):
    """ins: [(name, type, shape)], fed with random values (floats in [-1, 1), signed integers in [-5, 5], unsigned
    in [0, 9], bools); inits: [(name, array)] constants; node_inputs: the node's inputs when not ins then inits
    ("" leaves one out); more_outs: [(name, type, shape)], outputs after y, all compared; fallbacks: the nodes
    CUDA must leave to the CPU."""
    vi = helper.make_tensor_value_info
    names = node_inputs if node_inputs is not None else [n for n, _, _ in ins] + [n for n, _ in inits]
    node = helper.make_node(op, names, ["y"] + [n for n, _, _ in more_outs], name="n0", **(attrs or {}))
    ot = out_type if out_type is not None else (ins[0][1] if ins else F)
    outs = [vi("y", ot, out_shape)] + [vi(n, t, sh) for n, t, sh in more_outs]
    nodes, expect = [node], ",".join(["y"] + [n for n, _, _ in more_outs])
    if ot == B:  # .npy cannot hold bfloat16: compare it cast to float32 (on CUDA too)
        nodes.append(helper.make_node("Cast", ["y"], ["yf"], name="to_f32", to=F))
        outs, expect = [vi("yf", F, out_shape)], "yf"
    g = helper.make_graph(nodes, name, [vi(n, t, s) for n, t, s in ins], outs,
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, name + ".onnx")
    # "-" for no inputs: xargs -L would join a line ending in a blank with the next
    manifest.write("%s %s %s %d %s\n" % (name, tol, expect, fallbacks, ",".join(n for n, _, _ in ins) or "-"))

rng = np.random.default_rng(7)
def rnd(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)

# unary ops, in three float types and two shapes
unary = {"Abs": {}, "Neg": {}, "Relu": {}, "Sigmoid": {}, "Tanh": {}, "Exp": {}, "Log": {}, "Sqrt": {},
         "Reciprocal": {}, "Floor": {}, "Ceil": {}, "Round": {}, "Erf": {}, "Sin": {}, "Cos": {}, "Tan": {},
         "Sign": {}, "Softplus": {}, "Softsign": {}, "HardSwish": {}, "Mish": {},
         "HardSigmoid": {"alpha": 0.3, "beta": 0.4}, "LeakyRelu": {"alpha": 0.07}, "Elu": {"alpha": 0.8},
         "Selu": {}, "Celu": {"alpha": 1.5}, "ThresholdedRelu": {"alpha": 0.25}, "Gelu": {}}
for op, a in unary.items():
    for t, tn in ((F, "f32"), (H, "f16"), (B, "bf16")):
        for shape in ([2, 3, 4], [257]):
            model("%s_%s_%d" % (op, tn, len(shape)), op, [("x", t, shape)], shape, a, opset=20)
model("Gelu_tanh_f32", "Gelu", [("x", F, [3, 5])], [3, 5], {"approximate": "tanh"}, opset=20)
model("Clip_f32", "Clip", [("x", F, [4, 5])], [4, 5], inits=[("lo", np.float32(-0.3)), ("hi", np.float32(0.6))],
      opset=13)
model("Clip_min_only", "Clip", [("x", F, [4, 5])], [4, 5], inits=[("lo", np.float32(-0.3))], opset=13)
model("Clip_6", "Clip", [("x", F, [4, 5])], [4, 5], {"min": -0.2, "max": 0.5}, opset=6)

# binary ops with numpy broadcasting
shapes = [([2, 3, 4], [2, 3, 4]), ([2, 3, 4], [4]), ([2, 1, 4], [3, 1]), ([1], [2, 3]), ([], [3, 2]),
          ([2, 3, 4, 5], [2, 1, 4, 1]), ([5, 1, 3], [1, 4, 1])]
def bshape(a, b):
    return list(np.broadcast_shapes(tuple(a), tuple(b)))
for op in ("Add", "Sub", "Mul", "Div", "Pow", "Min", "Max", "Sum", "Mean", "PRelu"):
    for i, (sa, sb) in enumerate(shapes):
        if op == "PRelu" and bshape(sa, sb) != sa:
            continue  # the slope broadcasts to X, not X to the slope
        tol = "1e-5 1e-5" if op in ("Div", "Pow") else "1e-5 1e-6"
        model("%s_%d" % (op, i), op, [("a", F, sa), ("b", F, sb)], bshape(sa, sb), opset=13, tol=tol)
    model("%s_f16" % op, op, [("a", H, [3, 4]), ("b", H, [4])], [3, 4], opset=13, tol="1e-3 1e-3")
model("Pow_f32_f16", "Pow", [("a", F, [3, 4]), ("b", H, [4])], [3, 4], opset=15, tol="1e-5 1e-5")

# MatMul: plain, batched, broadcast batch dims, 1-D on either side; float16 through float32
mm = [([3, 4], [4, 5]), ([2, 3, 4], [4, 5]), ([2, 3, 4], [2, 4, 5]), ([2, 1, 3, 4], [5, 4, 6]),
      ([3, 1, 2, 7], [1, 4, 7, 3]), ([4], [4, 5]), ([3, 4], [4]), ([6], [6]), ([1, 64, 128], [128, 96]),
      ([3, 0], [0, 2])]
for i, (sa, sb) in enumerate(mm):
    ya = sa[:-1] if len(sa) > 1 else []
    yb = sb[:-2] + sb[-1:] if len(sb) > 1 else []
    batch = list(np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-2]))) if len(sa) > 2 or len(sb) > 2 else []
    out = batch + (sa[-2:-1] if len(sa) > 1 else []) + (sb[-1:] if len(sb) > 1 else [])
    model("MatMul_%d" % i, "MatMul", [("a", F, sa), ("b", F, sb)], out, opset=13, tol="1e-4 1e-5")
model("MatMul_f16", "MatMul", [("a", H, [3, 8]), ("b", H, [8, 5])], [3, 5], opset=13, tol="2e-3 2e-3")
model("MatMul_bf16", "MatMul", [("a", B, [3, 8]), ("b", B, [8, 5])], [3, 5], opset=13, tol="1e-2 1e-2")
model("MatMul_weights", "MatMul", [("a", F, [2, 5, 16])], [2, 5, 8], inits=[("w", rnd(16, 8))], opset=13,
      tol="1e-4 1e-5")

# Gemm: transposes, alpha and beta, C broadcast, no C
for i, (ta, tb, al, be, c) in enumerate([(0, 0, 1.0, 1.0, [5]), (1, 0, 0.5, 2.0, [3, 5]), (0, 1, 1.0, 1.0, [3, 1]),
                                          (1, 1, 2.0, 0.5, []), (0, 0, 1.0, 0.0, [5]), (0, 0, 1.5, 1.0, None),
                                          (1, 1, 1.0, 1.0, [1, 5])]):
    ash = [4, 3] if ta else [3, 4]
    bsh = [5, 4] if tb else [4, 5]
    ins = [("a", F, ash), ("b", F, bsh)] + ([("c", F, c)] if c is not None else [])
    model("Gemm_%d" % i, "Gemm", ins, [3, 5], {"transA": ta, "transB": tb, "alpha": al, "beta": be}, opset=13,
          tol="1e-4 1e-5")
model("Gemm_weights", "Gemm", [("a", F, [2, 32])], [2, 10], {"transB": 1},
      inits=[("w", rnd(10, 32)), ("bias", rnd(10))], opset=13, tol="1e-4 1e-5")

# Conv: pads (symmetric, asymmetric), strides, dilations, groups, depthwise, bias, auto_pad, 1-D, 1x1
convs = [
    ("plain", [1, 3, 9, 9], [4, 3, 3, 3], {}, True),
    ("pads", [2, 3, 9, 8], [4, 3, 3, 3], {"pads": [1, 1, 1, 1]}, True),
    ("asym", [1, 2, 7, 9], [3, 2, 3, 2], {"pads": [0, 1, 2, 0]}, True),
    ("strides", [1, 3, 11, 10], [5, 3, 3, 3], {"strides": [2, 3], "pads": [1, 0, 1, 2]}, True),
    ("dilations", [1, 2, 12, 12], [3, 2, 3, 3], {"dilations": [2, 3], "pads": [2, 2, 2, 2]}, False),
    ("groups", [2, 6, 8, 8], [4, 3, 3, 3], {"group": 2, "pads": [1, 1, 1, 1]}, True),
    ("depthwise", [1, 8, 10, 10], [8, 1, 3, 3], {"group": 8, "pads": [1, 1, 1, 1]}, True),
    ("same_upper", [1, 3, 7, 8], [2, 3, 2, 4], {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, True),
    ("same_lower", [1, 3, 7, 8], [2, 3, 2, 4], {"auto_pad": "SAME_LOWER"}, False),
    ("valid", [1, 3, 7, 8], [2, 3, 3, 3], {"auto_pad": "VALID"}, True),
    ("pointwise", [2, 16, 6, 6], [8, 16, 1, 1], {}, True),
    ("1d", [2, 3, 20], [4, 3, 5], {"pads": [2, 1], "strides": [2]}, True),
    ("big", [1, 32, 28, 28], [64, 32, 3, 3], {"pads": [1, 1, 1, 1]}, True),
    ("3d", [1, 2, 5, 6, 7], [3, 2, 3, 2, 3], {"pads": [1, 0, 1, 1, 1, 1], "strides": [1, 2, 2]}, True),
    ("3d_groups", [2, 4, 4, 5, 3], [4, 2, 2, 3, 1], {"group": 2, "dilations": [2, 1, 1]}, False),
]
for name, xs, ws, a, bias in convs:
    inits = [("w", rnd(*ws))] + ([("bias", rnd(ws[0]))] if bias else [])
    sp = len(xs) - 2
    pads = a.get("pads", [0] * 2 * sp)
    st, di = a.get("strides", [1] * sp), a.get("dilations", [1] * sp)
    out = [xs[0], ws[0]]
    for i in range(sp):
        ek = (ws[2 + i] - 1) * di[i] + 1
        if a.get("auto_pad", "NOTSET").startswith("SAME"):
            out.append(-(-xs[2 + i] // st[i]))
        elif a.get("auto_pad") == "VALID":
            out.append((xs[2 + i] - ek) // st[i] + 1)
        else:
            out.append((xs[2 + i] + pads[i] + pads[sp + i] - ek) // st[i] + 1)
    model("Conv_" + name, "Conv", [("x", F, xs)], out, a, inits, opset=13, tol="1e-4 1e-4")
model("Conv_f16", "Conv", [("x", H, [1, 2, 6, 6])], [1, 3, 6, 6], {"pads": [1, 1, 1, 1]},
      [("w", rnd(3, 2, 3, 3).astype(np.float16))], opset=13, tol="2e-3 2e-3")

# ConvTranspose (cuDNN's backward-data pass, cropped): strides, pads (asymmetric), output_padding, output_shape,
# auto_pad, dilations, groups, bias, 1-D
convts = [
    ("plain", [1, 3, 5, 5], [3, 2, 3, 3], {}, True),
    ("strides", [2, 2, 4, 5], [2, 3, 3, 2], {"strides": [2, 3]}, True),
    ("pads", [1, 2, 6, 6], [2, 4, 3, 3], {"strides": [2, 2], "pads": [1, 0, 2, 1]}, True),
    ("output_padding", [1, 2, 4, 4], [2, 3, 3, 3], {"strides": [3, 2], "output_padding": [2, 1]}, False),
    ("output_shape", [1, 2, 3, 3], [2, 2, 3, 3], {"strides": [3, 2], "output_shape": [10, 8]}, True),
    ("same_upper", [1, 2, 4, 5], [2, 2, 3, 3], {"strides": [2, 2], "auto_pad": "SAME_UPPER"}, True),
    ("same_lower", [1, 2, 4, 5], [2, 2, 4, 2], {"strides": [2, 3], "auto_pad": "SAME_LOWER"}, False),
    ("dilations", [1, 2, 5, 4], [2, 3, 3, 2], {"dilations": [2, 3], "pads": [1, 1, 1, 1]}, True),
    ("groups", [2, 4, 4, 4], [4, 3, 3, 3], {"group": 2, "strides": [2, 2], "pads": [1, 1, 1, 1]}, True),
    ("depthwise", [1, 6, 5, 5], [6, 1, 2, 2], {"group": 6, "strides": [2, 2]}, True),
    ("1d", [2, 3, 7], [3, 2, 4], {"strides": [2], "pads": [1, 2]}, True),
    ("big", [1, 32, 14, 14], [32, 16, 4, 4], {"strides": [2, 2], "pads": [1, 1, 1, 1]}, True),
    ("3d", [1, 2, 3, 4, 3], [2, 3, 2, 3, 2], {"strides": [2, 1, 2], "pads": [0, 1, 1, 1, 0, 0]}, True),
]
for name, xs, ws, a, bias in convts:
    m = ws[1] * a.get("group", 1)
    inits = [("w", rnd(*ws))] + ([("bias", rnd(m))] if bias else [])
    model("ConvTranspose_" + name, "ConvTranspose", [("x", F, xs)], None, a, inits, opset=13, tol="1e-4 1e-4")
model("ConvTranspose_f16", "ConvTranspose", [("x", H, [1, 2, 4, 4])], None, {"strides": [2, 2]},
      [("w", rnd(2, 3, 3, 3).astype(np.float16))], opset=13, tol="2e-3 2e-3")

# pooling
pools = [
    ("MaxPool", "k3s2", [1, 3, 9, 9], {"kernel_shape": [3, 3], "strides": [2, 2]}),
    ("MaxPool", "pads", [2, 2, 8, 7], {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1]}),
    ("MaxPool", "ceil", [1, 2, 8, 8], {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ("MaxPool", "dil", [1, 2, 10, 10], {"kernel_shape": [2, 2], "dilations": [2, 2]}),
    ("MaxPool", "same", [1, 2, 7, 7], {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER"}),
    ("MaxPool", "1d", [2, 3, 15], {"kernel_shape": [4], "strides": [3], "pads": [1, 2]}),
    ("MaxPool", "3d", [1, 2, 5, 6, 7], {"kernel_shape": [2, 3, 2], "strides": [1, 2, 2]}),
    ("AveragePool", "k3s2", [1, 3, 9, 9], {"kernel_shape": [3, 3], "strides": [2, 2]}),
    ("AveragePool", "pads", [2, 2, 8, 7], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    ("AveragePool", "include_pad", [2, 2, 8, 7], {"kernel_shape": [3, 3], "pads": [1, 2, 1, 0],
                                                 "count_include_pad": 1}),
    ("AveragePool", "ceil", [1, 2, 8, 8], {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1,
                                           "pads": [1, 1, 1, 1], "count_include_pad": 1}),
    ("AveragePool", "3d", [1, 2, 5, 6, 7], {"kernel_shape": [3, 2, 2], "pads": [1, 0, 1, 1, 1, 0]}),
]
import math
for op, name, xs, a in pools:
    sp = len(xs) - 2
    k, st = a["kernel_shape"], a.get("strides", [1] * sp)
    di, pads = a.get("dilations", [1] * sp), a.get("pads", [0] * 2 * sp)
    out = xs[:2]
    for i in range(sp):
        ek = (k[i] - 1) * di[i] + 1
        if a.get("auto_pad", "NOTSET").startswith("SAME"):
            out.append(-(-xs[2 + i] // st[i]))
            continue
        span = xs[2 + i] + pads[i] + pads[sp + i] - ek
        o = (-(-span // st[i]) if a.get("ceil_mode") else span // st[i]) + 1
        if a.get("ceil_mode") and (o - 1) * st[i] >= xs[2 + i] + pads[i]:
            o -= 1
        out.append(o)
    model("%s_%s" % (op, name), op, [("x", F, xs)], out, a, opset=19)
    model("%s_%s_f16" % (op, name), op, [("x", H, xs)], out, a, opset=19, tol="1e-3 1e-3")
for op in ("GlobalAveragePool", "GlobalMaxPool"):
    for i, xs in enumerate(([2, 3, 5, 5], [1, 4, 300, 7], [2, 2, 9], [1, 3, 1, 1])):
        model("%s_%d" % (op, i), op, [("x", F, xs)], xs[:2] + [1] * (len(xs) - 2), opset=13)

# Resize and Upsample: every mode, coordinate transformation and nearest mode, roi with extrapolation, scales and
# sizes, axes and keep_aspect_ratio_policy, antialias, ranks 1 to 5, float16 and bfloat16, the older forms (Resize
# 10, 11, 13; Upsample 7, 9), and scales computed on the device.  Both backends plan on the host with the same code
# and compute each element with the same functions, so they must agree exactly (tolerance 0).
def resize_shape(xs, scales=None, sizes=None, axes=None, policy="stretch"):
    axes = [a % len(xs) for a in (axes if axes is not None else range(len(xs)))]
    out = list(xs)
    if sizes is not None and policy != "stretch":
        ratios = [sizes[i] / xs[a] for i, a in enumerate(axes)]
        s = min(ratios) if policy == "not_larger" else max(ratios)
        for a in axes:
            out[a] = int(round(s * xs[a]))
    elif sizes is not None:
        for i, a in enumerate(axes):
            out[a] = sizes[i]
    else:
        for i, a in enumerate(axes):
            out[a] = xs[a] if scales[i] == 1 else int(math.floor(xs[a] * float(np.float32(scales[i])) + 1e-9))
    return out
def resize(name, xs, a=None, roi=None, scales=None, sizes=None, opset=19, t=F, op="Resize"):
    a = dict(a or {})
    out = resize_shape(xs, scales, sizes, a.get("axes"), a.get("keep_aspect_ratio_policy", "stretch"))
    f32 = lambda v: np.array(v, np.float32)
    inits, names = [], ["x"]
    if op == "Upsample" and opset < 9:
        a["scales"] = scales
    elif op == "Upsample" or opset < 11:
        inits, names = [("scales", f32(scales))], ["x", "scales"]
    else:
        # Resize-11 needs roi and scales, empty when unused; later ones take "" for what is left out
        for n, v in (("roi", roi), ("scales", scales), ("sizes", sizes)):
            if v is not None:
                inits.append((n, np.array(v, np.int64) if n == "sizes" else f32(v)))
                names.append(n)
            elif opset == 11 and n != "sizes":
                inits.append((n, f32([])))
                names.append(n)
            else:
                names.append("")
        while names[-1] == "":
            names.pop()
    model("%s_%s" % (op, name), op, [("x", t, xs)], out, a, inits, opset=opset, tol="0 0", node_inputs=names)
up, down = [1, 1, 2, 3], [1, 1, 0.6, 0.5]
coords = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
          "tf_half_pixel_for_nn")
for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
    for c in coords:
        for d, sc in (("up", up), ("down", down)):
            resize("nearest_%s_%s_%s" % (nm, c, d), [1, 2, 4, 5], {"mode": "nearest", "nearest_mode": nm,
                   "coordinate_transformation_mode": c}, scales=sc)
for mode in ("linear", "cubic"):
    for c in coords:
        for d, sc in (("up", up), ("down", down)):
            resize("%s_%s_%s" % (mode, c, d), [2, 3, 5, 7], {"mode": mode, "coordinate_transformation_mode": c},
                   scales=sc)
        resize("%s_%s_sizes" % (mode, c), [1, 2, 5, 6], {"mode": mode, "coordinate_transformation_mode": c},
               sizes=[1, 2, 8, 4])
    for d, sc in (("up", up), ("down", [1, 1, 0.5, 0.3])):
        resize("%s_antialias_%s" % (mode, d), [1, 2, 9, 10], {"mode": mode, "antialias": 1}, scales=sc)
    resize("%s_antialias_sizes" % mode, [1, 2, 16, 12], {"mode": mode, "antialias": 1}, sizes=[1, 2, 5, 7])
    # tf_crop_and_resize: a crop inside, then one reaching outside the input (extrapolation_value)
    crop = {"mode": mode, "coordinate_transformation_mode": "tf_crop_and_resize"}
    resize("%s_crop" % mode, [1, 2, 6, 7], crop, roi=[0, 0, 0.2, 0.3, 1, 1, 0.8, 0.9], sizes=[1, 2, 5, 4])
    resize("%s_crop_extrapolate" % mode, [1, 2, 6, 7], dict(crop, extrapolation_value=7.5),
           roi=[0, 0, -0.3, 0.1, 1, 1, 0.7, 1.4], sizes=[1, 2, 6, 8])
    resize("%s_crop_axes" % mode, [2, 5, 6], dict(crop, axes=[2, 1], extrapolation_value=-2.0),
           roi=[0.1, -0.2, 1.3, 0.9], sizes=[9, 3])
    resize("%s_3d" % mode, [2, 3, 7], {"mode": mode}, scales=[1, 1, 2.5])
    resize("%s_5d" % mode, [1, 2, 3, 4, 5], {"mode": mode}, scales=[1, 1, 2, 0.5, 1.5])
    resize("%s_1d" % mode, [9], {"mode": mode}, sizes=[14])
    resize("%s_2d_both" % mode, [5, 6], {"mode": mode, "coordinate_transformation_mode": "align_corners"},
           scales=[1.6, 0.5])
    resize("%s_unit_inner" % mode, [2, 3, 5, 1], {"mode": mode}, scales=[1, 1, 1.6, 1])  # stride 1 off the last axis
    resize("%s_identity" % mode, [1, 2, 3, 4], {"mode": mode}, scales=[1, 1, 1, 1])
    resize("%s_f16" % mode, [1, 2, 5, 6], {"mode": mode}, scales=up, t=H)
    resize("%s_bf16" % mode, [1, 2, 5, 6], {"mode": mode}, scales=down, t=B)
    resize("%s_big" % mode, [1, 3, 32, 32], {"mode": mode}, scales=[1, 1, 2, 2])
for A, ex in ((-0.5, 1), (-0.5, 0), (-0.75, 1)):
    for d, sc in (("up", up), ("down", down)):
        resize("cubic_A%g_ex%d_%s" % (-A, ex, d), [1, 2, 6, 7], {"mode": "cubic", "cubic_coeff_a": A,
               "exclude_outside": ex}, scales=sc)
resize("nearest_crop_extrapolate", [1, 2, 6, 7], {"coordinate_transformation_mode": "tf_crop_and_resize",
       "extrapolation_value": 3.25}, roi=[0, 0, -0.3, 0.1, 1, 1, 0.7, 1.4], sizes=[1, 2, 6, 8])
resize("nearest_5d", [1, 2, 3, 4, 5], {"mode": "nearest"}, scales=[1, 2, 2, 0.5, 1.5])
resize("nearest_3d", [2, 3, 7], {"mode": "nearest", "nearest_mode": "ceil"}, sizes=[2, 5, 11])
resize("nearest_f16", [1, 2, 5, 6], {}, scales=up, t=H)
resize("nearest_bf16", [1, 2, 5, 6], {}, scales=down, t=B)
# axes and keep_aspect_ratio_policy (18+)
for pol in ("stretch", "not_larger", "not_smaller"):
    resize("sizes_%s" % pol, [1, 2, 6, 9], {"mode": "linear", "keep_aspect_ratio_policy": pol}, sizes=[1, 2, 8, 8])
    resize("axes_%s" % pol, [1, 2, 6, 9], {"mode": "nearest", "axes": [3, 2], "keep_aspect_ratio_policy": pol},
           sizes=[4, 10])
resize("axes_scales", [1, 3, 4, 5], {"mode": "cubic", "axes": [-1, 1]}, scales=[1.5, 0.7])
resize("axes_18", [1, 3, 4, 5], {"mode": "linear", "axes": [2]}, scales=[2.5], opset=18)
# the older forms
resize("10_nearest_up", [1, 2, 3, 4], {"mode": "nearest"}, scales=up, opset=10)
resize("10_nearest_down", [1, 2, 5, 7], {"mode": "nearest"}, scales=down, opset=10)
resize("10_linear", [1, 2, 3, 4], {"mode": "linear"}, scales=[1, 1, 2.5, 0.75], opset=10)
resize("11_linear", [1, 2, 3, 4], {"mode": "linear"}, scales=up, opset=11)
resize("11_cubic_sizes", [1, 2, 3, 4], {"mode": "cubic"}, sizes=[1, 2, 7, 5], opset=11)
resize("11_crop", [1, 2, 6, 7], {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize"},
       roi=[0, 0, 0.2, 0.3, 1, 1, 0.8, 0.9], sizes=[1, 2, 4, 4], opset=11)
resize("13_nearest_sizes", [1, 2, 3, 4], {"mode": "nearest", "nearest_mode": "floor"}, sizes=[1, 2, 7, 9],
       opset=13)
resize("13_linear", [1, 2, 3, 4], {"mode": "linear"}, scales=down, opset=13)
resize("7_nearest", [1, 2, 3, 4], {"mode": "nearest"}, scales=[1.0, 1.0, 2.0, 3.0], opset=7, op="Upsample")
resize("7_linear", [1, 2, 3, 4], {"mode": "linear"}, scales=[1.0, 1.0, 2.0, 1.5], opset=7, op="Upsample")
resize("9_nearest", [1, 2, 3, 4], {"mode": "nearest"}, scales=[1, 1, 2, 3], opset=9, op="Upsample")
resize("9_bilinear", [1, 2, 3, 4], {"mode": "linear"}, scales=[1, 1, 2, 2.5], opset=9, op="Upsample")
# scales computed by a node the device runs: Resize reads them on the host (cu_host)
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("Add", ["s0", "s1"], ["sc"], name="n0"),
                       helper.make_node("Resize", ["x", "", "sc"], ["y"], name="n1", mode="linear")],
                      "dev_scales", [vi("x", F, [1, 2, 4, 5])], [vi("y", F, [1, 2, 8, 7])],
                      [numpy_helper.from_array(np.array(v, np.float32), n)
                       for n, v in (("s0", [0.5, 0.5, 1, 1]), ("s1", [0.5, 0.5, 1, 0.5]))])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
m.ir_version = 8
onnx.save(m, "Resize_device_scales.onnx")
manifest.write("Resize_device_scales 0 0 y 0 x\n")
# integer images, which the CUDA kernels decline: the CPU runs them (one fallback each)
for t, tn, mode in ((T.UINT8, "u8", "nearest"), (T.INT32, "i32", "linear")):
    g = helper.make_graph([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="n0", mode=mode)],
                          "int_resize", [vi("x", t, [1, 2, 3, 4])], [vi("y", t, [1, 2, 6, 8])],
                          [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 8
    onnx.save(m, "Resize_%s_declined.onnx" % tn)
    manifest.write("Resize_%s_declined 0 0 y 1 x\n" % tn)

# Softmax and LogSoftmax: one axis (13) and the 2-D coercion before it
for op in ("Softmax", "LogSoftmax"):
    for i, (xs, a, ops) in enumerate((([3, 7], {}, 13), ([2, 3, 4], {"axis": 1}, 13), ([2, 3, 4], {"axis": 0}, 13),
                                      ([2, 3, 4], {}, 11), ([2, 3, 4], {"axis": 2}, 11),
                                      ([4, 1000], {}, 13))):
        model("%s_%d" % (op, i), op, [("x", F, xs)], xs, a, opset=ops, tol="1e-5 1e-6")
    model("%s_f16" % op, op, [("x", H, [3, 9])], [3, 9], opset=13, tol="1e-3 1e-3")

# ---- data movement (cuda/shape.cu): any element type, moved whole ----
I64, I32, I8, U8, BOOL, D = T.INT64, T.INT32, T.INT8, T.UINT8, T.BOOL, T.DOUBLE
tn = {F: "f32", H: "f16", B: "bf16", D: "f64", I64: "i64", I32: "i32", I8: "i8", U8: "u8", BOOL: "bool"}
def i64(*v):
    return np.array(v, dtype=np.int64)

for t in (F, H, I64, BOOL, D):
    model("Identity_" + tn[t], "Identity", [("x", t, [2, 3, 4])], [2, 3, 4], opset=16)
model("Identity_empty", "Identity", [("x", F, [2, 0, 3])], [2, 0, 3], opset=16)

# Reshape: -1 inferred, 0 copied, to a scalar, allowzero, and Reshape-1's attribute
reshapes = [("infer", [2, 3, 4], i64(4, -1), [4, 6], {}), ("zero", [2, 3, 4], i64(0, -1, 2), [2, 6, 2], {}),
            ("scalar", [1, 1], i64(), [], {}), ("to5d", [6, 4], i64(1, 2, 3, 2, 2), [1, 2, 3, 2, 2], {}),
            ("allowzero", [0, 3], i64(3, 0), [3, 0], {"allowzero": 1})]
for name, xs, shape, out, a in reshapes:
    for t in (F, I64):
        model("Reshape_%s_%s" % (name, tn[t]), "Reshape", [("x", t, xs)], out, a, [("shape", shape)], opset=14)
model("Reshape_1", "Reshape", [("x", F, [2, 3, 4])], [6, 4], {"shape": [6, 4]}, opset=1)

# Flatten at the first, a middle and the last axis (negative too)
for i, (xs, axis, out) in enumerate((([2, 3, 4, 5], 2, [6, 20]), ([2, 3, 4, 5], 0, [1, 120]),
                                     ([2, 3, 4, 5], -1, [24, 5]), ([3], 1, [3, 1]))):
    model("Flatten_%d" % i, "Flatten", [("x", F, xs)], out, {"axis": axis}, opset=13)
model("Flatten_f16", "Flatten", [("x", H, [2, 3, 4])], [2, 12], opset=13)

# Squeeze, Unsqueeze: axes as an attribute (before 13) and as an input, negative axes, no axes
model("Squeeze_all", "Squeeze", [("x", F, [1, 3, 1, 4])], [3, 4], opset=13)
model("Squeeze_axes", "Squeeze", [("x", I64, [1, 3, 1, 4])], [1, 3, 4], inits=[("axes", i64(-2))], opset=13)
model("Squeeze_11", "Squeeze", [("x", F, [1, 3, 1, 4])], [3, 1, 4], {"axes": [0]}, opset=11)
model("Unsqueeze_neg", "Unsqueeze", [("x", F, [3, 4])], [3, 1, 4, 1], inits=[("axes", i64(-1, 1))], opset=13)
model("Unsqueeze_scalar", "Unsqueeze", [("x", I64, [])], [1], inits=[("axes", i64(0))], opset=13)
model("Unsqueeze_11", "Unsqueeze", [("x", H, [3, 4])], [1, 3, 4], {"axes": [0]}, opset=11)

# Transpose: the default (reversed) perm, ranks 1 to 6, every element size
transposes = [([5], None), ([3, 7], None), ([2, 3, 4], [1, 0, 2]), ([2, 3, 4, 5], [0, 2, 3, 1]),
              ([2, 1, 3, 2, 4], [4, 2, 0, 3, 1]), ([2, 2, 1, 3, 2, 2], [5, 4, 3, 2, 1, 0]), ([33, 65], [1, 0])]
for i, (xs, perm) in enumerate(transposes):
    out = [xs[p] for p in perm] if perm else xs[::-1]
    model("Transpose_%d" % i, "Transpose", [("x", F, xs)], out, {"perm": perm} if perm else {}, opset=13)
# only axes of length 1 move (a reshape: no copy when the node may take its input): torch's batch-of-1 swaps
for i, (xs, perm) in enumerate([([1, 6, 5], [1, 0, 2]), ([6, 1, 5], [1, 0, 2]), ([1, 4, 1, 3], [2, 1, 3, 0]),
                                ([1, 1], [1, 0])]):
    model("Transpose_keep%d" % i, "Transpose", [("x", F, xs)], [xs[p] for p in perm], {"perm": perm}, opset=13)
for t in (H, I64, BOOL, I8, D):
    model("Transpose_" + tn[t], "Transpose", [("x", t, [2, 3, 4])], [4, 2, 3], {"perm": [2, 0, 1]}, opset=13)

# Concat: first, middle and last axes (negative too), an empty input, three inputs, a constant one
concats = [([2, 3], [4, 3], 0), ([2, 3, 4], [2, 5, 4], 1), ([2, 3, 4], [2, 3, 1], -1), ([2, 0, 4], [2, 3, 4], 1)]
for i, (sa, sb, axis) in enumerate(concats):
    out = list(sa)
    out[axis] += sb[axis]
    model("Concat_%d" % i, "Concat", [("a", F, sa), ("b", F, sb)], out, {"axis": axis}, opset=13)
model("Concat_3in", "Concat", [("a", I64, [2, 1]), ("b", I64, [2, 2]), ("c", I64, [2, 3])], [2, 6], {"axis": 1},
      opset=13)
model("Concat_f16_const", "Concat", [("a", H, [3, 2])], [5, 2], {"axis": 0},
      [("b", rnd(2, 2).astype(np.float16))], opset=13)

# Slice: every opset-10 input, negative steps, clamped and negative starts and ends, an empty result; Slice-1
big = np.iinfo(np.int64).max
slices = [("basic", [5, 6], i64(1, 0), i64(4, 6), None, None, [3, 6]),
          ("axes", [5, 6, 7], i64(2, -5), i64(big, -1), i64(-1, 1), None, [5, 5, 5]),
          ("steps", [10, 8], i64(1, 7), i64(9, 0), None, i64(3, -2), [3, 4]),
          ("reverse", [6], i64(-1), i64(-big), None, i64(-1), [6]),
          ("negstep3", [4, 9], i64(8), i64(-100), i64(1), i64(-3), [4, 3]),
          ("empty", [5, 4], i64(3), i64(1), i64(0), None, [0, 4]),
          ("clamp", [3, 4], i64(-100, 2), i64(100, 100), i64(0, 1), i64(1, 5), [3, 1])]
for name, xs, st, en, ax, sp, out in slices:
    inits = [("starts", st), ("ends", en)] + [(n, v) for n, v in (("axes", ax), ("steps", sp)) if v is not None]
    names = ["x", "starts", "ends", "axes" if ax is not None else ""] + (["steps"] if sp is not None else [])
    model("Slice_" + name, "Slice", [("x", F, xs)], out, inits=inits, node_inputs=names, opset=13)
model("Slice_i64", "Slice", [("x", I64, [4, 5])], [2, 5], inits=[("s", i64(1)), ("e", i64(3))], opset=13)
model("Slice_1", "Slice", [("x", H, [4, 5])], [4, 2], {"starts": [1], "ends": [3], "axes": [1]}, opset=1)

# Split: sizes as an input (13) or an attribute (11), equal parts, a smaller last part (num_outputs, 18), a
# part of 0
splits = [("input", F, [6, 4], 0, [1, 2, 3], 13), ("attr", F, [2, 7], 1, [3, 4], 11),
          ("equal", F, [2, 3, 6], -1, None, 13), ("uneven", F, [7, 2], 0, None, 18), ("i64", I64, [3, 4], 1, [1, 0, 3], 13)]
for name, t, xs, axis, sizes, ops in splits:
    parts = sizes or ([3, 3, 1] if name == "uneven" else [2, 2, 2])
    shapes = [[p if i == axis % len(xs) else d for i, d in enumerate(xs)] for p in parts]
    a, inits = {"axis": axis}, []
    if sizes and ops >= 13:
        inits = [("split", i64(*sizes))]
    elif sizes:
        a["split"] = sizes
    if ops >= 18:
        a["num_outputs"] = len(parts)
    model("Split_" + name, "Split", [("x", t, xs)], shapes[0], a, inits, opset=ops,
          more_outs=[("y%d" % i, t, s) for i, s in enumerate(shapes[1:], 1)])

# Gather: any axis, random indices in [-5, 5] (the negative ones count from the end), int32 and scalar indices
# (up to 8 indices go to the kernel as an argument, more through a buffer: [3, 4] takes that way)
gathers = [([7, 3], 0, [4]), ([2, 8, 3], 1, [2, 3]), ([3, 6], -1, [5]), ([6, 2, 2], 0, []), ([2, 9, 2], 1, [3, 4])]
for i, (xs, axis, ids) in enumerate(gathers):
    a = axis % len(xs)
    model("Gather_%d" % i, "Gather", [("x", F, xs), ("i", I64, ids)], xs[:a] + ids + xs[a + 1:], {"axis": axis},
          opset=13)
model("Gather_i32", "Gather", [("x", I64, [5, 4])], [2, 2, 4],
      inits=[("i", np.array([[0, -1], [4, -5]], dtype=np.int32))], opset=13)
model("Gather_f16", "Gather", [("x", H, [3, 10])], [3, 3], {"axis": 1}, [("i", i64(9, -10, 0))], opset=13)

# Expand, Tile, Where
model("Expand_0", "Expand", [("x", F, [3, 1])], [2, 3, 4], inits=[("shape", i64(2, 1, 4))], opset=13)
model("Expand_1", "Expand", [("x", I64, [1, 4])], [3, 4], inits=[("shape", i64(3, 1))], opset=13)
model("Expand_2", "Expand", [("x", H, [2, 1, 1])], [2, 2, 3], inits=[("shape", i64(2, 3))], opset=13)
model("Tile_0", "Tile", [("x", F, [2, 3])], [4, 9], inits=[("r", i64(2, 3))], opset=13)
model("Tile_1", "Tile", [("x", I64, [2, 1, 3])], [2, 4, 3], inits=[("r", i64(1, 4, 1))], opset=13)
model("Tile_empty", "Tile", [("x", F, [2, 3])], [0, 3], inits=[("r", i64(0, 1))], opset=13)
for i, (sc, sx, sy) in enumerate((([2, 3], [2, 3], [2, 3]), ([3, 1], [1, 4], [4]), ([4], [2, 1, 4], []))):
    out = list(np.broadcast_shapes(tuple(sc), tuple(sx), tuple(sy)))
    model("Where_%d" % i, "Where", [("c", BOOL, sc), ("a", F, sx), ("b", F, sy)], out, opset=16)
model("Where_i64", "Where", [("c", BOOL, [3, 4]), ("a", I64, [3, 4]), ("b", I64, [1])], [3, 4], opset=16)

# Pad: constant (with a value; negative pads crop), reflect (a single element too), edge, wrap; opset 2's
# attributes; axes (18); float16; an empty input padded with the constant
pads = [("constant", [3, 4], i64(1, 2, 0, 1), [4, 7], "constant"),
        ("crop", [5, 6], i64(-1, 2, 1, -3), [5, 5], "constant"),
        ("reflect", [3, 4], i64(2, 3, 1, 3), [6, 10], "reflect"),
        ("reflect1", [1, 5], i64(0, 1, 2, 1), [3, 7], "reflect"),
        ("edge", [2, 3, 4], i64(0, 1, 2, 1, 0, 3), [3, 4, 9], "edge"),
        ("wrap", [3, 4], i64(2, 5, 1, 0), [6, 9], "wrap")]
for name, xs, p, out, mode in pads:
    inits = [("pads", p)] + ([("value", np.float32(0.75))] if mode == "constant" else [])
    model("Pad_" + name, "Pad", [("x", F, xs)], out, {"mode": mode}, inits, opset=19)
model("Pad_2", "Pad", [("x", F, [2, 3])], [3, 6], {"pads": [1, 1, 0, 2], "value": -2.0}, opset=2)
model("Pad_axes", "Pad", [("x", I64, [2, 3, 4])], [2, 5, 4], inits=[("pads", i64(1, 1)), ("axes", i64(-2))],
      node_inputs=["x", "pads", "", "axes"], opset=18)
model("Pad_f16", "Pad", [("x", H, [2, 3])], [2, 5], inits=[("pads", i64(0, 1, 0, 1)), ("v", np.float16(1.5))],
      opset=13)
model("Pad_empty_in", "Pad", [("x", F, [0, 3])], [2, 3], inits=[("pads", i64(1, 0, 1, 0))], opset=13)

# Cast: random values, then the values where the rules show (NaN, infinities, out of range, halves, -0, big
# integers that float rounds)
casts = [(F, I32), (F, I64), (F, I8), (F, U8), (F, BOOL), (F, H), (F, B), (F, D), (H, F), (H, I64), (I64, F),
         (I64, I32), (I64, H), (I32, I8), (BOOL, F), (BOOL, I64), (U8, F), (I8, I64), (D, F)]
for a, b in casts:
    model("Cast_%s_%s" % (tn[a], tn[b]), "Cast", [("x", a, [3, 5])], [3, 5], {"to": b}, opset=19, out_type=b)
special = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 3.7, -3.7, 2.5, -2.5, -0.0, 300.0, -129.0, 255.5,
                    65504.0, 65520.0, 7e4, 1e-8, 3e38, 2147483648.0, -9.3e18], dtype=np.float32)
for b in (I64, I32, I8, U8, BOOL, H, B, D):
    model("Cast_special_" + tn[b], "Cast", [], [special.size], {"to": b}, [("x", special)], opset=19, out_type=b)
big_ints = np.array([0, 1, -1, 2**24 + 1, -(2**31), 2**31 - 1, 2**53 + 1, 2**62 + 2**40 + 1, -(2**63), 300, -129],
                    dtype=np.int64)
for b in (F, H, B, I32, I8, U8, BOOL, D):
    model("Cast_ints_" + tn[b], "Cast", [], [big_ints.size], {"to": b}, [("x", big_ints)], opset=19, out_type=b)

# Shape (start and end from 15) and Size: the dims alone
model("Shape_0", "Shape", [("x", F, [2, 3, 4])], [3], opset=13, out_type=I64)
model("Shape_1", "Shape", [("x", H, [2, 3, 4, 5])], [2], {"start": 1, "end": -1}, opset=15, out_type=I64)
model("Shape_2", "Shape", [("x", I64, [2, 3])], [0], {"start": 5}, opset=15, out_type=I64)
model("Size_0", "Size", [("x", F, [2, 3, 4])], [], opset=13, out_type=I64)
model("Size_1", "Size", [("x", BOOL, [2, 0])], [], opset=13, out_type=I64)

# ---- reductions (cuda/reduce.cu) ----
# axes as an attribute (before 13 for ReduceSum, before 18 for the others) and as an input, keepdims, every
# axis, float16, an empty axis (each op's empty result), noop_with_empty_axes; integer forms
def reduced(xs, axes, keep):
    axes = [a % len(xs) for a in axes] if axes else list(range(len(xs)))
    return [1 if i in axes else d for i, d in enumerate(xs) if keep or i not in axes]

rcases = [([3, 4, 5], [1], 1), ([3, 4, 5], [-1, 0], 0), ([2, 3, 4, 5], [1, 3], 1), ([6, 7], None, 0), ([9], [0], 1)]
for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
           "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"):
    for i, (xs, axes, keep) in enumerate(rcases):
        out = reduced(xs, axes, keep)
        a = {"keepdims": keep, "axes": axes} if axes else {"keepdims": keep}
        model("%s_attr_%d" % (op, i), op, [("x", F, xs)], out, a, opset=12)
        model("%s_input_%d" % (op, i), op, [("x", F, xs)], out, {"keepdims": keep},
              [("axes", i64(*axes))] if axes else [], opset=18)
    model(op + "_f16", op, [("x", H, [4, 6])], [4, 1], {}, [("axes", i64(1))], opset=18, tol="1e-3 1e-3")
    model(op + "_empty_axis", op, [("x", F, [2, 0, 3])], [2, 1, 3], {}, [("axes", i64(1))], opset=18)
    model(op + "_noop", op, [("x", F, [3, 4])], [3, 4], {"noop_with_empty_axes": 1}, [("axes", i64())], opset=18)
model("ReduceSum_scalar", "ReduceSum", [("x", F, [])], [], {}, opset=13)
for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceSumSquare"):
    for t in (I64, I32):
        model("%s_%s" % (op, tn[t]), op, [("x", t, [3, 4, 5])], [3, 5], {"keepdims": 0}, [("axes", i64(1))],
              opset=18)
model("ReduceMax_i64_empty", "ReduceMax", [("x", I64, [3, 0])], [3], {"keepdims": 0}, [("axes", i64(1))], opset=18)

# ArgMax, ArgMin: axes, keepdims, select_last_index (integers in [-5, 5] tie often)
args = [(F, [3, 4, 5], 1, 1, 0), (F, [3, 4, 5], -1, 0, 1), (I64, [6, 7], 0, 1, 0), (I64, [6, 7], 1, 0, 1),
        (H, [5, 9], 1, 1, 0), (I32, [2, 3, 8], 2, 1, 1), (D, [4, 3], 0, 0, 0)]
for op in ("ArgMax", "ArgMin"):
    for i, (t, xs, axis, keep, last) in enumerate(args):
        out = [1 if j == axis % len(xs) else d for j, d in enumerate(xs) if keep or j != axis % len(xs)]
        model("%s_%d" % (op, i), op, [("x", t, xs)], out,
              {"axis": axis, "keepdims": keep, "select_last_index": last}, opset=13, out_type=I64)

# ---- normalisations (cuda/norm.cu) ----
# LayerNormalization: the last axis, several axes, Scale broadcast, with and without B, Mean and InvStdDev (in
# float32 and float64), float16 and float64 inputs
lns = [("last", [2, 3, 8], -1, [8], True, 1), ("axis1", [2, 3, 4], 1, [3, 4], True, 1),
       ("nob", [4, 6], -1, [6], False, 1), ("stash64", [3, 5], 1, [5], True, 11),
       ("bcast", [2, 3, 4], 1, [1, 4], True, 1)]
for name, xs, axis, ss, bias, stash in lns:
    inits = [("scale", rnd(*ss))] + ([("bias", rnd(*ss))] if bias else [])
    st = [d if i < axis % len(xs) else 1 for i, d in enumerate(xs)]
    sdt = D if stash == 11 else F
    model("LayerNorm_" + name, "LayerNormalization", [("x", F, xs)], xs, {"axis": axis, "stash_type": stash},
          inits, opset=17, more_outs=[("mean", sdt, st), ("inv", sdt, st)])
model("LayerNorm_y_only", "LayerNormalization", [("x", F, [2, 768])], [2, 768], {},
      [("scale", rnd(768)), ("bias", rnd(768))], opset=17)
# rows of 128 to 4096 values go to a block each (layernorm_block_kernel), the CPU's sums in the same order: the same
# bits, the statistics too; a row of 130 (threads past its end), Scale broadcast, float64, longer rows the other way
lnb = [("rows768", F, [197, 768], -1, [768], 1), ("row130", F, [3, 130], -1, [130], 1),
       ("block_axis1", F, [2, 3, 64], 1, [1, 64], 1), ("block_f64", D, [4, 300], -1, [300], 11),
       ("row4096", F, [2, 4096], -1, [4096], 1), ("row5000", F, [2, 5000], -1, [5000], 1)]
for name, t, xs, axis, ss, stash in lnb:
    st = [d if i < axis % len(xs) else 1 for i, d in enumerate(xs)]
    model("LayerNorm_" + name, "LayerNormalization", [("x", t, xs)], xs, {"axis": axis, "stash_type": stash},
          [("scale", rnd(*ss).astype(np.float64 if t == D else np.float32)),
           ("bias", rnd(*ss).astype(np.float64 if t == D else np.float32))], opset=17, tol="bits 0",
          more_outs=[("mean", D if stash == 11 else F, st), ("inv", D if stash == 11 else F, st)])
model("LayerNorm_f16", "LayerNormalization", [("x", H, [3, 16])], [3, 16], {},
      [("scale", rnd(16).astype(np.float16)), ("bias", rnd(16).astype(np.float16))], opset=17, tol="1e-3 1e-3")
model("LayerNorm_f64", "LayerNormalization", [("x", D, [3, 7])], [3, 7], {"epsilon": 1e-3},
      [("scale", rnd(7).astype(np.float64))], opset=17)

# BatchNormalization (inference): ranks 2 to 5, opsets 9, 14 and 15, float16; positive variances
def bn_params(c, dt=np.float32):
    return [("scale", rnd(c).astype(dt)), ("bias", rnd(c).astype(dt)), ("mean", rnd(c).astype(dt)),
            ("var", rng.uniform(0.1, 2, c).astype(dt))]

for i, (xs, ops) in enumerate((([2, 3, 5, 4], 15), ([4, 6], 9), ([2, 3, 7], 14), ([1, 2, 3, 4, 5], 15), ([2, 3], 15))):
    model("BatchNorm_%d" % i, "BatchNormalization", [("x", F, xs)], xs, {"epsilon": 1e-3}, bn_params(xs[1]),
          opset=ops)
model("BatchNorm_f16", "BatchNormalization", [("x", H, [2, 3, 4, 4])], [2, 3, 4, 4], {}, bn_params(3, np.float16),
      opset=15, tol="1e-3 1e-3")

# InstanceNormalization: 2-D and 1-D spatial dims, a big plane, float16
for i, xs in enumerate(([2, 3, 5, 5], [2, 4, 7], [1, 2, 40, 30])):
    model("InstanceNorm_%d" % i, "InstanceNormalization", [("x", F, xs)], xs, {"epsilon": 1e-4},
          [("scale", rnd(xs[1])), ("bias", rnd(xs[1]))], opset=6, tol="1e-4 1e-5")
model("InstanceNorm_f16", "InstanceNormalization", [("x", H, [2, 3, 6])], [2, 3, 6], {},
      [("scale", rnd(3).astype(np.float16)), ("bias", rnd(3).astype(np.float16))], opset=6, tol="2e-3 2e-3")
# ---- more normalisations, pools and the quantization ops (cuda/norm.cu, cuda/pool.cu, cuda/quant.cu) ----
model("InstanceNorm_f64", "InstanceNormalization", [("x", D, [2, 3, 4, 5])], [2, 3, 4, 5], {},
      [("scale", rnd(3).astype(np.float64)), ("bias", rnd(3).astype(np.float64))], opset=6, tol="0 0")

# GroupNormalization: opset 18's scale per group, 21's per channel, one group and one per channel, float16 and
# float64; the statistics are the CPU's sums in the CPU's order, so the results are its bits
gns = [("g2", [2, 4, 3, 3], 2, 18), ("g1", [1, 6, 5], 1, 18), ("gC", [2, 3, 4, 4], 3, 18), ("c21", [2, 6, 3, 2], 3, 21),
       ("c21_g1", [3, 4, 7], 1, 21), ("rank2", [4, 6], 2, 18)]
for name, xs, g, ops in gns:
    pn = g if ops < 21 else xs[1]
    model("GroupNorm_" + name, "GroupNormalization", [("x", F, xs)], xs, {"num_groups": g, "epsilon": 1e-4},
          [("scale", rnd(pn)), ("bias", rnd(pn))], opset=ops, tol="0 0")
model("GroupNorm_f16", "GroupNormalization", [("x", H, [2, 4, 3, 3])], [2, 4, 3, 3], {"num_groups": 2},
      [("scale", rnd(4).astype(np.float16)), ("bias", rnd(4).astype(np.float16))], opset=21, tol="0 0")
model("GroupNorm_f64", "GroupNormalization", [("x", D, [2, 4, 3, 3])], [2, 4, 3, 3], {"num_groups": 4},
      [("scale", rnd(4).astype(np.float64)), ("bias", rnd(4).astype(np.float64))], opset=18, tol="0 0")
# groups of 1024 values or more, when there are few, are summed a block to a group from shared memory, in pieces of
# 8192 floats or 4096 doubles (stats_block_kernel): one piece, several pieces with a short last one, float64
gnb = [("block1", F, [1, 8, 40, 40], 2), ("block3", F, [2, 4, 75, 80], 1), ("block_f64", D, [1, 4, 50, 50], 2),
       ("block_exact", F, [1, 2, 64, 128], 1)]
for name, t, xs, g in gnb:
    model("GroupNorm_" + name, "GroupNormalization", [("x", t, xs)], xs, {"num_groups": g, "epsilon": 1e-4},
          [("scale", rnd(xs[1]).astype(np.float64 if t == D else np.float32)),
           ("bias", rnd(xs[1]).astype(np.float64 if t == D else np.float32))], opset=21, tol="0 0")
model("InstanceNorm_block", "InstanceNormalization", [("x", F, [1, 3, 100, 100])], [1, 3, 100, 100],
      {"epsilon": 1e-4}, [("scale", rnd(3)), ("bias", rnd(3))], opset=6, tol="0 0")

# MeanVarianceNormalization: the default axes (0, 2, 3), one axis, all of them, negative ones; float16, float64
for i, (xs, axes) in enumerate((([2, 3, 4, 5], None), ([2, 3, 4, 5], [1]), ([3, 4, 5], [0, 1, 2]),
                                ([2, 3, 6], [-1]), ([4, 2, 3, 2, 2], [0, 3, 4]))):
    model("MVN_%d" % i, "MeanVarianceNormalization", [("x", F, xs)], xs, {"axes": axes} if axes else {}, opset=13,
          tol="0 0")
model("MVN_f16", "MeanVarianceNormalization", [("x", H, [2, 3, 4, 4])], [2, 3, 4, 4], opset=13, tol="0 0")
model("MVN_f64", "MeanVarianceNormalization", [("x", D, [2, 3, 4, 4])], [2, 3, 4, 4], {"axes": [2, 3]}, opset=13,
      tol="0 0")

# LRN: odd and even sizes (the window leans back), one channel's, rank 3 and 5, float16 and float64 (pow is the
# device's own: a tolerance)
for i, (xs, a) in enumerate((([2, 5, 4, 4], {"size": 3}), ([1, 6, 3, 5], {"size": 4, "alpha": 0.02, "beta": 0.6,
                                                                          "bias": 2.0}),
                             ([2, 4, 7], {"size": 1}), ([1, 3, 2, 3, 4], {"size": 5, "alpha": 0.5}))):
    model("LRN_%d" % i, "LRN", [("x", F, xs)], xs, a, opset=13)
model("LRN_f16", "LRN", [("x", H, [1, 5, 3, 3])], [1, 5, 3, 3], {"size": 3}, opset=13, tol="1e-3 1e-3")
model("LRN_f64", "LRN", [("x", D, [1, 5, 3, 3])], [1, 5, 3, 3], {"size": 3}, opset=13, tol="1e-12 1e-14")

# Hardmax: one axis (13), the 2-D coercion before it, float16 and float64; ties and NaN (the first greatest,
# NaN never) from constants
for i, (xs, a, ops) in enumerate((([3, 7], {}, 13), ([2, 3, 4], {"axis": 1}, 13), ([2, 3, 4], {"axis": 0}, 13),
                                  ([2, 3, 4], {}, 11), ([2, 3, 4], {"axis": 2}, 11), ([2, 3, 4], {"axis": 0}, 11))):
    model("Hardmax_%d" % i, "Hardmax", [("x", F, xs)], xs, a, opset=ops, tol="0 0")
model("Hardmax_f16", "Hardmax", [("x", H, [3, 9])], [3, 9], opset=13, tol="0 0")
model("Hardmax_f64", "Hardmax", [("x", D, [4, 5])], [4, 5], {"axis": 0}, opset=13, tol="0 0")
ties = np.array([[1, 3, 3, 2], [0, 0, 0, 0], [np.nan, 2, 5, np.nan], [np.nan, np.nan, np.nan, np.nan],
                 [-np.inf, -np.inf, -np.inf, -np.inf], [-np.inf, np.nan, -5, -5]], np.float32)
model("Hardmax_ties", "Hardmax", [], [6, 4], {}, [("x", ties)], opset=13, tol="0 0", out_type=F)

# LpPool (p 1, 2, 3: p = 2 is a sum of squares and a square root on the CPU, the others pow) and GlobalLpPool,
# 1 to 3 spatial dims, pads, strides, dilations and ceil_mode (18); float16 and float64
lps = [("p2", [1, 3, 9, 9], {"kernel_shape": [3, 3], "strides": [2, 2]}, 18),
       ("p1_pads", [2, 2, 8, 7], {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1], "p": 1}, 18),
       ("p3_dil", [1, 2, 10, 10], {"kernel_shape": [2, 2], "dilations": [2, 2], "p": 3}, 18),
       ("ceil", [1, 2, 8, 8], {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}, 18),
       ("same", [1, 2, 7, 7], {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER", "p": 3}, 11),
       ("1d", [2, 3, 15], {"kernel_shape": [4], "strides": [3], "pads": [1, 2]}, 11),
       ("3d", [1, 2, 5, 6, 7], {"kernel_shape": [2, 3, 2], "strides": [1, 2, 2], "p": 1}, 11)]
for name, xs, a, ops in lps:
    model("LpPool_" + name, "LpPool", [("x", F, xs)], None, a, opset=ops)
    if name == "p2":
        model("LpPool_f16", "LpPool", [("x", H, xs)], None, a, opset=ops, tol="1e-3 1e-3")
        model("LpPool_f64", "LpPool", [("x", D, xs)], None, a, opset=ops, tol="1e-12 1e-14")
for i, (xs, p) in enumerate((([2, 3, 5, 5], 2), ([1, 4, 30, 7], 3), ([2, 2, 9], 1), ([1, 3, 1, 1], 2))):
    model("GlobalLpPool_%d" % i, "GlobalLpPool", [("x", F, xs)], xs[:2] + [1] * (len(xs) - 2), {"p": p}, opset=2)
model("GlobalLpPool_f64", "GlobalLpPool", [("x", D, [2, 3, 4, 4])], [2, 3, 1, 1], {"p": 3}, opset=2,
      tol="1e-12 1e-14")

# MaxPool's Indices output: row-major and column-major (storage_order), 1 to 3 spatial dims, pads, dilations,
# ceil_mode, float16
mpi = [("k3s2", [1, 3, 9, 9], {"kernel_shape": [3, 3], "strides": [2, 2]}),
       ("pads_col", [2, 2, 8, 7], {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1], "storage_order": 1}),
       ("dil_ceil", [1, 2, 10, 9], {"kernel_shape": [2, 2], "dilations": [2, 2], "strides": [2, 2], "ceil_mode": 1}),
       ("1d_col", [2, 3, 15], {"kernel_shape": [4], "strides": [3], "pads": [1, 2], "storage_order": 1}),
       ("3d", [1, 2, 5, 6, 7], {"kernel_shape": [2, 3, 2], "strides": [1, 2, 2]}),
       ("3d_col", [2, 1, 4, 5, 3], {"kernel_shape": [2, 2, 2], "pads": [1, 1, 0, 0, 1, 1], "storage_order": 1})]
for name, xs, a in mpi:
    model("MaxPoolIdx_" + name, "MaxPool", [("x", F, xs)], None, a, opset=12, tol="0 0",
          more_outs=[("ind", T.INT64, None)])
model("MaxPoolIdx_f16", "MaxPool", [("x", H, [1, 2, 6, 6])], None, {"kernel_shape": [2, 2], "storage_order": 1},
      opset=12, tol="0 0", more_outs=[("ind", T.INT64, None)])

# MaxUnpool: indices from a constant (one element named twice: the later one wins, as in the CPU's loop), with and
# without output_shape, an int64 X
ind = np.array([[[[0, 5], [14, 15]], [[17, 22], [17, 31]]]], np.int64)
for t in (F, I64):
    xv = rnd(1, 2, 2, 2) if t == F else np.arange(8, dtype=np.int64).reshape(1, 2, 2, 2) - 3
    model("MaxUnpool_" + tn[t], "MaxUnpool", [], [1, 2, 4, 4], {"kernel_shape": [2, 2], "strides": [2, 2]},
          [("x", xv), ("i", ind)], opset=11, tol="0 0", out_type=t)
model("MaxUnpool_shape", "MaxUnpool", [], [1, 2, 5, 5], {"kernel_shape": [2, 2], "strides": [2, 2]},
      [("x", rnd(1, 2, 2, 2)), ("i", ind), ("shape", i64(1, 2, 5, 5))], opset=11, tol="0 0", out_type=F)

# QuantizeLinear: per tensor, per axis, blocked (21); uint8, int8, uint16, int16 (the zero point's type, or
# output_dtype); float16, float64 and int32 inputs; ties to even from constants; saturation (|x| / scale past the
# range)
U16, I16 = T.UINT16, T.INT16
f32 = lambda *v: np.array(v, np.float32)
qs = [("tensor_u8", F, [2, 3, 4], {}, [("s", np.float32(0.01))], U8, 13),
      ("tensor_i8_zp", F, [2, 3, 4], {}, [("s", np.float32(0.004)), ("z", np.int8(-3))], I8, 13),
      ("axis_i8", F, [2, 3, 4], {"axis": 1}, [("s", f32(0.01, 0.02, 0.05)), ("z", np.array([1, -3, 0], np.int8))],
       I8, 13),
      ("axis_last_u16", F, [2, 3, 4], {"axis": -1}, [("s", f32(1e-4, 2e-4, 3e-5, 1e-3)),
                                                     ("z", np.array([0, 100, 30000, 65535], np.uint16))], U16, 13),
      ("axis0_i16", F, [3, 5], {"axis": 0}, [("s", f32(1e-4, 5e-5, 1e-3)), ("z", np.array([0, -7, 9], np.int16))],
       I16, 13),
      ("blocked", F, [2, 6, 3], {"axis": 1, "block_size": 4}, [("s", rng.uniform(0.005, 0.02, (2, 2, 3)).astype(np.float32)),
                                                             ("z", rng.integers(-4, 4, (2, 2, 3)).astype(np.int8))],
       I8, 21),
      ("dtype_attr", F, [4, 5], {"output_dtype": I16}, [("s", np.float32(1e-4))], I16, 21),
      ("f16", H, [3, 4], {}, [("s", np.float16(0.01)), ("z", np.uint8(128))], U8, 19),
      ("f64", D, [3, 4], {"axis": 0}, [("s", np.array([0.01, 0.03, 0.003], np.float64)),
                                       ("z", np.array([3, 0, -2], np.int8))], I8, 19),
      ("i32", I32, [3, 4], {}, [("s", np.float32(0.7)), ("z", np.int8(2))], I8, 19)]
for name, t, xs, a, inits, ot, ops in qs:
    model("Quantize_" + name, "QuantizeLinear", [("x", t, xs)], xs, a, inits, opset=ops, tol="0 0", out_type=ot)
halves = f32(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, -128.5, -129.5, 1e10, -1e10, np.nan, np.inf, 3.49999)
model("Quantize_ties", "QuantizeLinear", [], [15], {}, [("x", halves), ("s", np.float32(1)), ("z", np.int8(0))],
      opset=13, tol="0 0", out_type=I8)

# DequantizeLinear: its five input types, per tensor, per axis, blocked (21), float16 and float64 out
dqs = [("u8", U8, [2, 3, 4], {}, [("s", np.float32(0.02)), ("z", np.uint8(3))], 13),
       ("i8_axis", I8, [2, 3, 4], {"axis": 1}, [("s", f32(0.1, 0.2, 0.5)), ("z", np.array([1, -3, 0], np.int8))], 13),
       ("u16", U16, [3, 4], {}, [("s", np.float32(1e-3)), ("z", np.uint16(4))], 21),
       ("i16_axis", I16, [3, 4], {"axis": -1}, [("s", f32(1, 2, 3, 4)), ("z", np.array([0, 1, 2, -3], np.int16))], 21),
       ("i32", I32, [3, 4], {}, [("s", np.float32(0.25))], 13),
       ("blocked", I8, [2, 6, 3], {"axis": 1, "block_size": 4}, [("s", rng.uniform(0.05, 0.2, (2, 2, 3)).astype(np.float32)),
                                                              ("z", rng.integers(-4, 4, (2, 2, 3)).astype(np.int8))], 21),
       ("f16", U8, [3, 4], {}, [("s", np.float16(0.125)), ("z", np.uint8(5))], 19),
       ("f64_attr", I8, [3, 4], {"output_dtype": D}, [("s", np.float32(0.3))], 21)]
for name, t, xs, a, inits, ops in dqs:
    ot = D if name == "f64_attr" else H if name == "f16" else F
    model("Dequantize_" + name, "DequantizeLinear", [("x", t, xs)], xs, a, inits, opset=ops, tol="0 0", out_type=ot)

# DynamicQuantizeLinear: its three outputs, a long input (the device's range over many threads), a scalar
for i, xs in enumerate(([3, 100], [5000], [], [0, 3])):
    model("DynQuant_%d" % i, "DynamicQuantizeLinear", [("x", F, xs)], xs, opset=11, tol="0 0", out_type=U8,
          more_outs=[("scale", F, []), ("zp", U8, [])])

# ---- integers and double, comparisons, logic, bits (cuda/elementwise.cu, cuda/logic.cu) ----
# Random integers are small (signed in [-5, 5], unsigned in [0, 9]): divisions by 0, negative exponents and Mod's
# sign rules show; the edges (INT_MIN / -1, wrap-around, shifts by the width) come from constants.  Integer
# results must be the CPU's exactly (tolerance 0), double ones to the last bits.
I16, U16, U32, U64 = T.INT16, T.UINT16, T.UINT32, T.UINT64
tn.update({I16: "i16", U16: "u16", U32: "u32", U64: "u64"})
ints = (I64, I32, I16, I8, U8, U16, U32, U64)
npt = {I64: np.int64, I32: np.int32, I16: np.int16, I8: np.int8, U8: np.uint8, U16: np.uint16, U32: np.uint32,
       U64: np.uint64, D: np.float64, F: np.float32, H: np.float16, BOOL: np.bool_}
tol_of = lambda t: "1e-13 1e-300" if t == D else "0 0"
arith = [("Add", {}), ("Sub", {}), ("Mul", {}), ("Div", {}), ("Pow", {}), ("Min", {}), ("Max", {}), ("Sum", {}),
         ("Mod", {"fmod": 0}), ("Mod", {"fmod": 1}), ("PRelu", {})]
for op, a in arith:
    for t in ints + (D,):
        nm = "%s%s_%s" % (op, "_fmod" if a.get("fmod") else "", tn[t])
        model(nm, op, [("a", t, [2, 3, 4]), ("b", t, [4])], [2, 3, 4], a, opset=13, tol=tol_of(t))
    model("%s%s_empty" % (op, "_fmod" if a.get("fmod") else ""), op, [("a", I32, [2, 0]), ("b", I32, [1])], [2, 0],
          a, opset=13, tol="0 0")
model("Mean_f64", "Mean", [("a", D, [3, 4]), ("b", D, [3, 1])], [3, 4], opset=13, tol=tol_of(D))
for t in (I64, I32, U8, D):  # exponents of another type: float into an integer base, integer into a float one
    model("Pow_%s_f32" % tn[t], "Pow", [("a", t, [3, 4]), ("b", F, [4])], [3, 4], opset=15, tol=tol_of(t))
    model("Pow_f32_%s" % tn[t], "Pow", [("a", F, [3, 4]), ("b", t, [4])], [3, 4], opset=15, tol="1e-5 1e-6",
          out_type=F)
model("Pow_i32_u64", "Pow", [("a", I32, [3, 4]), ("b", U64, [4])], [3, 4], opset=15, tol="0 0")
edge_a = [-2**63, -2**63, 2**63 - 1, -7, 7, -7, 7, 0, 5, -1, 3, 2, 1, -2**31, -2**31, 2**31 - 1, 255, 256, 3]
edge_b = [-1, 0, 1, 3, -3, -3, 3, 0, -1, 63, 40, 62, 64, -1, 2, 1, 1, -1, 65]
es = [1, len(edge_a)]  # 2-D: shape inference folds only 1-D constants, and these overflow its int64 arithmetic
for t in ints:
    info = np.iinfo(npt[t])
    wrap = lambda v: np.array([[(x - info.min) % (info.max - info.min + 1) + info.min for x in v]], npt[t])
    ea, eb = wrap(edge_a), wrap(edge_b)
    for op, a in arith[:5] + [("Mod", {"fmod": 0}), ("Mod", {"fmod": 1})]:
        nm = "%s%s_edge_%s" % (op, "_fmod" if a.get("fmod") else "", tn[t])
        model(nm, op, [], es, a, [("a", ea), ("b", eb)], opset=13, tol="0 0", out_type=t)
    for op in ("Neg", "Abs", "Sign", "Relu", "BitwiseNot"):
        model("%s_edge_%s" % (op, tn[t]), op, [], es, {}, [("x", ea)], opset=18, tol="0 0", out_type=t)
    model("Shrink_edge_" + tn[t], "Shrink", [], es, {"bias": 1.5, "lambd": 2.0}, [("x", ea)], opset=9, tol="0 0",
          out_type=t)
    for d in ("LEFT", "RIGHT"):
        model("BitShift_%s_%s" % (d, tn[t]), "BitShift", [], es, {"direction": d},
              [("a", ea), ("b", wrap([abs(v) % 70 for v in edge_b]))], opset=11, tol="0 0", out_type=t)
fl = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e300, -1e-300, 3.0], np.float64)
def fl_as(t):  # 1e300 becomes an infinity in the narrower types
    with np.errstate(over="ignore"):
        return fl.astype(npt[t])
for t in (D, F, H):
    model("IsNaN_" + tn[t], "IsNaN", [], [fl.size], {}, [("x", fl_as(t))], opset=13, tol="0 0", out_type=BOOL)
    for i, (pos, neg) in enumerate(((1, 1), (0, 1), (1, 0))):
        model("IsInf_%d_%s" % (i, tn[t]), "IsInf", [], [fl.size], {"detect_positive": pos, "detect_negative": neg},
              [("x", fl_as(t))], opset=10, tol="0 0", out_type=BOOL)
for t in (D, F, H):
    for op in ("Neg", "Abs", "Sign", "Relu", "Shrink"):
        model("%s_%s" % (op, tn[t]), op, [], [fl.size], {"lambd": 1.5} if op == "Shrink" else {},
              [("x", fl_as(t))], opset=14, tol="0 0", out_type=t)
for t in ints + (D,):
    for op in ("Neg", "Abs", "Sign", "Relu"):
        model("%s_%s_rand" % (op, tn[t]), op, [("x", t, [3, 7])], [3, 7], opset=14, tol="0 0")
    model("Shrink_%s_rand" % tn[t], "Shrink", [("x", t, [3, 7])], [3, 7], {"bias": 1.0, "lambd": 2.0}, opset=9,
          tol=tol_of(t))
model("Shrink_f16_rand", "Shrink", [("x", H, [4, 5])], [4, 5], {"bias": 0.25, "lambd": 0.5}, opset=9, tol="0 0")

# comparisons into bool (every numeric type, bool too; float16 and bfloat16 compared as float32), x against
# itself too (Equal's true side)
cmps = ("Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual")
for op in cmps:
    for t in (F, H, B, D) + ints + (BOOL,):
        model("%s_%s" % (op, tn[t]), op, [("a", t, [2, 3, 4]), ("b", t, [3, 1])], [2, 3, 4], opset=19,
              tol="0 0", out_type=BOOL)
    model(op + "_self", op, [("x", F, [4, 5])], [4, 5], opset=19, tol="0 0", out_type=BOOL, node_inputs=["x", "x"])
    model(op + "_special", op, [], [fl.size * fl.size], {},
          [("a", np.repeat(fl, fl.size)), ("b", np.tile(fl, fl.size))], opset=19, tol="0 0", out_type=BOOL)
    model(op + "_empty", op, [("a", I64, [0, 3]), ("b", I64, [3])], [0, 3], opset=19, tol="0 0", out_type=BOOL)
# logic on bool, bits on integers
for op in ("And", "Or", "Xor"):
    model(op, op, [("a", BOOL, [2, 3, 4]), ("b", BOOL, [4])], [2, 3, 4], opset=7, tol="0 0")
    model(op + "_scalar", op, [("a", BOOL, []), ("b", BOOL, [5])], [5], opset=7, tol="0 0")
model("Not", "Not", [("x", BOOL, [3, 5])], [3, 5], opset=1, tol="0 0")
for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
    for t in ints:
        model("%s_%s" % (op, tn[t]), op, [("a", t, [2, 3, 4]), ("b", t, [3, 1])], [2, 3, 4], opset=18, tol="0 0")
for t in (I8, U8, I64, U64):
    model("BitwiseNot_" + tn[t], "BitwiseNot", [("x", t, [4, 5])], [4, 5], opset=18, tol="0 0")
for t in (U8, U32, U64):
    for d in ("LEFT", "RIGHT"):
        model("BitShift_%s_%s_rand" % (d, tn[t]), "BitShift", [("a", t, [3, 4]), ("b", t, [4])], [3, 4],
              {"direction": d}, opset=11, tol="0 0")

# the inverse and hyperbolic functions (float32, float16, bfloat16), Acosh on [1, 4]
for op in ("Acos", "Asin", "Atan", "Asinh", "Atanh", "Cosh", "Sinh"):
    for t in (F, H, B):
        model("%s_%s" % (op, tn[t]), op, [("x", t, [3, 7])], [3, 7], opset=9)
model("Acosh_f32", "Acosh", [], [20], {}, [("x", rng.uniform(1, 4, 20).astype(np.float32))], opset=9, out_type=F)
model("Acosh_f16", "Acosh", [], [20], {}, [("x", rng.uniform(1, 4, 20).astype(np.float16))], opset=9, out_type=H,
      tol="1e-3 1e-3")

# CastLike (as Cast), Dropout in inference (the output is the input; the mask all true: bool from opset 10, x's
# type before)
for a, b in ((F, I64), (I64, F), (H, D), (D, H), (F, BOOL), (I32, U8)):
    model("CastLike_%s_%s" % (tn[a], tn[b]), "CastLike", [("x", a, [3, 5])], [3, 5],
          inits=[("like", np.zeros(1, npt[b]))], opset=15, tol="0 0" if b in (I64, U8, BOOL) else "1e-5 1e-6",
          out_type=b)
for t in (F, H, I64):
    model("Dropout_" + tn[t], "Dropout", [("x", t, [3, 4])], [3, 4], opset=13, tol="0 0",
          more_outs=[("mask", BOOL, [3, 4])])
model("Dropout_empty", "Dropout", [("x", F, [0, 4])], [0, 4], opset=13, more_outs=[("mask", BOOL, [0, 4])])
model("Dropout_7", "Dropout", [("x", F, [3, 4])], [3, 4], {"ratio": 0.3}, opset=7, more_outs=[("mask", F, [3, 4])])
model("Dropout_12_inference", "Dropout", [("x", F, [3, 4])], [3, 4],
      inits=[("ratio", np.float32(0.4)), ("train", np.array(False))], opset=12, more_outs=[("mask", BOOL, [3, 4])])
model("Dropout_y_only", "Dropout", [("x", D, [5])], [5], opset=13)
# training_mode true (ratio 0: the CPU copies): declined, the CPU runs it
model("Dropout_training", "Dropout", [("x", F, [3, 4])], [3, 4],
      inits=[("ratio", np.float32(0.0)), ("train", np.array(True))], opset=13, fallbacks=1)

# ---- index and layout ops (cuda/index.cu, cuda/scatter.cu; CenterCropPad in cuda/shape.cu) ----
# Every element size, each op's modes and attributes, indices random (so negative ones, and targets that repeat:
# a scatter's result then depends on the order of its updates) or extreme; the outputs are compared with the CPU's
# byte for byte (tol BITS).
I16, U16, U32, U64, C128 = T.INT16, T.UINT16, T.UINT32, T.UINT64, T.COMPLEX128
tn.update({I16: "i16", U16: "u16", U32: "u32", U64: "u64", C128: "c128"})
BITS = "bits 0"
NP = {F: np.float32, H: np.float16, D: np.float64, I64: np.int64, I32: np.int32, I16: np.int16, I8: np.int8,
      U8: np.uint8, U16: np.uint16, U32: np.uint32, U64: np.uint64, BOOL: np.bool_, C128: np.complex128}
def arr(t, v):
    return np.array(v, dtype=NP[t])
cplx = lambda *s: (rnd(*s) + 1j * rnd(*s)).astype(np.complex128)
INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min

# DepthToSpace (DCR and CRD) and SpaceToDepth
for t in (F, H, B, I64, U8, BOOL, D):
    model("DepthToSpace_dcr_" + tn[t], "DepthToSpace", [("x", t, [2, 8, 3, 4])], [2, 2, 6, 8], {"blocksize": 2},
          opset=13, tol=BITS)
    model("DepthToSpace_crd_" + tn[t], "DepthToSpace", [("x", t, [2, 8, 3, 4])], [2, 2, 6, 8],
          {"blocksize": 2, "mode": "CRD"}, opset=13, tol=BITS)
    model("SpaceToDepth_" + tn[t], "SpaceToDepth", [("x", t, [2, 3, 6, 9])], [2, 27, 2, 3], {"blocksize": 3},
          opset=13, tol=BITS)
model("DepthToSpace_c128", "DepthToSpace", [], [1, 1, 4, 6], {"blocksize": 2, "mode": "CRD"},
      [("x", cplx(1, 4, 2, 3))], opset=13, tol=BITS, out_type=C128)

# Trilu: upper and lower, k of either sign, beyond the matrix and at the ends of int64, batches of matrices
trilus = [("upper", [4, 5], None, 1), ("lower", [2, 3, 4], 1, 0), ("neg", [3, 6], -2, 1), ("out", [2, 5, 3], 10, 0),
          ("lower_neg", [5, 4], -7, 0), ("upper_min", [3, 3], INT64_MIN, 1), ("lower_max", [3, 4], INT64_MAX, 0),
          ("upper_max", [4, 3], INT64_MAX, 1), ("lower_min", [2, 2], INT64_MIN, 0)]
for name, xs, kv, up in trilus:
    model("Trilu_" + name, "Trilu", [("x", F, xs)], xs, {"upper": up}, [("k", i64(kv))] if kv is not None else [],
          opset=14, tol=BITS, node_inputs=["x"] + (["k"] if kv is not None else []))
for t in (H, I64, BOOL, U8, D):
    model("Trilu_" + tn[t], "Trilu", [("x", t, [2, 4, 5])], [2, 4, 5], {"upper": 0}, [("k", i64(1))], opset=14,
          tol=BITS)
for name, kt in (("k_i32", np.int32), ("k_scalar", np.int64)):  # k of another integer type, and a 0-D k
    model("Trilu_" + name, "Trilu", [("x", F, [4, 4])], [4, 4], {}, [("k", np.array(-1 if kt == np.int64 else [1], kt))],
          opset=14, tol=BITS)

# GatherElements: any axis, random indices in [-5, 5] (every axis they index has 6 or more elements)
ges = [([6, 4], [3, 4], 0), ([3, 7], [3, 9], 1), ([2, 6, 3], [2, 2, 3], -2), ([7], [12], 0), ([4, 3, 8], [4, 3, 20], 2)]
for i, (xs, ids, axis) in enumerate(ges):
    model("GatherElements_%d" % i, "GatherElements", [("x", F, xs), ("i", I64, ids)], ids, {"axis": axis}, opset=13,
          tol=BITS)
for t in (H, I64, BOOL, I8, D):
    model("GatherElements_" + tn[t], "GatherElements", [("x", t, [7, 3]), ("i", I32, [5, 3])], [5, 3], opset=13,
          tol=BITS)
model("GatherElements_c128", "GatherElements", [("i", I64, [3, 2])], [3, 2], {"axis": 1}, [("x", cplx(3, 6))],
      opset=13, tol=BITS, out_type=C128, node_inputs=["x", "i"])

# GatherND: tuples of 1, 2 and all dims, batch_dims 0, 1 and 2
gnds = [([6, 7], [4, 2], 0, [4]), ([6, 7, 3], [2, 3, 1], 0, [2, 3, 7, 3]), ([2, 6, 8], [2, 4, 1], 1, [2, 4, 8]),
        ([2, 3, 6, 7], [2, 3, 5, 2], 2, [2, 3, 5]), ([6, 6, 6], [9, 3], 0, [9])]
for i, (xs, ids, b, out) in enumerate(gnds):
    model("GatherND_%d" % i, "GatherND", [("x", F, xs), ("i", I64, ids)], out, {"batch_dims": b}, opset=13, tol=BITS)
for t in (H, I64, U8, D):
    model("GatherND_" + tn[t], "GatherND", [("x", t, [6, 7, 2]), ("i", I32, [3, 2])], [3, 2], opset=13, tol=BITS)

# ScatterElements (Scatter before 11): each reduction on each numeric type, random indices so targets repeat
# (10 updates into 6 rows), any axis
red_types = (F, H, B, D, I8, I16, I32, I64, U8, U16, U32, U64)
for red in ("none", "add", "mul", "max", "min"):
    for t in red_types:
        model("ScatterElements_%s_%s" % (red, tn[t]), "ScatterElements", [("x", t, [6, 4]), ("i", I64, [10, 4]),
              ("u", t, [10, 4])], [6, 4], {"reduction": red}, opset=18, tol=BITS)
    model("ScatterND_%s" % red, "ScatterND", [("x", F, [6, 5, 4]), ("i", I64, [8, 1]), ("u", F, [8, 5, 4])],
          [6, 5, 4], {"reduction": red}, opset=18, tol=BITS)
    model("ScatterND_%s_i64" % red, "ScatterND", [("x", I64, [6, 7]), ("i", I64, [12, 2]), ("u", I64, [12])],
          [6, 7], {"reduction": red}, opset=18, tol=BITS)
for t in (BOOL, C128):  # moved, not reduced: none only
    ins = [("x", t, [6, 4]), ("i", I64, [10, 4]), ("u", t, [10, 4])] if t != C128 else [("i", I64, [10, 4])]
    model("ScatterElements_" + tn[t], "ScatterElements", ins, [6, 4], {},
          [] if t != C128 else [("x", cplx(6, 4)), ("u", cplx(10, 4))], opset=18, tol=BITS, out_type=t,
          node_inputs=None if t != C128 else ["x", "i", "u"])
for i, (xs, ids, axis) in enumerate((([3, 7], [3, 9], 1), ([2, 6, 3], [2, 7, 3], -2), ([6], [15], 0))):
    model("ScatterElements_axis%d" % i, "ScatterElements", [("x", F, xs), ("i", I64, ids), ("u", F, ids)], xs,
          {"axis": axis, "reduction": "add"}, opset=18, tol=BITS)
model("Scatter_9", "Scatter", [("x", F, [6, 3]), ("i", I64, [8, 3]), ("u", F, [8, 3])], [6, 3], opset=10, tol=BITS)
model("ScatterElements_11", "ScatterElements", [("x", I64, [3, 6]), ("i", I32, [3, 8]), ("u", I64, [3, 8])], [3, 6],
      {"axis": 1}, opset=11, tol=BITS)
# many updates per target, in float (each sum rounds in the order of its updates), and targets past 65536 (two
# passes of the sort that keeps that order)
model("ScatterElements_crowd", "ScatterElements", [("x", F, [6]), ("i", I64, [3000]), ("u", F, [3000])], [6],
      {"reduction": "add"}, opset=18, tol=BITS)
model("ScatterElements_far", "ScatterElements", [("x", F, [70000]), ("i", I64, [500]), ("u", F, [500])], [70000],
      {"reduction": "mul"}, opset=18, tol=BITS)
model("ScatterND_elements", "ScatterND", [("x", H, [6, 6, 6]), ("i", I64, [40, 3]), ("u", H, [40])], [6, 6, 6],
      {"reduction": "add"}, opset=18, tol=BITS)
model("ScatterND_all", "ScatterND", [("x", F, [2, 3]), ("i", I64, [3, 0]), ("u", F, [3, 2, 3])], [2, 3],
      {"reduction": "add"}, opset=18, tol=BITS)

# OneHot: axes, depths (random indices in [-5, 5]: some out of range, their rows all off), index and value types
onehots = [("last", I64, [3, 4], {}, 7, F, [3, 4, 7]), ("axis0", I32, [5], {"axis": 0}, 4, I64, [4, 5]),
           ("axis1", F, [2, 3], {"axis": 1}, 6, H, [2, 6, 3]), ("neg", I8, [2, 3, 2], {"axis": -2}, 3, BOOL, [2, 3, 3, 2]),
           ("u8", U8, [6], {}, 12, D, [6, 12])]
for name, it, ids, a, depth, vt, out in onehots:
    model("OneHot_" + name, "OneHot", [("i", it, ids)], out, a,
          [("depth", np.array(depth, np.int64 if name != "u8" else np.float32)), ("v", arr(vt, [0, 1]) if vt != H else
           np.array([-2.5, 7.25], np.float16))], opset=11, tol=BITS, out_type=vt)

# Range in every type it takes (scalars from initializers, so the output's size is known on the host)
ranges = [(I64, -5, 17, 3), (I32, 10, -7, -2), (I16, 0, 9, 4), (I8, -100, 100, 33), (U8, 2, 250, 7), (U16, 9, 1, 1),
          (U32, 7, 4000000000, 987654321), (F, 0.1, 3.7, 0.3), (D, -1.5, 2.25, 0.125), (H, 0.5, 9.0, 0.7),
          (I64, INT64_MIN + 1, INT64_MAX, 3000000000000000000)]
for i, (t, a, b, d) in enumerate(ranges):
    model("Range_%s_%d" % (tn[t], i), "Range", [], None, {},
          [("s", np.array(a, NP[t])), ("l", np.array(b, NP[t])), ("d", np.array(d, NP[t]))], opset=11, tol=BITS,
          out_type=t)

# ConstantOfShape: no value (float zeros), zero and non-zero values of every size, an empty shape (a scalar)
cos = [("default", F, None, [2, 3]), ("f32", F, 1.5, [3, 4]), ("zero_i64", I64, 0, [2, 5]), ("i64", I64, -7, [4, 1, 3]),
       ("bool", BOOL, True, [5]), ("f16", H, -0.0, [2, 2]), ("u8", U8, 200, [3, 3]), ("c128", C128, 1 - 2j, [2, 3]),
       ("scalar", D, 2.5, []), ("empty", F, 3, [4, 0])]
for name, vt, v, shape in cos:
    a = {} if v is None else {"value": numpy_helper.from_array(arr(vt, [v]))}
    model("ConstantOfShape_" + name, "ConstantOfShape", [], shape, a, [("shape", np.array(shape, np.int64))],
          opset=20, tol=BITS, out_type=vt)

# EyeLike: the diagonal moved by k (beyond the matrix too), the input's type or dtype's
eyes = [("plain", F, [4, 6], {}, F), ("k2", I64, [5, 5], {"k": 2}, I64), ("kneg", F, [6, 3], {"k": -3}, F),
        ("out", F, [3, 4], {"k": 9}, F), ("dtype_i32", F, [3, 5], {"dtype": I32}, I32),
        ("dtype_bool", I64, [4, 4], {"dtype": BOOL, "k": -1}, BOOL), ("dtype_f16", F, [3, 3], {"dtype": H}, H),
        ("dtype_bf16", F, [2, 4], {"dtype": B, "k": 1}, B), ("dtype_u8", D, [4, 2], {"dtype": U8}, U8),
        ("dtype_c128", F, [3, 3], {"dtype": C128}, C128)]
for name, it, xs, a, ot in eyes:
    model("EyeLike_" + name, "EyeLike", [("x", it, xs)], xs, a, opset=9, tol=BITS, out_type=ot)

# CumSum (and CumProd, opset 26): every type it takes, any axis (from an input, negative too), exclusive, reverse;
# long float lines, where the order of the additions shows in the bits
cum_types = (F, H, B, D, I8, I16, I32, I64, U8, U16, U32, U64)
for op, ops in (("CumSum", 14), ("CumProd", 26)):
    for t in cum_types:
        model("%s_%s" % (op, tn[t]), op, [("x", t, [3, 5, 4])], [3, 5, 4], {}, [("axis", i64(1))], opset=ops,
              tol=BITS)
    for i, (xs, axis, ex, rev) in enumerate((([7], 0, 1, 0), ([4, 6], -1, 0, 1), ([2, 3, 5], 0, 1, 1),
                                             ([3, 1000], 1, 0, 0), ([1000, 3], 0, 1, 0))):
        model("%s_%d" % (op, i), op, [("x", F, xs)], xs, {"exclusive": ex, "reverse": rev},
              [("axis", np.array(axis, np.int32 if i % 2 else np.int64))], opset=ops, tol=BITS)

# ReverseSequence: time-major and batch-major, lengths from 0 to the whole sequence
revs = [("time", [5, 3, 4], 1, 0, [5, 0, 3]), ("batch", [3, 6, 2], 0, 1, [1, 6, 4]), ("2d", [4, 4], 1, 0, [4, 3, 2, 1])]
for name, xs, ba, ta, lens in revs:
    for t in (F, I64, H, BOOL):
        model("ReverseSequence_%s_%s" % (name, tn[t]), "ReverseSequence", [("x", t, xs)], xs,
              {"batch_axis": ba, "time_axis": ta}, [("lens", np.array(lens, np.int64))], opset=10, tol=BITS)

# TopK: largest and smallest, any axis, K from 0 to the whole axis, ties (random integers tie often: the lower
# position first), NaN, infinities and signed zeros; TopK-1's k attribute, TopK-10's K input, TopK-11's largest
topks = [("last", F, [3, 20], {}, 5), ("smallest", F, [4, 9], {"largest": 0}, 3), ("axis0", F, [12, 3, 2], {"axis": 0}, 12),
         ("mid", I64, [2, 15, 3], {"axis": 1}, 7), ("i32_small", I32, [6, 11], {"largest": 0}, 11), ("k0", F, [3, 4], {}, 0),
         ("bool", BOOL, [3, 8], {}, 4), ("u64", U64, [2, 10], {"largest": 0}, 6), ("f16", H, [5, 7], {}, 2),
         ("bf16_small", B, [3, 6], {"largest": 0, "axis": 0}, 2), ("f64", D, [4, 13], {"sorted": 0}, 5),
         ("i8", I8, [40], {}, 40), ("u8", U8, [3, 30], {"largest": 0}, 9)]
for name, t, xs, a, kk in topks:
    out = list(xs)
    out[a.get("axis", -1)] = kk
    model("TopK_" + name, "TopK", [("x", t, xs)], out, a, [("k", i64(kk))], opset=11, tol=BITS,
          more_outs=[("idx", I64, out)])
special = np.array([[np.nan, 1, -0.0, 0.0, np.nan, 1, -np.inf, np.inf, 0.0, -0.0, 1, np.nan]], np.float32)
for name, a in (("special_largest", {}), ("special_smallest", {"largest": 0})):
    model("TopK_" + name, "TopK", [], [1, 9], a, [("x", special), ("k", i64(9))], opset=11, tol=BITS,
          out_type=F, more_outs=[("idx", I64, [1, 9])])
model("TopK_1", "TopK", [("x", F, [4, 10])], [4, 3], {"k": 3}, opset=9, tol=BITS, more_outs=[("idx", I64, [4, 3])])
model("TopK_10", "TopK", [("x", H, [4, 10])], [4, 6], {}, [("k", i64(6))], opset=10, tol=BITS,
      more_outs=[("idx", I64, [4, 6])])

# CenterCropPad: crop, pad (the odd element at the end), all axes or some (negative too), element sizes
ccps = [("crop_pad", [5, 7, 3], [3, 10], [0, 1], [3, 10, 3]), ("all", [4, 6], [7, 3], None, [7, 3]),
        ("neg", [2, 5, 8], [4], [-1], [2, 5, 4]), ("same", [3, 3], [3, 3], None, [3, 3])]
for name, xs, shape, axes, out in ccps:
    for t in (F, I64, U8, H):
        model("CenterCropPad_%s_%s" % (name, tn[t]), "CenterCropPad", [("x", t, xs)], out,
              {"axes": axes} if axes is not None else {}, [("shape", np.array(shape, np.int64))], opset=18, tol=BITS)

# indices, K, lengths and depths computed on the device (by a Gather the backend runs): read on the host with one
# copy each, the nodes still on CUDA
g = helper.make_graph([helper.make_node("Gather", ["table", "pick"], ["ids"], name="n0"),
                       helper.make_node("ScatterElements", ["x", "ids", "u"], ["y"], name="n1", reduction="add")],
                      "dev_indices", [vi("x", F, [6, 4]), vi("u", F, [3, 4])], [vi("y", F, [6, 4])],
                      [numpy_helper.from_array(np.array([[0, 1, 2, 3], [5, 5, 5, 5], [-1, -2, 0, 4]], np.int64), "table"),
                       numpy_helper.from_array(np.array([2, 0, 1], np.int64), "pick")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
m.ir_version = 8
onnx.save(m, "ScatterElements_device_indices.onnx")
manifest.write("ScatterElements_device_indices %s y 0 x,u\n" % BITS)
EOF

"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
vi = helper.make_tensor_value_info
g = helper.make_graph([helper.make_node("NonZero", ["x"], ["y"])], "nonzero", [vi("x", T.FLOAT, [3, 4])],
                      [vi("y", T.INT64, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "nonzero.onnx")
g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="bad")], "bad",
                      [vi("x", T.FLOAT, [1, 3, 5, 5]), vi("w", T.FLOAT, [2, 4, 3, 3])], [vi("y", T.FLOAT, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "bad_conv.onnx")
idx = numpy_helper.from_array(np.array([1, 7], dtype=np.int64), "i")
g = helper.make_graph([helper.make_node("Gather", ["x", "i"], ["y"], name="bad")], "bad_gather",
                      [vi("x", T.FLOAT, [5, 2])], [vi("y", T.FLOAT, None)], [idx])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "bad_gather.onnx")
# values the device meets and must refuse as the CPU does: a NaN for DynamicQuantizeLinear (made on the device:
# x * 0 / 0), an index outside MaxUnpool's output
g = helper.make_graph([helper.make_node("Mul", ["x", "zero"], ["p"]), helper.make_node("Div", ["p", "zero"], ["q"]),
                       helper.make_node("DynamicQuantizeLinear", ["q"], ["y", "s", "z"], name="bad")],
                      "nan_dynq", [vi("x", T.FLOAT, [2, 3])],
                      [vi("y", T.UINT8, None), vi("s", T.FLOAT, None), vi("z", T.UINT8, None)],
                      [numpy_helper.from_array(np.array([1, 1, 0], np.float32), "zero")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "nan_dynq.onnx")
g = helper.make_graph([helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="bad", kernel_shape=[2], strides=[2])],
                      "bad_unpool", [vi("x", T.FLOAT, [1, 1, 4])], [vi("y", T.FLOAT, None)],
                      [numpy_helper.from_array(np.array([[[1, 9, 3, 8]]], np.int64), "i")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]), "bad_unpool.onnx")
g = helper.make_graph([helper.make_node("ReduceL2", ["x"], ["y"], keepdims=0)], "int_l2", [vi("x", T.INT64, [3, 4])],
                      [vi("y", T.INT64, [])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "int_l2.onnx")

# LSTM, GRU, RNN: directions, the optional inputs (B, sequence_lens with a 0 and a short length, initial_h,
# initial_c, P) and outputs (each left out in turn), layout 1, activations with alpha and beta, clip,
# input_forget, linear_before_reset, float16; and an nn.LSTM and nn.GRU exported from PyTorch.  The models are run
# after this script, from rnn-manifest.txt (lines as manifest.txt's), by the block "LSTM, GRU, RNN" below.
rrng = np.random.default_rng(13)
rnn_manifest = open("rnn-manifest.txt", "w")
def rnn_model(name, op, T_, Bn, I_, H_, direction="forward", layout=0, bias=True, seq=None, h0=False, c0=False,
              peep=False, outs=(1, 1, 1), attrs=None, dt=np.float32, tol="1e-4 1e-5"):
    G, D = {"RNN": 1, "GRU": 3, "LSTM": 4}[op], 2 if direction == "bidirectional" else 1
    et = T.FLOAT16 if dt == np.float16 else T.FLOAT
    u = lambda *s: rrng.uniform(-0.6, 0.6, s).astype(dt)
    st_shape = [Bn, D, H_] if layout else [D, Bn, H_]
    ins = [("x", [Bn, T_, I_] if layout else [T_, Bn, I_])]
    inits = [numpy_helper.from_array(u(D, G * H_, I_), "w"), numpy_helper.from_array(u(D, G * H_, H_), "r")]
    names = ["x", "w", "r", "", "", "", "", ""]
    if bias:
        inits.append(numpy_helper.from_array(u(D, 2 * G * H_), "b"))
        names[3] = "b"
    if seq is not None:
        inits.append(numpy_helper.from_array(np.array(seq, dtype=np.int32), "sl"))
        names[4] = "sl"
    if h0:
        ins.append(("h0", st_shape))
        names[5] = "h0"
    if c0:
        ins.append(("c0", st_shape))
        names[6] = "c0"
    if peep:
        inits.append(numpy_helper.from_array(u(D, 3 * H_), "p"))
        names[7] = "p"
    while names[-1] == "":
        names.pop()
    oshapes = [[Bn, T_, D, H_] if layout else [T_, D, Bn, H_], st_shape, st_shape]
    onames = [n if want else "" for n, want in zip(["y", "yh", "yc"][:3 if op == "LSTM" else 2], outs)]
    while onames[-1] == "":
        onames.pop()
    a = {"direction": direction, "hidden_size": H_}
    if layout:
        a["layout"] = 1
    a.update(attrs or {})
    node = helper.make_node(op, names, onames, name="n0", **a)
    g = helper.make_graph([node], name, [vi(n, et, s) for n, s in ins],
                          [vi(n, et, s) for n, s in zip(onames, oshapes) if n], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.save(m, name + ".onnx")
    rnn_manifest.write("%s %s %s 0 %s\n" % (name, tol, ",".join(n for n in onames if n), ",".join(n for n, _ in ins)))

for op in ("LSTM", "GRU", "RNN"):
    o = op.lower()
    rnn_model(o + "_forward", op, 5, 3, 4, 6)
    rnn_model(o + "_reverse_states", op, 5, 3, 4, 6, "reverse", h0=True, c0=op == "LSTM")
    rnn_model(o + "_bidirectional_seq", op, 5, 3, 4, 6, "bidirectional", seq=[5, 0, 2], h0=True, c0=op == "LSTM")
    rnn_model(o + "_no_bias_seq", op, 6, 4, 3, 5, seq=[3, 6, 1, 0])
    rnn_model(o + "_reverse_seq", op, 6, 3, 3, 5, "reverse", seq=[2, 6, 4], h0=True)
    rnn_model(o + "_clip", op, 5, 2, 4, 6, "bidirectional", attrs={"clip": 0.3})
    rnn_model(o + "_layout1", op, 5, 3, 4, 6, "bidirectional", layout=1, seq=[4, 5, 0], h0=True, c0=op == "LSTM")
    rnn_model(o + "_layout1_forward", op, 4, 2, 3, 5, layout=1)
    rnn_model(o + "_big", op, 9, 5, 24, 32, "bidirectional", seq=[9, 3, 7, 9, 1], h0=True, c0=op == "LSTM")
    rnn_model(o + "_f16", op, 4, 2, 3, 5, "bidirectional", h0=True, dt=np.float16, tol="2e-3 2e-3")
    for i in range(3 if op == "LSTM" else 2):  # each output left out in turn
        rnn_model("%s_without_%s" % (o, ["y", "yh", "yc"][i]), op, 5, 3, 4, 6, "bidirectional", seq=[3, 5, 0],
                  h0=True, outs=[j != i for j in range(3)])
rnn_model("lstm_peepholes", "LSTM", 5, 3, 4, 6, "bidirectional", seq=[5, 2, 0], h0=True, c0=True, peep=True)
rnn_model("lstm_peepholes_clip", "LSTM", 5, 3, 4, 6, peep=True, c0=True, attrs={"clip": 0.25})
rnn_model("lstm_input_forget", "LSTM", 5, 3, 4, 6, "bidirectional", peep=True, attrs={"input_forget": 1})
rnn_model("lstm_activations", "LSTM", 5, 3, 4, 6, "bidirectional", h0=True, c0=True,
          attrs={"activations": ["HardSigmoid", "Affine", "Elu", "Sigmoid", "ScaledTanh", "Softsign"],
                 "activation_alpha": [0.3, 0.8, 0.9, 1.1], "activation_beta": [0.4, 0.1, 0.7]})
rnn_model("lstm_activations_2", "LSTM", 5, 3, 4, 6, c0=True, attrs={"activations": ["sigmoid", "LeakyRelu", "Softplus"],
                                                                     "activation_alpha": [0.2]})
rnn_model("gru_lbr", "GRU", 5, 3, 4, 6, attrs={"linear_before_reset": 1})
rnn_model("gru_lbr_bidirectional_seq", "GRU", 6, 3, 4, 5, "bidirectional", seq=[6, 0, 3], h0=True,
          attrs={"linear_before_reset": 1})
rnn_model("gru_lbr_no_bias_clip", "GRU", 5, 3, 4, 6, "reverse", bias=False, attrs={"linear_before_reset": 1, "clip": 0.4})
rnn_model("gru_lbr_layout1", "GRU", 5, 3, 4, 6, layout=1, seq=[2, 5, 1], h0=True, attrs={"linear_before_reset": 1})
rnn_model("gru_activations", "GRU", 5, 3, 4, 6, "bidirectional",
          attrs={"activations": ["HardSigmoid", "Softsign", "Sigmoid", "ThresholdedRelu"],
                 "activation_alpha": [0.25, 0.1], "activation_beta": [0.45]})
rnn_model("rnn_relu", "RNN", 5, 3, 4, 6, "bidirectional", seq=[5, 1, 0], h0=True, attrs={"activations": ["Relu", "Relu"]})
rnn_model("rnn_relu_tanh", "RNN", 5, 3, 4, 6, "bidirectional", h0=True, attrs={"activations": ["Relu", "Tanh"]})
rnn_model("rnn_relu_clip", "RNN", 6, 2, 4, 6, "reverse", attrs={"activations": ["Relu"], "clip": 0.5})
try:  # a small nn.LSTM (two layers, bidirectional, batch first) and an nn.GRU from PyTorch
    import torch
    torch.manual_seed(5)
    class TorchRnn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(5, 8, num_layers=2, bidirectional=True, batch_first=True)
            self.gru = torch.nn.GRU(16, 6)
        def forward(self, x):
            y, (h, c) = self.lstm(x)
            z, hg = self.gru(y.transpose(0, 1))
            return z, hg, h, c
    import warnings
    warnings.simplefilter("ignore")
    tm, tx = TorchRnn().eval(), torch.randn(3, 7, 5)
    torch.onnx.export(tm, (tx,), "torch_rnn.onnx", opset_version=13, input_names=["x"],
                      output_names=["z", "hg", "h", "c"])
    np.save("torch_rnn_x.npy", tx.numpy())
    with torch.no_grad():
        for n, v in zip(["z", "hg", "h", "c"], tm(tx)):
            np.save("torch_rnn_%s.npy" % n, v.numpy())
    rnn_manifest.write("torch_rnn 1e-4 1e-5 z,hg,h,c 0 x\n")
except ImportError:
    pass
rnn_manifest.close()

# A transformer block (token embedding, LayerNormalization, attention with its reshapes and transposes, a GELU
# MLP) and a ResNet tail (Conv, BatchNormalization, Relu, GlobalAveragePool, Flatten, Gemm): no node of either
# may fall back
rng = np.random.default_rng(11)
c = lambda name, *s: numpy_helper.from_array(rng.uniform(-0.3, 0.3, s).astype(np.float32), name)
i64 = lambda name, *v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)
n = helper.make_node
nodes = [n("Gather", ["emb", "ids"], ["e"]), n("LayerNormalization", ["e", "g1", "b1"], ["h"], axis=-1),
         n("MatMul", ["h", "wqkv"], ["qkv"]), n("Reshape", ["qkv", "s5"], ["qkv5"]),
         n("Transpose", ["qkv5"], ["qkvt"], perm=[2, 0, 3, 1, 4]), n("Split", ["qkvt"], ["q", "k", "v"], axis=0),
         n("Squeeze", ["q", "a0"], ["q4"]), n("Squeeze", ["k", "a0"], ["k4"]), n("Squeeze", ["v", "a0"], ["v4"]),
         n("Transpose", ["k4"], ["kt"], perm=[0, 1, 3, 2]), n("MatMul", ["q4", "kt"], ["sc"]),
         n("Mul", ["sc", "scale"], ["scs"]), n("Softmax", ["scs"], ["p"], axis=-1), n("MatMul", ["p", "v4"], ["o"]),
         n("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]), n("Reshape", ["ot", "s3"], ["o3"]),
         n("MatMul", ["o3", "wo"], ["a"]), n("Add", ["e", "a"], ["r1"]),
         n("LayerNormalization", ["r1", "g2", "b2"], ["h2"], axis=-1), n("MatMul", ["h2", "w1"], ["f1"]),
         n("Gelu", ["f1"], ["f2"]), n("MatMul", ["f2", "w2"], ["f3"]), n("Add", ["r1", "f3"], ["y"])]
inits = [c("emb", 50, 32), c("g1", 32), c("b1", 32), c("wqkv", 32, 96), i64("s5", 1, 8, 3, 4, 8), i64("a0", 0),
         numpy_helper.from_array(np.float32(8 ** -0.5), "scale"), i64("s3", 1, 8, 32), c("wo", 32, 32), c("g2", 32),
         c("b2", 32), c("w1", 32, 64), c("w2", 64, 32)]
g = helper.make_graph(nodes, "block", [vi("ids", T.INT64, [1, 8])], [vi("y", T.FLOAT, [1, 8, 32])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)]), "transformer_block.onnx")
# the same block with its reshape targets computed at run time, as PyTorch exports them: Shape, Gather and Slice
# of the dims, int64 Add, Div and Mul (the head size, torch.chunk's (n + 2) / 3), Unsqueeze and Concat
shape_nodes = [n("Shape", ["e"], ["sh"]), n("Slice", ["sh", "z1", "two"], ["bt"]), n("Gather", ["sh", "two0"], ["d"]),
               n("Div", ["d", "four"], ["hd"]), n("Unsqueeze", ["hd", "a0"], ["hd1"]),
               n("Concat", ["bt", "three_four", "hd1"], ["s5"], axis=0),
               n("Shape", ["qkv"], ["shq"]), n("Gather", ["shq", "two0"], ["dq"]), n("Add", ["dq", "two0"], ["dq2"]),
               n("Div", ["dq2", "three"], ["dq3"]), n("Mul", ["dq3", "one"], ["dq4"]),
               n("Unsqueeze", ["dq4", "a0"], ["dq5"]), n("Concat", ["bt", "dq5"], ["s3"], axis=0)]
computed = {"s5", "s3"}
shape_inits = [i64("z1", 0), i64("two", 2), numpy_helper.from_array(np.array(2, np.int64), "two0"),
               numpy_helper.from_array(np.array(4, np.int64), "four"), i64("three_four", 3, 4),
               numpy_helper.from_array(np.array(3, np.int64), "three"),
               numpy_helper.from_array(np.array(1, np.int64), "one")]
nodes2 = nodes[:3] + shape_nodes[:6] + nodes[3:15] + shape_nodes[6:] + nodes[15:]
g = helper.make_graph(nodes2, "block_shapes", [vi("ids", T.INT64, [1, 8])], [vi("y", T.FLOAT, [1, 8, 32])],
                      [t for t in inits if t.name not in computed] + shape_inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)]), "transformer_shapes.onnx")
nodes = [n("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), n("BatchNormalization", ["c", "bs", "bb", "bm", "bv"], ["b"]),
         n("Relu", ["b"], ["r"]), n("GlobalAveragePool", ["r"], ["p"]), n("Flatten", ["p"], ["f"]),
         n("Gemm", ["f", "fc", "fb"], ["y"], transB=1)]
inits = [c("w", 8, 3, 3, 3), c("bs", 8), c("bb", 8), c("bm", 8),
         numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bv"), c("fc", 10, 8), c("fb", 10)]
g = helper.make_graph(nodes, "tail", [vi("x", T.FLOAT, [2, 3, 9, 9])], [vi("y", T.FLOAT, [2, 10])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)]), "resnet_tail.onnx")
# chains of element-wise nodes, run as one kernel on CUDA (src/exec/chain.c, cuda/chain.cu): exact GELU as torch
# writes it out, SiLU, and one with scalars on the left, x on either side and a scalar of rank 1
f32 = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
chains = {
    "chain_gelu": [n("Div", ["x", "sq2"], ["a"]), n("Erf", ["a"], ["b"]), n("Add", ["b", "one"], ["c"]),
                   n("Mul", ["x", "c"], ["d"]), n("Mul", ["d", "half"], ["y"])],
    "chain_silu": [n("Sigmoid", ["x"], ["s"]), n("Mul", ["x", "s"], ["y"])],
    "chain_mixed": [n("Sub", ["one", "x"], ["a"]), n("Exp", ["a"], ["b"]), n("Mul", ["b", "x"], ["c"]),
                    n("Div", ["two1", "c"], ["d"]), n("Tanh", ["d"], ["e"]), n("Sub", ["x", "e"], ["y"])],
}
for name, ns in chains.items():
    g = helper.make_graph(ns, name, [vi("x", T.FLOAT, [16, 300])], [vi("y", T.FLOAT, [16, 300])],
                          [f32("sq2", 1.4142135), f32("one", 1.0), f32("half", 0.5), f32("two1", [2.0])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")
# a Transpose taken into the MatMul next to it (src/exec/mmperm.c, cuda/gemm.cu): an operand read through the
# permutation, as A and as B (the keys' [L, BH, d] to [BH, d, L]), the heads of rank 4, an A broadcast over B's
# batches, the output written through the Transpose after the product; attention as torch exports it at cuBLAS's
# sizes (the values' Transpose after the Softmax, so that both operands of the second product are at hand); and
# permutations a product cannot read (no axis of stride 1 left among the last two), which stay copies.  name:
# (inputs, nodes, Transposes taken in)
perm_models = {
    "perm_a": ([("x", [6, 4, 5]), ("b", [4, 5, 7])],
               [n("Transpose", ["x"], ["t"], perm=[1, 0, 2]), n("MatMul", ["t", "b"], ["y"])], 1),
    "perm_keys": ([("q", [4, 6, 5]), ("k", [6, 4, 5])],
                  [n("Transpose", ["k"], ["t"], perm=[1, 2, 0]), n("MatMul", ["q", "t"], ["y"])], 1),
    "perm_out": ([("a", [4, 6, 5]), ("b", [4, 5, 7])],
                 [n("MatMul", ["a", "b"], ["p"]), n("Transpose", ["p"], ["y"], perm=[1, 0, 2])], 1),
    "perm_heads": ([("x", [1, 6, 4, 5])],
                   [n("Transpose", ["x"], ["t"], perm=[0, 2, 1, 3]), n("MatMul", ["t", "w"], ["y"])], 1),
    "perm_bcast": ([("a", [6, 5]), ("x", [4, 7, 5])],
                   [n("Transpose", ["x"], ["t"], perm=[0, 2, 1]), n("MatMul", ["a", "t"], ["y"])], 1),
    "perm_attention": ([("q", [128, 8, 64]), ("k", [128, 8, 64]), ("v", [128, 8, 64])],
                       [n("Transpose", ["q"], ["qt"], perm=[1, 0, 2]), n("Transpose", ["k"], ["kt"], perm=[1, 2, 0]),
                        n("MatMul", ["qt", "kt"], ["s"]), n("Softmax", ["s"], ["p"], axis=-1),
                        n("Transpose", ["v"], ["vt"], perm=[1, 0, 2]), n("MatMul", ["p", "vt"], ["o"]),
                        n("Transpose", ["o"], ["y"], perm=[1, 0, 2])], 3),
    "perm_empty": ([("x", [3, 2, 0]), ("b", [2, 0, 4])],  # empty sums: zeros, read through nothing
                   [n("Transpose", ["x"], ["t"], perm=[1, 0, 2]), n("MatMul", ["t", "b"], ["p"]),
                    n("Transpose", ["p"], ["y"], perm=[1, 0, 2])], 2),
    "perm_no_in": ([("x", [4, 5, 6]), ("b", [6, 5, 3])],
                   [n("Transpose", ["x"], ["t"], perm=[2, 0, 1]), n("MatMul", ["t", "b"], ["y"])], 0),
    "perm_no_out": ([("a", [4, 6, 5]), ("b", [4, 5, 7])],
                    [n("MatMul", ["a", "b"], ["p"]), n("Transpose", ["p"], ["y"], perm=[0, 2, 1])], 0),
}
with open("perm-manifest.txt", "w") as pm:
    for name, (ins, ns, taken) in perm_models.items():
        w = [c("w", 5, 3)] if name == "perm_heads" else []
        g = helper.make_graph(ns, name, [vi(i, T.FLOAT, s) for i, s in ins], [vi("y", T.FLOAT, None)], w)
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")
        pm.write("%s %d %s\n" % (name, taken, ",".join(i for i, _ in ins)))
EOF
# The models made above, each on the CPU then on CUDA, in one process (tests/gpu-suite.c: one CUDA context, each
# model under a watchdog): the op models (manifest.txt: the CPU's outputs saved as cpu_NAME/, the CUDA backend's
# checked against them, no node left to the CPU but the Cast of the bfloat16 models), the LSTM, GRU and RNN models
# (rnn-manifest.txt; the PyTorch export against PyTorch's own outputs below), and the ONNX conformance tests of
# tests/conformance-pass.txt (on both backends; on CUDA nodes may fall back).  CUDA_CONFORMANCE=0 leaves them out.
GPU_SUITE=${GPU_SUITE:-$BUILDDIR/tests/gpu-suite}
TESTDATA=${ONNXVIEW_TESTDATA:-/usr/share/libonnx-testdata/data}
set -- --models manifest.txt --models rnn-manifest.txt
conformance=
if [ "${CUDA_CONFORMANCE:-1}" = 0 ]; then
	skip "CUDA_CONFORMANCE=0: the conformance run on CUDA is left out"
elif [ ! -d "$TESTDATA/node" ]; then
	skip "no ONNX test data in $TESTDATA (Debian: libonnx-testdata): no conformance run on CUDA"
else
	set -- "$@" --conformance "$TESTDATA" "$SRCDIR/tests/conformance-pass.txt"
	conformance=1
fi
if [ ! -x "$GPU_SUITE" ]; then
	not_ok "the GPU suite is built ($GPU_SUITE)"
	done_testing
	exit 1
fi
# GPU_SUITE_LOG: where its TAP goes as it runs (scripts/gpu/run.sh keeps it), its progress beside it (.err)
suite_txt=${GPU_SUITE_LOG:-suite.txt}
"$GPU_SUITE" --timeout "${GPU_SUITE_TIMEOUT:-120}" --progress 10 "$@" >"$suite_txt" 2>"$suite_txt.err"
suite_rc=$?
[ "$suite_txt" = suite.txt ] || cp "$suite_txt" suite.txt
# a suite's failures become this script's (with their detail lines, PREFIX before each), its summary a comment
suite_failures() { # FILE PREFIX
	while IFS= read -r l; do
		case $l in
		"not ok "*) not_ok "$2${l#not ok * - }" ;;
		"#   "*|"Bail out!"*) echo "# $l" ;;
		esac
	done <"$1"
}
suite_failures suite.txt ""
suite_line=$(grep '^# gpu-suite:' suite.txt | tail -1)
diag "${suite_line#\# }"
n_models=$(wc -l <manifest.txt)
n_rnn=$(wc -l <rnn-manifest.txt)
n_conf=$(grep -c '^ok [0-9]* - conformance' suite.txt)
check "the GPU suite ran every model and ended normally (exit $suite_rc, no watchdog)" \
	sh -c "[ $suite_rc -le 1 ] && grep -q '^1\.\.' suite.txt && ! grep -q '^Bail out!' suite.txt && grep -q '^# gpu-suite:' suite.txt"
check "all $n_models op models and $n_rnn LSTM, GRU and RNN models match the CPU on CUDA without falling back" \
	sh -c "[ $suite_rc = 0 ] || ! grep -v '^not ok [0-9]* - conformance' suite.txt | grep -q '^not ok'"
if [ -n "$conformance" ]; then
	check "the conformance tests of tests/conformance-pass.txt pass on the CPU and the CUDA backend ($n_conf pass)" \
		sh -c "! grep -q '^not ok [0-9]* - conformance' suite.txt && [ $n_conf -gt 0 ]"
fi
# CUDA graphs (the default since they were measured on a GPU): each op model run three times, the second recorded as a graph and the third a
# launch of it; every run must match the CPU's outputs as above and give the first run's bits.  The models a graph
# cannot hold (control flow, a node that reads a device value on the host...) run node by node and say why.
graph_txt=${GPU_SUITE_LOG:+$GPU_SUITE_LOG.graph}
graph_txt=${graph_txt:-graph.txt}
"$GPU_SUITE" --graph --timeout "${GPU_SUITE_TIMEOUT:-120}" --progress 10 --models manifest.txt >"$graph_txt" \
	2>"$graph_txt.err"
graph_rc=$?
[ "$graph_txt" = graph.txt ] || cp "$graph_txt" graph.txt
suite_failures graph.txt "graphs: "
graph_line=$(grep '^# gpu-suite graphs:' graph.txt | tail -1)
diag "${graph_line#\# }"
n_graph=$(sed -n 's/^# gpu-suite graphs: \([0-9]*\) recorded.*/\1/p' graph.txt)
check "with CUDA graphs, all $n_models op models match the CPU and every run gives the first run's bits" \
	sh -c "[ $graph_rc = 0 ] && grep -q '^# gpu-suite graphs:' graph.txt && ! grep -q '^Bail out!' graph.txt"
check "and most are recorded and replayed (${n_graph:-0} of $n_models)" \
	sh -c "[ \"${n_graph:-0}\" -gt \$(( $n_models / 2 )) ]"


OV_CUDA_CONV_BLAS=0 run Conv_pads.onnx --input random --backend cuda
check "Conv reports its cuDNN algorithm as a note on the node" grep -q "^note: #0 'n0' Conv: cudnn algo [A-Z_]*, FMA math" out.txt
run Conv_pads.onnx --input random --backend cuda --repeat 2
check "repeated, timed against cuBLAS and the direct kernel, Conv's note says which was fastest, with the times of the winner" "$PYTHON" -c "
import re; t = [l for l in open('out.txt') if l.startswith(\"note: #0 'n0' Conv: \")][0].rstrip()
m = re.search(r'cuBLAS product \(full float32\), ([0-9.]+) ms against cuDNN.s [A-Z_]+ ([0-9.]+) ms, timed', t)
d = re.search(r'the direct kernel \(full float32\), ([0-9.]+) ms against cuDNN.s [A-Z_]+ ([0-9.]+) ms', t)
assert ((m and float(m.group(1)) < float(m.group(2)) and t.endswith(', timed (direct kernel slower)')) or
        (d and float(d.group(1)) < float(d.group(2))) or t.endswith('(cuBLAS, direct kernel slower)')), t"
run Conv_pads.onnx --input random --backend cuda
check "a run of its own computes a 2-D convolution in the own kernels (no library), and says so" \
	grep -q "^note: #0 'n0' Conv: the own per-output kernel (full float32, 4 output channels per group), for a run of its own (no library)$" out.txt
run Conv_3d.onnx --input random --backend cuda
check "a 3-D one stays on cuDNN" grep -q "^note: #0 'n0' Conv: cudnn algo .*the heuristics' choice for one run" out.txt
OV_CUDA_CONV_OWN=0 run Conv_pads.onnx --input random --backend cuda
check "OV_CUDA_CONV_OWN=0: a run of its own takes cuDNN's heuristics (full float32, a direct sum), untimed, and says so" \
	grep -q "^note: #0 'n0' Conv: cudnn algo \\(IMPLICIT_GEMM\\|IMPLICIT_PRECOMP_GEMM\\|GEMM\\|DIRECT\\), FMA math (full float32), .*the heuristics' choice for one run" out.txt
run ConvTranspose_pads.onnx --input random --backend cuda
check "ConvTranspose reports its cuDNN backward-data algorithm, deterministic and full float32" \
	grep -q "^note: #0 'n0' ConvTranspose: cudnn backward-data algo [A-Z_0-9]*, FMA math" out.txt
OV_CUDA_CONV_BLAS=0 run Conv_pads.onnx --input random --backend cuda --json
check "--json lists the note" "$PYTHON" -c "
import json; r = json.load(open('out.txt'))
assert r['backend'] == 'cuda' and r['fallback_nodes'] == [] and not r['tf32']
assert r['notes'][0]['node'] == 0 and r['notes'][0]['op'] == 'Conv' and 'cudnn algo' in r['notes'][0]['text']"
run Conv_big.onnx --input random --backend cuda --tf32 --expect y=cpu_Conv_big/y.npy --rtol 1e-2 --atol 1e-2
check "--tf32 runs a convolution, close to the CPU" sh -c "[ \$(cat rc.txt) = 0 ] && grep -q 'on cuda with TF32' out.txt"
run MatMul_8.onnx --input a=random --input b=random --backend cuda --tf32 --expect y=cpu_MatMul_8/y.npy \
	--rtol 1e-2 --atol 1e-2
check "--tf32 runs a matrix product, close to the CPU" [ "$(rc)" = 0 ]

# the direct convolution kernel (cuda/conv-direct.cu) and the 2-D MaxPool (cuda/pool.cu), on tests/gen-conv-direct.py's
# models.  On a GPU this runs the kernel's shared-memory staging and barriers for real, which the simulator
# cannot race.
# OV_CUDA_CONV_BLAS=3 forces the direct kernel wherever it fits (C x kh x kw <= 147, one group, 1-D or 2-D): the
# ResNet stem's geometry on a small non-square image (7x7, stride 2, pads 3, 3 -> 64 channels, bias, Relu, MaxPool),
# and odd ones: one input channel, output channels that are no multiple of the block's 32, asymmetric pads (applied
# by copying), dilations, strides 1, 2 and 3, a rectangular kernel, a 1-D convolution, a residual Add and Relu taken
# into its epilogue; a convolution with too many input channels and a grouped one stay on cuDNN.
"$PYTHON" "$SRCDIR/tests/gen-conv-direct.py" direct || not_ok "the direct kernel's models could not be made"
cd direct || exit 1
"$ONNXVIEW" run stem.onnx --input random --save cpu_stem >/dev/null 2>&1
OV_CUDA_CONV_BLAS=3 run stem.onnx --input random --backend cuda --save dir_stem --expect y=cpu_stem/y.npy --rtol 1e-4 \
	--atol 1e-5
check "the stem (7x7, stride 2, 3 -> 64 channels, bias, Relu, MaxPool) by the direct kernel (OV_CUDA_CONV_BLAS=3): the CPU's values" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^note: #0 Conv: the direct kernel (full float32), OV_CUDA_CONV_BLAS=3$' out.txt &&
	       ! grep -q 'on the CPU' out.txt"
OV_CUDA_CONV_BLAS=3 run stem.onnx --input random --backend cuda --all --save dir_all_stem
check "its bias and the Relu taken into its stores give the bits of the kernels run apart (--all)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && cmp dir_stem/y.npy dir_all_stem/y.npy"
"$ONNXVIEW" run odd.onnx --input random --save cpu_odd >/dev/null 2>&1
odd_expect=""
for o in ya yb yc yd ye yf; do odd_expect="$odd_expect --expect $o=cpu_odd/$o.npy"; done
# shellcheck disable=SC2086
OV_CUDA_CONV_BLAS=3 run odd.onnx --input random --backend cuda --save dir_odd $odd_expect --rtol 1e-4 --atol 1e-5
check "odd geometries by the direct kernel (Cin 1, 37 or 33 channels, asymmetric pads, dilations, strides 1 to 3, 1-D, residual): the CPU's values" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c '^note: #[0-9]* Conv: the direct kernel .*OV_CUDA_CONV_BLAS=3' out.txt) = 4 ] &&
	       grep -q '^note: #0 Conv: the direct kernel .*, asymmetric pads applied by copying$' out.txt"
check "32 input channels (3x3: 288 products) and a grouped convolution stay on cuDNN" \
	sh -c "grep -q '^note: #6 Conv: cudnn algo' out.txt && grep -q '^note: #7 Conv: cudnn algo' out.txt"
OV_CUDA_CONV_BLAS=3 run odd.onnx --input random --backend cuda --all --save dir_all_odd
check "the residual Add and Relu taken into the direct kernel's stores: the bits of the kernels run apart (--all)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && for o in ya yb yc yd; do cmp dir_odd/\$o.npy dir_all_odd/\$o.npy || exit 1; done"
OV_CUDA_PLAN_CACHE=0 run odd.onnx --input random --backend cuda --repeat 2 $odd_expect --rtol 1e-4 --atol 1e-5
check "timed, the direct kernel is a third candidate (any may win) and each note says so" "$PYTHON" -c '
import re; notes = [l.rstrip() for l in open("out.txt") if re.match(r"note: #[0-9]+ Conv: ", l)]
assert len(notes) == 6, notes
for t in notes[:4]:
    m = re.search(r"the direct kernel \(full float32\), ([0-9.]+) ms against cuDNN.s [A-Z_]+ ([0-9.]+) ms"
                  r"( and cuBLAS.s ([0-9.]+) ms)?, timed$", t)
    if m:
        assert float(m.group(1)) < float(m.group(2)) and (not m.group(4) or float(m.group(1)) < float(m.group(4))), t
    else:
        assert t.endswith("(direct kernel slower)") or t.endswith("(cuBLAS, direct kernel slower)"), t
assert not any("direct" in t for t in notes[4:]), notes'
check "and matches the CPU" [ "$(rc)" = 0 ]
# MaxPool: every output the CPU's bit for bit (tests/cuda-sim.sh plants a fault in the 2-D kernel to show it runs them)
for m in pools pool16 pool1d; do
	x=px.npy
	[ $m = pool16 ] && x=ph.npy
	[ $m = pool1d ] && x=p1.npy
	"$ONNXVIEW" run $m.onnx --input x=$x --save cpu_$m >/dev/null 2>&1
	run $m.onnx --input x=$x --backend cuda --save dev_$m
	echo "$(rc)" >rc_$m.txt
	grep -q 'on the CPU' out.txt && echo "$m" >>fell_back.txt
done
check "MaxPool (the stem's, ceil_mode, asymmetric pads, dilations, wide windows, Indices, float16, 1-D) on zeros of both signs, NaN and infinities: the CPU's bits" \
	sh -c "[ \$(cat rc_pools.txt rc_pool16.txt rc_pool1d.txt | tr -d '\n') = 000 ] && [ ! -e fell_back.txt ] &&
	       for f in p1 p2 p3 p4 p5 i5; do cmp cpu_pools/\$f.npy dev_pools/\$f.npy || exit 1; done &&
	       cmp cpu_pool16/p.npy dev_pool16/p.npy && cmp cpu_pool1d/p.npy dev_pool1d/p.npy && cmp cpu_pool1d/q.npy dev_pool1d/q.npy"
cd "$TMP" || exit 1

# the own convolution kernels (cuda/conv-igemm.cu), which a run of its own takes for 1-D and 2-D convolutions: the
# implicit GEMM (16 or more output channels per group) and the per-output loop (depthwise, narrow groups), forced
# with OV_CUDA_CONV_OWN=1, on tests/gen-conv-igemm.py's geometries (1x1, 3x3, 7x7 stride 2, dilation 2, asymmetric
# pads, groups, depthwise stride 1 and 2, 1-D, SAME_UPPER, sizes off the tiles, batch 2, sums off the tile's step)
# and its small ResNet and MobileNet.  On a GPU this runs the GEMM's shared-memory staging and barriers for real.
"$PYTHON" "$SRCDIR/tests/gen-conv-igemm.py" own || not_ok "the own kernels' models could not be made"
cd own || exit 1
for m in geoms half resnet mobilenet; do "$ONNXVIEW" run $m.onnx --input random --save cpu_$m >/dev/null 2>&1; done
geoms_expect=""
for o in y1 y2 y3 y4 y5 y6 y7 y8 y9 y10 y11 y12 y13; do geoms_expect="$geoms_expect --expect $o=cpu_geoms/$o.npy"; done
# shellcheck disable=SC2086
OV_CUDA_CONV_OWN=1 run geoms.onnx --input random --backend cuda --save own_geoms $geoms_expect --rtol 1e-4 --atol 1e-5
check "13 geometries by the own kernels (OV_CUDA_CONV_OWN=1): the CPU's values, none on the CPU" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^PASS: 13 of 13 compared values match' out.txt && ! grep -q 'on the CPU' out.txt"
check "9 by the implicit GEMM, 4 (depthwise, two groups of 2) by the per-output loop, the notes say so" \
	sh -c "[ \$(grep -c '^note: #[0-9]* Conv: the own implicit-GEMM kernel (full float32), OV_CUDA_CONV_OWN=1$' out.txt) = 9 ] &&
	       [ \$(grep -c '^note: #[0-9]* Conv: the own per-output kernel (full float32, [12] output channels\{0,1\} per group), OV_CUDA_CONV_OWN=1$' out.txt) = 4 ]"
# shellcheck disable=SC2086
run geoms.onnx --input random --backend cuda --save one_geoms $geoms_expect --rtol 1e-4 --atol 1e-5
check "a run of its own takes them without being asked, the same bits" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c 'Conv: the own .*, for a run of its own (no library)$' out.txt) = 13 ] &&
	       for o in y1 y2 y3 y4 y5 y6 y7 y8 y9 y10 y11 y12 y13; do cmp own_geoms/\$o.npy one_geoms/\$o.npy || exit 1; done"
run geoms.onnx --input random --backend cuda --all --save all_geoms
check "the bias, residual Adds, Relus and Clip taken into their stores: the bits of the kernels run apart (--all)" \
	sh -c "[ \$(cat rc.txt) = 0 ] && for o in y1 y2 y3 y4 y5 y6 y7 y8 y9 y10 y11 y12 y13; do cmp one_geoms/\$o.npy all_geoms/\$o.npy || exit 1; done"
run half.onnx --input random --backend cuda --expect y=cpu_half/y.npy --expect d=cpu_half/d.npy --rtol 2e-3 --atol 2e-3
check "float16 through float32 (an implicit GEMM and a depthwise one): the CPU's values" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c 'Conv: the own ' out.txt) = 2 ]"
for m in resnet mobilenet; do
	run $m.onnx --input random --backend cuda --expect y=cpu_$m/y.npy --rtol 1e-4 --atol 1e-5
	check "a small $m-like model, a run of its own: the CPU's values, every Conv in the own kernels, none on the CPU" \
		sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'on the CPU' out.txt && ! grep 'Conv: ' out.txt | grep -vq 'Conv: the own '"
done
run resnet.onnx --input random --backend cuda --repeat 2 --expect y=cpu_resnet/y.npy --rtol 1e-4 --atol 1e-5
check "repeated (--repeat 2), its convolutions are timed between the libraries and the direct kernel as before" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c 'Conv: .*timed' out.txt) = 6 ] && ! grep -q 'Conv: the own' out.txt"
OV_CUDA_CONV_OWN=1 run resnet.onnx --input random --backend cuda --repeat 2 --expect y=cpu_resnet/y.npy --rtol 1e-4 --atol 1e-5
check "OV_CUDA_CONV_OWN=1: repeated runs too, every run the same bits" \
	sh -c "[ \$(cat rc.txt) = 0 ] && [ \$(grep -c 'Conv: the own .*OV_CUDA_CONV_OWN=1$' out.txt) = 6 ] &&
	       grep -q '^repeat: every run gave the same bits' out.txt"
cd "$TMP" || exit 1

# the whole example model (its cubic Resize included), and declined nodes
"$ONNXVIEW" run "$SRCNN" --input random --save cpu_srcnn >/dev/null 2>&1
run "$SRCNN" --input random --backend cuda --expect output=cpu_srcnn/output.npy --rtol 1e-4 --atol 1e-5
check "the example model matches the CPU on CUDA" [ "$(rc)" = 0 ]
check "all its nodes, the cubic Resize too, run on CUDA (none on the CPU)" \
	sh -c "grep -q '^ran 6 nodes on cuda' out.txt && ! grep -q 'on the CPU' out.txt"
if [ -f torch_rnn.onnx ]; then
	for be in cpu cuda; do
		run torch_rnn.onnx --input x=torch_rnn_x.npy --backend $be --expect z=torch_rnn_z.npy \
			--expect hg=torch_rnn_hg.npy --expect h=torch_rnn_h.npy --expect c=torch_rnn_c.npy --rtol 1e-4 --atol 1e-5
		check "an nn.LSTM and nn.GRU exported from PyTorch match PyTorch on $be, no node on the CPU" \
			sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'on the CPU' out.txt"
	done
else
	skip "PyTorch is not installed: no nn.LSTM/nn.GRU export"
fi
run nonzero.onnx --input x=random --backend cuda
check "a NonZero (its output's size depends on the data), which CUDA declines, runs on the CPU and is reported" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '(1 on the CPU' out.txt && grep -q '^on the CPU: #0 NonZero$' out.txt"
run bad_conv.onnx --input x=random --input w=random --backend cuda
check "a Conv the CPU would refuse fails with one line naming the node (exit 1)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(wc -l <err.txt) -eq 1 ] && grep -q \"#0 'bad' Conv: X .* has 3 channels\" err.txt"
run bad_gather.onnx --input x=random --backend cuda
check "a Gather index out of range fails as on the CPU, with one line naming the node and the index (exit 1)" \
	sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(wc -l <err.txt) -eq 1 ] &&
	       grep -q \"#0 'bad' Gather: indices\\[1\\] = 7 is out of range for a dim of 5\" err.txt"
for m in nan_dynq bad_unpool; do
	"$ONNXVIEW" run $m.onnx --input x=random >/dev/null 2>cpu_$m.err
	run $m.onnx --input x=random --backend cuda
	diag "$(cat err.txt)"
	case $m in
	nan_dynq) what="DynamicQuantizeLinear on a NaN made on the device" ;;
	*) what="MaxUnpool with an index outside its output" ;;
	esac
	check "$what fails on CUDA with the CPU's one line naming the node and the value (exit 1)" \
		sh -c "[ \$(cat rc.txt) = 1 ] && [ \$(wc -l <err.txt) -eq 1 ] && grep -q \"'bad' .*: .* at \" err.txt &&
		       cmp -s err.txt cpu_$m.err"
done
for m in transformer_block resnet_tail; do
	in=$([ $m = resnet_tail ] && echo x || echo ids)
	"$ONNXVIEW" run $m.onnx --input $in=random --save cpu_$m >/dev/null 2>&1
	run $m.onnx --input $in=random --backend cuda --expect y=cpu_$m/y.npy --rtol 1e-4 --atol 1e-5
	check "a $(echo $m | tr _ ' ') matches the CPU on CUDA with no node on the CPU" \
		sh -c "[ \$(cat rc.txt) = 0 ] && ! grep -q 'on the CPU' out.txt"
done
for m in chain_gelu:5 chain_silu:2 chain_mixed:6; do
	k=${m#*:} m=${m%:*}
	"$ONNXVIEW" run $m.onnx --input x=random --save cpu_$m >/dev/null 2>&1
	run $m.onnx --input x=random --backend cuda --profile --save cuda_$m
	fused=$([ $k = 2 ] && echo '1 node was' || echo "$((k - 1)) nodes were")
	check "$(echo $m | tr _ ' '): the $k element-wise nodes run as one kernel on CUDA, with the CPU's bits" \
		sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^  $fused fused into a node before them' out.txt &&
		       cmp -s cpu_$m/y.npy cuda_$m/y.npy"
done
# Transposes taken into products: the CPU's values (within the products' rounding), the Transposes counted among
# the fused nodes; the own kernel's products (all but the attention's) give the same bits as with every Transpose
# run as a copy (OV_CUDA_MATMUL_PERM=0)
while read -r m taken ins; do
	inputs=$(echo "$ins" | tr , ' ' | xargs -n1 printf -- '--input %s=random ')
	"$ONNXVIEW" run $m.onnx $inputs --save cpu_$m >/dev/null 2>&1
	OV_CUDA_MATMUL_PERM=0 "$ONNXVIEW" run $m.onnx $inputs --backend cuda --save cuda0_$m >/dev/null 2>&1
	run $m.onnx $inputs --backend cuda --profile --expect y=cpu_$m/y.npy --rtol 1e-4 --atol 1e-5 --save cuda_$m
	case $taken in
	0) fused="! grep -q 'fused into a node before them' out.txt" ;;
	1) fused="grep -q '^  1 node was fused into a node before them' out.txt" ;;
	*) fused="grep -q '^  $taken nodes were fused into a node before them' out.txt" ;;
	esac
	same="cmp -s cuda0_$m/y.npy cuda_$m/y.npy"
	[ $m = perm_attention ] && same=true
	check "$(echo $m | tr _ ' '): $taken Transpose(s) taken into the product on CUDA, the CPU's values" \
		sh -c "[ \$(cat rc.txt) = 0 ] && $fused && $same && ! grep -q 'on the CPU' out.txt"
done <perm-manifest.txt
# a value between watched (--to) ends the chain there: Div, Erf and Add as one, then the two Muls one by one (a
# chain starts where x is a tensor and the other operand a scalar)
run chain_gelu.onnx --input x=random --backend cuda --profile --to c,y --save cuda_chain_gelu_to
check "a value of the chain asked for with --to ends it there, and the output keeps the CPU's bits" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^  2 nodes were fused into a node before them' out.txt &&
	       cmp -s cpu_chain_gelu/y.npy cuda_chain_gelu_to/y.npy"
"$ONNXVIEW" run transformer_shapes.onnx --input ids=random --save cpu_transformer_shapes >/dev/null 2>&1
run transformer_shapes.onnx --input ids=random --backend cuda --expect y=cpu_transformer_shapes/y.npy --rtol 1e-4 \
	--atol 1e-5
check "a transformer block whose reshapes take int64 shape arithmetic (Add, Div, Mul) runs all 36 nodes, none a fallback" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '^ran 36 nodes on cuda' out.txt && ! grep -q 'on the CPU' out.txt"
# that shape arithmetic stays on the host (src/exec/run.c, shape_arith), and is kept from run to run while the
# shapes stay: a later run copies y down and nothing else (no shape brought back for a Reshape, no index sent up
# for a Gather; the 8 ids go to the embedding's Gather as its kernel's argument); replayed as a graph (the
# default), a later run copies the ids into the graph's place for them and y down
OV_CUDA_GRAPH=0 run transformer_shapes.onnx --input ids=random --backend cuda --repeat 3 --json
check "run --repeat 3 of that block node by node: a later run copies the output down, nothing else" "$PYTHON" -c '
import json; r = json.load(open("out.txt"))["repeat"]
assert r["copies"]["to_device"] == 0 and r["copies"]["to_host"] == 1 and r["same_bits"], r'
run transformer_shapes.onnx --input ids=random --backend cuda --repeat 3 --json
check "and replayed as a graph: the ids up, the output down, nothing else" "$PYTHON" -c '
import json; r = json.load(open("out.txt"))["repeat"]
assert r["graph"]["replays"] == 1 and r["copies"]["to_device"] == 1 and r["copies"]["to_host"] == 1, r
assert r["same_bits"], r'
# and in a single run, which keeps no constants: shape arithmetic that reads constants (Gather's index, Concat's
# fixed sizes) stays on the host too, as with kept ones (xk_constant's rule), so only y comes down
run transformer_shapes.onnx --input ids=random --backend cuda --json
check "a single run of that block on CUDA copies only the output down (no shape brought back mid-run)" "$PYTHON" -c '
import json; d = json.load(open("out.txt"))
assert d["copies"]["to_host"] == 1, d["copies"]'
# --repeat: the weights go up once (BatchNormalization's four parameters too: it folds them on the device); a later
# run copies the input up, the output down, and nothing else
run resnet_tail.onnx --input x=random --backend cuda --repeat 3 --json
check "run --repeat 3 on CUDA: a later run copies the input and the output, and every run gives the same bits" "$PYTHON" -c '
import json; d = json.load(open("out.txt")); r = d["repeat"]
assert d["copies"]["to_device"] == 8, d["copies"]  # x, w, bs, bb, bm, bv, fc, fb
assert r["copies"]["to_device"] == 1 and r["copies"]["to_device_bytes"] == 2 * 3 * 9 * 9 * 4, r
assert r["copies"]["to_host"] == 1 and r["copies"]["to_host_bytes"] == 2 * 10 * 4, r
assert r["same_bits"] is True, r'
diag "$("$PYTHON" -c 'import json; print(json.load(open("out.txt"))["repeat"])' 2>&1)"
run int_l2.onnx --input x=random --backend cuda
check "an int64 ReduceL2, which CUDA declines (the CPU computes it in double), runs on the CPU and is reported" \
	sh -c "[ \$(cat rc.txt) = 0 ] && grep -q '(1 on the CPU' out.txt && grep -q '^on the CPU: #0 ReduceL2$' out.txt"

# Index and layout nodes the CPU refuses (an index out of range, a bad attribute, a K over the axis...): the CUDA
# kernels check them on the host before any output exists and decline them, so the run fails with the CPU's line
"$PYTHON" - <<'EOF'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
i64 = lambda *v: np.array(v, dtype=np.int64)
f32 = lambda *s: np.arange(np.prod(s), dtype=np.float32).reshape(s)
bad = [("gather_elements", "GatherElements", [f32(5, 2), i64([1, 0], [7, 1])], {}),
       ("gather_elements_neg", "GatherElements", [f32(5, 2), i64([1, 0], [-6, 1])], {}),
       ("gather_nd", "GatherND", [f32(4, 3), i64([1, 3])], {}),
       ("gather_nd_batch", "GatherND", [f32(2, 3), i64([[1]], [[3]])], {"batch_dims": 1}),
       ("scatter_elements", "ScatterElements", [f32(4, 2), i64([0, 1], [-5, 0]), f32(2, 2)], {}),
       ("scatter_nd", "ScatterND", [f32(3, 3), i64([3]), f32(1, 3)], {}),
       ("scatter_nd_shape", "ScatterND", [f32(3, 3), i64([1]), f32(1, 2)], {}),
       ("scatter_reduction", "ScatterElements", [f32(4, 2), i64([0, 1]), f32(1, 2)], {"reduction": "avg"}),
       ("scatter_bool_add", "ScatterElements", [np.ones((4, 2), bool), i64([0, 1]), np.ones((1, 2), bool)],
        {"reduction": "add"}),
       ("topk", "TopK", [f32(3, 5), i64(9)], {}),
       ("reverse_sequence", "ReverseSequence", [f32(4, 2), i64(2, 9)], {"batch_axis": 1, "time_axis": 0}),
       ("depth_to_space", "DepthToSpace", [f32(1, 6, 2, 2)], {"blocksize": 2}),
       ("depth_to_space_mode", "DepthToSpace", [f32(1, 4, 2, 2)], {"blocksize": 2, "mode": "XYZ"}),
       ("space_to_depth", "SpaceToDepth", [f32(1, 1, 3, 4)], {"blocksize": 2}),
       ("onehot", "OneHot", [i64(1, 2), np.array(0, np.int64), f32(2)], {}),
       ("range", "Range", [np.array(1, np.int64), np.array(5, np.int64), np.array(0, np.int64)], {}),
       ("range_nan", "Range", [np.array(np.nan, np.float32), np.array(5, np.float32), np.array(1, np.float32)], {}),
       ("cumsum", "CumSum", [f32(2, 3), i64(3)], {}),
       ("trilu", "Trilu", [f32(4)], {}),
       ("center_crop_pad", "CenterCropPad", [f32(3, 4), i64(2, -1)], {}),
       ("constant_of_shape", "ConstantOfShape", [i64(2, -3)], {}),
       ("eye_like", "EyeLike", [f32(2, 2, 2)], {})]
for name, op, vals, a in bad:
    names = ["c%d" % i for i in range(len(vals))]
    outs = ["y", "yi"] if op == "TopK" else ["y"]
    g = helper.make_graph([helper.make_node(op, names, outs, name="bad", **a)], name, [],
                          [helper.make_tensor_value_info(o, T.UNDEFINED, None) for o in outs],
                          [numpy_helper.from_array(v, n) for n, v in zip(names, vals)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    onnx.save(m, "decline_%s.onnx" % name)
EOF
n_bad=0
bad_fail=
for m in decline_*.onnx; do
	n_bad=$((n_bad + 1))
	"$ONNXVIEW" run "$m" >cpu.out 2>cpu.err
	cpu_rc=$?
	"$ONNXVIEW" run "$m" --backend cuda >cuda.out 2>cuda.err
	cuda_rc=$?
	if [ "$cpu_rc $cuda_rc" != "1 1" ] || [ "$(wc -l <cuda.err)" -ne 1 ] || ! cmp -s cpu.err cuda.err; then
		bad_fail="$bad_fail $m"
		diag "$m: CPU (exit $cpu_rc): $(cat cpu.err)" "$m: CUDA (exit $cuda_rc): $(cat cuda.err)"
	fi
done
check "$n_bad index and layout nodes the CPU refuses fail on CUDA with the CPU's line (exit 1)" \
	test "$n_bad" -ge 20 -a -z "$bad_fail"
diag "$(cat cuda.err)"

# the current ONNX release's node tests on CUDA (Debian's suite runs in the GPU suite above), against their list
if [ "${CUDA_CONFORMANCE:-1}" = 0 ]; then
	skip "CUDA_CONFORMANCE=0: the conformance run on CUDA is left out"
else
	ONNXVIEW_BACKEND=cuda sh "$SRCDIR/tests/conformance.sh" --suite onnx-1.23.2 >conformance.txt 2>&1
	conf_rc=$?
	if ! grep -q '^# [a-z0-9.-]*: [0-9]* of [0-9]* ONNX backend tests pass' conformance.txt &&
		grep -q '# SKIP' conformance.txt; then
		# the suite cannot be had here (no onnx 1.23.2 to make it; the GPU run packs it for the GPU suite)
		skip "the node tests of onnx 1.23.2 on CUDA: $(grep -o '# SKIP.*' conformance.txt | head -1 | sed 's/^# SKIP //')"
	elif [ $conf_rc = 0 ] &&
		grep -q '^# [a-z0-9.-]*: [0-9]* of [0-9]* ONNX backend tests pass on the cuda backend' conformance.txt; then
		ok "the node tests of onnx 1.23.2 on the list pass on the CUDA backend"
		grep '^#' conformance.txt | head -8
	else
		not_ok "the node tests of onnx 1.23.2 on the list pass on the CUDA backend"
		sed 's/^/# /' conformance.txt | grep -v '^# ok' | head -60
	fi
fi

done_testing
