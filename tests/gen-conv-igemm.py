#!/usr/bin/env python3
"""The models of the CUDA convolution's own kernels' tests (src/exec/cuda/conv-igemm.cu; tests/cuda.sh,
tests/cuda-sim.sh), written into the folder named by the first argument:
- geoms.onnx: one convolution per output, of many geometries, for the implicit GEMM (16 or more output channels
  per group) and the per-output loop (depthwise, narrow groups): 1x1, 3x3 pad 1, 7x7 stride 2 pad 3, dilation 2,
  asymmetric pads, two groups of 17 and of 2 output channels, depthwise with stride 1 and 2 (a channel multiplier of
  2), 1-D (asymmetric pads, stride 2) and depthwise 1-D, output channels and pixels that are no multiple of the
  tile's 64, sums whose length is no multiple of its 8, batch 2, three tiles of output channels; y3 and y7 go on
  into a residual Add and a Relu, y5 into a Clip (the runner's offers, taken into the kernels' stores);
- half.onnx: a float16 convolution of each kernel (inputs and outputs float16, computed in float32);
- resnet.onnx: a small ResNet-like model (7x7 stride-2 stem, MaxPool, two basic blocks with residual Adds, one
  strided with a 1x1 shortcut, global pooling, Gemm); mobilenet.onnx: a small MobileNetV2-like one (3x3 stride-2
  stem with Clip at 6, inverted residuals: 1x1 expansion, depthwise 3x3 with strides 1 and 2, 1x1 projection, a
  residual Add; global pooling, Gemm).  Their weights are scaled so that values stay near 1."""
import os
import sys

import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T

os.makedirs(sys.argv[1], exist_ok=True)
os.chdir(sys.argv[1])
vi = helper.make_tensor_value_info
rng = np.random.default_rng(17)
N = helper.make_node


def arr(name, *shape, scale=0.5, dt=np.float32):
    return numpy_helper.from_array(rng.uniform(-scale, scale, shape).astype(dt), name)


def save(nodes, name, ins, outs, inits, opset=13):
    g = helper.make_graph(nodes, name, ins, outs, inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), name + ".onnx")


