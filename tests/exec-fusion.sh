#!/bin/sh
# The CPU's own float32 matrix product (src/exec/cpu/sgemm.c) and the runner's fusions around it (src/exec/run.c):
# MatMul and Gemm over odd shapes (tails of 16 columns and 6 rows, K over one block, batches, NaN and infinities)
# against numpy, once with the weights packed for one run and once kept across runs (run --repeat); an Add (a bias
# row or a whole matrix) and a Relu after a MatMul taken into it, an Add (a residual) and a Relu or Clip after a
# pointwise Conv taken into it (both against numpy), a pointwise Conv and the depthwise Conv after it run as one
# block (against numpy), and a LayerNormalization written out as nodes
# taken into its first ReduceMean, all to the bits of the separate kernels (--all runs nothing fused), and
# refused where a value between is watched or the pattern is another; float32 ReduceSum/ReduceMean over trailing
# axes, Softmax/LogSoftmax and LayerNormalization over float32 rows against numpy; Einsum as batched products
# (src/exec/cpu/gemm.c's einsum_as_gemm) and through its general loop against numpy.
. "$(dirname "$0")/lib.sh"

have_python_onnx || skip_all "python3 with onnx and numpy is needed to make the test models"
scratch
cd "$TMP" || exit 1

"$PYTHON" - <<'EOF' || { echo "1..0 # SKIP could not make the test models"; exit 0; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T

vi = helper.make_tensor_value_info
rng = np.random.default_rng(7)

def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.save(m, name + ".onnx")

def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)

def mm(a, b):
    return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)

# MatMul with constant B over odd shapes: M across the 6-row tiles, N across the 16-column panels, K over one
# 256 block; row 1 of A holds a NaN and row 2 an infinity
shapes = [(1, 1, 2), (2, 3, 15), (5, 17, 16), (7, 64, 17), (13, 300, 33), (20, 513, 100), (9, 16, 1), (6, 40, 48)]
nodes, inits, outs = [], [], []
a_all = r(20, 513)
a_all[1, 3] = np.nan
a_all[2, 0] = np.inf
for i, (m, k, n) in enumerate(shapes):
    b = r(k, n)
    nodes.append(helper.make_node("Slice", ["a", f"st{i}", f"en{i}"], [f"a{i}"]))
    inits += [(f"st{i}", np.array([0, 0], np.int64)), (f"en{i}", np.array([m, k], np.int64)), (f"b{i}", b)]
    nodes.append(helper.make_node("MatMul", [f"a{i}", f"b{i}"], [f"y{i}"]))
    outs.append(vi(f"y{i}", T.FLOAT, [m, n]))
    np.save(f"y{i}.npy", mm(a_all[:m, :k], b))
save("shapes", nodes, [vi("a", T.FLOAT, [20, 513])], outs, inits)
np.save("a.npy", a_all)

# Gemm: transB with a bias row, a bias matrix, transA (CBLAS), alpha (CBLAS); then MatMul -> Add(bias) -> Relu,
# MatMul -> Add(residual), a batched A, and a batch of B that are values (attention's scores)
x = r(2, 11, 24)
w1, w2, bias, bm = r(40, 24), r(24, 40), r(40), r(22, 40)
q, kt = r(3, 10, 8), r(3, 8, 12)
x2 = x.reshape(22, 24)
g1 = mm(x2, w1.T) + bias
g2 = mm(x2, w1.T) + bm
g3 = mm(x2, w1.T) * np.float32(0.5)
h = np.maximum(mm(x, w2) + bias, 0)
res = mm(x, w2) + bm.reshape(2, 11, 40)

