#!/bin/bash
# onnxview's GPU checks on a lent GPU machine, in one call: run from the root of a copy of the checkout that holds
# .gpu/onnxview-gpu.tar.xz (scripts/gpu/pack.sh, made on the build machine), with $OUT a folder whose files come
# back.  Writes $OUT/report.md step by step (a call cut short still returns what was done) and beside it the logs,
# which end in one archive, $OUT/logs.tar.gz, when the script ends:
#   cuda-tap.txt     tests/cuda.sh's TAP (every device check; the op models, the LSTM/GRU/RNN models and the
#                    conformance list in the GPU suite, one process)
#   suite.txt        that GPU suite's own TAP, one line per model, and its summary (written as it runs)
#   suite-torch.txt  the GPU suite on the PyTorch exports: onnxview's CPU and CUDA runs against PyTorch's outputs
#   concurrent.txt   2, 4, 8 `onnxview run --backend cuda` processes at once (scripts/gpu/concurrent.sh)
#   profile-M.txt    `run --profile` of each exported model's warm run: its time by op and node, host and device
#   bench.txt        bench/bench-cuda.py: warm runs against PyTorch eager, TF32 off and on, and TF32 off with
#                    the convolutions' algorithms from cuDNN's heuristics (OV_CUDA_CONV_FIND=0)
#   export.txt       bench/bench-cuda.py export's log
# Every step has a time limit, and the whole stays under GPU_RUN_LIMIT seconds (default 300).
# Env: GPU_RUN_LIMIT; GPU_RUN_MODELS (bench-cuda.py's models, default all five); GPU_RUN_SKIP (words: cuda export
# concurrent profile bench) to leave steps out; GPU_RUN_BENCH (the benchmark's passes, default "plain graph --tf32
# heuristics"; graph: OV_CUDA_GRAPH=1; also cudnn: every convolution through cuDNN; noperm, graph-noperm: plain and
# graph with every Transpose next to a MatMul run as a copy, OV_CUDA_MATMUL_PERM=0); PYTHON (default: /opt/torch/.venv/bin/python3 when it has onnx and numpy,
# else python3).
# No `exec > >(tee ...)` here: with background jobs, `wait` would wait for the tee for ever.
set -u -o pipefail
T0=$(date +%s)
LIMIT=${GPU_RUN_LIMIT:-300}
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/.gpu/out}
mkdir -p "$OUT"
R=$OUT/report.md
W=$(mktemp -d "${TMPDIR:-/tmp}/ov-gpu.XXXXXX")
skip=" ${GPU_RUN_SKIP:-} "

elapsed() { echo $(($(date +%s) - T0)); }
left() { echo $((LIMIT - $(elapsed))); }
say() { printf '%s\n' "$*" >>"$R"; }
# limit WANT: the seconds a step may take, WANT or what is left (keeping 10 s for the report), 0 when too little
limit() {
	local l=$(($(left) - 10))
	[ "$l" -gt "$1" ] && l=$1
	[ "$l" -lt 5 ] && l=0
	echo "$l"
}
# status line of a step: NAME EXIT SECONDS-TAKEN LIMIT
ended() {
	case $2 in
	0) say "- $1: done in $3 s" ;;
	124|137) say "- $1: **stopped by its time limit ($4 s)** after $3 s" ;;
	*) say "- $1: exit $2 after $3 s" ;;
	esac
}

printf '# onnxview on a GPU: scripts/gpu/run.sh\n\n' >"$R"
# (a copy of a working tree may sit on an older commit's history: the pack line names the build's commit)
say "started $(date -u '+%Y-%m-%d %H:%M:%S UTC'); time limit $LIMIT s; git HEAD here $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# ---- unpack, libraries, python ----
# tar with xz, or python's tarfile where xz is not installed
if ! { tar -C "$W" -xJf "$ROOT/.gpu/onnxview-gpu.tar.xz" 2>"$OUT/unpack.txt" ||
	python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
		"$ROOT/.gpu/onnxview-gpu.tar.xz" "$W" 2>>"$OUT/unpack.txt"; }; then
	say "**cannot unpack .gpu/onnxview-gpu.tar.xz** (scripts/gpu/pack.sh, and carry [\".gpu\"]): $(head -2 "$OUT/unpack.txt")"
	exit 1