# name: input shape, weight shape, bias, attributes
geoms = [
    ("y1", [2, 24, 5, 7], [70, 24, 1, 1], True, {}),
    ("y2", [1, 13, 9, 11], [20, 13, 3, 3], True, {"pads": [1, 1, 1, 1]}),
    ("y3", [1, 3, 23, 19], [17, 3, 7, 7], True, {"strides": [2, 2], "pads": [3, 3, 3, 3]}),
    ("y4", [1, 5, 12, 12], [16, 5, 3, 3], False, {"dilations": [2, 2], "pads": [2, 2, 2, 2]}),
    ("y5", [2, 4, 9, 10], [18, 4, 3, 2], True, {"pads": [0, 1, 2, 0], "strides": [1, 2]}),
    ("y6", [1, 36, 8, 8], [34, 18, 3, 3], True, {"group": 2, "pads": [1, 1, 1, 1]}),
    ("y7", [2, 6, 8, 8], [4, 3, 3, 3], False, {"group": 2}),
    ("y8", [1, 12, 10, 9], [12, 1, 3, 3], True, {"group": 12, "pads": [1, 1, 1, 1]}),
    ("y9", [2, 8, 11, 11], [16, 1, 3, 3], False, {"group": 8, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("y10", [2, 5, 31], [19, 5, 4], True, {"strides": [2], "pads": [1, 2]}),
    ("y11", [1, 6, 20], [6, 1, 5], True, {"group": 6, "pads": [2, 2]}),
    ("y12", [1, 40, 20, 20], [130, 40, 3, 3], True, {"pads": [1, 1, 1, 1]}),
    ("y13", [2, 16, 7, 7], [24, 16, 3, 3], False, {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
]
nodes, ins, outs, inits = [], [], [], []
for i, (name, xs, ws, bias, at) in enumerate(geoms):
    x, w = "x%d" % (i + 1), "w%d" % (i + 1)
    ins.append(vi(x, T.FLOAT, xs))
    inits.append(arr(w, *ws))
    names = [x, w]
    if bias:
        inits.append(arr("b%d" % (i + 1), ws[0]))
        names.append("b%d" % (i + 1))
    out = name if name not in ("y3", "y5", "y7") else "c" + name
    nodes.append(N("Conv", names, [out], kernel_shape=ws[2:], **at))
    outs.append(vi(name, T.FLOAT, None))
# the offers: y3 + z3 then Relu, y7 + z7 then Relu, Clip after y5
ins += [vi("z3", T.FLOAT, [1, 17, 12, 10]), vi("z7", T.FLOAT, [2, 4, 6, 6])]
nodes += [N("Add", ["cy3", "z3"], ["s3"]), N("Relu", ["s3"], ["y3"]), N("Add", ["z7", "cy7"], ["s7"]),
          N("Relu", ["s7"], ["y7"]), N("Clip", ["cy5", "lo", "hi"], ["y5"])]
inits += [numpy_helper.from_array(np.array(-0.2, np.float32), "lo"),
          numpy_helper.from_array(np.array(0.3, np.float32), "hi")]
save(nodes, "geoms", ins, outs, inits)

save([N("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1]), N("Conv", ["x", "wd"], ["d"], group=16)], "half",
     [vi("x", T.FLOAT16, [1, 16, 6, 6])], [vi("y", T.FLOAT16, None), vi("d", T.FLOAT16, None)],
     [arr("w", 20, 16, 3, 3, scale=0.2, dt=np.float16), arr("b", 20, dt=np.float16),
      arr("wd", 16, 1, 3, 3, dt=np.float16)])


# a small ResNet: weights scaled by 1 / sqrt(fan-in)
def conv_w(name, m, c, k):
    return arr(name, m, c, k, k, scale=np.sqrt(3.0 / (c * k * k)))


nodes, inits = [], []


def conv(x, y, m, c, k, stride=1, pad=None, group=1, relu=None):
    w = "w_" + y
    inits.append(conv_w(w, m, c // group, k))
    inits.append(arr("b_" + y, m, scale=0.1))
    p = k // 2 if pad is None else pad
    nodes.append(N("Conv", [x, w, "b_" + y], [y], kernel_shape=[k, k], strides=[stride, stride],
                   pads=[p, p, p, p], group=group))
    if relu == "relu":
        nodes.append(N("Relu", [y], [y + "_r"]))
        return y + "_r"
    if relu == "relu6":
        nodes.append(N("Clip", [y, "zero", "six"], [y + "_r"]))
        return y + "_r"
    return y


x = conv("x", "stem", 16, 3, 7, stride=2, relu="relu")
nodes.append(N("MaxPool", [x], ["pool"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
h = conv("pool", "b1a", 16, 16, 3, relu="relu")
h = conv(h, "b1b", 16, 16, 3)
nodes += [N("Add", [h, "pool"], ["b1s"]), N("Relu", ["b1s"], ["b1"])]
h = conv("b1", "b2a", 32, 16, 3, stride=2, relu="relu")
h = conv(h, "b2b", 32, 32, 3)
sc = conv("b1", "b2sc", 32, 16, 1, stride=2, pad=0)
nodes += [N("Add", [h, sc], ["b2s"]), N("Relu", ["b2s"], ["b2"]), N("GlobalAveragePool", ["b2"], ["gap"]),
          N("Flatten", ["gap"], ["flat"]), N("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1)]
inits += [arr("fc_w", 10, 32, scale=0.3), arr("fc_b", 10, scale=0.1)]
save(nodes, "resnet", [vi("x", T.FLOAT, [1, 3, 32, 32])], [vi("y", T.FLOAT, [1, 10])], inits)

nodes, inits = [], [numpy_helper.from_array(np.array(0, np.float32), "zero"),
                    numpy_helper.from_array(np.array(6, np.float32), "six")]
x = conv("x", "stem", 16, 3, 3, stride=2, relu="relu6")


def inverted(x, name, c, out, stride, t=4):
    h = conv(x, name + "e", c * t, c, 1, pad=0, relu="relu6")
    h = conv(h, name + "d", c * t, c * t, 3, stride=stride, group=c * t, relu="relu6")
    h = conv(h, name + "p", out, c * t, 1, pad=0)
    if stride == 1 and c == out:
        nodes.append(N("Add", [x, h], [name + "s"]))
        return name + "s"
    return h


h = inverted(x, "i1", 16, 16, 1)
h = inverted(h, "i2", 16, 24, 2)
h = inverted(h, "i3", 24, 24, 1)
nodes += [N("GlobalAveragePool", [h], ["gap"]), N("Flatten", ["gap"], ["flat"]),
          N("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1)]
inits += [arr("fc_w", 10, 24, scale=0.3), arr("fc_b", 10, scale=0.1)]
save(nodes, "mobilenet", [vi("x", T.FLOAT, [1, 3, 32, 32])], [vi("y", T.FLOAT, [1, 10])], inits)