save("gemm", [helper.make_node("Reshape", ["x", "s2"], ["x2"]),
              helper.make_node("Gemm", ["x2", "w1", "bias"], ["g1"], transB=1),
              helper.make_node("Gemm", ["x2", "w1", "bm"], ["g2"], transB=1),
              helper.make_node("Gemm", ["x2", "w1"], ["g3"], transB=1, alpha=0.5),
              helper.make_node("Transpose", ["x2"], ["x2t"]),
              helper.make_node("Gemm", ["x2t", "w2"], ["g4"], transA=1),
              helper.make_node("MatMul", ["x", "w2"], ["p"]),
              helper.make_node("Add", ["p", "bias"], ["pb"]),
              helper.make_node("Relu", ["pb"], ["h"]),
              helper.make_node("MatMul", ["x", "w2"], ["p2"]),
              helper.make_node("Add", ["bm3", "p2"], ["res"]),
              helper.make_node("MatMul", ["q", "kt"], ["att"])],
     [vi("x", T.FLOAT, [2, 11, 24]), vi("q", T.FLOAT, [3, 10, 8]), vi("kt", T.FLOAT, [3, 8, 12])],
     [vi("g1", T.FLOAT, [22, 40]), vi("g2", T.FLOAT, [22, 40]), vi("g3", T.FLOAT, [22, 40]),
      vi("g4", T.FLOAT, [22, 40]), vi("h", T.FLOAT, [2, 11, 40]), vi("res", T.FLOAT, [2, 11, 40]),
      vi("att", T.FLOAT, [3, 10, 12])],
     [("s2", np.array([22, 24], np.int64)), ("w1", w1), ("w2", w2), ("bias", bias), ("bm", bm),
      ("bm3", bm.reshape(2, 11, 40))])
for n, v in [("x", x), ("q", q), ("kt", kt), ("g1", g1), ("g2", g2), ("g3", g3), ("g4", mm(x2, w2)), ("h", h),
             ("res", res), ("att", mm(q, kt))]:
    np.save(n + ".npy", v)

# Einsum of two float32 inputs: batched products (attention's scores, a broadcast batch, an implicit output, two
# summed labels, a transposed output, a matrix times a vector, an outer product, a summed label of size 0) through
# the GEMM, and a diagonal through the general loop; all against numpy in double
eins = [("bhqd,bhkd->bhqk", (2, 3, 5, 8), (2, 3, 7, 8)), ("ij,jk->ki", (9, 17), (17, 4)),
        ("...ij,...jk->...ik", (2, 1, 3, 4), (5, 4, 6)), ("bij,bjk", (3, 4, 5), (3, 5, 2)),
        ("bshd,hdo->bso", (2, 3, 4, 5), (4, 5, 6)), ("ij,j->i", (6, 33), (33,)), ("i,j->ij", (5,), (7,)),
        ("ii,i->i", (4, 4), (4,)), ("ij,jk->ik", (3, 0), (0, 4))]
nodes, ins, outs = [], [], []
for i, (eq, sa, sb) in enumerate(eins):
    ea, eb = r(*sa), r(*sb)
    ey = np.einsum(eq, ea.astype(np.float64), eb.astype(np.float64)).astype(np.float32)
    nodes.append(helper.make_node("Einsum", [f"ea{i}", f"eb{i}"], [f"ey{i}"], equation=eq))
    ins += [vi(f"ea{i}", T.FLOAT, list(sa)), vi(f"eb{i}", T.FLOAT, list(sb))]
    outs.append(vi(f"ey{i}", T.FLOAT, list(ey.shape)))
    for n, v in ((f"ea{i}", ea), (f"eb{i}", eb), (f"ey{i}", ey)):
        np.save(n + ".npy", v)
save("einsum", nodes, ins, outs, opset=12)

