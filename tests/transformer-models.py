"""Writes the models of tests/transformer-ops.sh, with their inputs and expected outputs.

Usage: python transformer-models.py OUTDIR        (a python with onnx >= 1.23, onnxscript and numpy)

Models, each OUTDIR/NAME.onnx with OUTDIR/NAME/in-INPUT.npy and OUTDIR/NAME/ref-OUTPUT.npy (onnx's reference
evaluator):
- decoder: two LLaMA-style decoder layers written with onnxscript as local functions (FunctionProto) of a custom
  domain, the way torch's dynamo exporter writes modules: a layer function calls an RMS norm function and an
  attention function (nested calls), attributes passed down by reference (heads, kv_heads, eps); inside,
  RMSNormalization, RotaryEmbedding (3-D, position_ids) and opset-23 Attention (3-D, causal, grouped-query).
- sdpa: what F.scaled_dot_product_attention exports to at opset 23 in a decoding step: 4-D Attention with a float
  mask, a KV cache (past_key/past_value in, present_key/present_value out), scale and softcap.
- rope4d: RotaryEmbedding on 4-D input, interleaved, rotating part of the head, caches per token.
"""
import os
import sys

import numpy as np
import onnx
import onnx.inliner
from onnx.reference import ReferenceEvaluator
from onnxscript import FLOAT, INT64, script
from onnxscript import opset23 as op
from onnxscript.values import Opset

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(23)
local = Opset("pkg.onnxview.test", 1)

B, S, E, H, HKV, D, F = 2, 6, 32, 4, 2, 8, 48


@script(local, default_opset=op)
def RMSBlock(x, w, eps: float):
    return op.RMSNormalization(x, w, epsilon=eps)


@script(local, default_opset=op)
def SelfAttn(x, wq, wk, wv, wo, cos, sin, pos, heads: int, kv_heads: int):
    q = op.RotaryEmbedding(op.MatMul(x, wq), cos, sin, pos, num_heads=heads)
    k = op.RotaryEmbedding(op.MatMul(x, wk), cos, sin, pos, num_heads=kv_heads)
    v = op.MatMul(x, wv)
    y = op.Attention(q, k, v, is_causal=1, q_num_heads=heads, kv_num_heads=kv_heads)
    return op.MatMul(y, wo)


@script(local, default_opset=op)
def Layer(x, n1, wq, wk, wv, wo, n2, w1, w2, w3, cos, sin, pos, heads: int, kv_heads: int):
    h = RMSBlock(x, n1, eps=1e-6)
    x2 = op.Add(x, SelfAttn(h, wq, wk, wv, wo, cos, sin, pos, heads=heads, kv_heads=kv_heads))
    h2 = RMSBlock(x2, n2, eps=1e-6)
    g = op.MatMul(h2, w1)
    m = op.Mul(op.Mul(g, op.Sigmoid(g)), op.MatMul(h2, w3))
    return op.Add(x2, op.MatMul(m, w2))


def weights(prefix):
    w = lambda *s: (rng.standard_normal(s) * 0.2).astype(np.float32)
    return {
        prefix + "n1": (1 + w(E)).astype(np.float32), prefix + "wq": w(E, H * D), prefix + "wk": w(E, HKV * D),
        prefix + "wv": w(E, HKV * D), prefix + "wo": w(H * D, E), prefix + "n2": (1 + w(E)).astype(np.float32),
        prefix + "w1": w(E, F), prefix + "w2": w(F, E), prefix + "w3": w(E, F),
    }


