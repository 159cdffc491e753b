#!/usr/bin/python3
"""Generate the small valid and hostile ONNX models used by onnxview's tests."""

# Usage: gen-models.py OUTDIR
#
# Every file is written deterministically: weights come from fixed seeds,
# nothing records a time or a path, and messages are serialised with
# deterministic=True.  Running the script twice yields identical bytes.
#
# Valid models are built with onnx.helper.  Models that onnx's Python
# bindings cannot express (data types newer than onnx 1.12, nesting deeper
# than protobuf's recursion limit, broken wire formats) are assembled from
# raw protobuf wire bytes with the small encoder below.

import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

OPSET = 13
PRODUCER = "gen-models"


# --------------------------------------------------------------------------
# Protobuf wire-format helpers (for the hand-built models)
# --------------------------------------------------------------------------

WT_VARINT, WT_I64, WT_LEN, WT_SGROUP, WT_EGROUP, WT_I32 = 0, 1, 2, 3, 4, 5


def varint(n):
    """Encode an integer as a protobuf varint (negatives as 64-bit two's complement)."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire_type):
    """Encode a field key (tag)."""
    return varint(field << 3 | wire_type)


def field_varint(field, value):
    return key(field, WT_VARINT) + varint(value)


def field_bytes(field, payload):
    """Encode a length-delimited field (string, bytes or sub-message)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return key(field, WT_LEN) + varint(len(payload)) + payload


def ser(msg):
    """Serialise a protobuf message deterministically."""
    return msg.SerializeToString(deterministic=True)


# --------------------------------------------------------------------------
# Model-building helpers
# --------------------------------------------------------------------------

def rng(seed):
    return np.random.default_rng(seed)


def weights(name, shape, seed, scale=0.1):
    """A float32 initializer of small random values, stored in raw_data."""
    arr = (rng(seed).standard_normal(shape) * scale).astype("<f4")
    return helper.make_tensor(name, TensorProto.FLOAT, shape, arr.tobytes(), raw=True)


def raw_tensor(name, dtype, dims, np_dtype, values):
    """A tensor whose payload is stored little-endian in raw_data."""
    data = np.asarray(values, dtype=np_dtype).astype(np.dtype(np_dtype).newbyteorder("<"))
    return helper.make_tensor(name, dtype, dims, data.tobytes(), raw=True)


def external_tensor(name, dtype, dims, location, offset=None, length=None):
    """A tensor whose data lives in an external file (data_location EXTERNAL)."""
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    for k, v in entries:
        e = t.external_data.add()
        e.key = k
        e.value = v
    return t


def model(graph, opsets=None, **kwargs):
    """Wrap a graph in a ModelProto with the common producer fields."""
    if opsets is None:
        opsets = [helper.make_opsetid("", OPSET)]
    kwargs.setdefault("producer_name", PRODUCER)
    return helper.make_model(graph, opset_imports=opsets, **kwargs)


def fvi(name, shape, elem=TensorProto.FLOAT):
    """Shorthand for a tensor ValueInfoProto."""
    return helper.make_tensor_value_info(name, elem, shape)