# a LayerNormalization as torch 1.13 writes it (opset 13), over rows of 37 (a tail past 32) and 64
def ln_nodes(p, x, g, b, axes=(-1,), expo="two", eps="eps", out="y"):
    return [helper.make_node("ReduceMean", [x], [p + "m"], axes=list(axes), name=p + "ReduceMean"),
            helper.make_node("Sub", [x, p + "m"], [p + "d"], name=p + "Sub"),
            helper.make_node("Pow", [p + "d", expo], [p + "p"], name=p + "Pow"),
            helper.make_node("ReduceMean", [p + "p"], [p + "v"], axes=list(axes), name=p + "ReduceMean_1"),
            helper.make_node("Add", [p + "v", eps], [p + "ve"], name=p + "Add"),
            helper.make_node("Sqrt", [p + "ve"], [p + "s"], name=p + "Sqrt"),
            helper.make_node("Div", [p + "d", p + "s"], [p + "n"], name=p + "Div"),
            helper.make_node("Mul", [p + "n", g], [p + "g"], name=p + "Mul"),
            helper.make_node("Add", [p + "g", b], [out], name=p + "Add_1")]

def ln_ref(x, g, b, eps=1e-5):
    m = x.astype(np.float64).mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return ((x - m) / np.sqrt(v + eps) * g + b).astype(np.float32)

consts = [("two", np.array(2, np.float32)), ("three", np.array(3, np.float32)), ("eps", np.array(1e-5, np.float32))]
for n in (37, 64):
    xl, gl, bl = r(3, 5, n), r(n), r(n)
    xl[1, 2, 4] = np.nan
    save(f"ln{n}", ln_nodes("ln_", "x", "g", "b"), [vi("x", T.FLOAT, [3, 5, n])], [vi("y", T.FLOAT, [3, 5, n])],
         consts + [("g", gl), ("b", bl)])
    np.save(f"lnx{n}.npy", xl)
    np.save(f"lny{n}.npy", ln_ref(xl, gl, bl))
# not a layer norm: Pow 3, and the mean over axis 1
save("ln_pow3", ln_nodes("ln_", "x", "g", "b", expo="three"), [vi("x", T.FLOAT, [3, 5, 37])],
     [vi("y", T.FLOAT, [3, 5, 37])], consts + [("g", r(37)), ("b", r(37))])
save("ln_axis1", ln_nodes("ln_", "x", "g", "b", axes=(1,)), [vi("x", T.FLOAT, [3, 5, 37])],
     [vi("y", T.FLOAT, [3, 5, 37])], consts + [("g", r(37)), ("b", r(37))])
# opset 18: the axes as an input
save("ln18", [helper.make_node(n.op_type, list(n.input) + (["ax"] if n.op_type == "ReduceMean" else []),
                               list(n.output), name=n.name) for n in ln_nodes("ln_", "x", "g", "b")],
     [vi("x", T.FLOAT, [3, 5, 64])], [vi("y", T.FLOAT, [3, 5, 64])],
     consts + [("g", r(64)), ("b", r(64)), ("ax", np.array([-1], np.int64))], opset=18)

# ReduceSum / ReduceMean of float32 over trailing axes, the rows' lengths around the 16 lanes
xr = r(3, 4, 33)
xr[0, 1, 5] = np.nan
save("red", [helper.make_node("ReduceSum", ["x", "ax"], ["s1"]),
             helper.make_node("ReduceMean", ["x"], ["m2"], axes=[1, 2]),
             helper.make_node("ReduceMean", ["x"], ["m0"], axes=[0], keepdims=0),
             helper.make_node("Slice", ["x", "z", "e15", "ax"], ["x15"]),
             helper.make_node("ReduceMean", ["x15"], ["m15"], axes=[-1])],
     [vi("x", T.FLOAT, [3, 4, 33])],
     [vi("s1", T.FLOAT, [3, 4, 1]), vi("m2", T.FLOAT, [3, 1, 1]), vi("m0", T.FLOAT, [4, 33]),
      vi("m15", T.FLOAT, [3, 4, 1])],
     [("ax", np.array([2], np.int64)), ("z", np.array([0], np.int64)), ("e15", np.array([15], np.int64))])
