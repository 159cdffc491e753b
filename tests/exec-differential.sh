#!/bin/sh
# Differential tests of the CPU executor against onnxruntime on real PyTorch exports (ResNet-18, MobileNetV2, a
# transformer encoder block) and on the SRCNN example with a cubic Resize: the same input, max abs error < 1e-4.
# Skipped with a message when onnxruntime (scripts/install-deps.sh: /opt/onnxview-ort) or torch is missing.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_python_onnx || skip_all "no python3 with onnx"
have_ort || skip_all "no onnxruntime (scripts/install-deps.sh puts it in /opt/onnxview-ort)"
scratch
models="$SRCDIR/share/onnxview/examples/srcnn.onnx"
if "$PYTHON" -c 'import torch' >/dev/null 2>&1 && "$PYTHON" "$SRCDIR/tests/export-torch.py" "$TMP" >/dev/null 2>&1; then
	models="$models $TMP/resnet18.onnx $TMP/mobilenetv2.onnx $TMP/transformer.onnx"
else
	skip "no python3-torch: only the bundled example is compared"
fi
# The CUDA backend too where it runs: onnxview itself on a GPU, else the host simulator (tests/cuda-sim.sh), which
# runs the backend's own code with the device's arithmetic done on the host.
cuda_ov=
if "$ONNXVIEW" --version 2>/dev/null | grep -q '^CUDA backend: .*device 0:'; then
	cuda_ov=$ONNXVIEW cuda_on="the GPU"
elif [ -x "$BUILDDIR/tests/onnxview-cudasim" ]; then
	cuda_ov=$BUILDDIR/tests/onnxview-cudasim cuda_on="the host simulator"
else
	skip "no CUDA device and no simulator: the CUDA backend is not compared"
fi
for m in $models; do
	[ -f "$m" ] || continue
	b=$(basename "$m" .onnx)
	"$ORT_PYTHON" - "$m" "$TMP/$b" <<'PY'
import sys, numpy as np, onnxruntime as ort
model, out = sys.argv[1], sys.argv[2]
so = ort.SessionOptions()
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
args = []
feeds = {}
for k, i in enumerate(s.get_inputs()):
    x = np.random.default_rng(k).standard_normal([d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32)
    np.save(f"{out}-in{k}.npy", x)
    feeds[i.name] = x
    args.append(f"{i.name}={out}-in{k}.npy")
for k, (o, v) in enumerate(zip(s.get_outputs(), s.run(None, feeds))):
    np.save(f"{out}-out{k}.npy", v)
    args.append(f"EXPECT {o.name}={out}-out{k}.npy")
open(f"{out}.args", "w").write("\n".join(args) + "\n")
PY
	set --
	while read -r line; do
		case $line in
		"EXPECT "*) set -- "$@" --expect "${line#EXPECT }" ;;
		*) set -- "$@" --input "$line" ;;
		esac
	done <"$TMP/$b.args"
	"$ONNXVIEW" run "$m" "$@" --rtol 0 --atol 1e-4 >"$TMP/$b.out" 2>&1
	rc=$?
	check "$b: onnxview's CPU run matches onnxruntime within 1e-4" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/$b.out" | tail -8
	[ -n "$cuda_ov" ] || continue
	"$cuda_ov" run "$m" "$@" --backend cuda --rtol 0 --atol 1e-4 >"$TMP/$b.cuda" 2>&1
	rc=$?
	check "$b: onnxview's CUDA run (on $cuda_on) matches onnxruntime within 1e-4" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/$b.cuda" | tail -8
	grep '^ran\|^copies' "$TMP/$b.cuda" | sed 's/^/# /'
done
done_testing