def write_bytes(outdir, name, data):
    path = os.path.join(outdir, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_model(outdir, name, m):
    write_bytes(outdir, name, ser(m))


# --------------------------------------------------------------------------
# Valid models
# --------------------------------------------------------------------------

def conv_relu():
    """Conv -> Relu -> MaxPool, with doc_string and metadata."""
    nodes = [
        helper.make_node("Conv", ["x", "W", "B"], ["conv_out"], name="conv0",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv_out"], ["relu_out"], name="relu0"),
        helper.make_node("MaxPool", ["relu_out"], ["y"], name="pool0",
                         kernel_shape=[2, 2], strides=[2, 2]),
    ]
    graph = helper.make_graph(
        nodes, "conv_relu",
        [fvi("x", [1, 3, 8, 8])], [fvi("y", [1, 4, 4, 4])],
        initializer=[weights("W", [4, 3, 3, 3], 1), weights("B", [4], 2)],
        value_info=[fvi("conv_out", [1, 4, 8, 8]), fvi("relu_out", [1, 4, 8, 8])],
        doc_string="Conv + Relu + MaxPool test graph")
    m = model(graph, doc_string="A tiny convolutional model for onnxview tests.")
    helper.set_model_props(m, {"author": "onnxview tests"})
    return m


def srcnn():
    """Super-resolution net as in the PyTorch ONNX tutorial (upscale by 3)."""
    nodes = [
        helper.make_node("Resize", ["input", "roi", "scales"], ["upscaled"],
                         name="resize0", mode="cubic"),
        helper.make_node("Conv", ["upscaled", "conv1.weight", "conv1.bias"], ["c1"],
                         name="conv1", kernel_shape=[9, 9], pads=[4, 4, 4, 4]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "conv2.weight", "conv2.bias"], ["c2"],
                         name="conv2", kernel_shape=[1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["r2", "conv3.weight", "conv3.bias"], ["output"],
                         name="conv3", kernel_shape=[5, 5], pads=[2, 2, 2, 2]),
    ]
    inits = [
        helper.make_tensor("roi", TensorProto.FLOAT, [0], []),
        helper.make_tensor("scales", TensorProto.FLOAT, [4], [1.0, 1.0, 3.0, 3.0]),
        weights("conv1.weight", [8, 1, 9, 9], 11),
        weights("conv1.bias", [8], 12),
        weights("conv2.weight", [4, 8, 1, 1], 13),
        weights("conv2.bias", [4], 14),
        weights("conv3.weight", [1, 4, 5, 5], 15),
        weights("conv3.bias", [1], 16),
    ]
    graph = helper.make_graph(nodes, "srcnn",
                              [fvi("input", [1, 1, 16, 16])],
                              [fvi("output", [1, 1, 48, 48])],
                              initializer=inits)
    return model(graph, doc_string="Super-resolution example (SRCNN-like).")


def resize_constant():
    """Resize whose scales come from a Constant node, as newer exporters emit."""
    scales = helper.make_tensor("scales_value", TensorProto.FLOAT, [4], [1.0, 1.0, 2.0, 2.0])
    nodes = [
        helper.make_node("Constant", [], ["scales"], name="scales_const", value=scales),
        helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize0",
                         mode="nearest"),
    ]
    graph = helper.make_graph(nodes, "resize_constant",
                              [fvi("x", [1, 1, 4, 4])], [fvi("y", [1, 1, 8, 8])])
    return model(graph)


def dynamic():
    """Symbolic (dim_param) and unknown dimensions."""
    nodes = [
        helper.make_node("Identity", ["x"], ["t"], name="ident0"),
        helper.make_node("Add", ["t", "bias"], ["y"], name="add0"),
    ]
    graph = helper.make_graph(
        nodes, "dynamic",
        [fvi("x", ["batch", 3, "h", "w"])],
        # None yields a dimension with neither dim_value nor dim_param.
        [fvi("y", ["batch", 3, "h", None])],
        initializer=[helper.make_tensor("bias", TensorProto.FLOAT, [], [0.5])])
    return model(graph)


def alltypes():
    """One initializer per onnx 1.12 data type, in both raw and typed storage."""
    T = TensorProto
    inits = [
        # Typed fields.
        helper.make_tensor("t_float", T.FLOAT, [2, 3],
                           [0.5, -1.25, 3.0, 1e-3, float("inf"), float("nan")]),
        helper.make_tensor("t_int8", T.INT8, [4], [-128, -1, 0, 127]),
        helper.make_tensor("t_int16", T.INT16, [3], [-32768, 7, 32767]),
        helper.make_tensor("t_int64", T.INT64, [3], [-(2 ** 63), 0, 2 ** 63 - 1]),
        helper.make_tensor("t_string", T.STRING, [4],
                           [b"hello", b"", "caf\u00e9".encode(), b"line\nbreak\xff"]),
        helper.make_tensor("t_bool", T.BOOL, [4], [True, False, False, True]),
        helper.make_tensor("t_double", T.DOUBLE, [2], [3.141592653589793, -2.5e-300]),
        helper.make_tensor("t_uint32", T.UINT32, [3], [0, 1, 2 ** 32 - 1]),
        helper.make_tensor("t_uint64", T.UINT64, [2], [0, 2 ** 64 - 1]),
        helper.make_tensor("t_complex64", T.COMPLEX64, [2], [1 + 2j, -0.5 - 0.25j]),
        helper.make_tensor("t_bfloat16", T.BFLOAT16, [3], [1.0, -2.0, 0.5]),
        # raw_data.
        raw_tensor("t_uint8", T.UINT8, [4], np.uint8, [0, 1, 128, 255]),
        raw_tensor("t_uint16", T.UINT16, [3], np.uint16, [0, 1000, 65535]),
        raw_tensor("t_int32", T.INT32, [2, 2], np.int32, [-(2 ** 31), -1, 1, 2 ** 31 - 1]),
        raw_tensor("t_float16", T.FLOAT16, [4], np.float16, [1.0, -2.0, 65504.0, float("inf")]),
        raw_tensor("t_complex128", T.COMPLEX128, [2], np.complex128, [1.5 - 1j, 0j]),
        raw_tensor("t_float_raw", T.FLOAT, [2, 2], np.float32, [1.0, 2.0, 3.0, 4.0]),
        # A scalar (0-d) and an empty tensor.
        raw_tensor("t_scalar", T.FLOAT, [], np.float32, [42.0]),
        helper.make_tensor("t_empty", T.FLOAT, [2, 0], []),
    ]
    nodes = [helper.make_node("Add", ["x", "t_float"], ["y"], name="add0")]
    outputs = [fvi("y", [2, 3])]
    # Route a few initializers straight to graph outputs.
    for name, elem, shape in [("t_int64", T.INT64, [3]),
                              ("t_string", T.STRING, [4]),
                              ("t_float16", T.FLOAT16, [4]),
                              ("t_bool", T.BOOL, [4]),
                              ("t_scalar", T.FLOAT, []),
                              ("t_empty", T.FLOAT, [2, 0])]:
        out = "out_" + name[2:]
        nodes.append(helper.make_node("Identity", [name], [out], name="id_" + name[2:]))
        outputs.append(fvi(out, shape, elem))
    graph = helper.make_graph(nodes, "alltypes", [fvi("x", [2, 3])], outputs,
                              initializer=inits)
    return model(graph)


def newtypes():
    """Initializers of data types 17..23, unknown to onnx 1.12, in raw_data."""
    specs = [
        # name, data_type, raw_data bytes (all tensors have shape [5])
        ("t_float8e4m3fn", 17, [0x00, 0x38, 0xB8, 0x7E, 0x01]),
        ("t_float8e4m3fnuz", 18, [0x00, 0x40, 0xC0, 0x7F, 0x80]),
        ("t_float8e5m2", 19, [0x00, 0x3C, 0xBC, 0x7B, 0x7C]),
        ("t_float8e5m2fnuz", 20, [0x00, 0x40, 0xC0, 0x7F, 0x80]),
        # 4-bit types: five elements packed two per byte, low nibble first.
        ("t_uint4", 21, [0x10, 0x32, 0x0F]),
        ("t_int4", 22, [0x8F, 0x71, 0x00]),
        ("t_float4e2m1", 23, [0x21, 0xA9, 0x07]),
    ]
    inits = []
    for name, dtype, payload in specs:
        t = TensorProto()  # data_type is a plain int32 field, so 17..23 are accepted
        t.name = name
        t.data_type = dtype
        t.dims.append(5)
        t.raw_data = bytes(payload)
        inits.append(t)
    nodes = [helper.make_node("Identity", ["x"], ["y"], name="id0")]
    graph = helper.make_graph(nodes, "newtypes", [fvi("x", [1])], [fvi("y", [1])],
                              initializer=inits)
    return model(graph)


def sparse():
    """Sparse initializers (linear and coordinate indices) used by Add nodes."""
    values1 = helper.make_tensor("sp_linear", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
    indices1 = helper.make_tensor("sp_linear_indices", TensorProto.INT64, [3], [0, 4, 5])
    values2 = helper.make_tensor("sp_coo", TensorProto.FLOAT, [2], [-1.0, -2.0])
    indices2 = helper.make_tensor("sp_coo_indices", TensorProto.INT64, [2, 2], [0, 1, 1, 2])
    sp1 = helper.make_sparse_tensor(values1, indices1, [2, 3])
    sp2 = helper.make_sparse_tensor(values2, indices2, [2, 3])
    nodes = [
        helper.make_node("Add", ["x", "sp_linear"], ["t"], name="add0"),
        helper.make_node("Add", ["t", "sp_coo"], ["y"], name="add1"),
    ]
    graph = helper.make_graph(nodes, "sparse", [fvi("x", [2, 3])], [fvi("y", [2, 3])],
                              sparse_initializer=[sp1, sp2])
    return model(graph)


def function():
    """A model-local function custom.fn::MyRelu6 (Clip 0..6) called from the graph."""
    fn = helper.make_function(
        "custom.fn", "MyRelu6", ["X"], ["Y"],
        [
            helper.make_node("Constant", [], ["lo"],
                             value=helper.make_tensor("lo_v", TensorProto.FLOAT, [], [0.0])),
            helper.make_node("Constant", [], ["hi"],
                             value=helper.make_tensor("hi_v", TensorProto.FLOAT, [], [6.0])),
            helper.make_node("Clip", ["X", "lo", "hi"], ["Y"]),
        ],
        [helper.make_opsetid("", OPSET)],
        doc_string="Relu6 as Clip(X, 0, 6)")
    nodes = [
        helper.make_node("MyRelu6", ["x"], ["t"], name="relu6_0", domain="custom.fn"),
        helper.make_node("Neg", ["t"], ["y"], name="neg0"),
    ]
    graph = helper.make_graph(nodes, "function", [fvi("x", [4])], [fvi("y", [4])])
    return model(graph,
                 opsets=[helper.make_opsetid("", OPSET), helper.make_opsetid("custom.fn", 1)],
                 functions=[fn])


def if_subgraph():
    """An If whose branches read outer-scope values, and a Loop with a body graph."""
    then_g = helper.make_graph(
        [helper.make_node("Identity", ["outer"], ["then_out"], name="then_id")],
        "then_branch", [], [fvi("then_out", [2])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["else_out"], name="else_neg")],
        "else_branch", [], [fvi("else_out", [2])])
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
            helper.make_node("Add", ["v_in", "x"], ["v_out"], name="body_add"),
            helper.make_node("Identity", ["v_out"], ["scan_out"], name="body_scan"),
        ],
        "loop_body",
        [fvi("iter", [], TensorProto.INT64), fvi("cond_in", [], TensorProto.BOOL),
         fvi("v_in", [2])],
        [fvi("cond_out", [], TensorProto.BOOL), fvi("v_out", [2]), fvi("scan_out", [2])])
    nodes = [
        helper.make_node("Add", ["x", "one"], ["outer"], name="add0"),
        helper.make_node("If", ["cond"], ["y"], name="if0",
                         then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["trip_count", "loop_cond", "y"], ["v_final", "scans"],
                         name="loop0", body=body),
    ]
    graph = helper.make_graph(
        nodes, "if_subgraph",
        [fvi("cond", [], TensorProto.BOOL), fvi("x", [2])],
        [fvi("v_final", [2]), fvi("scans", [3, 2])],
        initializer=[
            helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
            helper.make_tensor("trip_count", TensorProto.INT64, [], [3]),
            helper.make_tensor("loop_cond", TensorProto.BOOL, [], [True]),
        ],
        value_info=[fvi("outer", [2]), fvi("y", [2])])
    return model(graph)