# Softmax and LogSoftmax over rows of 37 (a tail past 32) with a NaN row and a row of -inf and finite values;
# LayerNormalization (opset 17) over rows of 37 and over the last two axes, with its Mean and InvStdDev
xs = r(4, 37)
xs[1, 3] = np.nan
xs[2, :5] = -np.inf
save("smax", [helper.make_node("Softmax", ["x"], ["sm"], axis=-1), helper.make_node("LogSoftmax", ["x"], ["lsm"])],
     [vi("x", T.FLOAT, [4, 37])], [vi("sm", T.FLOAT, [4, 37]), vi("lsm", T.FLOAT, [4, 37])])
e = np.exp(xs.astype(np.float64) - xs.max(-1, keepdims=True))
np.save("xs.npy", xs)
np.save("sm.npy", (e / e.sum(-1, keepdims=True)).astype(np.float32))
np.save("lsm.npy", (xs - xs.max(-1, keepdims=True) - np.log(e.sum(-1, keepdims=True))).astype(np.float32))
xl, gl, bl, g2, b2 = r(3, 5, 37), r(37), r(37), r(5, 37), r(5, 37)
save("lnop", [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y", "mean", "inv"], epsilon=1e-5),
              helper.make_node("LayerNormalization", ["x", "g2", "b2"], ["y2"], axis=1)],
     [vi("x", T.FLOAT, [3, 5, 37])],
     [vi("y", T.FLOAT, [3, 5, 37]), vi("mean", T.FLOAT, [3, 5, 1]), vi("inv", T.FLOAT, [3, 5, 1]),
      vi("y2", T.FLOAT, [3, 5, 37])], [("g", gl), ("b", bl), ("g2", g2), ("b2", b2)], opset=17)
x64 = xl.astype(np.float64)
np.save("lnopx.npy", xl)
np.save("lnopy.npy", ln_ref(xl, gl, bl))
np.save("lnopm.npy", x64.mean(-1, keepdims=True).astype(np.float32))
np.save("lnopi.npy", (1 / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)).astype(np.float32))
m2 = x64.mean((1, 2), keepdims=True)
np.save("lnopy2.npy", ((x64 - m2) / np.sqrt(x64.var((1, 2), keepdims=True) + 1e-5) * g2 + b2).astype(np.float32))

# Conv then Add (a residual connection), then maybe a Relu or Clip: pointwise over a 7x7 plane (the strips, X
# packed), over 14x14 with 130 inputs (the strips, X in place) and over 17x17 with 150 (the panels), each with
# output channels off the vector widths; the residual first or second, a NaN in it; an Add that broadcasts (not
# taken), a 3x3 Conv (not taken), and a Conv whose output is also watched (not fused)
def conv_ref(x, w, b):
    y = np.einsum("nchw,mc->nmhw", x.astype(np.float64), w[:, :, 0, 0].astype(np.float64)) + b[None, :, None, None]
    return y.astype(np.float32)

cnodes, cins, couts, cinits, cvals = [], [], [], [], {}
for i, (c, m, h, wd, first, act) in enumerate([(40, 13, 7, 7, 0, None), (130, 30, 14, 14, 1, "Relu"),
                                                (150, 20, 17, 17, 0, "Clip"), (9, 17, 5, 3, 1, None)]):
    xc, wc, bc, rc_ = r(1, c, h, wd), r(m, c, 1, 1), r(m), r(1, m, h, wd)
    rc_[0, m - 1, h - 1, wd - 1] = np.nan
    rc_[0, 0, 0, 0] = 100.0
    cins += [vi(f"cx{i}", T.FLOAT, [1, c, h, wd]), vi(f"cr{i}", T.FLOAT, [1, m, h, wd])]
    cinits += [(f"cw{i}", wc), (f"cb{i}", bc)]
    cnodes.append(helper.make_node("Conv", [f"cx{i}", f"cw{i}", f"cb{i}"], [f"cc{i}"]))
    cnodes.append(helper.make_node("Add", [f"cr{i}", f"cc{i}"] if first else [f"cc{i}", f"cr{i}"], [f"cs{i}"]))
    y = (conv_ref(xc, wc, bc) + rc_).astype(np.float32)
    out = f"cs{i}"
    if act == "Relu":
        cnodes.append(helper.make_node("Relu", [out], [f"ca{i}"]))
        out, y = f"ca{i}", np.maximum(y, 0)
    elif act == "Clip":
        cnodes.append(helper.make_node("Clip", [out, "lo6", "hi6"], [f"ca{i}"]))
        out, y = f"ca{i}", np.clip(y, 0, 6)
    couts.append(vi(out, T.FLOAT, [1, m, h, wd]))
    cvals.update({f"cx{i}": xc, f"cr{i}": rc_, out: y})
