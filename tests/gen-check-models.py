#!/usr/bin/python3
"""Generate the small models that `onnxview check` is tested on: one per diagnostic code."""

# Usage: gen-check-models.py OUTDIR
#
# Each model trips one rule of src/check/rules-*.c (see DIAG_TABLE in src/check/check.h), plus only
# the companions it cannot avoid; a clean model trips none.  tests/check.sh says which
# code each model must produce.  Inputs are rank 2, or have a symbolic batch, so that
# the fixed-batch info appears only where it is the point.  Models that break the ONNX
# rules are built with onnx.helper, which does not run the checker.
#
# Files are written deterministically (no times, no paths, deterministic=True), so
# running the script twice yields identical bytes.

import os
import sys

import numpy as np
from onnx import TensorProto, helper

OPSET = 13
PRODUCER = "gen-check-models"
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def ser(msg):
    return msg.SerializeToString(deterministic=True)


def model(nodes, inputs, outputs, inits=(), opsets=None, value_info=(), **kwargs):
    """A ModelProto around one graph; opsets is a list of (domain, version), default ai.onnx 13."""
    if opsets is None:
        opsets = [("", OPSET)]
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits),
                              value_info=list(value_info))
    kwargs.setdefault("producer_name", PRODUCER)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                             **kwargs)


def vi(name, shape, elem=F):
    """A tensor ValueInfoProto; shape None declares no shape."""
    return helper.make_tensor_value_info(name, elem, shape)


def ints(name, values):
    """An int64 initializer of rank 1."""
    return helper.make_tensor(name, I64, [len(values)], values)


def floats(name, values, dims=None):
    return helper.make_tensor(name, F, [len(values)] if dims is None else dims, values)


def weights(name, shape, seed):
    arr = (np.random.default_rng(seed).standard_normal(shape) * 0.1).astype("<f4")
    return helper.make_tensor(name, F, shape, arr.tobytes(), raw=True)


def node(op, ins, outs, name, **attrs):
    return helper.make_node(op, ins, outs, name=name, **attrs)


def relu(x="x", y="y"):
    """The plainest valid body: y = Relu(x), both float[2,4]."""
    return [node("Relu", [x], [y], "relu0")], [vi(x, [2, 4])], [vi(y, [2, 4])]


# --------------------------------------------------------------------------
# A clean model: nothing to report
# --------------------------------------------------------------------------

def clean():
    """Conv -> Relu -> Reshape to [0, -1]: dynamic batch, declared shapes that agree."""
    nodes = [
        node("Conv", ["x", "W", "B"], ["c"], "conv0", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        node("Relu", ["c"], ["r"], "relu0"),
        node("Reshape", ["r", "flat"], ["y"], "flatten0"),
    ]
    return model(nodes, [vi("x", ["N", 3, 4, 4])], [vi("y", ["N", 64])],
                 [weights("W", [4, 3, 3, 3], 1), weights("B", [4], 2), ints("flat", [0, -1])],
                 value_info=[vi("c", ["N", 4, 4, 4])])


# --------------------------------------------------------------------------
# Operators: opsets, domains, schemas
# --------------------------------------------------------------------------

def op_not_in_opset():
    """GridSample (opset 16) in a model exported at opset 11."""
    nodes = [node("GridSample", ["x", "grid"], ["y"], "grid_sample0", align_corners=0)]
    return model(nodes, [vi("x", ["N", 1, 4, 4]), vi("grid", ["N", 4, 4, 2])],
                 [vi("y", ["N", 1, 4, 4])], opsets=[("", 11)])


def op_removed():
    """Upsample (removed at opset 10) in an opset-13 model."""
    nodes = [node("Upsample", ["x", "scales"], ["y"], "upsample0", mode="nearest")]
    return model(nodes, [vi("x", ["N", 1, 4, 4])], [vi("y", ["N", 1, 8, 8])],
                 [floats("scales", [1.0, 1.0, 2.0, 2.0])])


def unknown_op():
    """'Conv2d' (a PyTorch name) in the default domain."""
    nodes = [node("Conv2d", ["x", "W"], ["y"], "conv0", kernel_shape=[1, 1])]
    return model(nodes, [vi("x", ["N", 3, 4, 4])], [vi("y", ["N", 4, 4, 4])],
                 [weights("W", [4, 3, 1, 1], 3)])


def domain_not_imported():
    """An ai.onnx.ml node in a model that imports only ai.onnx."""
    nodes = [helper.make_node("Normalizer", ["x"], ["y"], name="norm0", domain="ai.onnx.ml",
                              norm="L2")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])])