def custom_domain():
    """Ops from non-standard domains: a custom DeformConv2d and an ATen fallback."""
    nodes = [
        helper.make_node("DeformConv2d", ["x", "offset", "weight"], ["d"],
                         name="deform0", domain="custom",
                         stride=[1, 1], padding=[1, 1], dilation=[1, 1],
                         groups=1, offset_groups=1),
        helper.make_node("ATen", ["d", "output_size"], ["y"], name="aten0",
                         domain="org.pytorch.aten", operator="adaptive_avg_pool2d"),
    ]
    graph = helper.make_graph(
        nodes, "custom_domain",
        [fvi("x", [1, 3, 8, 8]), fvi("offset", [1, 18, 8, 8])],
        [fvi("y", [1, 4, 1, 1])],
        initializer=[weights("weight", [4, 3, 3, 3], 21),
                     helper.make_tensor("output_size", TensorProto.INT64, [2], [1, 1])])
    return model(graph, opsets=[helper.make_opsetid("", OPSET),
                                helper.make_opsetid("custom", 1),
                                helper.make_opsetid("org.pytorch.aten", 1)])


def dangling():
    """A node input that names no graph input, initializer or node output."""
    nodes = [
        helper.make_node("Relu", ["x"], ["t"], name="relu0"),
        helper.make_node("Add", ["t", "does_not_exist"], ["y"], name="add0"),
    ]
    graph = helper.make_graph(nodes, "dangling", [fvi("x", [4])], [fvi("y", [4])])
    return model(graph)