# an Add that broadcasts (a row per channel) after a pointwise Conv, and one after a 3x3 Conv
xb, wb, bb, rb = r(1, 40, 7, 7), r(16, 40, 1, 1), r(16), r(1, 16, 1, 1)
w3, b3, r3 = r(16, 40, 3, 3), r(16), r(1, 16, 5, 5)
cnodes += [helper.make_node("Conv", ["cxb", "cwb", "cbb"], ["ccb"]), helper.make_node("Add", ["ccb", "crb"], ["csb"]),
           helper.make_node("Conv", ["cxb", "cw9", "cb9"], ["cc9"]), helper.make_node("Add", ["cc9", "cr9"], ["cs9"])]
cins += [vi("cxb", T.FLOAT, [1, 40, 7, 7]), vi("crb", T.FLOAT, [1, 16, 1, 1]), vi("cr9", T.FLOAT, [1, 16, 5, 5])]
couts += [vi("csb", T.FLOAT, [1, 16, 7, 7]), vi("cs9", T.FLOAT, [1, 16, 5, 5])]
cinits += [("cwb", wb), ("cbb", bb), ("cw9", w3), ("cb9", b3), ("lo6", np.array(0, np.float32)),
           ("hi6", np.array(6, np.float32))]
x64, w64 = xb.astype(np.float64), w3.astype(np.float64)
y3 = np.zeros((1, 16, 5, 5))
for i in range(5):
    for j in range(5):
        y3[0, :, i, j] = np.einsum("chw,mchw->m", x64[0, :, i:i + 3, j:j + 3], w64)
cvals.update({"cxb": xb, "crb": rb, "cr9": r3, "csb": (conv_ref(xb, wb, bb) + rb).astype(np.float32),
              "cs9": (y3 + b3[None, :, None, None] + r3).astype(np.float32)})
save("convadd", cnodes, cins, couts, cinits)
for n, v in cvals.items():
    np.save(n + ".npy", v)

# a pointwise Conv, maybe a Relu or Clip, a 3x3 depthwise Conv on its output, maybe a Relu or Clip (MobileNet's
# expansion and depthwise: run as one block in bands of rows when the expanded tensor passes 4 MB): stride 2 and 1,
# odd widths and heights, pads on all sides or only after (the last band reaching past the plane), no bias, two
# images; a NaN and an infinity in X
def dw_ref(e, w, b, s, pads):
    n, c, h, wd = e.shape
    t, l, bo, r_ = pads
    p = np.zeros((n, c, h + t + bo + 2, wd + l + r_ + 2))
    p[:, :, t:t + h, l:l + wd] = e
    oh, ow = (h + t + bo - 3) // s + 1, (wd + l + r_ - 3) // s + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(3):
        for j in range(3):
            y += p[:, :, i:i + s * (oh - 1) + 1:s, j:j + s * (ow - 1) + 1:s] * w[None, :, 0, i, j, None, None]
    return y + (b[None, :, None, None] if b is not None else 0)

def act_ref(y, a):
    return y if a is None else np.maximum(y, 0) if a == "Relu" else np.clip(y, 0, 6)

