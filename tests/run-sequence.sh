#!/bin/sh
# Sequences and optionals in the executor, from the command line: SplitToSequence, ConcatFromSequence,
# SequenceLength/Empty/Construct, SequenceAt/Insert/Erase with negative and out-of-range positions, Optional*,
# Identity and SequenceMap; `run` printing them (text and --json), --save writing NAME.0.npy..., --expect comparing
# item by item; SequenceProto/OptionalProto files that are malformed (truncated, wrong elem_type, huge lengths) each
# refused with one line.  The models and files are protobuf encoded by hand (Python's standard library only).
. "$(dirname "$0")/lib.sh"

[ "$PYTHON" != none ] && "$PYTHON" -c 'import struct' >/dev/null 2>&1 ||
	skip_all "python3 is needed to make the test models"
scratch
cd "$TMP" || exit 1

"$PYTHON" - <<'EOF' || { echo "1..0 # SKIP could not make the test models"; exit 0; }
# Test models and data for tests/run-sequence.sh, written with the standard library alone: the protobuf messages
# (ModelProto, TensorProto, SequenceProto, OptionalProto) are encoded by hand, so no onnx or numpy is needed.
import struct

def varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
def key(f, w): return varint(f << 3 | w)
def vi(f, n): return key(f, 0) + varint(n)
def ld(f, b):
    if isinstance(b, str): b = b.encode()
    return key(f, 2) + varint(len(b)) + b

FLOAT, INT64 = 1, 7
def tensor(dt, dims, vals, name=""):
    raw = struct.pack("<%d%s" % (len(vals), "f" if dt == FLOAT else "q"), *vals)
    return b"".join(vi(1, d) for d in dims) + vi(2, dt) + (ld(8, name) if name else b"") + ld(9, raw)
def seq(tensors, name="", elem=1):
    return (ld(1, name) if name else b"") + vi(2, elem) + b"".join(ld(3, t) for t in tensors)
def opt(t=None, s=None, name=""):
    return (ld(1, name) if name else b"") + vi(2, 1 if t is not None else 3 if s is not None else 1) + \
        (ld(3, t) if t is not None else b"") + (ld(5, s) if s is not None else b"")

def ttype(dt, dims=None):
    shape = b"" if dims is None else ld(2, b"".join(ld(1, vi(1, d) if d is not None else ld(2, "n")) for d in dims))
    return ld(1, vi(1, dt) + shape)
def seqtype(dt): return ld(4, ld(1, ttype(dt)))
def opttype(inner): return ld(9, ld(1, inner))
def value(name, tp): return ld(1, name) + ld(2, tp)
def attr_i(name, v): return ld(1, name) + vi(20, 2) + vi(3, v)
def attr_tp(name, tp): return ld(1, name) + vi(20, 14) + ld(14, tp)
def attr_g(name, g): return ld(1, name) + vi(20, 5) + ld(6, g)
def node(op, ins, outs, attrs=()):
    return b"".join(ld(1, i) for i in ins) + b"".join(ld(2, o) for o in outs) + ld(4, op) + \
        b"".join(ld(5, a) for a in attrs)
def graph(name, nodes, inputs, outputs, inits=()):
    return b"".join(ld(1, n) for n in nodes) + ld(2, name) + b"".join(ld(5, t) for t in inits) + \
        b"".join(ld(11, i) for i in inputs) + b"".join(ld(12, o) for o in outputs)
def model(path, g, opset=18):
    open(path, "wb").write(vi(1, 8) + ld(2, "run-sequence") + ld(7, g) + ld(8, vi(2, opset)))
def pb(path, b): open(path, "wb").write(b)

F = lambda dims: ttype(FLOAT, dims)
model("seqops.onnx", graph("seqops", [
    node("SplitToSequence", ["x", "two"], ["pieces"], [attr_i("axis", 0)]),
    node("SplitToSequence", ["x"], ["cols"], [attr_i("axis", 1), attr_i("keepdims", 0)]),
    node("ConcatFromSequence", ["pieces"], ["back"], [attr_i("axis", 0)]),
    node("ConcatFromSequence", ["cols"], ["stacked"], [attr_i("axis", -1), attr_i("new_axis", 1)]),
    node("SequenceLength", ["pieces"], ["n"]),
    node("SequenceEmpty", [], ["empty"], [attr_i("dtype", INT64)]),
    node("SequenceConstruct", ["x", "x"], ["pair"]),
], [value("x", F([5, 2]))],
   [value("pieces", seqtype(FLOAT)), value("cols", seqtype(FLOAT)), value("back", F([5, 2])),
    value("stacked", F([5, 2])), value("n", ttype(INT64, [])), value("empty", seqtype(INT64)),
    value("pair", seqtype(FLOAT))],
   [tensor(INT64, [], [2], "two")]))