def unsorted():
    """Nodes stored in reverse topological order."""
    nodes = [
        helper.make_node("Neg", ["b"], ["y"], name="neg2"),
        helper.make_node("Relu", ["a"], ["b"], name="relu1"),
        helper.make_node("Add", ["x", "x"], ["a"], name="add0"),
    ]
    graph = helper.make_graph(nodes, "unsorted", [fvi("x", [4])], [fvi("y", [4])])
    return model(graph)


def external(outdir):
    """A Conv whose weight and bias live in external/weights.bin at set offsets."""
    w = (rng(31).standard_normal([4, 3, 3, 3]) * 0.1).astype("<f4").tobytes()
    b = (rng(32).standard_normal([4]) * 0.1).astype("<f4").tobytes()
    b_offset = 512  # leave a gap after W (432 bytes) so offsets matter
    blob = w + bytes(b_offset - len(w)) + b
    inits = [
        external_tensor("W", TensorProto.FLOAT, [4, 3, 3, 3], "weights.bin", 0, len(w)),
        external_tensor("B", TensorProto.FLOAT, [4], "weights.bin", b_offset, len(b)),
    ]
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["y"], name="conv0",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    graph = helper.make_graph(nodes, "external", [fvi("x", [1, 3, 8, 8])],
                              [fvi("y", [1, 4, 8, 8])], initializer=inits)
    write_model(outdir, "external/model.onnx", model(graph))
    write_bytes(outdir, "external/weights.bin", blob)