@script(default_opset=op)
def decoder(x: FLOAT[B, S, E], cos: FLOAT[64, D // 2], sin: FLOAT[64, D // 2], pos: INT64[B, S],
            l0n1, l0wq, l0wk, l0wv, l0wo, l0n2, l0w1, l0w2, l0w3,
            l1n1, l1wq, l1wk, l1wv, l1wo, l1n2, l1w1, l1w2, l1w3):
    y = Layer(x, l0n1, l0wq, l0wk, l0wv, l0wo, l0n2, l0w1, l0w2, l0w3, cos, sin, pos, heads=H, kv_heads=HKV)
    return Layer(y, l1n1, l1wq, l1wk, l1wv, l1wo, l1n2, l1w1, l1w2, l1w3, cos, sin, pos, heads=H, kv_heads=HKV)


def save(name, model, feeds):
    for i in model.graph.input:  # onnxscript leaves the weights untyped: type them from their values
        if not i.type.HasField("tensor_type"):
            i.CopyFrom(onnx.helper.make_tensor_value_info(
                i.name, onnx.helper.np_dtype_to_tensor_dtype(feeds[i.name].dtype), feeds[i.name].shape))
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for k, v in feeds.items():
        np.save(os.path.join(d, "in-%s.npy" % k), v)
    # the reference evaluator does not follow a function that calls another: it runs the inlined model
    got = ReferenceEvaluator(onnx.inliner.inline_local_functions(model)).run(None, feeds)
    for o, v in zip(model.graph.output, got):
        np.save(os.path.join(d, "ref-%s.npy" % o.name), v)


# decoder
inv = 1.0 / (10000 ** (np.arange(0, D, 2) / D))
ang = np.arange(64)[:, None] * inv[None, :]
feeds = {"x": rng.standard_normal((B, S, E)).astype(np.float32), "cos": np.cos(ang).astype(np.float32),
         "sin": np.sin(ang).astype(np.float32), "pos": np.array([np.arange(S), np.arange(S) + 3], dtype=np.int64)}
feeds.update(weights("l0"))
feeds.update(weights("l1"))
m = decoder.to_model_proto()
assert len(m.functions) == 3, [f.name for f in m.functions]
save("decoder", m, feeds)

# sdpa: one decoding step of 3 new tokens over a cache of 5
from onnx import TensorProto as T, helper as oh  # noqa: E402

vi = oh.make_tensor_value_info
nodes = [oh.make_node("Attention", ["q", "k", "v", "mask", "past_k", "past_v"], ["y", "present_k", "present_v"],
                      scale=0.3, softcap=4.0)]
g = oh.make_graph(nodes, "sdpa",
                  [vi("q", T.FLOAT, [2, 4, 3, 16]), vi("k", T.FLOAT, [2, 4, 3, 16]), vi("v", T.FLOAT, [2, 4, 3, 12]),
                   vi("mask", T.FLOAT, [2, 1, 3, 8]), vi("past_k", T.FLOAT, [2, 4, 5, 16]),
                   vi("past_v", T.FLOAT, [2, 4, 5, 12])],
                  [vi("y", T.FLOAT, [2, 4, 3, 12]), vi("present_k", T.FLOAT, [2, 4, 8, 16]),
                   vi("present_v", T.FLOAT, [2, 4, 8, 12])])
mask = np.where(rng.random((2, 1, 3, 8)) < 0.2, -np.inf, rng.standard_normal((2, 1, 3, 8))).astype(np.float32)
mask[..., 0] = 0  # every row attends at least one key
feeds = {"q": rng.standard_normal((2, 4, 3, 16)).astype(np.float32),
         "k": rng.standard_normal((2, 4, 3, 16)).astype(np.float32),
         "v": rng.standard_normal((2, 4, 3, 12)).astype(np.float32), "mask": mask,
         "past_k": rng.standard_normal((2, 4, 5, 16)).astype(np.float32),
         "past_v": rng.standard_normal((2, 4, 5, 12)).astype(np.float32)}
save("sdpa", oh.make_model(g, opset_imports=[oh.make_opsetid("", 23)]), feeds)

# rope4d: interleaved, rotary_embedding_dim 6 of a head of 10, caches per token
nodes = [oh.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"], interleaved=1, rotary_embedding_dim=6)]
g = oh.make_graph(nodes, "rope4d",
                  [vi("x", T.FLOAT, [2, 3, 5, 10]), vi("cos", T.FLOAT, [2, 5, 3]), vi("sin", T.FLOAT, [2, 5, 3])],
                  [vi("y", T.FLOAT, [2, 3, 5, 10])])
a = rng.random((2, 5, 3)) * 6
feeds = {"x": rng.standard_normal((2, 3, 5, 10)).astype(np.float32), "cos": np.cos(a).astype(np.float32),
         "sin": np.sin(a).astype(np.float32)}
save("rope4d", oh.make_model(g, opset_imports=[oh.make_opsetid("", 23)]), feeds)
print("wrote decoder, sdpa, rope4d to", out)
