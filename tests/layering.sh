#!/bin/bash
# The layers of DESIGN.md section 2, checked on the tree: every folder is a layer, and every #include and every
# call goes from a layer to one it may use (the table below), never up.  Then the house rules: the core never
# includes curses or calls exit(), and the UI never reads protobuf structs behind the core's back.
#
# Includes are read from the sources; calls from the built libraries (nm: a library's undefined symbols must be
# defined in itself or in a library it may use), when BUILDDIR has them.  The checker is also run on a planted
# violation of each kind, so it cannot pass by seeing nothing.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
cd "$SRCDIR" || exit 1

# layer: the layers it may use besides itself.  gen is the generated ONNX schema; "kernel" is the runner's
# interface to kernels and backends (src/exec/exec.h, xtensor.h, device.h), which the op setups and both
# backends implement.
USES='
base:     gen
model:    gen base
graph:    gen base model
check:    gen base model graph
edit:     gen base model graph check
present:  gen base model graph check
graphviz: gen base model graph present
ops:      gen base model graph kernel
cpu:      gen base model graph ops kernel
cuda:     gen base model graph ops kernel sim
sim:      cuda
exec:     gen base model graph ops kernel
report:   gen base model graph check edit present graphviz exec kernel
cli:      gen base model graph check edit present graphviz exec kernel report tui
ui:       gen base model graph check edit present graphviz exec kernel report
'