model("pos.onnx", graph("pos", [
    node("SequenceAt", ["s", "p"], ["at"]),
    node("SequenceInsert", ["s", "t", "p"], ["ins"]),
    node("SequenceInsert", ["s", "t"], ["ins_end"]),
    node("SequenceErase", ["s", "p"], ["er"]),
    node("SequenceErase", ["s"], ["er_last"]),
], [value("s", seqtype(FLOAT)), value("p", ttype(INT64, [])), value("t", F([2]))],
   [value("at", F([2])), value("ins", seqtype(FLOAT)), value("ins_end", seqtype(FLOAT)), value("er", seqtype(FLOAT)),
    value("er_last", seqtype(FLOAT))]))
model("opt.onnx", graph("opt", [
    node("OptionalHasElement", ["o"], ["h"]),
    node("OptionalGetElement", ["o"], ["g"]),
    node("Optional", [], ["none"], [attr_tp("type", F(None))]),
    node("Identity", ["o"], ["same"]),
], [value("o", opttype(F([2])))],
   [value("h", ttype(9, [])), value("g", F([2])), value("none", opttype(F(None))), value("same", opttype(F([2])))]))
model("relu.onnx", graph("relu", [node("Relu", ["s"], ["y"])], [value("s", seqtype(FLOAT))], [value("y", F(None))]))
# SequenceMap: each item plus a tensor
body = graph("body", [node("Add", ["a", "b"], ["c"])], [value("a", F(None)), value("b", F([2]))], [value("c", F(None))])
model("map.onnx", graph("map", [node("SequenceMap", ["s", "t"], ["m"], [attr_g("body", body)])],
                        [value("s", seqtype(FLOAT)), value("t", F([2]))], [value("m", seqtype(FLOAT))]))

pb("x.pb", tensor(FLOAT, [5, 2], list(range(10))))
s3 = [tensor(FLOAT, [2], [1, 2]), tensor(FLOAT, [2], [3, 4]), tensor(FLOAT, [2], [5, 6])]
pb("s3.pb", seq(s3, "s"))
pb("t.pb", tensor(FLOAT, [2], [9, 9]))
for name, v in (("p0", 0), ("pm1", -1), ("p2", 2), ("p3", 3), ("pm3", -3), ("pm4", -4)):
    pb(name + ".pb", tensor(INT64, [], [v]))
pb("pieces.pb", seq([tensor(FLOAT, [2, 2], [0, 1, 2, 3]), tensor(FLOAT, [2, 2], [4, 5, 6, 7]),
                     tensor(FLOAT, [1, 2], [8, 9])]))
pb("pieces_bad.pb", seq([tensor(FLOAT, [2, 2], [0, 1, 2, 3]), tensor(FLOAT, [2, 2], [4, 5, 6.5, 7]),
                         tensor(FLOAT, [1, 2], [8, 9])]))