def custom_domain():
    """custom::DeformConv2d, as a PyTorch symbolic for deform_conv2d writes it."""
    nodes = [helper.make_node("DeformConv2d", ["x", "offset", "W"], ["y"], name="deform0",
                              domain="custom", stride=[1, 1], padding=[1, 1])]
    return model(nodes, [vi("x", ["N", 3, 4, 4]), vi("offset", ["N", 18, 4, 4])],
                 [vi("y", ["N", 4, 4, 4])], [weights("W", [4, 3, 3, 3], 4)],
                 opsets=[("", OPSET), ("custom", 1)])


def aten_fallback():
    """An ATen node (operator_export_type=ONNX_ATEN_FALLBACK)."""
    nodes = [helper.make_node("ATen", ["x"], ["y"], name="aten0", domain="org.pytorch.aten",
                              operator="logcumsumexp", dim=1)]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])],
                 opsets=[("", OPSET), ("org.pytorch.aten", 1)])


def ort_only():
    """com.microsoft::FusedConv, written by onnxruntime's graph optimizer."""
    nodes = [helper.make_node("FusedConv", ["x", "W", "B"], ["y"], name="fused0",
                              domain="com.microsoft", activation="Relu", kernel_shape=[1, 1])]
    return model(nodes, [vi("x", ["N", 3, 4, 4])], [vi("y", ["N", 4, 4, 4])],
                 [weights("W", [4, 3, 1, 1], 5), weights("B", [4], 6)],
                 opsets=[("", OPSET), ("com.microsoft", 1)])


def opset_newer_than_db():
    """An ai.onnx opset far beyond any onnx release."""
    nodes, ins, outs = relu()
    return model(nodes, ins, outs, opsets=[("", 99)])


def unknown_attribute():
    """Relu has no attributes; alpha belongs to LeakyRelu."""
    nodes = [node("Relu", ["x"], ["y"], "relu0", alpha=0.1)]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])])


def missing_attribute():
    """Cast without its required 'to'."""
    nodes = [node("Cast", ["x"], ["y"], "cast0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", None)])


def attribute_type():
    """Conv kernel_shape written as a FLOAT instead of INTS."""
    nodes = [node("Conv", ["x", "W"], ["y"], "conv0", kernel_shape=3.0)]
    return model(nodes, [vi("x", ["N", 3, 4, 4])], [vi("y", None)],
                 [weights("W", [4, 3, 3, 3], 7)])


def input_count():
    """Add with one input."""
    nodes = [node("Add", ["x"], ["y"], "add0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", None)])


def input_count_empty():
    """Reshape whose required 'shape' input is left empty ('')."""
    nodes = [node("Reshape", ["x", ""], ["y"], "reshape0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", None)])


def output_count():
    """Relu with two outputs."""
    nodes = [node("Relu", ["x"], ["y", "y2"], "relu0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4]), vi("y2", None)])


# --------------------------------------------------------------------------
# Graph structure
# --------------------------------------------------------------------------

def dangling_input():
    nodes = [node("Add", ["x", "bias"], ["y"], "add0")]   # 'bias' was never exported
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])])