dnodes, dins, douts, dinits, dvals = [], [], [], [], {}
for i, (nb, c, m, h, wd, s, pads, a1, a2, bias) in enumerate([
        (1, 16, 64, 131, 129, 2, (1, 1, 1, 1), "Clip", "Clip", True),
        (1, 12, 72, 121, 127, 1, (1, 1, 1, 1), "Relu", None, True),
        (2, 8, 64, 125, 133, 2, (0, 0, 1, 1), None, "Relu", False)]):
    x = r(nb, c, h, wd)
    x[0, 0, 5, 7] = np.nan
    x[nb - 1, c - 1, h - 1, 0] = np.inf
    w1, b1, w2, b2 = r(m, c, 1, 1), r(m), r(m, 1, 3, 3), r(m)
    dins.append(vi(f"dx{i}", T.FLOAT, list(x.shape)))
    dinits += [(f"dw1_{i}", w1), (f"dw2_{i}", w2)] + ([(f"db1_{i}", b1), (f"db2_{i}", b2)] if bias else [])
    dnodes.append(helper.make_node("Conv", [f"dx{i}", f"dw1_{i}"] + ([f"db1_{i}"] if bias else []), [f"de{i}"]))
    e, cur = conv_ref(x, w1, b1 if bias else np.zeros(m, np.float32)), f"de{i}"
    if a1:
        dnodes.append(helper.make_node(a1, [cur] + (["lo6", "hi6"] if a1 == "Clip" else []), [f"da{i}"]))
        e, cur = act_ref(e, a1).astype(np.float32), f"da{i}"
    dnodes.append(helper.make_node("Conv", [cur, f"dw2_{i}"] + ([f"db2_{i}"] if bias else []), [f"dd{i}"],
                                   group=m, kernel_shape=[3, 3], strides=[s, s], pads=list(pads)))
    y, cur = dw_ref(e.astype(np.float64), w2.astype(np.float64), b2 if bias else None, s, pads), f"dd{i}"
    if a2:
        dnodes.append(helper.make_node(a2, [cur] + (["lo6", "hi6"] if a2 == "Clip" else []), [f"dy{i}"]))
        y, cur = act_ref(y, a2), f"dy{i}"
    douts.append(vi(cur, T.FLOAT, None))
    dvals.update({f"dx{i}": x, cur: y.astype(np.float32)})
dinits += [("lo6", np.array(0, np.float32)), ("hi6", np.array(6, np.float32))]
save("convdw", dnodes, dins, douts, dinits)
for n, v in dvals.items():
    np.save(n + ".npy", v)

x64 = xr.astype(np.float64)
np.save("xr.npy", xr)
np.save("s1.npy", x64.sum(2, keepdims=True).astype(np.float32))
np.save("m2.npy", x64.mean((1, 2), keepdims=True).astype(np.float32))
np.save("m0.npy", x64.mean(0).astype(np.float32))
np.save("m15.npy", x64[:, :, :15].mean(2, keepdims=True).astype(np.float32))
EOF

run() { "$ONNXVIEW" run "$@" >out.txt 2>err.txt; echo $? >rc.txt; }
rc() { cat rc.txt; }
same() { cmp -s "$1" "$2"; }

# ---- MatMul over odd shapes, packed for one run and kept across runs
exp=
for i in 0 1 2 3 4 5 6 7; do exp="$exp --expect y$i=y$i.npy"; done
run shapes.onnx --input a=a.npy $exp
check "MatMul over odd shapes (tails of rows and columns, K over a block, NaN, infinity) matches numpy (exit 0)" \
	[ "$(rc)" = 0 ]
run shapes.onnx --input a=a.npy $exp --repeat 3
check "... and with the weights packed once and kept across runs (run --repeat), every run the same bits" \
	sh -c '[ "$(cat rc.txt)" = 0 ] && grep -q "same bits" out.txt'

