#!/usr/bin/env python3
"""The models of the CUDA direct convolution kernel's and the 2-D MaxPool's tests (tests/cuda.sh, tests/cuda-sim.sh),
written into the folder named by the first argument:
- stem.onnx: a ResNet's first layers on a small non-square image (Conv 7x7, stride 2, pads 3, 3 -> 64 channels, bias;
  Relu; MaxPool 3x3, stride 2, pads 1);
- odd.onnx: convolutions of odd geometries, one output each: ya (one input channel, 5 output channels, dilations,
  asymmetric pads), yb (37 channels, a 5x3 kernel, strides 2 and 1, dilations 1 and 2, bias, then an Add of the
  input z and a Relu), yc (1-D, stride 3, asymmetric pads), yd (33 channels, 6x6, strides 1 and 2), ye (32 input
  channels: too many for the direct kernel), yf (two groups: not for it either);
- pools.onnx (input px.npy), pool16.onnx (float16, input ph.npy) and pool1d.onnx (1-D, input p1.npy): MaxPool on
  zeros of both signs, NaN and infinities (the tap order decides which zero a window of zeros gives): the stem's
  pool, ceil_mode with asymmetric pads, dilations with stride 1, windows wider than the stride, and one with
  Indices (the kernel of every rank)."""
import os
import sys

import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T

os.makedirs(sys.argv[1], exist_ok=True)
os.chdir(sys.argv[1])
vi = helper.make_tensor_value_info
rng = np.random.default_rng(11)
a = lambda n, *s: numpy_helper.from_array(rng.uniform(-0.5, 0.5, s).astype(np.float32), n)
def save(nodes, name, ins, outs, inits):
    g = helper.make_graph(nodes, name, ins, outs, inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")
save([helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[7, 7], strides=[2, 2], pads=[3, 3, 3, 3]),
      helper.make_node("Relu", ["c"], ["r"]),
      helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
     "stem", [vi("x", T.FLOAT, [2, 3, 40, 36])], [vi("y", T.FLOAT, [2, 64, 10, 9])], [a("w", 64, 3, 7, 7), a("b", 64)])
C = lambda *a, **k: helper.make_node("Conv", *a, **k)
save([C(["x1", "w1"], ["ya"], kernel_shape=[3, 3], dilations=[2, 2], pads=[0, 2, 1, 1]),
      C(["x2", "w2", "b2"], ["c2"], kernel_shape=[5, 3], strides=[2, 1], dilations=[1, 2], pads=[2, 1, 2, 1]),
      helper.make_node("Add", ["c2", "z"], ["s2"]), helper.make_node("Relu", ["s2"], ["yb"]),
      C(["x3", "w3", "b3"], ["yc"], kernel_shape=[7], strides=[3], pads=[2, 4]),
      C(["x4", "w4", "b4"], ["yd"], kernel_shape=[6, 6], strides=[1, 2], pads=[2, 2, 2, 2]),
      C(["x5", "w5"], ["ye"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
      C(["x6", "w6"], ["yf"], kernel_shape=[3, 3], group=2)],
     "odd", [vi("x1", T.FLOAT, [1, 1, 11, 17]), vi("x2", T.FLOAT, [3, 2, 13, 9]), vi("z", T.FLOAT, [3, 37, 7, 7]),
             vi("x3", T.FLOAT, [2, 3, 50]), vi("x4", T.FLOAT, [1, 4, 9, 9]), vi("x5", T.FLOAT, [1, 32, 6, 6]),
             vi("x6", T.FLOAT, [1, 4, 6, 6])],
     [vi("ya", T.FLOAT, [1, 5, 8, 15]), vi("yb", T.FLOAT, [3, 37, 7, 7]), vi("yc", T.FLOAT, [2, 40, 17]),
      vi("yd", T.FLOAT, [1, 33, 8, 4]), vi("ye", T.FLOAT, [1, 8, 6, 6]), vi("yf", T.FLOAT, [1, 6, 4, 4])],
     [a("w1", 5, 1, 3, 3), a("w2", 37, 2, 5, 3), a("b2", 37), a("w3", 40, 3, 7), a("b3", 40), a("w4", 33, 4, 6, 6),
      a("b4", 33), a("w5", 8, 32, 3, 3), a("w6", 6, 2, 3, 3)])
# MaxPool on zeros of both signs (the tap order decides which a window of zeros gives), NaN and infinities: the
# stem's pool, ceil_mode with asymmetric pads, dilations with stride 1, a window wider than the stride, Indices
# (the kernel of every rank), float16
x = rng.choice(np.array([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 0.25], np.float32), (2, 3, 13, 11),
               p=[0.3, 0.3, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05])
np.save("px.npy", x)
np.save("ph.npy", x[:1, :2, :9, :9].astype(np.float16))
np.save("p1.npy", x[:, :, :2, :].reshape(2, 3, 22))
M = lambda i, o, **k: helper.make_node("MaxPool", [i], o, **k)
save([M("x", ["p1"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
      M("x", ["p2"], kernel_shape=[3, 2], strides=[2, 3], pads=[0, 1, 2, 0], ceil_mode=1),
      M("x", ["p3"], kernel_shape=[2, 2], dilations=[2, 3], pads=[1, 0, 0, 2]),
      M("x", ["p4"], kernel_shape=[4, 5], strides=[3, 1], pads=[3, 0, 1, 4], ceil_mode=1),
      M("x", ["p5", "i5"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
     "pools", [vi("x", T.FLOAT, [2, 3, 13, 11])],
     [vi(n, T.FLOAT, None) for n in ("p1", "p2", "p3", "p4", "p5")] + [vi("i5", T.INT64, None)], [])
save([M("x", ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)], "pool16",
     [vi("x", T.FLOAT16, [1, 2, 9, 9])], [vi("p", T.FLOAT16, None)], [])
save([M("x", ["p"], kernel_shape=[4], strides=[3], pads=[1, 2], ceil_mode=1),
      M("x", ["q"], kernel_shape=[3], dilations=[2], pads=[2, 0])], "pool1d",
     [vi("x", T.FLOAT, [2, 3, 22])], [vi("p", T.FLOAT, None), vi("q", T.FLOAT, None)], [])