def produced_twice():
    nodes = [node("Relu", ["x"], ["y"], "relu0"), node("Neg", ["x"], ["y"], "neg0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])])


def output_not_produced():
    nodes, ins, outs = relu()
    return model(nodes, ins, outs + [vi("aux", [2, 4])])


def not_sorted():
    nodes = [node("Neg", ["t"], ["y"], "neg1"), node("Relu", ["x"], ["t"], "relu0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])])


def cycle():
    """a = Add(x, b); b = Relu(a): neither can run first."""
    nodes = [node("Add", ["x", "b"], ["a"], "add0"), node("Relu", ["a"], ["b"], "relu0")]
    return model(nodes, [vi("x", [2, 4])], [vi("b", [2, 4])])


def duplicate_name():
    nodes = [node("Relu", ["x"], ["t"], "act"), node("Neg", ["t"], ["y"], "act")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])])


def duplicate_input():
    nodes, ins, outs = relu()
    return model(nodes, ins + [vi("x", [2, 4])], outs)


def unused_initializer():
    nodes, ins, outs = relu()
    return model(nodes, ins, outs, [floats("old_bias", [0.0, 0.0, 0.0, 0.0])])


def dead_node():
    nodes, ins, outs = relu()
    nodes.append(node("Neg", ["x"], ["unused"], "neg0"))
    return model(nodes, ins, outs)


def initializer_is_input():
    """bias is both an initializer and a graph input (what exporters wrote before IR 4)."""
    nodes = [node("Add", ["x", "bias"], ["y"], "add0")]
    return model(nodes, [vi("x", [2, 4]), vi("bias", [4])], [vi("y", [2, 4])],
                 [floats("bias", [0.5, 0.5, 0.5, 0.5])], ir_version=8)


# --------------------------------------------------------------------------
# Declared against inferred
# --------------------------------------------------------------------------

def type_conflict():
    nodes = [node("Relu", ["x"], ["y"], "relu0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4], I64)])


def shape_conflict():
    nodes = [node("Relu", ["x"], ["y"], "relu0")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [4, 2])])


# --------------------------------------------------------------------------
# Exporter traps (the field reports)
# --------------------------------------------------------------------------

def fixed_batch():
    """S2: exported without dynamic_axes."""
    nodes = [node("Relu", ["x"], ["y"], "relu0")]
    return model(nodes, [vi("x", [1, 3, 4, 4])], [vi("y", [1, 3, 4, 4])])


def negative_dim():
    """Paddle2ONNX writes dim_value -1 for a dynamic dim (PaddleOCR's angle classifier)."""
    nodes = [node("Relu", ["x"], ["y"], "relu0")]
    return model(nodes, [vi("x", [-1, 3, 48, -1])], [vi("y", [-1, 3, 48, -1])])


def fixed_batch_on_purpose():
    """Two image inputs, one with a dynamic dim (dynamic_axes was used): the fixed batch is deliberate."""
    nodes = [node("Add", ["x", "z"], ["y"], "add0")]
    return model(nodes, [vi("x", [1, 3, 4, 4]), vi("z", [1, 3, 4, "w"])], [vi("y", [1, 3, 4, 4])])


def fixed_batch_two():
    """Two static inputs: one fixed-batch finding names both."""
    nodes = [node("Add", ["x", "z"], ["y"], "add0")]
    return model(nodes, [vi("x", [1, 3, 4, 4]), vi("z", [1, 3, 4, 4])], [vi("y", [1, 3, 4, 4])])


def baked_shape():
    """A dynamic batch reshaped with a constant [2, -1] (traced from x.view(2, -1))."""
    nodes = [node("Reshape", ["x", "target"], ["y"], "reshape0")]
    return model(nodes, [vi("x", ["N", 3, 4])], [vi("y", None)], [ints("target", [2, -1])])


def baked_shape_fixed():
    """S2: batch fixed to 1, and the Reshape target [1, -1] bakes the 1 in too."""
    nodes = [node("Relu", ["x"], ["r"], "relu0"), node("Reshape", ["r", "target"], ["y"], "reshape0")]
    return model(nodes, [vi("x", [1, 3, 4])], [vi("y", [1, 12])], [ints("target", [1, -1])])


def resize_computed():
    """Resize scales computed from shapes at run time: Shape -> Cast -> Div."""
    nodes = [
        node("Shape", ["x"], ["in_shape"], "shape0"),
        node("Cast", ["in_shape"], ["in_shape_f"], "cast0", to=F),
        node("Div", ["out_size", "in_shape_f"], ["scales"], "div0"),
        node("Resize", ["x", "", "scales"], ["y"], "resize0", mode="nearest"),
    ]
    return model(nodes, [vi("x", ["N", 1, 4, 4])], [vi("y", None)],
                 [floats("out_size", [1.0, 1.0, 8.0, 8.0])])


def resize_align_corners():
    nodes = [node("Resize", ["x", "", "scales"], ["y"], "resize0", mode="linear",
                  coordinate_transformation_mode="align_corners")]
    return model(nodes, [vi("x", ["N", 1, 4, 4])], [vi("y", ["N", 1, 8, 8])],
                 [floats("scales", [1.0, 1.0, 2.0, 2.0])])


def gather_on_shape():
    """x.size(1): Shape -> Gather."""
    nodes = [node("Shape", ["x"], ["s"], "shape0"),
             node("Gather", ["s", "one"], ["y"], "gather0", axis=0)]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [], I64)],
                 [helper.make_tensor("one", I64, [], [1])])


