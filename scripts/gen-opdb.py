#!/usr/bin/env python3
"""Writes onnxview's operator database (share/onnxview/opdb.txt) from the schemas of an installed onnx package.

Usage: python3 scripts/gen-opdb.py OUT

Use the newest onnx available: Debian's python3-onnx knows fewer opsets than PyPI's, e.g.
    python3 -m venv /tmp/opdb-venv && /tmp/opdb-venv/bin/pip install onnx
    /tmp/opdb-venv/bin/python scripts/gen-opdb.py share/onnxview/opdb.txt

The format is line oriented, one record per line, fields separated by one space (src/graph/opdb.h describes it and
src/graph/opdb.c parses it). Only facts are taken from the schemas (names, versions, arities, types, defaults),
no documentation text. The output is sorted, so the same onnx version always gives the same bytes.
"""

import math
import os
import struct
import sys

import onnx
import onnx.defs

FORMAT_VERSION = 1

# The domains kept, in the order written. "" (the default domain) is written as ai.onnx.
DOMAINS = ["", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"]

OPTION_NAMES = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}

# AttributeProto.AttributeType numbers, by name.
ATTR_TYPES = {
    "FLOAT": 1, "INT": 2, "STRING": 3, "TENSOR": 4, "GRAPH": 5, "FLOATS": 6, "INTS": 7, "STRINGS": 8,
    "TENSORS": 9, "GRAPHS": 10, "SPARSE_TENSOR": 11, "SPARSE_TENSORS": 12, "TYPE_PROTO": 13, "TYPE_PROTOS": 14,
}


def domain_name(domain):
    return domain or "ai.onnx"


def word(s, what):
    """A field that must be one non-empty word of printable ASCII."""
    if not s or any(c.isspace() or not (" " < c < "\x7f") for c in s):
        raise SystemExit("gen-opdb: %s %r is not one printable word" % (what, s))
    return s


def type_word(s, what):
    # Map types are spelled "map(int64, float)"; the space carries nothing.
    return word(s.replace(" ", ""), what)


def quote(b):
    """A string as C would write it: double quotes, backslash escapes, \\xNN for other bytes."""
    if isinstance(b, str):
        b = b.encode("utf-8")
    out = ['"']
    for c in b:
        if c == 0x22:
            out.append('\\"')
        elif c == 0x5C:
            out.append("\\\\")
        elif c == 0x0A:
            out.append("\\n")
        elif c == 0x09:
            out.append("\\t")
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    out.append('"')
    return "".join(out)


def float32_text(v):
    """The shortest decimal text that reads back as the same float32 (attribute floats are float32)."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    want = struct.pack("<f", v)
    for p in range(1, 10):
        t = "%.*g" % (p, v)
        try:
            if struct.pack("<f", float(t)) == want:
                return t
        except OverflowError:  # rounded up past FLT_MAX
            pass
    return "%.9g" % v


def int_text(v):
    return str(int(v))


def default_text(a, schema):
    """The attribute's default as text, or "-" when it has none."""
    dv = a.default_value
    if not dv.type and not dv.name:
        return "-"
    t = onnx.AttributeProto.AttributeType.Name(dv.type) if dv.type else attr_type_name(a)
    if t == "INT":
        return int_text(dv.i)
    if t == "FLOAT":
        return float32_text(dv.f)
    if t == "STRING":
        return quote(dv.s)
    if t == "INTS":
        return "[" + ", ".join(int_text(x) for x in dv.ints) + "]"
    if t == "FLOATS":
        return "[" + ", ".join(float32_text(x) for x in dv.floats) + "]"
    if t == "STRINGS":
        return "[" + ", ".join(quote(x) for x in dv.strings) + "]"
    raise SystemExit("gen-opdb: %s-%d attribute %s: a default of type %s cannot be written"
                     % (schema.name, schema.since_version, a.name, t))


def attr_type_name(a):
    name = str(a.type).split(".")[-1]
    if name not in ATTR_TYPES:
        raise SystemExit("gen-opdb: unknown attribute type %s" % a.type)
    return name


def formal_lines(kind, formals, schema):
    lines = []
    for i, f in enumerate(formals):
        option = OPTION_NAMES.get(str(f.option).split(".")[-1])
        if option is None:
            raise SystemExit("gen-opdb: %s: unknown formal parameter option %s" % (schema.name, f.option))
        # onnx before 1.13 spells these typeStr and isHomogeneous, and has no min_arity.
        type_str = f.type_str if hasattr(f, "type_str") else f.typeStr
        homogeneous = getattr(f, "is_homogeneous", getattr(f, "isHomogeneous", True))
        min_arity = int(getattr(f, "min_arity", 1))
        lines.append("%s %d %s %s %s %d %d" % (kind, i, word(f.name, "formal parameter name"), option,
                                               type_word(type_str, "type"), 1 if homogeneous else 0, min_arity))
    return lines


def schema_lines(s):
    lines = ["op %s %s %d %d %d %d %d %d" % (
        domain_name(s.domain), word(s.name, "op name"), s.since_version, 1 if s.deprecated else 0,
        s.min_input, s.max_input, s.min_output, s.max_output)]
    lines += formal_lines("in", s.inputs, s)
    lines += formal_lines("out", s.outputs, s)
    for name in sorted(s.attributes):
        a = s.attributes[name]
        lines.append("attr %s %s %d %s" % (word(name, "attribute name"), attr_type_name(a),
                                           1 if a.required else 0, default_text(a, s)))
    for tc in s.type_constraints:
        # The schema's own order (the ONNX sources group the types sensibly) is already deterministic.
        allowed = [type_word(t, "type") for t in tc.allowed_type_strs]
        lines.append(("tc %s %s" % (word(tc.type_param_str, "type parameter"), " ".join(allowed))).rstrip())
    return lines


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen-opdb.py OUT\n")
        return 2
    out_path = sys.argv[1]
    schemas = [s for s in onnx.defs.get_all_schemas_with_history() if s.domain in DOMAINS]
    schemas.sort(key=lambda s: (DOMAINS.index(s.domain), s.name, s.since_version))
    ranges = onnx.defs.C.schema_version_map()

    lines = ["onnxview-opdb %d" % FORMAT_VERSION,
             "# The ONNX operator schemas, written by scripts/gen-opdb.py; regenerate rather than edit.",
             "onnx %s" % word(onnx.__version__, "onnx version")]
    for d in DOMAINS:
        if d not in ranges:
            continue
        lo, hi = ranges[d]
        top = max([s.since_version for s in schemas if s.domain == d], default=0)
        lines.append("domain %s %d %d" % (domain_name(d), lo, max(hi, top)))
    for s in schemas:
        lines += schema_lines(s)
    lines.append("end %d" % len(schemas))

    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, out_path)
    counts = {}
    for s in schemas:
        counts.setdefault(domain_name(s.domain), set()).add(s.name)
    for d, names in counts.items():
        n = sum(1 for s in schemas if domain_name(s.domain) == d)
        sys.stderr.write("gen-opdb: %s: %d operators, %d schema versions\n" % (d, len(names), n))
    sys.stderr.write("gen-opdb: wrote %s from onnx %s\n" % (out_path, onnx.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
