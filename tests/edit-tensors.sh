#!/bin/sh
# Tensor edits: set-tensor (literals strictly typed, .npy/.pb files, initializers and Constant nodes), make-input,
# make-constant; undo to identical bytes; refusals that leave nothing behind; the field report "Resize scales
# baked in as [1,1,3,3]" made 2x and then a run-time input, run in onnxruntime.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx (Debian: python3-onnx) to make the test models"
"$PYTHON" -c 'import numpy' 2>/dev/null || skip_all "no numpy for $PYTHON"
scratch
gen_models "$TMP/m" || { echo "Bail out! tests/gen-models.py failed"; exit 1; }
cd "$TMP/m" || exit 1
E() { "$ONNXVIEW" edit "$@"; }
pyq() { "$PYTHON" -c "$@"; }
D=$TMP/files
export D
mkdir -p "$D"

# Tensor files written by numpy and by onnx, and a few extra models.
"$PYTHON" - "$D" "$TMP/m" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
d, m = sys.argv[1], sys.argv[2]
np.save(f"{d}/s2.npy", np.array([1, 1, 2, 2], dtype=np.float32))
np.save(f"{d}/s2-int64.npy", np.array([1, 1, 2, 2]))              # numpy's default dtype
np.save(f"{d}/s2-be.npy", np.array([1, 1, 2, 2], dtype=">f4"))
np.save(f"{d}/s2-2d.npy", np.array([[1, 1], [2, 2]], dtype=np.float32))
open(f"{d}/s2.pb", "wb").write(numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "s").SerializeToString())
np.save(f"{d}/fortran.npy", np.asfortranarray(np.array([[1, 2], [3, 4]], dtype=np.float32)))
np.save(f"{d}/bias.npy", np.array([0.5, -1, 2], dtype=np.float32).reshape(3, 1, 1))
rng = np.random.default_rng(7)
np.save(f"{d}/x16.npy", rng.standard_normal((1, 1, 4, 4)).astype(np.float32))
np.save(f"{d}/x-dyn.npy", rng.standard_normal((2, 3, 5, 7)).astype(np.float32))
np.save(f"{d}/x-bad.npy", rng.standard_normal((2, 4, 5, 7)).astype(np.float32))
# One file per alltypes initializer numpy can express, with new random values of the same dtype and shape.
model = onnx.load(f"{m}/alltypes.onnx")
names = []
for t in model.graph.initializer:
    if t.data_type in (T.STRING, T.BFLOAT16):
        continue
    a = np.zeros(tuple(t.dims), dtype=onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type])
    if a.size == 0:
        continue
    if a.dtype.kind == "b":
        v = rng.integers(0, 2, a.shape).astype(bool)
    elif a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        v = rng.integers(info.min, info.max, a.shape, dtype=a.dtype, endpoint=True)
    elif a.dtype.kind == "c":
        v = (rng.standard_normal(a.shape) + 1j * rng.standard_normal(a.shape)).astype(a.dtype)
    else:
        v = (rng.standard_normal(a.shape) * 100).astype(a.dtype)
    np.save(f"{d}/{t.name}.npy", v)
    open(f"{d}/{t.name}.pb", "wb").write(numpy_helper.from_array(v[::-1].copy() if v.ndim else v, t.name).SerializeToString())
    names.append(t.name)