# --------------------------------------------------------------------------
# Hostile models
# --------------------------------------------------------------------------

def identity_of(init, out_shape, elem=TensorProto.FLOAT, inputs=()):
    """A model that just outputs one (possibly broken) initializer."""
    graph = helper.make_graph(
        [helper.make_node("Identity", [init.name], ["y"], name="id0")],
        "hostile", list(inputs), [fvi("y", out_shape, elem)], initializer=[init])
    return model(graph)


def bad_deep_nesting(depth=200):
    """If nodes nested `depth` levels via then_branch, written as wire bytes.

    Python protobuf refuses to build or parse messages nested this deeply,
    so each level is encoded by hand around helper-built leaf pieces.
    """
    def else_attr(level):
        leaf = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["e%d" % level], name="else%d" % level)],
            "else%d" % level, [], [fvi("e%d" % level, [1])])
        return ser(helper.make_attribute("else_branch", leaf))

    # Innermost then_branch: a plain Identity.
    g = ser(helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y%d" % depth], name="leaf")],
        "then%d" % depth, [], [fvi("y%d" % depth, [1])]))
    # Wrap outward: graph `level` holds If node `level`, whose then_branch is
    # graph level+1.  Field numbers follow onnx.proto.
    for level in range(depth - 1, -1, -1):
        then_attr = (field_bytes(1, "then_branch")          # AttributeProto.name
                     + field_bytes(6, g)                    # AttributeProto.g
                     + field_varint(20, 5))                 # AttributeProto.type = GRAPH
        node = (field_bytes(1, "cond")                      # NodeProto.input
                + field_bytes(2, "y%d" % level)             # NodeProto.output
                + field_bytes(3, "if%d" % level)            # NodeProto.name
                + field_bytes(4, "If")                      # NodeProto.op_type
                + field_bytes(5, then_attr)                 # NodeProto.attribute
                + field_bytes(5, else_attr(level)))
        g = field_bytes(1, node) + field_bytes(2, "then%d" % level)  # GraphProto.node, name
        if level == 0:
            g += (field_bytes(11, ser(fvi("cond", [], TensorProto.BOOL)))  # GraphProto.input
                  + field_bytes(11, ser(fvi("x", [1]))))
        g += field_bytes(12, ser(fvi("y%d" % level, [1])))  # GraphProto.output
    return (field_varint(1, onnx.IR_VERSION)                # ModelProto.ir_version
            + field_bytes(2, PRODUCER)                      # ModelProto.producer_name
            + field_bytes(7, g)                             # ModelProto.graph
            + field_bytes(8, ser(helper.make_opsetid("", OPSET))))  # ModelProto.opset_import