# ---- Gemm, MatMul with Add and Relu taken in, attention's batches
exp=
for v in g1 g2 g3 g4 h res att; do exp="$exp --expect $v=$v.npy"; done
run gemm.onnx --input x=x.npy --input q=q.npy --input kt=kt.npy $exp --repeat 2
check "Gemm (bias row, bias matrix, transA, alpha), MatMul with Add and Relu after, batched attention match numpy" \
	[ "$(rc)" = 0 ]
"$ONNXVIEW" run gemm.onnx --input x=x.npy --input q=q.npy --input kt=kt.npy --save fused >/dev/null 2>&1
"$ONNXVIEW" run gemm.onnx --input x=x.npy --input q=q.npy --input kt=kt.npy --all --save all >/dev/null 2>&1
check "a bias Add and a Relu taken into the MatMul give the separate kernels' bits (--all runs them apart)" \
	sh -c 'cmp -s fused/h.npy all/h.npy && cmp -s fused/res.npy all/res.npy && cmp -s fused/g1.npy all/g1.npy'
"$ONNXVIEW" run gemm.onnx --input x=x.npy --input q=q.npy --input kt=kt.npy --to h,pb --save to >/dev/null 2>&1
check "--to the Add's output keeps it (the Add is not taken into the MatMul) and the Relu's bits do not change" \
	sh -c 'cmp -s to/h.npy all/h.npy && cmp -s to/pb.npy all/pb.npy'

# ---- Conv with the Add after it (a residual connection) and the activation after that
cin=
for v in cx0 cr0 cx1 cr1 cx2 cr2 cx3 cr3 cxb crb cr9; do cin="$cin --input $v=$v.npy"; done
exp=
for v in cs0 ca1 ca2 cs3 csb cs9; do exp="$exp --expect $v=$v.npy"; done
run convadd.onnx $cin $exp --profile
check "pointwise Convs with an Add after them (7x7, 14x14 and 17x17 planes, a Relu or Clip after) match numpy" \
	[ "$(rc)" = 0 ]
"$ONNXVIEW" run convadd.onnx $cin --save cf >/dev/null 2>&1
"$ONNXVIEW" run convadd.onnx $cin --all --save ca >/dev/null 2>&1
check "... to the bits of the Conv, the Add and the activation run apart (--all), a NaN in the residual too" \
	sh -c 'for v in cs0 ca1 ca2 cs3 csb cs9; do cmp -s cf/$v.npy ca/$v.npy || exit 1; done'
run convadd.onnx $cin --repeat 3
check "run --repeat: the same bits every run with the weights kept" grep -q "same bits" out.txt

# ---- a pointwise Conv and the depthwise Conv after it, as one block
din="--input dx0=dx0.npy --input dx1=dx1.npy --input dx2=dx2.npy"
run convdw.onnx $din --expect dy0=dy0.npy --expect dd1=dd1.npy --expect dy2=dy2.npy
check "a pointwise Conv, a Relu or Clip and a depthwise Conv after it (strides 2 and 1, pads after only) match numpy" \
	[ "$(rc)" = 0 ]
check "... and run as one block, which the report notes for each" \
	sh -c '[ "$(grep -c "ran as one block with the depthwise Conv" out.txt)" = 3 ]'
"$ONNXVIEW" run convdw.onnx $din --save df >/dev/null 2>&1
"$ONNXVIEW" run convdw.onnx $din --all --save da >/dev/null 2>&1
check "... to the bits of the Convs and activations run apart (--all), a NaN and an infinity in X too" \
	sh -c 'for v in dy0 dd1 dy2; do cmp -s df/$v.npy da/$v.npy || exit 1; done'
run convdw.onnx $din --to dy0,da0,dd1,dy2 --save dt
check "--to the activation between keeps it: that block runs apart, to the same bits" \
	sh -c '[ "$(grep -c "ran as one block" out.txt)" = 2 ] && cmp -s dt/dy0.npy da/dy0.npy'
run convdw.onnx $din --repeat 3
check "run --repeat: the block gives the same bits every run" grep -q "same bits" out.txt

