#!/bin/bash
# An installed onnxview works away from the trees it was built from: `make install DESTDIR=` into a scratch folder,
# then, in a private mount namespace (unshare -rm: no root needed, nothing seen outside), the source and build
# trees are hidden under empty folders and the staged prefix is mounted where it was configured to live, as on
# another machine.  There the installed `onnxview ops Resize` must show the PyTorch mapping (ops-doc.txt) and
# `info` must read the installed example; with a data file taken out of the installation, the program names the
# missing file in one line.  PREFIX, PKGDATADIR and BINDIR come from `make check` (configure's values).
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
[ -n "${PREFIX:-}" ] && [ -n "${PKGDATADIR:-}" ] && [ -n "${BINDIR:-}" ] ||
	skip_all "PREFIX, PKGDATADIR and BINDIR are not set (make check sets them)"
command -v unshare >/dev/null || skip_all "no unshare (util-linux)"
unshare -rm true 2>/dev/null || skip_all "this system refuses unprivileged mount namespaces (unshare -rm)"
case "$PKGDATADIR$BINDIR" in
*"$PREFIX"*) ;;
*) skip_all "the data and program folders are not under the prefix" ;;
esac
scratch
DEST=$TMP/dest

${MAKE:-make} -C "$BUILDDIR" install DESTDIR="$DEST" >"$TMP/install.log" 2>&1
rc=$?
check "make install DESTDIR=... succeeds" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { tail -20 "$TMP/install.log" | sed 's/^/# /'; done_testing; exit; }
for f in "$BINDIR/onnxview" "$PKGDATADIR/opdb.txt" "$PKGDATADIR/ops-doc.txt" "$PKGDATADIR/examples/srcnn.onnx"; do
	check "installed: $f" [ -s "$DEST$f" ]
done
check "installed: the man page" sh -c "ls '$DEST$PREFIX'/share/man/man1/onnxview.1* >/dev/null 2>&1"

# Run "$@" as the installed program would run on another machine: no source or build tree, no ONNXVIEW_DATADIR.
away() {
	unshare -rm bash -c '
		src=$1 build=$2 prefix=$3 staged=$4
		shift 4
		mount -t tmpfs none "$src" || exit 99
		if [ -d "$build" ]; then mount -t tmpfs none "$build" || exit 99; fi
		mkdir -p "$prefix" 2>/dev/null
		mount --bind "$staged" "$prefix" || exit 99
		[ ! -e "$src/README" ] || exit 98
		exec env -u ONNXVIEW_DATADIR "$@"' _ "$SRCDIR" "$BUILDDIR" "$PREFIX" "$DEST$PREFIX" "$@"
}

away "$BINDIR/onnxview" ops Resize >"$TMP/ops.out" 2>"$TMP/ops.err"
rc=$?
[ $rc -ne 99 ] || skip_all "the trees or the prefix could not be mounted over ($SRCDIR, $BUILDDIR, $PREFIX)"
check "away from the trees: ops Resize exits 0 ($rc)" [ $rc -eq 0 ]
check "away from the trees: ops Resize shows the PyTorch mapping" \
	sh -c "grep -q '^  PyTorch:' '$TMP/ops.out' && grep -q 'nn.Upsample' '$TMP/ops.out'"
check "away from the trees: ops Resize says nothing on stderr" [ ! -s "$TMP/ops.err" ]
sed 's/^/# /' "$TMP/ops.err" | head -5

away "$BINDIR/onnxview" info "$PKGDATADIR/examples/srcnn.onnx" >"$TMP/info.out" 2>"$TMP/info.err"
rc=$?
check "away from the trees: info on the installed example exits 0 ($rc)" [ $rc -eq 0 ]
check "away from the trees: info reads the example (graph srcnn, 6 nodes)" \
	sh -c "grep -q '^graph  *srcnn' '$TMP/info.out' && grep -q '^nodes  *6' '$TMP/info.out'"

# A data file missing from the installation is named, in one line, instead of silently dropping what it gives.
mv "$DEST$PKGDATADIR/ops-doc.txt" "$TMP/ops-doc.txt"
away "$BINDIR/onnxview" ops Resize >"$TMP/ops2.out" 2>"$TMP/ops2.err"
rc=$?
check "without ops-doc.txt: ops Resize still exits 0, the signatures shown ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q '^Resize-19' '$TMP/ops2.out'"
check "without ops-doc.txt: one line naming the missing file" \
	sh -c "[ \$(wc -l <'$TMP/ops2.err') -eq 1 ] && grep -q 'op documentation $PKGDATADIR/ops-doc.txt is missing' '$TMP/ops2.err'"
mv "$TMP/ops-doc.txt" "$DEST$PKGDATADIR/ops-doc.txt"
mv "$DEST$PKGDATADIR/opdb.txt" "$TMP/opdb.txt"
away "$BINDIR/onnxview" ops Resize >"$TMP/ops3.out" 2>"$TMP/ops3.err"
rc=$?
check "without opdb.txt: ops exits 3 with one line naming the missing file ($rc)" \
	sh -c "[ $rc -eq 3 ] && [ \$(wc -l <'$TMP/ops3.err') -eq 1 ] &&
		grep -q 'op database $PKGDATADIR/opdb.txt is missing' '$TMP/ops3.err'"
done_testing