def s3_opset11():
    """S3: grid_sampler exported at opset 11 (GridSample needs 16), beside a bilinear
    align_corners Resize, as torch writes F.interpolate(align_corners=True) at 11."""
    nodes = [
        node("Resize", ["x", "roi", "scales"], ["up"], "resize0", mode="linear",
             coordinate_transformation_mode="align_corners"),
        node("GridSample", ["up", "grid"], ["y"], "grid_sample0", align_corners=0),
    ]
    return model(nodes, [vi("x", ["N", 1, 4, 4]), vi("grid", ["N", 8, 8, 2])],
                 [vi("y", ["N", 1, 8, 8])],
                 [floats("roi", [], [0]), floats("scales", [1.0, 1.0, 2.0, 2.0])],
                 opsets=[("", 11)])


def s3_opset9():
    """S3: upsample_bilinear2d(align_corners=True) at opset 9, where Upsample has no
    align_corners (an old exporter wrote one anyway), and asinh's neighbour GridSample."""
    nodes = [
        node("Upsample", ["x", "scales"], ["up"], "upsample0", mode="linear", align_corners=1),
        node("GridSample", ["up", "grid"], ["y"], "grid_sample0"),
    ]
    return model(nodes, [vi("x", ["N", 1, 4, 4]), vi("grid", ["N", 8, 8, 2])],
                 [vi("y", ["N", 1, 8, 8])], [floats("scales", [1.0, 1.0, 2.0, 2.0])],
                 opsets=[("", 9)])


def s5_node2_gather():
    """S5: TensorRT says 'In node 2 (importGather)': x.view(x.size(0), -1), where node #2
    is the Gather that reads the batch size out of Shape."""
    nodes = [
        node("Relu", ["x"], ["r"], "/relu/Relu"),
        node("Shape", ["r"], ["s"], "/Shape"),
        node("Gather", ["s", "zero"], ["n"], "/Gather", axis=0),
        node("Unsqueeze", ["n", "axes"], ["n1"], "/Unsqueeze"),
        node("Concat", ["n1", "minus_one"], ["target"], "/Concat", axis=0),
        node("Reshape", ["r", "target"], ["y"], "/Reshape"),
    ]
    return model(nodes, [vi("x", ["N", 3, 4, 4])], [vi("y", ["N", 48])],
                 [helper.make_tensor("zero", I64, [], [0]), ints("axes", [0]),
                  ints("minus_one", [-1])])


MODELS = {
    "clean": clean,
    "op-not-in-opset": op_not_in_opset,
    "op-removed": op_removed,
    "unknown-op": unknown_op,
    "domain-not-imported": domain_not_imported,
    "custom-domain": custom_domain,
    "aten-fallback": aten_fallback,
    "ort-only": ort_only,
    "opset-newer-than-db": opset_newer_than_db,
    "dangling-input": dangling_input,
    "produced-twice": produced_twice,
    "output-not-produced": output_not_produced,
    "not-sorted": not_sorted,
    "cycle": cycle,
    "duplicate-name": duplicate_name,
    "duplicate-input": duplicate_input,
    "unused-initializer": unused_initializer,
    "dead-node": dead_node,
    "initializer-is-input": initializer_is_input,
    "unknown-attribute": unknown_attribute,
    "missing-attribute": missing_attribute,
    "attribute-type": attribute_type,
    "input-count": input_count,
    "input-count-empty": input_count_empty,
    "output-count": output_count,
    "type-conflict": type_conflict,
    "shape-conflict": shape_conflict,
    "fixed-batch": fixed_batch,
    "negative-dim": negative_dim,
    "fixed-batch-on-purpose": fixed_batch_on_purpose,
    "fixed-batch-two": fixed_batch_two,
    "baked-shape": baked_shape,
    "baked-shape-fixed": baked_shape_fixed,
    "resize-computed": resize_computed,
    "resize-align-corners": resize_align_corners,
    "gather-on-shape": gather_on_shape,
    "s3-opset11": s3_opset11,
    "s3-opset9": s3_opset9,
    "s5-node2-gather": s5_node2_gather,
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen-check-models.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name, build in MODELS.items():
        with open(os.path.join(outdir, name + ".onnx"), "wb") as f:
            f.write(ser(build()))


if __name__ == "__main__":
    main()
