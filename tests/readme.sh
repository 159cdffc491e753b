#!/bin/bash
# The README cannot drift: every example in it (an indented line "$ COMMAND", then the output it shows, up to a
# blank or unindented line) is run, in order, from a scratch folder laid out like the top of the source tree
# (./onnxview and share/), and its output (stdout and stderr) compared with the README's.  A line "..." in the shown
# output stands for any number of lines.  Also: the two install commands of the quick start name the steps
# scripts/install-deps.sh offers.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
scratch
README=$SRCDIR/README
[ -f "$README" ] || skip_all "no README in $SRCDIR"

# Split the README into examples: $TMP/ex/N.cmd (the command) and $TMP/ex/N.out (what it shows).
mkdir "$TMP/ex"
awk -v dir="$TMP/ex" '
	/^    \$ / { n++; cmd = dir "/" n ".cmd"; out = dir "/" n ".out"; sub(/^    \$ /, ""); print > cmd; printf "" > out;
		   close(cmd); inex = 1; next }
	inex && /^    / { sub(/^    /, ""); print >> out; next }
	{ if (inex) close(out); inex = 0 }' "$README"
n=$(find "$TMP/ex" -name '*.cmd' | wc -l)
check "the README has examples ($n)" [ "$n" -ge 5 ]

# Does got match want, where a want line "..." matches any lines?
matches() {
	awk -v wantf="$1" '
	BEGIN { while ((getline l < wantf) > 0) w[nw++] = l }
	{ g[ng++] = $0 }
	END {
		i = 0; j = 0
		while (i < nw) {
			if (w[i] == "...") {
				if (i == nw - 1) exit 0
				while (j < ng && g[j] != w[i + 1]) j++
				if (j == ng) exit 1
				i++
				continue
			}
			if (j >= ng || g[j] != w[i]) exit 1
			i++; j++
		}
		exit j == ng ? 0 : 1
	}' "$2"
}

mkdir "$TMP/top"
ln -s "$ONNXVIEW" "$TMP/top/onnxview"
ln -s "$SRCDIR/share" "$TMP/top/share"
for i in $(seq 1 "$n"); do
	cmd=$(cat "$TMP/ex/$i.cmd")
	tool=$(printf '%s\n' "$cmd" | grep -oE '\| *[a-z]+' | sed 's/| *//' | grep -vx 'head' | head -1)
	if [ -n "$tool" ] && ! command -v "$tool" >/dev/null; then
		skip "README example $i needs $tool (scripts/install-deps.sh test installs it): $cmd"
		continue
	fi
	(cd "$TMP/top" && bash -c "$cmd") >"$TMP/ex/$i.got" 2>&1
	if matches "$TMP/ex/$i.out" "$TMP/ex/$i.got"; then
		ok "README example $i: $cmd"
	else
		not_ok "README example $i: $cmd"
		diff -u "$TMP/ex/$i.out" "$TMP/ex/$i.got" | sed 's/^/# /' | head -30
	fi
done

# The quick start's commands: each runs one step of install-deps, and the step exists.
for step in build test; do
	check "the README installs with 'scripts/install-deps.sh $step'" grep -q "^    scripts/install-deps.sh $step && " "$README"
	check "scripts/install-deps.sh knows '$step'" grep -qE "^$step\) " "$SRCDIR/scripts/install-deps.sh"
done
# The build step installs nothing only the tests need.
build=$(sed -n '/^BUILD="/,/"$/p' "$SRCDIR/scripts/install-deps.sh")
check "the build step leaves out torch, torchvision and the test data" \
	bash -c "! printf '%s' \"\$1\" | grep -qE 'torch|testdata|tmux|clang'" _ "$build"
done_testing