def hostile(outdir, conv_relu_bytes):
    # Not a model at all.
    write_bytes(outdir, "bad-empty.onnx", b"")
    write_bytes(outdir, "bad-random.onnx", random.Random(1).randbytes(4096))
    write_bytes(outdir, "bad-truncated.onnx", conv_relu_bytes[:len(conv_relu_bytes) // 2])

    # A ModelProto with ir_version and opset but no graph.
    m = onnx.ModelProto()
    m.ir_version = onnx.IR_VERSION
    m.producer_name = PRODUCER
    m.opset_import.append(helper.make_opsetid("", OPSET))
    write_model(outdir, "bad-no-graph.onnx", m)

    # Inconsistent tensor shapes and payloads.
    t = raw_tensor("w", TensorProto.FLOAT, [4], np.float32, [1, 2, 3, 4])
    del t.dims[:]
    t.dims.extend([-1, 4])
    write_model(outdir, "bad-negative-dim.onnx", identity_of(t, [4]))

    t = raw_tensor("w", TensorProto.FLOAT, [1], np.float32, [1.0])
    del t.dims[:]
    t.dims.extend([2 ** 40, 2 ** 40])  # element count overflows 64-bit byte sizes
    write_model(outdir, "bad-overflow-dims.onnx", identity_of(t, [2 ** 40, 2 ** 40]))

    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3], raw_data=bytes(20))
    write_model(outdir, "bad-rawdata-size.onnx", identity_of(t, [2, 3]))

    # ModelProto.graph (field 7, length-delimited) claiming 3 GB, then 4 bytes.
    write_bytes(outdir, "bad-huge-length.onnx",
                field_varint(1, onnx.IR_VERSION) + key(7, WT_LEN) + varint(3 * 10 ** 9)
                + b"\x0a\x02ab")

    write_bytes(outdir, "bad-deep-nesting.onnx", bad_deep_nesting())

    # External data escaping the model directory or running past its file.
    t = external_tensor("w", TensorProto.FLOAT, [4], "/etc/passwd", 0, 16)
    write_model(outdir, "bad-ext-abs.onnx", identity_of(t, [4]))

    t = external_tensor("w", TensorProto.FLOAT, [4], "../weights.bin", 0, 16)
    write_model(outdir, "bad-ext-dotdot.onnx", identity_of(t, [4]))

    t = external_tensor("w", TensorProto.FLOAT, [2], "w.bin", 0, 8)
    write_model(outdir, "bad-ext-symlink/model.onnx", identity_of(t, [2]))
    link = os.path.join(outdir, "bad-ext-symlink", "w.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink("/etc/hostname", link)

    write_bytes(outdir, "weights-small.bin", bytes(range(16)))
    t = external_tensor("w", TensorProto.FLOAT, [16], "weights-small.bin", 8, 64)
    write_model(outdir, "bad-ext-pastend.onnx", identity_of(t, [16]))

    # A graph input with a negative dim_value.
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                              "bad_neg_valueinfo", [fvi("x", [-3])], [fvi("y", [3])])
    write_model(outdir, "bad-neg-valueinfo.onnx", model(graph))

    # Deprecated group wire type (3/4) where ModelProto.graph should be.
    write_bytes(outdir, "bad-group.onnx",
                field_varint(1, onnx.IR_VERSION)
                + key(7, WT_SGROUP) + field_bytes(2, "g") + key(7, WT_EGROUP)
                + field_bytes(8, ser(helper.make_opsetid("", OPSET))))


# --------------------------------------------------------------------------

def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen-models.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)

    valid = {
        "conv-relu.onnx": conv_relu,
        "srcnn.onnx": srcnn,
        "resize-constant.onnx": resize_constant,
        "dynamic.onnx": dynamic,
        "alltypes.onnx": alltypes,
        "newtypes.onnx": newtypes,
        "sparse.onnx": sparse,
        "function.onnx": function,
        "if-subgraph.onnx": if_subgraph,
        "custom-domain.onnx": custom_domain,
        "dangling.onnx": dangling,
        "unsorted.onnx": unsorted,
    }
    for name, build in valid.items():
        write_model(outdir, name, build())
    external(outdir)

    with open(os.path.join(outdir, "conv-relu.onnx"), "rb") as f:
        hostile(outdir, f.read())


if __name__ == "__main__":
    main()
