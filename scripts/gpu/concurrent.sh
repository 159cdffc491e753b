#!/bin/bash
# Concurrent CUDA processes on one GPU: for each count N, N `onnxview run MODEL --input random --backend cuda`
# processes started together, each under `timeout`, with their wall times and exit statuses.  Two onnxview processes
# on one GPU (a TUI and a `run`) is ordinary: every one must end, with status 0, or with a clear line (never a wait
# without end: the backend's waits have a deadline, OV_CUDA_TIMEOUT, and timeout(1) backs it up here).
#
# Usage: scripts/gpu/concurrent.sh ONNXVIEW MODEL [N...]        (default N: 1 2 4 8)
# Env:   CONCURRENT_LIMIT  seconds each process may take (default 60); CONCURRENT_ARGS  more `run` arguments.
# Output: one line per N: "N=4: 4 ok, 0 failed, 0 timed out; wall min 0.61 s, median 0.70 s, max 0.74 s; all
# together 0.80 s", then each failure's status and first error line.  Exit status 0 when every process ended with
# status 0, 1 otherwise.
set -u
ov=${1:?usage: concurrent.sh ONNXVIEW MODEL [N...]}
model=${2:?usage: concurrent.sh ONNXVIEW MODEL [N...]}
shift 2
counts=${*:-1 2 4 8}
limit=${CONCURRENT_LIMIT:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/ov-concurrent.XXXXXX")
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
status=0
for n in $counts; do
	rm -f "$work"/*
	t0=$(now)
	pids=
	for i in $(seq 1 "$n"); do
		(
			s=$(now)
			# shellcheck disable=SC2086
			timeout -k 5 "$limit" "$ov" run "$model" --input random --backend cuda ${CONCURRENT_ARGS:-} \
				>"$work/$i.out" 2>"$work/$i.err"
			rc=$?
			e=$(now)
			echo "$rc $(awk "BEGIN { print $e - $s }")" >"$work/$i.res"
		) &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	t1=$(now)
	ok=0 failed=0 timedout=0
	: >"$work/times"
	for i in $(seq 1 "$n"); do
		read -r rc wall <"$work/$i.res" || { rc=255 wall=0; }
		echo "$wall" >>"$work/times"
		case $rc in
		0) ok=$((ok + 1)) ;;
		124|137) timedout=$((timedout + 1)); echo "  process $i of $n: did not end within $limit s (killed)" ;;
		*) failed=$((failed + 1)); echo "  process $i of $n: exit $rc: $(grep -v '^$' "$work/$i.err" | head -1)" ;;
		esac
	done
	sort -n "$work/times" -o "$work/times"
	min=$(head -1 "$work/times") max=$(tail -1 "$work/times")
	med=$(sed -n "$(( (n + 1) / 2 ))p" "$work/times")
	printf 'N=%d: %d ok, %d failed, %d timed out; wall min %.2f s, median %.2f s, max %.2f s; all together %.2f s\n' \
		"$n" "$ok" "$failed" "$timedout" "$min" "$med" "$max" "$(awk "BEGIN { print $t1 - $t0 }")"
	[ "$ok" -eq "$n" ] || status=1
done
exit $status
