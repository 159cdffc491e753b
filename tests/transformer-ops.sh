#!/bin/sh
# The transformer-era ops and local functions, against the current ONNX release:
# - the onnx wheel's own node test cases (onnx.backend.test.case.node) of Attention, RMSNormalization,
#   RotaryEmbedding, LinearAttention, CausalConvWithState, FlexAttention, SwiGLU, Swish and TensorScatter (and the
#   _expanded cases whose function bodies use them), written out in
#   the backend test layout and run on the CPU with the ONNX runner's tolerances (rtol 1e-3, atol 1e-7), then on
#   the CUDA backend (the GPU where there is one, else the host simulator) against the same expected values;
# - models as torch's new exporter writes them (tests/transformer-models.py, built with onnxscript): two decoder
#   layers as nested local functions (FunctionProto) with opset-23 RMSNormalization, RotaryEmbedding and
#   grouped-query causal Attention inside, a decoding step of 4-D Attention with a KV cache, a partial interleaved
#   RotaryEmbedding; expected values from onnx's reference evaluator and from onnxruntime.
# Needs a python with onnx >= 1.23, onnxscript and numpy: $ONNX_PYTHON, or /opt/onnxview-onnx/bin/python, or
# /tmp/venv-onnx/bin/python (e.g. python3 -m venv /tmp/venv-onnx && /tmp/venv-onnx/bin/pip install onnx==1.23.2
# onnxscript); skipped with a message without one.  onnxruntime (/opt/onnxview-ort) is optional.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

py=
for p in ${ONNX_PYTHON:-} /opt/onnxview-onnx/bin/python /tmp/venv-onnx/bin/python; do
	if [ -x "$p" ] && "$p" -c 'import onnx, onnxscript, numpy, sys
sys.exit(tuple(map(int, onnx.__version__.split(".")[:2])) < (1, 23))' >/dev/null 2>&1; then
		py=$p
		break
	fi
done
[ -n "$py" ] || skip_all "no python with onnx >= 1.23 and onnxscript (set ONNX_PYTHON, or make /tmp/venv-onnx)"
scratch

cuda_ov=
if "$ONNXVIEW" --version 2>/dev/null | grep -q '^CUDA backend: .*device 0:'; then
	cuda_ov=$ONNXVIEW cuda_on="the GPU"
elif [ -x "$BUILDDIR/tests/onnxview-cudasim" ]; then
	cuda_ov=$BUILDDIR/tests/onnxview-cudasim cuda_on="the CUDA simulator"
fi

# ---- the node test cases ----
OPS="Attention RMSNormalization RotaryEmbedding LinearAttention CausalConvWithState FlexAttention SwiGLU Swish
	TensorScatter"
# shellcheck disable=SC2086
"$py" - "$TMP/node" $OPS >"$TMP/gen.txt" 2>&1 <<'EOF'
import os, sys, warnings
warnings.filterwarnings("ignore")
from onnx import TensorProto, numpy_helper
import onnx.backend.test.case.node as node
out, ops = sys.argv[1], set(sys.argv[2:])
n = 0
for case in node.collect_testcases(None):
    if not {nd.op_type for nd in case.model.graph.node} & ops:
        continue
    d = os.path.join(out, case.name)
    os.makedirs(d)
    open(os.path.join(d, "model.onnx"), "wb").write(case.model.SerializeToString())
    for i, (ins, outs) in enumerate(case.data_sets):
        ds = os.path.join(d, "test_data_set_%d" % i)
        os.makedirs(ds)
        for kind, vals, decl in (("input", ins, case.model.graph.input), ("output", outs, case.model.graph.output)):
            for j, x in enumerate(vals):
                t = x if isinstance(x, TensorProto) else numpy_helper.from_array(x, decl[j].name)
                open(os.path.join(ds, "%s_%d.pb" % (kind, j)), "wb").write(t.SerializeToString())
    n += 1
print(n)
EOF
ncases=$(tail -1 "$TMP/gen.txt")
case $ncases in
'' | *[!0-9]*) not_ok "the node test cases are written out"; sed 's/^/# /' "$TMP/gen.txt" | tail -5; ncases=0 ;;
*) check "the onnx wheel has node test cases of these ops ($ncases)" [ "$ncases" -gt 100 ] ;;
esac

