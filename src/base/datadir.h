/* Where the program's data files (the op database, the op documentation) are found, and reading them whole. */
#ifndef OV_DATADIR_H
#define OV_DATADIR_H

#include <stddef.h>

struct ov_error;

/* The path of data file `file` (a bare name such as "opdb.txt"), written into buf (n bytes):
 *   $ONNXVIEW_DATADIR/file   when that variable is set and not empty (whether or not the file is there, so a
 *                            wrong setting shows up as an error naming it);
 *   OV_DATADIR/file          the installed copy ($(pkgdatadir)), when it exists;
 *   OV_SRCDATADIR/file       the source tree's share/onnxview, when it exists and this binary lies inside the build
 *                            folder it was built in (OV_BUILDDIR): an installed copy never reads a source tree;
 *   OV_DATADIR/file          otherwise, so that the error names the place the file should have been.
 * Returns buf, or NULL when the path does not fit in n bytes. */
const char *datadir_path(const char *file, char *buf, size_t n);

/* Read a whole file of at most max bytes into a new NUL-terminated buffer (*len excludes the NUL; the caller
 * frees *buf). A file with a NUL byte in it is refused, since it cannot be text. Returns 0, or -1 with err
 * (OV_IO: cannot open or read, naming the path; OV_LIMIT: larger than max; OV_FORMAT: NUL byte). */
int datadir_read(const char *path, size_t max, char **buf, size_t *len, struct ov_error *err);

#endif