# ---- the layer norm written out as nodes
for n in 37 64; do
	run ln$n.onnx --input x=lnx$n.npy --expect y=lny$n.npy
	check "layer norm over rows of $n written out as nodes matches numpy (a NaN row stays NaN) (exit 0)" \
		[ "$(rc)" = 0 ]
	check "... and runs as one kernel, which the report notes" \
		grep -q "'ln_ReduceMean' ReduceMean: ran as one layer norm with the 8 nodes after it" out.txt
	"$ONNXVIEW" run ln$n.onnx --input x=lnx$n.npy --save f$n >/dev/null 2>&1
	"$ONNXVIEW" run ln$n.onnx --input x=lnx$n.npy --all --save a$n >/dev/null 2>&1
	check "... to the bits of its nine nodes run apart (--all)" same f$n/y.npy a$n/y.npy
done
run ln37.onnx --input x=lnx37.npy --all
check "--all runs the nine nodes apart (no note)" sh -c '! grep -q "layer norm" out.txt'
run ln37.onnx --input x=lnx37.npy --to y,ln_d --save t37
check "--to a value inside the pattern runs it apart, to the same bits" \
	sh -c '! grep -q "layer norm" out.txt && cmp -s t37/y.npy a37/y.npy'
run ln37.onnx --input x=lnx37.npy --repeat 3
check "run --repeat: the fused layer norm gives the same bits every run" \
	sh -c 'grep -q "same bits" out.txt && grep -q "ran as one layer norm" out.txt'
run ln_pow3.onnx --input x=lnx37.npy
check "Pow 3 instead of 2 is no layer norm: the nodes run apart" sh -c '[ "$(cat rc.txt)" = 0 ] && ! grep -q "layer norm" out.txt'
run ln_axis1.onnx --input x=lnx37.npy
check "a mean over another axis than the last is no layer norm: the nodes run apart" \
	sh -c '[ "$(cat rc.txt)" = 0 ] && ! grep -q "layer norm" out.txt'
run ln18.onnx --input x=lnx64.npy
check "opset 18, the axes as an input: the pattern is found" grep -q "ran as one layer norm" out.txt
"$ONNXVIEW" run ln18.onnx --input x=lnx64.npy --save f18 >/dev/null 2>&1
"$ONNXVIEW" run ln18.onnx --input x=lnx64.npy --all --save a18 >/dev/null 2>&1
check "... to the bits of its nodes run apart" same f18/y.npy a18/y.npy

# ---- Einsum
ein=""
for i in 0 1 2 3 4 5 6 7 8; do ein="$ein --input ea$i=ea$i.npy --input eb$i=eb$i.npy --expect ey$i=ey$i.npy"; done
# shellcheck disable=SC2086
run einsum.onnx $ein
check "Einsum: attention's scores, a broadcast batch, an implicit output, two summed labels, a transposed output, a matrix times a vector, an outer product, a diagonal and an empty sum match numpy" \
	[ "$(rc)" = 0 ]

# ---- float32 sums over trailing axes
run red.onnx --input x=xr.npy --expect s1=s1.npy --expect m2=m2.npy --expect m0=m0.npy --expect m15=m15.npy
check "ReduceSum/ReduceMean of float32 over trailing axes (rows of 33 and 15, two axes, a NaN) match numpy" \
	[ "$(rc)" = 0 ]

# ---- Softmax, LogSoftmax and LayerNormalization rows
run smax.onnx --input x=xs.npy --expect sm=sm.npy --expect lsm=lsm.npy
check "Softmax and LogSoftmax over rows of 37 (a NaN row, a row with -inf) match numpy" [ "$(rc)" = 0 ]
run lnop.onnx --input x=lnopx.npy --expect y=lnopy.npy --expect mean=lnopm.npy --expect inv=lnopi.npy \
	--expect y2=lnopy2.npy
check "LayerNormalization over rows of 37 (with Mean and InvStdDev) and over two axes matches numpy" [ "$(rc)" = 0 ]

done_testing