pb("pieces_short.pb", seq([tensor(FLOAT, [2, 2], [0, 1, 2, 3]), tensor(FLOAT, [2, 2], [4, 5, 6, 7])]))
pb("ins_m1.pb", seq(s3[:2] + [tensor(FLOAT, [2], [9, 9])] + s3[2:]))
pb("er_m1.pb", seq(s3[:2]))
pb("empty_seq.pb", seq([]))
pb("opt_empty.pb", opt(name="o"))
pb("opt_full.pb", opt(t=tensor(FLOAT, [2], [1, 2]), name="o"))
pb("s3_opt.pb", opt(s=seq(s3)))
pb("m_want.pb", seq([tensor(FLOAT, [2], [10, 11]), tensor(FLOAT, [2], [12, 13]), tensor(FLOAT, [2], [14, 15])]))
# malformed files
whole = seq(s3, "s")
pb("trunc.pb", whole[:len(whole) // 2])
pb("map_elem.pb", seq([], elem=4))
pb("huge_len.pb", vi(2, 1) + key(3, 2) + varint(1 << 40) + b"\0" * 8)
pb("huge_dims.pb", seq([vi(1, 1 << 40) + vi(2, FLOAT)]))
pb("mixed.pb", seq([tensor(FLOAT, [1], [1]), tensor(INT64, [1], [1])]))
pb("bad_wire.pb", vi(2, 1) + bytes([0x1f]))
EOF

r() { "$ONNXVIEW" run "$@" >out.txt 2>err.txt; echo $? >rc.txt; }
rc_is() { [ "$(cat rc.txt)" = "$1" ]; }
one_line() { [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "$1" err.txt; }

# printing, --save, --expect
r seqops.onnx --input x=x.pb --expect pieces=pieces.pb --expect back=x.pb --expect stacked=x.pb --save saved
check "SplitToSequence, ConcatFromSequence and friends run and match" rc_is 0
check "a sequence prints its length" grep -q "^output 'pieces' seq(float32)\[3\]$" out.txt
check "each tensor of a sequence on its own line with its stats" \
	grep -q "^  \[2\] float32\[1,2\]  min 8 max 9 mean 8.5 std 0.5  saved pieces.2.npy$" out.txt
check "SplitToSequence with a scalar split: the last chunk is smaller, compared item by item" \
	grep -q "PASS against pieces.pb: 3 tensors match" out.txt
check "SplitToSequence keepdims 0 drops the axis" grep -q "^  \[1\] float32\[5\]  min 1 max 9" out.txt
check "ConcatFromSequence (axis 0, and new_axis 1 with axis -1) gives x back" grep -q "PASS: 3 of 3" out.txt
check "SequenceLength" grep -q "^output 'n' int64\[\]  min 3 max 3" out.txt
check "SequenceEmpty keeps its dtype" grep -q "^output 'empty' seq(int64)\[0\]$" out.txt
check "--save writes a sequence's tensors as NAME.0.npy, NAME.1.npy..." \
	eval '[ -f saved/pieces.0.npy ] && [ -f saved/pieces.2.npy ] && [ ! -f saved/pieces.3.npy ] &&
	      [ -f saved/back.npy ]'
check "--save: a saved item is a .npy file" eval 'head -c 6 saved/pair.1.npy | grep -q NUMPY'
r seqops.onnx --input x=x.pb --to pieces,n --json
check "--json: a sequence has kind and items" \
	eval 'grep -q "\"kind\": \"sequence\"" out.txt && grep -q "\"items\": \[" out.txt'
r seqops.onnx --input x=x.pb --to pieces --expect pieces=pieces_bad.pb
check "--expect: a sequence that differs fails (exit 1)" rc_is 1
check "--expect: the tensor that differs is named with its worst element" \
	grep -q "FAIL against pieces_bad.pb: \[1\]: 1 of 4 differ, max abs 0.5 at \[1,0\] (got 6, want 6.5)" out.txt
check "--expect: only the tensors that differ are listed" eval '[ $(grep -c FAIL out.txt) -eq 2 ]'
r seqops.onnx --input x=x.pb --to pieces --expect pieces=pieces_short.pb
check "--expect: sequences of different lengths" \
	grep -q "FAIL against pieces_short.pb: expected seq(float32)\[2\], got seq(float32)\[3\]" out.txt
r seqops.onnx --input x=x.pb --to pieces,n --expect pieces=pieces.pb --json
check "--json: a compared sequence says pass" grep -q '"pass": true' out.txt

# positions
r pos.onnx --input s=s3.pb --input p=pm1.pb --input t=t.pb \
	--expect ins=ins_m1.pb --expect er=er_m1.pb --expect er_last=er_m1.pb --to at,ins,er,er_last,ins_end
check "negative positions count from the back (SequenceInsert, SequenceErase); Erase defaults to the last" rc_is 0
check "SequenceAt -1 is the last tensor" grep -q "^output 'at' float32\[2\]  min 5 max 6" out.txt
check "SequenceInsert without a position appends" grep -q "^  \[3\] float32\[2\]  min 9 max 9" out.txt
r pos.onnx --input s=s3.pb --input p=p3.pb --input t=t.pb --to at
check "SequenceAt past the end: exit 1, one line naming the node and the range" \
	eval 'rc_is 1 && one_line "#0 SequenceAt: position 3 is out of range for a sequence of 3 (accepted: -3 to 2)"'
r pos.onnx --input s=s3.pb --input p=pm4.pb --input t=t.pb --to at
check "SequenceAt before the start" eval 'rc_is 1 && one_line "position -4 is out of range"'
r pos.onnx --input s=s3.pb --input p=p3.pb --input t=t.pb --to ins
check "SequenceInsert at n (the end) is accepted" eval 'rc_is 0 && grep -q "^output .ins. seq(float32)\[4\]" out.txt'
r pos.onnx --input s=empty_seq.pb --input p=p0.pb --input t=t.pb --to er
check "SequenceErase on an empty sequence: one line" \
	eval 'rc_is 1 && one_line "#3 SequenceErase: position 0 is out of range: the sequence is empty"'

# optionals
r opt.onnx --input o=opt_empty.pb --to h,none,same
check "an empty optional: OptionalHasElement false, Optional without input, Identity" \
	eval 'rc_is 0 && grep -q "^output .h. bool\[\]  min 0 max 0" out.txt &&
	      grep -q "^output .same. optional(empty)$" out.txt && grep -q "^output .none. optional(empty)$" out.txt'
r opt.onnx --input o=opt_full.pb --expect same=opt_full.pb --to h,g,same
check "a full optional prints its tensor and compares as one" \
	eval 'rc_is 0 && grep -q "^output .same. optional(float32\[2\])  min 1 max 2" out.txt'
r opt.onnx --input o=opt_empty.pb --to g
check "OptionalGetElement of an empty optional: one line" \
	eval 'rc_is 1 && one_line "#1 OptionalGetElement: the optional is empty"'
r opt.onnx --input o=opt_full.pb --expect same=opt_empty.pb --to same
check "--expect: an empty optional against a full one" \
	grep -q "FAIL against opt_empty.pb: expected optional(empty), got optional(float32\[2\])" out.txt
r opt.onnx --input o=s3_opt.pb --to same
check "an optional holding a sequence" grep -q "^output 'same' optional(seq(float32)\[3\])$" out.txt

# SequenceMap, and a tensor op given a sequence
r map.onnx --input s=s3.pb --input t=t.pb --expect m=m_want.pb
check "SequenceMap runs its body per tensor, a tensor input passed whole" rc_is 0
r relu.onnx --input s=s3.pb
check "a tensor op given a sequence: one line" \
	eval 'rc_is 1 && one_line "#0 Relu: input 0 .s. is a sequence: Relu takes tensors there"'
r pos.onnx --input s=random --input p=p0.pb --input t=t.pb --to at
check "random cannot make a sequence: exit 2, one line" eval 'rc_is 2 && one_line "makes tensors only"'
r pos.onnx --input s=x.npy --input p=p0.pb --input t=t.pb --to at
check "a sequence from a .npy file: exit 2, one line" eval 'rc_is 2 && one_line "give it as a .pb file"'

# malformed files: exit 3 (or 1 for a kind onnxview does not hold), one line each, never a crash
for case in "trunc:3:field 3 says 14 bytes, 3 are left" "huge_len:3:says 1099511627776 bytes, 8 are left" \
	    "huge_dims:3:dims say 1099511627776 values" "map_elem:1:a sequence of maps" \
	    "mixed:3:a sequence holds one element type" "bad_wire:3:wire type 7" "x:3:where a SequenceProto has 2"; do
	f=${case%%:*}; rest=${case#*:}; st=${rest%%:*}; msg=${rest#*:}
	r pos.onnx --input s=$f.pb --input p=p0.pb --input t=t.pb --to at
	check "malformed SequenceProto $f.pb: exit $st, one line" eval "rc_is $st && one_line '$msg'"
done
r opt.onnx --input o=s3.pb --to h
check "a SequenceProto given for an optional: one line" eval 'rc_is 3 && one_line "an optional holds one"'
done_testing