# The layer of a source path (its folder), on stdin one path a line; "-" for what is no layer.
layer_of='
function layer(p) {
	if (p ~ /^gen\//) return "gen"
	if (p == "src/exec/exec.h" || p == "src/exec/xtensor.h" || p == "src/exec/device.h") return "kernel"
	if (p == "ui/tui.h") return "tui"
	if (p ~ /^src\/exec\/cuda\/sim\//) return "sim"
	if (p ~ /^src\/exec\/(ops|cpu|cuda)\//) { split(p, a, "/"); return a[3] }
	if (p ~ /^src\/[a-z]+\//) { split(p, a, "/"); return a[2] }
	if (p ~ /^(cli|ui)\//) { split(p, a, "/"); return a[1] }
	return "-"
}'

# Read "FILE:#include \"HEADER\"" lines on stdin; print each include that goes where its layer may not.
check_includes() {
	awk -v uses="$USES" "$layer_of"'
	BEGIN {
		n = split(uses, rows, "\n")
		for (i = 1; i <= n; i++) {
			if (split(rows[i], w, /[: ]+/) < 1 || w[1] == "") continue
			ok[w[1] SUBSEP w[1]] = 1
			for (k = 2; k in w; k++) if (w[k] != "") ok[w[1] SUBSEP w[k]] = 1
			known[w[1]] = 1
		}
		ok["kernel" SUBSEP "exec"] = 1
	}
	{
		file = $0; sub(/:.*/, "", file)
		hdr = $0; sub(/^[^"]*"/, "", hdr); sub(/".*/, "", hdr)
		if (hdr == "config.h") next
		from = layer(file); to = layer(hdr)
		if (from == "kernel") from = "exec"
		if (from == "ui" && to == "tui") next
		if (from == "-") { print file ": not in any layer folder"; next }
		if (!(from in known)) { print file ": folder of no known layer (" from ")"; next }
		if (to == "kernel" && from == "exec") next
		if (!((from SUBSEP to) in ok)) print file " (" from ") includes " hdr " (" to ")"
	}'
}

# The sources (find, not git: the test runs in a release tarball too).
sources() { find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cc' \) | sort; }
includes=$(sources src cli ui | xargs grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"')
bad=$(printf '%s\n' "$includes" | check_includes)
check "every include goes down the layers${bad:+: $(printf '%s\n' "$bad" | head -20 | tr '\n' ';')}" [ -z "$bad" ]
loose=$(find src -maxdepth 1 -type f)
check "no file lies loose in src/ (each layer is a folder)${loose:+: $loose}" [ -z "$loose" ]

# The checker sees a planted violation: the element types (base) including the graph index (graph), and a kernel
# file including the CUDA backend.
planted=$(printf '%s\n' 'src/base/dtype.c:#include "src/graph/graph.h"' 'src/exec/cpu/conv.c:#include "src/exec/cuda/backend.h"' |
	check_includes | wc -l)
check "a planted upward include is found (2 of 2: $planted)" [ "$planted" -eq 2 ]

# Calls: the built libraries' undefined symbols against what each library defines.
LIBS='base model graph check edit present graphviz exec report cli ui'
check_calls() { # $1: folder of the libraries
	for l in $LIBS; do
		[ -f "$1/libov$l.a" ] || return 2
		nm -g --defined-only "$1/libov$l.a" 2>/dev/null | awk -v l="$l" 'NF == 3 { print "D", l, $3 }'
		nm -g -u "$1/libov$l.a" 2>/dev/null | awk -v l="$l" 'NF == 2 && $1 == "U" { print "U", l, $2 }'
	done | awk -v uses="$USES" '
	BEGIN {
		n = split(uses, rows, "\n")
		for (i = 1; i <= n; i++) {
			if (split(rows[i], w, /[: ]+/) < 1 || w[1] == "") continue
			for (k = 2; k in w; k++) if (w[k] != "") ok[w[1] SUBSEP w[k]] = 1
		}
		# the exec library holds the runner, the op setups, the CPU kernels and the CUDA helpers
		ok["exec" SUBSEP "exec"] = 1
	}
	$1 == "D" { if (!($3 in def)) def[$3] = $2; next }
	{ u[NR] = $2 " " $3 }
	END {
		for (i in u) {
			split(u[i], w, " ")
			d = def[w[2]]
			if (d != "" && d != w[1] && !((w[1] SUBSEP d) in ok))
				print "libov" w[1] ".a calls " w[2] " of libov" d ".a"
		}
	}'
}
if [ -f "$BUILDDIR/libovbase.a" ]; then
	bad=$(check_calls "$BUILDDIR")
	check "every call goes down the layers (nm of the libraries)${bad:+: $(printf '%s\n' "$bad" | head -20 | tr '\n' ';')}" [ -z "$bad" ]
	# Planted: a copy of the base library that also holds the report layer's objects calls up into exec.
	scratch
	for l in $LIBS; do cp "$BUILDDIR/libov$l.a" "$TMP/"; done
	(cd "$TMP" && mkdir x && cd x && ar x ../libovreport.a && ar q ../libovbase.a ./*.o) 2>/dev/null
	planted=$(check_calls "$TMP" | grep -c 'libovbase.a calls')
	check "a planted upward call is found ($planted)" [ "$planted" -gt 0 ]
else
	skip "calls between the layers: the libraries are not built in $BUILDDIR"
fi

# Edit command files hold their command only (src/edit/cmd/): none calls a function that another one defines; what
# commands share lives in src/edit/ under a name for what it offers.
cmd_calls() { # object files
	for o in "$@"; do
		nm -g --defined-only "$o" 2>/dev/null | awk -v f="${o##*/}" 'NF == 3 { print "D", f, $3 }'
		nm -u "$o" 2>/dev/null | awk -v f="${o##*/}" '$1 == "U" { print "U", f, $2 }'
	done | awk '
	$1 == "D" { def[$3] = $2; next }
	{ u[NR] = $2 " " $3 }
	END { for (i in u) { split(u[i], w, " "); if (def[w[2]] != "" && def[w[2]] != w[1]) print w[1] " calls " w[2] " of " def[w[2]] } }'
}
cmd_objs=$(ls "$BUILDDIR"/src/edit/cmd/*.o 2>/dev/null)
if [ -n "$cmd_objs" ] && [ -f "$BUILDDIR/src/edit/declare.o" ]; then
	# shellcheck disable=SC2086
	bad=$(cmd_calls $cmd_objs | sort)
	check "no edit command file calls another (nm of src/edit/cmd/*.o)${bad:+: $(printf '%s\n' "$bad" | head -20 | tr '\n' ';')}" [ -z "$bad" ]
	# Planted: a helper file counted as a command file is found (set-type and others call its functions).
	# shellcheck disable=SC2086
	planted=$(cmd_calls $cmd_objs "$BUILDDIR/src/edit/declare.o" | grep -c 'of declare.o')
	check "a planted call between command files is found ($planted)" [ "$planted" -gt 0 ]
else
	skip "calls between edit command files: src/edit/cmd/*.o are not built in $BUILDDIR"
fi

# House rules.
hits=$(sources src | xargs grep -lE '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/)' 2>/dev/null)
check "src/ never includes curses${hits:+ (found in: $hits)}" [ -z "$hits" ]
hits=$(sources ui | xargs grep -nE 'Onnx__|->proto\b|onnx\.pb-c\.h' 2>/dev/null)
check "ui/ never touches protobuf structs${hits:+ (found: $hits)}" [ -z "$hits" ]
hits=$(sources src | grep -v '\.h$' | xargs grep -lE '\bexit[[:space:]]*\(' 2>/dev/null)
check "src/ never calls exit()${hits:+ (found in: $hits)}" [ -z "$hits" ]
done_testing
