#!/usr/bin/env python3
"""Write a residual MatMul/Relu/Add chain of N nodes (default 51,000), the TUI benchmark's large model.

Usage: bench/make-chain.py OUT.onnx [NODES]   Each block is y = x + Relu(x @ W_i) with its own 16x16 weight, so the
file is about 20 MB at 51,000 nodes, like a mid-size transformer export's structure."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 51000
    blocks = nodes // 3
    rng = np.random.default_rng(0)
    ns, inits = [], []
    x = "x"
    for i in range(blocks):
        w = f"blk{i}.weight"
        inits.append(numpy_helper.from_array((rng.standard_normal((16, 16)) * 0.05).astype(np.float32), w))
        ns.append(helper.make_node("MatMul", [x, w], [f"/blk{i}/mm"], name=f"/blk{i}/MatMul"))
        ns.append(helper.make_node("Relu", [f"/blk{i}/mm"], [f"/blk{i}/relu"], name=f"/blk{i}/Relu"))
        ns.append(helper.make_node("Add", [x, f"/blk{i}/relu"], [f"/blk{i}/out"], name=f"/blk{i}/Add"))
        x = f"/blk{i}/out"
    g = helper.make_graph(ns, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 16])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out)


if __name__ == "__main__":
    main()