# run_cases OV BACKEND: one line per case, NAME STATUS REASON
run_cases() {
	for dir in "$TMP"/node/*/; do
		dir=${dir%/}
		st=0 why=
		for ds in "$dir"/test_data_set_*; do
			out=$("$1" run "$dir/model.onnx" --expect "$ds" --rtol 1e-3 --atol 1e-7 --backend "$2" 2>&1)
			r=$?
			if [ $r -ne 0 ]; then
				st=$r
				why=$(printf '%s\n' "$out" | grep -E '^onnxview:|FAIL' | grep -v 'note:' | head -1)
			fi
		done
		echo "$(basename "$dir") $st $why"
	done
}
if [ "$ncases" -gt 0 ]; then
	run_cases "$ONNXVIEW" cpu >"$TMP/cpu.txt"
	pass=$(awk '$2 == 0' "$TMP/cpu.txt" | wc -l)
	check "all $ncases node test cases pass on the CPU ($pass pass)" [ "$pass" -eq "$ncases" ]
	awk '$2 != 0' "$TMP/cpu.txt" | sed 's/^/# /' | head -20
	if [ -n "$cuda_ov" ]; then
		run_cases "$cuda_ov" cuda >"$TMP/cuda.txt"
		pass=$(awk '$2 == 0' "$TMP/cuda.txt" | wc -l)
		check "all $ncases node test cases pass on the CUDA backend on $cuda_on ($pass pass)" [ "$pass" -eq "$ncases" ]
		awk '$2 != 0' "$TMP/cuda.txt" | sed 's/^/# /' | head -20
		# the ops with CUDA kernels run there, not on the CPU
		for t in test_attention_4d_gqa_with_past_and_present test_attention_3d_gqa_causal test_rms_normalization_4d_axis1 \
			test_rotary_embedding_with_interleaved_rotary_dim; do
			[ -d "$TMP/node/$t" ] || continue
			"$cuda_ov" run "$TMP/node/$t/model.onnx" --expect "$TMP/node/$t/test_data_set_0" --backend cuda \
				>"$TMP/fb.txt" 2>&1
			check "$t runs on the CUDA backend, not the CPU" \
				sh -c "grep -q '^ran 1 node on cuda' '$TMP/fb.txt' && ! grep -q '^on the CPU:' '$TMP/fb.txt'"
		done
	else
		skip "no CUDA device and no simulator: the CUDA backend is not checked"
	fi
fi

# ---- shape inference: outputs declared wrong, check names what the rules give ----
"$py" - "$TMP/shape.onnx" <<'EOF'
import sys, onnx
from onnx import helper as oh, TensorProto as T
vi = oh.make_tensor_value_info
n = [oh.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], ["y", "prk", "prv", "qk"], q_num_heads=8, kv_num_heads=2),
     oh.make_node("LinearAttention", ["q", "k", "v"], ["lo", "ls"], q_num_heads=8, kv_num_heads=2, update_rule="linear"),
     oh.make_node("CausalConvWithState", ["x", "w"], ["co", "cs"])]
outs = ["y", "prk", "prv", "qk", "lo", "ls", "co", "cs"]
g = oh.make_graph(n, "s", [vi("q", T.FLOAT, ["B", 5, 64]), vi("k", T.FLOAT, ["B", 5, 16]), vi("v", T.FLOAT, ["B", 5, 24]),
                           vi("pk", T.FLOAT, ["B", 2, 7, 8]), vi("pv", T.FLOAT, ["B", 2, 7, 12]),
                           vi("x", T.FLOAT, [2, 3, 9]), vi("w", T.FLOAT, [3, 1, 4])],
                  [vi(o, T.FLOAT, [1]) for o in outs])
onnx.save(oh.make_model(g, opset_imports=[oh.make_opsetid("", 27)]), sys.argv[1])
EOF
"$ONNXVIEW" check "$TMP/shape.onnx" >"$TMP/shape.txt" 2>&1
for t in "y:B,5,96" "prk:B,2,12,8" "prv:B,2,12,12" "qk:B,8,5,12" "lo:B,5,96" "ls:B,2,8,12" "co:2,3,9" "cs:2,3,3"; do
	check "shape inference: ${t%%:*} is float32[${t#*:}]" \
		grep -q "'${t%%:*}' is declared float32\[1\] but its producer gives float32\[${t#*:}\]" "$TMP/shape.txt"
done

# ---- nodes these ops refuse: one line naming the problem, status 1, on both backends ----
"$py" - "$TMP/bad" >"$TMP/bad.txt" 2>&1 <<'EOF'
import os, sys, numpy as np, onnx
from onnx import helper as oh, TensorProto as T
d = sys.argv[1]
os.makedirs(d)
def save(name, node, ins, opset=23):
    g = oh.make_graph([node], name, [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                                     for n, v in ins.items()],
                      [oh.make_tensor_value_info(o, T.FLOAT, None) for o in node.output])
    onnx.save(oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)]), os.path.join(d, name + ".onnx"))
    os.makedirs(os.path.join(d, name))
    for n, v in ins.items():
        np.save(os.path.join(d, name, n + ".npy"), v)
f = lambda *s: np.ones(s, np.float32)
save("noheads", oh.make_node("Attention", ["q", "k", "v"], ["y"]), {"q": f(1, 2, 8), "k": f(1, 3, 8), "v": f(1, 3, 8)})
save("badmask", oh.make_node("Attention", ["q", "k", "v", "m"], ["y"]),
     {"q": f(1, 2, 4, 8), "k": f(1, 2, 3, 8), "v": f(1, 2, 3, 8), "m": f(3, 3)})
save("gqa", oh.make_node("Attention", ["q", "k", "v"], ["y"]), {"q": f(1, 3, 4, 8), "k": f(1, 2, 3, 8), "v": f(1, 2, 3, 8)})
save("ropepos", oh.make_node("RotaryEmbedding", ["x", "c", "s", "p"], ["y"]),
     {"x": f(1, 2, 3, 4), "c": f(5, 2), "s": f(5, 2), "p": np.array([[0, 1, 9]], np.int64)})
save("scatter", oh.make_node("TensorScatter", ["c", "u", "w"], ["y"]),
     {"c": f(2, 4, 3), "u": f(2, 2, 3), "w": np.array([1, 3], np.int64)}, 24)
EOF
for t in "noheads:need q_num_heads and kv_num_heads" "badmask:attn_mask float32\[3,3\] does not broadcast" \
	"gqa:3 query heads cannot share 2" "ropepos:position_ids\[0\]\[2\] = 9 is outside" \
	"scatter:write_indices\[1\] = 3 puts update position 1 outside"; do
	name=${t%%:*} want=${t#*:}
	[ -f "$TMP/bad/$name.onnx" ] || { not_ok "$name: the model is written"; continue; }
	ins=
	for f in "$TMP/bad/$name"/*.npy; do
		n=${f##*/}
		ins="$ins --input ${n%.npy}=$f"
	done
	for be in cpu ${cuda_ov:+cuda}; do
		ov=$ONNXVIEW
		[ "$be" = cuda ] && ov=$cuda_ov
		# shellcheck disable=SC2086
		"$ov" run "$TMP/bad/$name.onnx" $ins --backend $be >"$TMP/bad.out" 2>"$TMP/bad.err"
		st=$?
		check "$name on $be: status 1 (got $st) and one line: $want" \
			sh -c "[ $st -eq 1 ] && [ \$(wc -l <'$TMP/bad.err') -eq 1 ] && grep -q '$want' '$TMP/bad.err'"
		[ $st -eq 1 ] || sed 's/^/# /' "$TMP/bad.err" | head -3
	done