open(f"{d}/names", "w").write("\n".join(names) + "\n")
open(f"{d}/strings.pb", "wb").write(numpy_helper.from_array(np.array([b"x", b"yy", b"", "\u00e9".encode()], dtype=object)).SerializeToString())
# Constants held as value_floats / value_ints, and an initializer that is also an input (a default value).
g = helper.make_graph(
    [helper.make_node("Constant", [], ["scales"], name="c_scales", value_floats=[1.0, 1.0, 2.0, 2.0]),
     helper.make_node("Constant", [], ["k"], name="c_k", value_ints=[2]),
     helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize0", mode="nearest"),
     helper.make_node("TopK", ["y", "k"], ["v", "i"], name="topk")],
    "attrs", [helper.make_tensor_value_info("x", T.FLOAT, [1, 1, 4, 4])],
    [helper.make_tensor_value_info("v", T.FLOAT, [1, 1, 8, 2]), helper.make_tensor_value_info("i", T.INT64, [1, 1, 8, 2])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{m}/const-attrs.onnx")
g = helper.make_graph(
    [helper.make_node("Add", ["x", "b"], ["y"], name="add0")], "default",
    [helper.make_tensor_value_info("x", T.FLOAT, [2]), helper.make_tensor_value_info("b", T.FLOAT, [2])],
    [helper.make_tensor_value_info("y", T.FLOAT, [2])],
    [numpy_helper.from_array(np.array([10, 20], dtype=np.float32), "b")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{m}/default-input.onnx")
ir3 = helper.make_model(g, opset_imports=[helper.make_opsetid("", 7)])
ir3.ir_version = 3
onnx.save(ir3, f"{m}/ir3.onnx")
g = helper.make_graph(
    [helper.make_node("Add", ["x", "b"], ["y"], name="add0")], "noinit",
    [helper.make_tensor_value_info("x", T.FLOAT, [2]), helper.make_tensor_value_info("b", T.FLOAT, [2])],
    [helper.make_tensor_value_info("y", T.FLOAT, [2])])
ir3 = helper.make_model(g, opset_imports=[helper.make_opsetid("", 7)])
ir3.ir_version = 3
onnx.save(ir3, f"{m}/ir3-noinit.onnx")
# A constant inside an If branch.
branch = lambda name, v: helper.make_graph(
    [helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array([v], np.float32)))],
    name, [], [helper.make_tensor_value_info(name, T.FLOAT, [1])])
g = helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="if0", then_branch=branch("then_c", 1), else_branch=branch("else_c", 2))],
    "ifc", [helper.make_tensor_value_info("c", T.BOOL, [])], [helper.make_tensor_value_info("y", T.FLOAT, [1])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{m}/if-const.onnx")
PY
[ -s "$D/names" ] || { echo "Bail out! could not write the tensor files"; exit 1; }

# valid MODEL PYTHON-CODE: the saved model passes onnx's checker (full_check: shapes agree too) and the code,
# which sees m (the model), a(name) (an initializer as numpy), and np.
valid() {
	"$PYTHON" - "$1" "$2" <<'PY'
import sys, numpy as np, onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
a = lambda name: numpy_helper.to_array(next(t for t in m.graph.initializer if t.name == name))
attr = lambda node, name: next(x for x in node.attribute if x.name == name).t
dims = lambda vi: [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in vi.type.tensor_type.shape.dim]
exec(sys.argv[2])
PY
}

# ---- set-tensor with values -------------------------------------------------------------------------------
E srcnn.onnx -e 'set-tensor scales [1,1,2,2]' -o "$TMP/s2.onnx" 2>"$TMP/notes"
check "set-tensor scales [1,1,2,2] on an initializer" [ $? -eq 0 ]
check "... prints the old and the new value" grep -q "^onnxview: scales: \[1, 1, 3, 3\] -> \[1, 1, 2, 2\]$" "$TMP/notes"
check "... and the declared output that follows" grep -q "declared 'output': float32\[1,1,48,48\] -> float32\[1,1,32,32\]" "$TMP/notes"
valid "$TMP/s2.onnx" '
assert a("scales").tolist() == [1, 1, 2, 2] and a("scales").dtype == np.float32
assert dims(m.graph.output[0]) == [1, 1, 32, 32]'
check "... the saved model holds [1,1,2,2] as float32, output 32x32, and passes the checker" [ $? -eq 0 ]
E srcnn.onnx -e 'set-tensor scales @'"$D"'/s2.npy' -o "$TMP/s2-npy.onnx" 2>/dev/null
check "set-tensor scales @s2.npy gives the same bytes as the literal" cmp -s "$TMP/s2.onnx" "$TMP/s2-npy.onnx"
E srcnn.onnx -e 'set-tensor scales @'"$D"'/s2.pb' -o "$TMP/s2-pb.onnx" 2>/dev/null
check "... and so does @s2.pb (onnx.numpy_helper.from_array)" cmp -s "$TMP/s2.onnx" "$TMP/s2-pb.onnx"
E srcnn.onnx -e 'set-tensor scales @'"$D"'/s2-be.npy' -o "$TMP/s2-be.onnx" 2>/dev/null
check "... and so does a big-endian '>f4' .npy" cmp -s "$TMP/s2.onnx" "$TMP/s2-be.onnx"
E srcnn.onnx -e 'set-tensor scales [[1,1],[2,2]]' -o "$TMP/x.onnx" 2>"$TMP/err"
check "a literal nested differently from the tensor is refused" grep -q "the value is nested as \[2,2\]" "$TMP/err"

E resize-constant.onnx -e 'set-tensor scales [1,1,3,3]' -o "$TMP/rc3.onnx" 2>"$TMP/notes"
check "set-tensor on a Constant node's output" [ $? -eq 0 ]
check "... prints old -> new" grep -q "scales: \[1, 1, 2, 2\] -> \[1, 1, 3, 3\]" "$TMP/notes"
valid "$TMP/rc3.onnx" '
c = m.graph.node[0]
assert c.op_type == "Constant" and numpy_helper.to_array(attr(c, "value")).tolist() == [1, 1, 3, 3]
assert dims(m.graph.output[0]) == [1, 1, 12, 12]'
check "... the Constant's value tensor holds [1,1,3,3], output 12x12, checker passes" [ $? -eq 0 ]

E const-attrs.onnx -e 'set-tensor scales [1,1,3,3]' -e 'set-tensor k 3' -o "$TMP/attrs.onnx" 2>"$TMP/notes"
check "set-tensor on Constants holding value_floats and value_ints" [ $? -eq 0 ]
check "... says the attribute was rewritten as a tensor" grep -q "Constant node #0: value_floats rewritten as a 'value' tensor" "$TMP/notes"
check "... a one-element list takes a bare value" grep -q "k: \[2\] -> \[3\]" "$TMP/notes"
valid "$TMP/attrs.onnx" '
c, k = m.graph.node[0], m.graph.node[1]
assert [x.name for x in c.attribute] == ["value"] and numpy_helper.to_array(attr(c, "value")).tolist() == [1, 1, 3, 3]
assert numpy_helper.to_array(attr(k, "value")).dtype == np.int64 and numpy_helper.to_array(attr(k, "value")).tolist() == [3]
assert dims(m.graph.output[0]) == [1, 1, 12, 3], dims(m.graph.output[0])'
check "... they become float32 and int64 'value' tensors; TopK's output follows k" [ $? -eq 0 ]

# Every dtype numpy writes, from .npy and from .pb, into the alltypes initializers.
cmds= cmdspb=
while read -r n; do
	cmds="$cmds -e 'set-tensor $n @$D/$n.npy'"
	cmdspb="$cmdspb -e 'set-tensor $n @$D/$n.pb'"
done <"$D/names"
eval "E alltypes.onnx $cmds -o '$TMP/all-npy.onnx'" 2>/dev/null
check "set-tensor from .npy on $(wc -l <"$D/names") initializers of every numpy dtype" [ $? -eq 0 ]
eval "E alltypes.onnx $cmdspb -o '$TMP/all-pb.onnx'" 2>/dev/null
check "... and from .pb" [ $? -eq 0 ]
for kind in npy pb; do
	valid "$TMP/all-$kind.onnx" '
import os
d = os.environ["D"]
for n in open(d + "/names").read().split():
    want = np.load(d + "/" + n + ".npy")
    if "'$kind'" == "pb":
        want = want[::-1] if want.ndim else want
    got = a(n)
    assert got.dtype == want.dtype and got.shape == want.shape, (n, got.dtype, want.dtype, got.shape, want.shape)
    assert np.array_equal(got, want, equal_nan=True), (n, got, want)
    t = next(t for t in m.graph.initializer if t.name == n)
    assert t.HasField("raw_data") and not t.float_data and not t.int32_data and not t.int64_data, n' 2>"$TMP/err"
	check "... every value and dtype read back equal to what numpy wrote ($kind)" [ $? -eq 0 ]
	[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err" | tail -5
done
E alltypes.onnx -e "set-tensor t_string @$D/strings.pb" -o "$TMP/strings.onnx" 2>/dev/null
valid "$TMP/strings.onnx" 'assert [x.decode() if isinstance(x, bytes) else x for x in a("t_string")] == ["x", "yy", "", "\u00e9"]'
check "a string tensor from .pb" [ $? -eq 0 ]
E alltypes.onnx -e "set-tensor t_float_raw @$D/fortran.npy" -o "$TMP/fortran.onnx" 2>/dev/null
valid "$TMP/fortran.onnx" 'assert a("t_float_raw").tolist() == [[1, 2], [3, 4]]'
check "a Fortran-order .npy is stored in C order" [ $? -eq 0 ]

# Literal values, typed strictly.
E alltypes.onnx -e 'set-tensor t_int64 [1,-9223372036854775808,9223372036854775807]' -e 'set-tensor t_bool [true,0,1,False]' \
	-e 'set-tensor t_string ["a b","",x,"q\"uote"]' -e 'set-tensor t_float16 [0.1,-inf,nan,65504]' \
	-e 'set-tensor t_bfloat16 [1.00390625,3,-0.5]' -e 'set-tensor t_uint64 [0,18446744073709551615]' \
	-e 'set-tensor t_float [[nan,inf,-inf],[1e-3,-0,3.5]]' -e 'set-tensor t_scalar 7.5' -e 'set-tensor t_uint8 [0,255,1,2]' \
	-o "$TMP/lit.onnx" 2>/dev/null
check "literals for int64, bool, string, float16, bfloat16, uint64, float, a scalar, uint8" [ $? -eq 0 ]
valid "$TMP/lit.onnx" '
assert a("t_int64").tolist() == [1, -2**63, 2**63 - 1]
assert a("t_bool").tolist() == [True, False, True, False]
assert [s.decode() if isinstance(s, bytes) else s for s in a("t_string")] == ["a b", "", "x", "q\"uote"]
h = a("t_float16")
assert h.dtype == np.float16 and h[0] == np.float16(0.1) and h[1] == -np.inf and np.isnan(h[2]) and h[3] == 65504
assert a("t_bfloat16").tolist() == [1.0, 3.0, -0.5]   # 1.00390625 is a tie between 1 and 1.0078125: even wins
assert a("t_uint64").tolist() == [0, 2**64 - 1]
f = a("t_float")
assert np.isnan(f[0, 0]) and f[0, 1] == np.inf and f[0, 2] == -np.inf and f[1, 0] == np.float32(1e-3) and f[1, 2] == 3.5
assert a("t_scalar").shape == () and a("t_scalar") == 7.5
assert a("t_uint8").tolist() == [0, 255, 1, 2]'
check "... each reads back as given (float16 rounded as numpy does, bfloat16 ties to even)" [ $? -eq 0 ]

# ---- set-tensor with a new dtype or shape; external data ------------------------------------------------------
E srcnn.onnx -e "set-tensor scales @$D/s2-int64.npy" -o "$TMP/i64.onnx" 2>"$TMP/notes"
check "a new dtype from a file is taken" [ $? -eq 0 ]
check "... with the types shown" grep -q "scales: float32\[4\] \[1, 1, 3, 3\] -> int64\[4\] \[1, 1, 2, 2\]" "$TMP/notes"
check "... and a warning naming the node that may not accept it and the numpy fix" \
	grep -q "warning: 'scales' was float32 and is now int64: node #0 'resize0' (Resize) may not accept that.*astype(numpy.float32)" "$TMP/notes"
E dynamic.onnx -e "set-tensor bias @$D/bias.npy" -o "$TMP/bias.onnx" 2>"$TMP/notes"
check "a new shape from a file ([] -> [3,1,1])" grep -q "bias: float32\[\] \[0.5\] -> float32\[3,1,1\] \[0.5, -1, 2\]" "$TMP/notes"
valid "$TMP/bias.onnx" 'assert a("bias").shape == (3, 1, 1) and dims(m.graph.output[0]) == ["batch", 3, "h", "w"]'
check "... saved with its shape; the model passes the checker" [ $? -eq 0 ]
E default-input.onnx -e "set-tensor b @$D/bias.npy" -o "$TMP/redecl.onnx" 2>"$TMP/notes"
check "a default value (initializer that is also an input) with a new shape redeclares the input" \
	grep -q "declared 'b': float32\[2\] -> float32\[3,1,1\]" "$TMP/notes"

mkdir -p "$TMP/ext"
E external/model.onnx -e 'set-tensor B [1,2,3,4]' -o "$TMP/ext/model.onnx" 2>"$TMP/notes"
check "set-tensor on a tensor with external data" [ $? -eq 0 ]
check "... says it is now stored inside the model" grep -q "'B' was stored in an external file and is now stored inside the model" "$TMP/notes"
valid "$TMP/ext/model.onnx" '
assert a("B").tolist() == [1, 2, 3, 4] and a("W").shape == (4, 3, 3, 3)   # m was loaded with its external data
m = onnx.load(sys.argv[1], load_external_data=False)
b = next(t for t in m.graph.initializer if t.name == "B")
w = next(t for t in m.graph.initializer if t.name == "W")
assert not b.external_data and b.data_location == 0 and len(b.raw_data) == 16
assert w.data_location == 1 and w.external_data'
check "... B holds raw data, W stays external and loads from the copied weights file" [ $? -eq 0 ]

# ---- make-input ---------------------------------------------------------------------------------------------
E srcnn.onnx -e 'make-input scales' -o "$TMP/mi.onnx" 2>"$TMP/notes"
check "make-input on an initializer" [ $? -eq 0 ]
check "... says so" grep -q "'scales' float32\[4\] \[1, 1, 3, 3\] is now graph input #1 (initializer removed)" "$TMP/notes"
valid "$TMP/mi.onnx" '
assert [i.name for i in m.graph.input] == ["input", "scales"] and dims(m.graph.input[1]) == [4]
assert m.graph.input[1].type.tensor_type.elem_type == 1
assert "scales" not in [t.name for t in m.graph.initializer]'
check "... a float32[4] graph input, no initializer, checker passes" [ $? -eq 0 ]
E resize-constant.onnx -e 'make-input scales' -o "$TMP/mi-c.onnx" 2>"$TMP/notes"
check "make-input on a Constant node's output" grep -q "(Constant node #0 removed)" "$TMP/notes"
valid "$TMP/mi-c.onnx" '
assert [n.op_type for n in m.graph.node] == ["Resize"] and [i.name for i in m.graph.input] == ["x", "scales"]'
check "... the Constant is gone and scales is an input" [ $? -eq 0 ]
E const-attrs.onnx -e 'make-input k' -o "$TMP/mi-k.onnx" 2>/dev/null
valid "$TMP/mi-k.onnx" '
k = next(i for i in m.graph.input if i.name == "k")
assert k.type.tensor_type.elem_type == 7 and dims(k) == [1] and len(m.graph.node) == 3'
check "make-input on a value_ints Constant: an int64[1] input" [ $? -eq 0 ]
E default-input.onnx -e 'make-input b' -o "$TMP/mi-d.onnx" 2>"$TMP/notes"
check "make-input on an initializer that is already an input drops the default" \
	grep -q "'b' was already a graph input with a default value \[10, 20\]" "$TMP/notes"
valid "$TMP/mi-d.onnx" 'assert not m.graph.initializer and [i.name for i in m.graph.input] == ["x", "b"]'
check "... the input stays, the initializer is gone" [ $? -eq 0 ]

# ---- make-constant ------------------------------------------------------------------------------------------
E resize-constant.onnx -e "make-constant x @$D/x16.npy" -o "$TMP/mc.onnx" 2>"$TMP/notes"
check "make-constant x @x.npy" [ $? -eq 0 ]
check "... says so" grep -q "'x' = float32\[1,1,4,4\] \[.*\] is now an initializer (no longer a graph input)" "$TMP/notes"
valid "$TMP/mc.onnx" '
import os
assert not m.graph.input and np.array_equal(a("x"), np.load(os.environ["D"] + "/x16.npy"))'
check "... x is an initializer with the file's values and no longer an input" [ $? -eq 0 ]
E dynamic.onnx -e "make-constant x @$D/x-dyn.npy" -o "$TMP/mc-dyn.onnx" 2>"$TMP/notes"
check "symbolic dims take any size ([batch,3,h,w] <- (2,3,5,7))" [ $? -eq 0 ]
valid "$TMP/mc-dyn.onnx" 'assert dims(m.graph.output[0]) == [2, 3, 5, 7], dims(m.graph.output[0])'
check "... and the declared output follows" [ $? -eq 0 ]
E srcnn.onnx -e 'make-input scales' -e 'make-constant scales [1,1,2,2]' -o "$TMP/mc-lit.onnx" 2>/dev/null
valid "$TMP/mc-lit.onnx" 'assert a("scales").tolist() == [1, 1, 2, 2] and a("scales").dtype == np.float32 and len(m.graph.input) == 1'
check "make-constant with values takes the declared dtype (make-input then make-constant)" [ $? -eq 0 ]
E default-input.onnx -e "make-constant b [7,8]" -o "$TMP/mc-def.onnx" 2>/dev/null
valid "$TMP/mc-def.onnx" 'assert a("b").tolist() == [7, 8] and [i.name for i in m.graph.input] == ["x"] and len(m.graph.initializer) == 1'
check "make-constant on an input with a default value replaces the default" [ $? -eq 0 ]
E ir3-noinit.onnx -e "make-constant b [7,8]" -o "$TMP/mc-ir3.onnx" 2>"$TMP/notes"
check "IR version 3: the new initializer stays among the inputs" grep -q "kept among the inputs, as IR version 3 requires" "$TMP/notes"
valid "$TMP/mc-ir3.onnx" 'assert a("b").tolist() == [7, 8] and [i.name for i in m.graph.input] == ["x", "b"]'
check "... and the checker accepts it" [ $? -eq 0 ]

# ---- refusals: one line, nothing written, input untouched ---------------------------------------------------
"$PYTHON" -c 'import sys; b = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(b[:-14])' "$D/s2.npy" \
	"$D/trunc.npy"
printf 'not a tensor' >"$D/junk.pb"
printf 'x' >"$D/x.txt"
"$PYTHON" -c 'import numpy as np, sys; np.save(sys.argv[1], np.array(["a"]))' "$D/str.npy"
cp srcnn.onnx "$TMP/orig.onnx"
while IFS='|' read -r model cmd msg; do
	rm -f "$TMP/out.onnx"
	E "$model" -e "$cmd" -o "$TMP/out.onnx" 2>"$TMP/err"
	rc=$?
	check "'$cmd' fails (status $rc)" [ $rc -ne 0 ]
	check "'$cmd': one line: $msg" sh -c "[ \$(wc -l <'$TMP/err') -eq 1 ] && grep -qF -- \"\$1\" '$TMP/err'" _ "$msg"
	[ $? -eq 0 ] || sed 's/^/# /' "$TMP/err"
	check "'$cmd': no output file" [ ! -e "$TMP/out.onnx" ]
done <<EOF
srcnn.onnx|set-tensor scales [1,1,2]|'scales' is float32[4]: it takes 4 values, not 3
srcnn.onnx|set-tensor scales [1,1,2,1e39]|value 3: 1e39 is out of range for float32
srcnn.onnx|set-tensor scales [1,1,2,x]|'x' is not a number
srcnn.onnx|set-tensor input [1]|'input' is a graph input, not a constant (make-constant input @FILE
srcnn.onnx|set-tensor c1 [1]|'c1' is computed by node #1 'conv1' (Conv), not a constant
srcnn.onnx|set-tensor nope [1]|no tensor named 'nope' in the graph
srcnn.onnx|set-tensor scales|usage: set-tensor TENSOR VALUES|@FILE
srcnn.onnx|set-tensor scales @|'@' needs a file name
srcnn.onnx|set-tensor scales @$D/missing.npy|$D/missing.npy: cannot open: No such file or directory
srcnn.onnx|set-tensor scales @$D/trunc.npy|trunc.npy: shape (4,) of float32 needs 16 bytes of data, the file has 2 after its header (truncated?)
srcnn.onnx|set-tensor scales @$D/junk.pb|junk.pb: not an ONNX TensorProto
srcnn.onnx|set-tensor scales @$D/x.txt|x.txt: not a tensor file onnxview knows
srcnn.onnx|set-tensor scales @$D/str.npy|str.npy: dtype '<U1': numpy strings are not read
alltypes.onnx|set-tensor t_int64 [1.5,2,3]|value 0: '1.5' is not an integer (the tensor is int64)
alltypes.onnx|set-tensor t_int64 [1,2,9223372036854775808]|9223372036854775808 is out of range for int64
alltypes.onnx|set-tensor t_int8 [1,2,128,0]|value 2: 128 is out of range for int8 (-128 to 127)
alltypes.onnx|set-tensor t_uint64 [-1,0]|-1 is out of range for uint64
alltypes.onnx|set-tensor t_bool [2,0,0,1]|'2' is not a bool (true, false, 1 or 0)
alltypes.onnx|set-tensor t_float16 [65520,0,0,0]|65520 is out of range for float16 (largest 65504)
alltypes.onnx|set-tensor t_bfloat16 [1e39,0,0]|1e39 is out of range for bfloat16
alltypes.onnx|set-tensor t_complex64 [1,2]|values for complex64 tensors cannot be given as text: use @FILE.npy
alltypes.onnx|set-tensor t_scalar [1,2]|'t_scalar' is float32[]: it takes 1 value, not 2
sparse.onnx|set-tensor sp_linear [1,2,3,4,5,6]|'sp_linear' is a sparse initializer: not supported
if-subgraph.onnx|set-tensor nope [1]|no tensor named 'nope'
srcnn.onnx|make-input input|'input' is a graph input, not a constant
srcnn.onnx|make-input relu1|no tensor named 'relu1'
srcnn.onnx|make-input r1|'r1' is computed by node #2 'relu1' (Relu), not a constant
srcnn.onnx|make-constant scales [1]|'scales' is already a constant (set-tensor scales ... changes its value)
srcnn.onnx|make-constant r1 [1]|'r1' is not a graph input
srcnn.onnx|make-constant input @$D/x16.npy|'input' is declared float32[1,1,16,16]; the tensor is float32[1,1,4,4]: dim 2 is 4, not 16
srcnn.onnx|make-constant input @$D/s2-int64.npy|'input' is declared float32; the tensor is int64 (numpy's default
dynamic.onnx|make-constant x @$D/x-bad.npy|dim 1 is 4, not 3
dynamic.onnx|make-constant x @$D/s2.npy|'x' is declared float32[batch,3,h,w] (4 dims); the tensor is float32[4] (1 dims)
dynamic.onnx|make-constant x [1,2]|the tensor is float32[2] (1 dims)
EOF
check "refused commands never touch the input" cmp -s srcnn.onnx "$TMP/orig.onnx"

# A constant inside a subgraph is named as such.
E if-const.onnx -e "set-tensor else_c [5]" -o "$TMP/out.onnx" 2>"$TMP/err"
check "a constant inside a subgraph: refused, naming the node and attribute that hold it" \
	grep -q "'else_c' is a constant inside the subgraph of node #0 'if0' (If) attribute 'else_branch': only the main graph's constants can be changed" "$TMP/err"

# ---- undo restores the original bytes --------------------------------------------------------------------------
while IFS='|' read -r model cmd; do
	E "$model" -e "$cmd" -e undo -o "$TMP/undo.onnx" --force 2>/dev/null
	check "'$cmd' then undo saves the original bytes of $model" cmp -s "$model" "$TMP/undo.onnx"
done <<EOF
srcnn.onnx|set-tensor scales [1,1,2,2]
srcnn.onnx|set-tensor scales @$D/s2-int64.npy
srcnn.onnx|set-tensor conv1.weight @$D/x16.npy
resize-constant.onnx|set-tensor scales [1,1,3,3]
const-attrs.onnx|set-tensor scales [1,1,3,3]
external/model.onnx|set-tensor W @$D/x16.npy
srcnn.onnx|make-input scales
resize-constant.onnx|make-input scales
default-input.onnx|make-input b
resize-constant.onnx|make-constant x @$D/x16.npy
default-input.onnx|make-constant b [7,8]
EOF
E srcnn.onnx -e 'set-tensor scales [1,1,2,2]' -e 'make-input scales' -e undo -e undo -e redo -o "$TMP/redo.onnx" 2>/dev/null
check "undo, undo, redo gives the bytes of the first edit" cmp -s "$TMP/s2.onnx" "$TMP/redo.onnx"
E srcnn.onnx -e "set-tensor scales @$D/s2.npy" -e 'make-input scales' -o "$TMP/j.onnx" --journal "$TMP/j.ovs" 2>/dev/null
E srcnn.onnx -s "$TMP/j.ovs" -o "$TMP/j2.onnx" 2>/dev/null
check "the journal (with an @file) replays to the same bytes" cmp -s "$TMP/j.onnx" "$TMP/j2.onnx"

"$ONNXVIEW" edit --help >"$TMP/help"
check "edit --help lists set-tensor, make-input and make-constant" \
	sh -c "grep -q 'set-tensor TENSOR' '$TMP/help' && grep -q 'make-input TENSOR' '$TMP/help' && grep -q 'make-constant VALUE' '$TMP/help'"

# ---- the field report, in onnxruntime -----------------------------------------------------------------------
# SRCNN exported with nn.Upsample(scale_factor=3): scales [1,1,3,3] is baked in.  Make it 2x, then a run-time input.
E srcnn.onnx -e 'set-tensor scales [1,1,2,2]' -o "$TMP/fr-2x.onnx" 2>/dev/null &&
	E "$TMP/fr-2x.onnx" -e 'make-input scales' -o "$TMP/fr-input.onnx" 2>/dev/null
check "field report: scales set to 2x, then made an input" [ $? -eq 0 ]
valid "$TMP/fr-input.onnx" 'assert [i.name for i in m.graph.input] == ["input", "scales"]'
check "... the checker accepts the result" [ $? -eq 0 ]
if have_ort; then
	"$ORT_PYTHON" - srcnn.onnx "$TMP/fr-2x.onnx" "$TMP/fr-input.onnx" "$TMP/rc3.onnx" resize-constant.onnx \
		"$TMP/mi-c.onnx" "$TMP/mc.onnx" "$D/x16.npy" "$TMP/mc-dyn.onnx" dynamic.onnx "$D/x-dyn.npy" <<'PY'
import sys, numpy as np, onnxruntime as ort
a = sys.argv[1:]
S = lambda p: ort.InferenceSession(p, providers=["CPUExecutionProvider"])
x = np.random.default_rng(0).standard_normal((1, 1, 16, 16)).astype(np.float32)
orig = S(a[0]).run(None, {"input": x})[0]
two = S(a[1]).run(None, {"input": x})[0]
assert orig.shape == (1, 1, 48, 48) and two.shape == (1, 1, 32, 32), (orig.shape, two.shape)
dyn = S(a[2])
y2 = dyn.run(None, {"input": x, "scales": np.array([1, 1, 2, 2], np.float32)})[0]
y3 = dyn.run(None, {"input": x, "scales": np.array([1, 1, 3, 3], np.float32)})[0]
y4 = dyn.run(None, {"input": x, "scales": np.array([1, 1, 4, 4], np.float32)})[0]
assert y2.shape == (1, 1, 32, 32) and y3.shape == (1, 1, 48, 48) and y4.shape == (1, 1, 64, 64)
assert np.array_equal(y2, two) and np.array_equal(y3, orig)
# Resize from a Constant node: set-tensor, make-input; make-constant then runs with no input at all.
x4 = np.random.default_rng(1).standard_normal((1, 1, 4, 4)).astype(np.float32)
r3 = S(a[3]).run(None, {"x": x4})[0]
assert r3.shape == (1, 1, 12, 12) and np.array_equal(r3, np.repeat(np.repeat(x4, 3, 2), 3, 3))
r2 = S(a[4]).run(None, {"x": x4})[0]
ri = S(a[5]).run(None, {"x": x4, "scales": np.array([1, 1, 2, 2], np.float32)})[0]
assert np.array_equal(r2, ri)
xc = np.load(a[7])
rc = S(a[6]).run(None, {})[0]
assert np.array_equal(rc, S(a[4]).run(None, {"x": xc})[0])
xd = np.load(a[10])
assert np.array_equal(S(a[8]).run(None, {})[0], S(a[9]).run(None, {"x": xd})[0])
PY
	check "onnxruntime: 2x gives 32x32; the scales input gives 32/48/64, equal to the 2x and the original model; Constant-node and make-constant models agree" [ $? -eq 0 ]
else
	skip "onnxruntime is not installed (scripts/install-deps.sh puts it in /opt/onnxview-ort)"
fi
done_testing