fi
rm -f "$OUT/unpack.txt"
[ -f "$ROOT/.gpu/PACKED.txt" ] && say "pack: $(head -1 "$ROOT/.gpu/PACKED.txt")"
OV=$W/bin/onnxview
SUITE=$W/bin/gpu-suite
libdir() { # the folder of the first file called $1 under the folders after it
	local name=$1 d f
	shift
	for d in "$@"; do
		[ -d "$d" ] || continue
		f=$(find "$d" -name "$name" 2>/dev/null | head -1)
		[ -n "$f" ] && { dirname "$f"; return 0; }
	done
	return 1
}
blas_dir=$(libdir 'libcublas.so.13*' /opt/torch/.venv/lib /opt /usr/local/cuda/lib64 /usr/local/cuda /usr/lib)
dnn_dir=$(libdir 'libcudnn.so.9*' /opt/torch/.venv/lib /opt /usr/local/cuda /usr/lib)
LD_LIBRARY_PATH=$W/lib${blas_dir:+:$blas_dir}${dnn_dir:+:$dnn_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ONNXVIEW_DATADIR=$W/share/onnxview
OPENBLAS_NUM_THREADS=1
# the convolutions' timed choices kept across processes (src/exec/cuda/plancache.h), in a file of this run's: the
# first runs below say whether they timed or read them
OV_CUDA_PLAN_CACHE=$W/conv-plans
export LD_LIBRARY_PATH ONNXVIEW_DATADIR OPENBLAS_NUM_THREADS OV_CUDA_PLAN_CACHE
if [ -z "${PYTHON:-}" ]; then
	PYTHON=python3
	for p in /opt/torch/.venv/bin/python3 python3 /usr/bin/python3; do
		if "$p" -c 'import onnx, numpy' >/dev/null 2>&1; then
			PYTHON=$p
			break
		fi
	done
fi
export PYTHON

say ""
say "## The machine"
say '```'
{
	nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,utilization.gpu,compute_mode \
		--format=csv 2>&1 || echo "nvidia-smi: not there"
	echo "cores: $(nproc), $(uname -srm)"
	echo "cuBLAS from: ${blas_dir:-NOT FOUND}; cuDNN from: ${dnn_dir:-NOT FOUND}"
	"$OV" --version 2>&1
	echo "python: $PYTHON: $("$PYTHON" -c 'import sys, numpy, onnx; print(sys.version.split()[0], "numpy", numpy.__version__, "onnx", onnx.__version__)' 2>&1)"
	"$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.is_available())' 2>&1 | tail -1
	echo "missing libraries: $(ldd "$OV" "$SUITE" 2>&1 | grep -c 'not found')"
	ldd "$OV" "$SUITE" 2>&1 | grep 'not found'
} >>"$R" 2>&1
say '```'
models=${GPU_RUN_MODELS:-resnet18 mobilenet_v2 resnet50_b8 transformer vit_b16}
EXP=$W/exp

# ---- the PyTorch exports, in the background while the suite runs (CPU work) ----
export_pid=
if [ "${skip#* export }" = "$skip" ] && [ "$(limit 200)" -gt 0 ]; then
	el=$(limit 200)
	# shellcheck disable=SC2086
	timeout -k 5 "$el" "$PYTHON" "$ROOT/bench/bench-cuda.py" export "$EXP" $models >"$OUT/export.txt" 2>&1 &
	export_pid=$!
	export_t0=$(elapsed)
fi

# ---- tests/cuda.sh: every device check, the op models and the conformance list in the GPU suite ----
say ""
say "## Device checks (tests/cuda.sh, the GPU suite in one process)"
if [ "${skip#* cuda }" = "$skip" ] && [ "$(limit 170)" -gt 0 ]; then
	l=$(limit 170)
	s=$(elapsed)
	# the tests keep the plan cache off unless a check names a file (tests/lib.sh): not the one exported above,
	# whose timings from one check would answer the next (checks 11, 13 and 14 failed so on the simulator)
	SRCDIR=$ROOT BUILDDIR=$W ONNXVIEW=$OV GPU_SUITE=$SUITE GPU_SUITE_LOG=$OUT/suite.txt GPU_SUITE_TIMEOUT=60 \
		ONNXVIEW_TESTDATA=$W/testdata OV_CUDA_PLAN_CACHE=0 timeout -k 5 "$l" sh "$ROOT/tests/cuda.sh" \
		>"$OUT/cuda-tap.txt" 2>&1
	ended "tests/cuda.sh" $? $(($(elapsed) - s)) "$l"
	say "- its checks: $(grep -c '^ok' "$OUT/cuda-tap.txt") ok, $(grep -c '^not ok' "$OUT/cuda-tap.txt") not ok"
	say '```'
	grep '^not ok' "$OUT/cuda-tap.txt" | head -40 >>"$R"
	grep '^# gpu-suite:' "$OUT/suite.txt" 2>/dev/null | tail -1 >>"$R"
	grep '^Bail out!' "$OUT/suite.txt" 2>/dev/null >>"$R"
	say '```'
else
	say "- left out (GPU_RUN_SKIP or time)"
fi

# ---- concurrent processes ----
say ""
say "## Concurrent CUDA processes (scripts/gpu/concurrent.sh, the example model)"
if [ "${skip#* concurrent }" = "$skip" ] && [ "$(limit 80)" -gt 0 ]; then
	l=$(limit 80)
	s=$(elapsed)
	CONCURRENT_LIMIT=$((l / 4 > 60 ? 60 : l / 4)) timeout -k 5 "$l" \
		bash "$ROOT/scripts/gpu/concurrent.sh" "$OV" "$ONNXVIEW_DATADIR/examples/srcnn.onnx" 1 2 4 8 \
		>"$OUT/concurrent.txt" 2>&1
	ended "concurrent.sh" $? $(($(elapsed) - s)) "$l"
	say '```'
	head -40 "$OUT/concurrent.txt" >>"$R"
	say '```'
	# one small process, warm: where the start-up goes.  The least of 3 of each: --version (CUDA's initialisation:
	# it asks for the device), a lone Add on the CPU and on CUDA (no library), a small MatMul (the backend's own
	# product, no library) and the same through cuBLAS (OV_CUDA_MATMUL_BLAS=1: what starting cuBLAS costs), srcnn
	# (a run of its own: the backend's own convolution kernels, neither cuDNN nor cuBLAS).
	say '```'
	for job in "version -" "add cpu" "add cuda" "matmul cuda" "matmul-cublas cuda" "srcnn cpu" "srcnn cuda"; do
		set -- $job
		case $1 in
		add) model=$W/testdata/node/test_add/model.onnx ;;
		matmul*) model=$W/testdata/node/test_matmul_2d/model.onnx ;;
		*) model=$ONNXVIEW_DATADIR/examples/srcnn.onnx ;;
		esac
		mmblas=
		[ "$1" = matmul-cublas ] && mmblas=1
		best= rc=0
		for i in 1 2 3; do
			a=$(date +%s%N)
			if [ "$1" = version ]; then
				timeout 30 "$OV" --version >/dev/null 2>&1
			else
				OV_CUDA_MATMUL_BLAS=$mmblas timeout 30 "$OV" run "$model" --input random --backend "$2" >/dev/null 2>&1
			fi
			rc=$?
			t=$((($(date +%s%N) - a) / 1000000))
			[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
		done
		if [ "$1" = version ]; then
			say "one whole \`onnxview --version\` (CUDA initialised): $best ms (exit $rc)"
		else
			say "one whole \`onnxview run $(basename "$(dirname "$model")")/$(basename "$model") --backend $2\` ($1): $best ms (exit $rc)"
		fi
	done
	# where a small run's time goes: the driver's own start (cuInit and the primary context, timed in python
	# without its start-up), and the lone Add again with every module loaded at once (CUDA_MODULE_LOADING=EAGER)
	timeout 30 "$PYTHON" - >>"$R" 2>&1 <<'PY' || true
import ctypes, time
try:
    cu = ctypes.CDLL("libcuda.so.1")
    t = time.perf_counter(); r = cu.cuInit(0); t1 = time.perf_counter()
    ctx, dev = ctypes.c_void_p(), ctypes.c_int()
    cu.cuDeviceGet(ctypes.byref(dev), 0); r2 = cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    t2 = time.perf_counter()
    print("the driver alone: cuInit %.0f ms (%d), the primary context %.0f ms more (%d)" % ((t1 - t) * 1e3, r, (t2 - t1) * 1e3, r2))
except OSError as e:
    print("the driver alone: not measured (%s)" % e)
PY
	a=$(date +%s%N)
	CUDA_MODULE_LOADING=EAGER timeout 30 "$OV" run "$W/testdata/node/test_add/model.onnx" --input random --backend cuda >/dev/null 2>&1
	rc=$? t=$((($(date +%s%N) - a) / 1000000))
	say "one whole \`onnxview run test_add/model.onnx --backend cuda\` with CUDA_MODULE_LOADING=EAGER: $t ms (exit $rc)"
	say '```'
else
	say "- left out (GPU_RUN_SKIP or time)"
fi

# ---- the PyTorch exports: onnxview's CPU and CUDA against PyTorch, then the benchmark ----
say ""
say "## The current ONNX release's node tests (onnx 1.23.2, the CUDA list) on the CPU and CUDA, in one process"
if [ -s "$W/nodetests/list.txt" ] && [ "$(limit 60)" -gt 0 ]; then
	l=$(limit 60)
	s=$(elapsed)
	timeout -k 5 "$l" "$SUITE" --timeout 60 --progress 10 --conformance "$W/nodetests" "$W/nodetests/list.txt" \
		>"$W/suite-nodetests.txt" 2>&1
	ended "gpu-suite --conformance (onnx 1.23.2)" $? $(($(elapsed) - s)) "$l"
	say '```'
	grep -E '^not ok|^# gpu-suite|^Bail|^1\.\.0' "$W/suite-nodetests.txt" | head -40 >>"$R"
	say '```'
else
	say "- not packed (scripts/gpu/pack.sh packs them when tests/conformance.sh has made them) or no time left"
fi
say ""
say "## PyTorch exports against PyTorch (the GPU suite --runs)"
if [ -n "$export_pid" ]; then
	wait "$export_pid"
	ended "bench-cuda.py export" $? $(($(elapsed) - export_t0)) "$el"
	say '```'
	grep '^export:' "$OUT/export.txt" >>"$R"
	say '```'
fi
if [ -s "$EXP/runs.txt" ] && [ "$(limit 90)" -gt 0 ]; then
	l=$(limit 90)
	s=$(elapsed)
	timeout -k 5 "$l" "$SUITE" --timeout 60 --progress 10 --runs "$EXP/runs.txt" >"$OUT/suite-torch.txt" 2>&1
	ended "gpu-suite --runs" $? $(($(elapsed) - s)) "$l"
	say '```'
	grep -E '^(not )?ok|^# gpu-suite|^Bail|^1\.\.0' "$OUT/suite-torch.txt" >>"$R"
	say '```'
else
	say "- no exports to check (see export.txt) or no time left"
fi
say ""
say "## Where a warm run's time goes (onnxview run --backend cuda --repeat 10 --profile)"
if [ "${skip#* profile }" = "$skip" ] && [ -s "$EXP/runs.txt" ]; then
	for m in $models; do
		[ -s "$EXP/$m.onnx" ] || continue
		l=$(limit 30)
		[ "$l" -gt 0 ] || { say "- $m: no time left"; continue; }
		s=$(elapsed)
		timeout -k 5 "$l" "$OV" run "$EXP/$m.onnx" --input "x=$EXP/$m.x.npy" --backend cuda --repeat 10 --profile \
			>"$OUT/profile-$m.txt" 2>&1
		ended "profile $m" $? $(($(elapsed) - s)) "$l"
		say '```'
		grep -E '^(ran|repeat|profile)' "$OUT/profile-$m.txt" >>"$R"
		sed -n '/^profile of run/,$p' "$OUT/profile-$m.txt" | sed -n '2,14p' >>"$R"
		say '```'
	done
	# where a first run's time goes (libraries started by the first node that needs them, the weights' upload):
	# ResNet-18 in a fresh process, a run of its own, so the convolutions are not timed: own, the backend's own
	# convolution kernels (the default: no library started, cuda/conv-igemm.cu); with OV_CUDA_CONV_OWN=0 cuDNN:
	# cold, its heuristics; warm, the timed choices of the --repeat runs above, read from a copy of their plan cache
	# (so that the benchmark below keeps the one the runs above filled).  Each against PyTorch's output.
	for cache in own cold warm; do
		[ -s "$EXP/resnet18.onnx" ] && [ "$(limit 30)" -gt 0 ] || break
		own=0
		[ $cache = own ] && own= && rm -f "$W/first-plans"
		[ $cache = cold ] && rm -f "$W/first-plans"
		[ $cache = warm ] && { cp "$OV_CUDA_PLAN_CACHE" "$W/first-plans" 2>/dev/null || rm -f "$W/first-plans"; }
		expect=
		[ -s "$EXP/resnet18.y.npy" ] && expect="--expect y=$EXP/resnet18.y.npy --rtol 1e-3 --atol 1e-3"
		a=$(date +%s%N)
		# shellcheck disable=SC2086
		OV_CUDA_CONV_OWN=$own OV_CUDA_PLAN_CACHE=$W/first-plans timeout -k 5 "$(limit 30)" "$OV" run "$EXP/resnet18.onnx" \
			--input "x=$EXP/resnet18.x.npy" --backend cuda --profile $expect >"$OUT/profile-first-$cache-resnet18.txt" 2>&1
		say "- the first run of ResNet-18 in a fresh process, convolutions: $cache (${own:+OV_CUDA_CONV_OWN=0, }whole process $((($(date +%s%N) - a) / 1000000)) ms):"
		say '```'
		grep -E '^(ran|profile|PASS|FAIL)' "$OUT/profile-first-$cache-resnet18.txt" >>"$R"
		grep -m 3 'Conv: ' "$OUT/profile-first-$cache-resnet18.txt" >>"$R"
		sed -n '/slowest/,$p' "$OUT/profile-first-$cache-resnet18.txt" | head -6 >>"$R"
		say '```'
	done
	# a system-wide view, where NVIDIA's profiler is installed: kernels and CUDA API calls of the transformer
	nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
	say "- nsys: ${nsys:-not installed}"
	if [ -n "$nsys" ] && [ -s "$EXP/transformer.onnx" ] && [ "$(limit 60)" -gt 20 ]; then
		l=$(limit 60)
		(cd "$W" && timeout -k 5 "$l" "$nsys" profile -o "$W/nsys-tfm" --force-overwrite true --stats=true \
			"$OV" run "$EXP/transformer.onnx" --input "x=$EXP/transformer.x.npy" --backend cuda --repeat 20 \
			>"$OUT/nsys-transformer.txt" 2>&1)
		say "- nsys on the transformer: exit $? (nsys-transformer.txt)"
	fi
else
	say "- left out (GPU_RUN_SKIP, or no exports)"
fi
say ""
say "## Warm runs against PyTorch eager (bench/bench-cuda.py)"
if [ "${skip#* bench }" = "$skip" ] && [ -s "$EXP/runs.txt" ]; then
	# the third pass: float32 again with the convolutions' algorithms from cuDNN's heuristics instead of timed
	# (OV_CUDA_CONV_FIND=0), to show what the timed choice gains and costs on the first run
	# graph: float32 with the warm runs replayed as a CUDA graph (OV_CUDA_GRAPH=1, the default; the other passes
	# set 0 to time the runs node by node; bench.txt's report lines say whether each model was recorded, or why not)
	for tf in ${GPU_RUN_BENCH:-plain graph --tf32 heuristics}; do
		[ "$tf" = plain ] && tf=
		l=$(limit 75)
		[ "$l" -gt 0 ] || { say "- bench $tf: no time left"; continue; }
		s=$(elapsed)
		find=1 flag=$tf pw=1 graph=0 perm=1
		[ "$tf" = heuristics ] && find=0 flag=
		[ "$tf" = graph ] && graph=1 flag=
		[ "$tf" = noperm ] && perm=0 flag=
		[ "$tf" = graph-noperm ] && graph=1 perm=0 flag=
		# cudnn: every convolution through cuDNN (OV_CUDA_CONV_BLAS=0), not timed against cuBLAS products
		[ "$tf" = cudnn ] && pw=0 flag=
		say "- bench pass: ${tf:-plain} (OV_CUDA_CONV_FIND=$find OV_CUDA_CONV_BLAS=${pw/1/timed} OV_CUDA_GRAPH=$graph OV_CUDA_MATMUL_PERM=$perm ${flag})"
		# shellcheck disable=SC2086
		OV_CUDA_MATMUL_PERM=$perm OV_CUDA_GRAPH=$graph OV_CUDA_CONV_BLAS=${pw/1/} OV_CUDA_CONV_FIND=$find timeout -k 5 "$l" "$PYTHON" "$ROOT/bench/bench-cuda.py" bench "$OV" "$EXP" \
			$models --runs 20 $flag --md "$R" >>"$OUT/bench.txt" 2>&1
		ended "bench-cuda.py bench $tf" $? $(($(elapsed) - s)) "$l"
	done
	say '```'
	say "(the bench's first runs read the convolutions' choices from the plan cache the profiles above filled)"
	grep -v '^|' "$OUT/bench.txt" | head -45 >>"$R"
	say '```'
else
	say "- left out (GPU_RUN_SKIP, or no exports)"
fi
say ""
say "ended after $(elapsed) s of $LIMIT"
# the device tool brings back a few files only: the logs go back as one archive beside the report
(cd "$OUT" && ls | grep -v -x -e report.md -e logs.tar.gz | tar -czf logs.tar.gz -T - && ls | grep -v -x -e report.md -e logs.tar.gz | xargs rm -f) 2>/dev/null
rm -rf "$W"
exit 0