done

# ---- models with local functions, opset-23 Attention ----
if "$py" "$SRCDIR/tests/transformer-models.py" "$TMP/m" >"$TMP/models.txt" 2>&1; then
	ok "the onnxscript models are written"
else
	not_ok "the onnxscript models are written"
	sed 's/^/# /' "$TMP/models.txt" | tail -5
fi
have_ort && "$ORT_PYTHON" - "$TMP/m" >"$TMP/ort.txt" 2>&1 <<'EOF'
import os, sys, numpy as np, onnxruntime as ort
d = sys.argv[1]
for name in ("decoder", "sdpa", "rope4d"):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(os.path.join(d, name + ".onnx"), so, providers=["CPUExecutionProvider"])
    feeds = {i.name: np.load(os.path.join(d, name, "in-%s.npy" % i.name)) for i in s.get_inputs()}
    for o, v in zip(s.get_outputs(), s.run(None, feeds)):
        np.save(os.path.join(d, name, "ort-%s.npy" % o.name), v)
EOF
for name in decoder sdpa rope4d; do
	[ -f "$TMP/m/$name.onnx" ] || continue
	ins= refs= orts=
	for f in "$TMP/m/$name"/in-*.npy; do
		n=${f##*/in-}
		ins="$ins --input ${n%.npy}=$f"
	done
	for f in "$TMP/m/$name"/ref-*.npy; do
		n=${f##*/ref-}
		refs="$refs --expect ${n%.npy}=$f"
		[ -f "$TMP/m/$name/ort-$n" ] && orts="$orts --expect ${n%.npy}=$TMP/m/$name/ort-$n"
	done
	# shellcheck disable=SC2086
	"$ONNXVIEW" run "$TMP/m/$name.onnx" $ins $refs --rtol 1e-4 --atol 1e-5 >"$TMP/$name.txt" 2>&1
	check "$name: the CPU matches onnx's reference evaluator" [ $? -eq 0 ]
	if [ -n "$orts" ]; then
		# shellcheck disable=SC2086
		"$ONNXVIEW" run "$TMP/m/$name.onnx" $ins $orts --rtol 1e-4 --atol 1e-5 >"$TMP/$name-ort.txt" 2>&1
		check "$name: the CPU matches onnxruntime" [ $? -eq 0 ]
	else
		skip "$name: no onnxruntime to compare with"
	fi
	if [ -n "$cuda_ov" ]; then
		# shellcheck disable=SC2086
		"$cuda_ov" run "$TMP/m/$name.onnx" $ins $refs --rtol 1e-4 --atol 1e-5 --backend cuda >"$TMP/$name-cuda.txt" 2>&1
		check "$name: the CUDA backend on $cuda_on matches the reference" [ $? -eq 0 ]
	fi
done

# the decoder's calls are nodes of the main graph: the per-node values show the function calls' outputs
if [ -f "$TMP/m/decoder.onnx" ]; then
	ins=
	for f in "$TMP/m/decoder"/in-*.npy; do
		n=${f##*/in-}
		ins="$ins --input ${n%.npy}=$f"
	done
	# shellcheck disable=SC2086
	"$ONNXVIEW" run "$TMP/m/decoder.onnx" $ins --all --json >"$TMP/all.json" 2>"$TMP/all.err"
	check "run --all on a model of local function calls gives every call's output" \
		grep -q '"name": *"y"' "$TMP/all.json"
	"$ONNXVIEW" check "$TMP/m/decoder.onnx" >"$TMP/check.txt" 2>&1
	check "check accepts the local functions' custom domain (status $?)" \
		sh -c "! grep -qi 'unknown op\|not defined' '$TMP/check.txt'"
	# a call whose function calls itself ends with one line, not a crash
	"$py" - "$TMP/m/decoder.onnx" "$TMP/rec.onnx" <<'EOF'
import sys, onnx
from onnx import helper as oh
m = onnx.load(sys.argv[1])
f = [f for f in m.functions if f.name == "RMSBlock"][0]
f.node.append(oh.make_node("RMSBlock", [f.output[0], f.input[1]], ["again"], domain=f.domain))
f.output[0] = "again"
onnx.save(m, sys.argv[2])
EOF
	# shellcheck disable=SC2086
	"$ONNXVIEW" run "$TMP/rec.onnx" $ins >"$TMP/rec.txt" 2>&1
	st=$?
	check "a local function that calls itself fails with status 1 (got $st)" [ $st -eq 1 ]
	check "... saying that it calls itself" grep -q "local function .RMSBlock. calls itself" "$TMP/rec.txt"
fi
done_testing
