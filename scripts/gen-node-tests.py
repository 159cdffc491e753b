#!/usr/bin/env python3
"""Write the ONNX node test cases of the installed onnx package in the backend test layout.

Usage: gen-node-tests.py OUTDIR

onnx ships its node tests as code (onnx.backend.test.case.node: each op's examples call expect(), which records
a model and its inputs and outputs).  This writes each case as OUTDIR/node/NAME/model.onnx with
test_data_set_0/input_N.pb and output_N.pb, the layout of onnx's own generated data (and of Debian's
libonnx-testdata), so tests/conformance.sh runs both suites the same way.  Sequences, maps and optionals are
written as onnx's SequenceProto/MapProto/OptionalProto, as onnx's own generator does.  OUTDIR/onnx-version holds
the version that made the files; the script writes to OUTDIR.tmp and renames, so a half-written folder is never
taken for a finished one.
"""
import os
import shutil
import sys

import onnx
from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node as node_cases


def serialize(value, vi):
    t = vi.type
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, vi.name).SerializeToString()
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, vi.name).SerializeToString()
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, vi.name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(value, vi.name).SerializeToString()


def main():
    if len(sys.argv) != 2:
        print("usage: gen-node-tests.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1].rstrip("/")
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "node"))
    n = 0
    for case in node_cases.collect_testcases():
        if case.kind != "node" or case.model is None:
            continue
        d = os.path.join(tmp, "node", case.name)
        os.makedirs(d)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        g = case.model.graph
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(d, "test_data_set_%d" % i)
            os.makedirs(ds)
            for j, v in enumerate(inputs):
                with open(os.path.join(ds, "input_%d.pb" % j), "wb") as f:
                    f.write(serialize(v, g.input[j]))
            for j, v in enumerate(outputs):
                with open(os.path.join(ds, "output_%d.pb" % j), "wb") as f:
                    f.write(serialize(v, g.output[j]))
        n += 1
    with open(os.path.join(tmp, "onnx-version"), "w") as f:
        f.write(onnx.__version__ + "\n")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print("gen-node-tests: %d node tests from onnx %s in %s" % (n, onnx.__version__, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
