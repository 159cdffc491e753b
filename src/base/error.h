/* One error channel for the core: a status code (which decides the exit status) and one line naming what is wrong. */
#ifndef OV_ERROR_H
#define OV_ERROR_H

#include <stddef.h>
#include <stdio.h>

/* X(name, exit status, short description).  The exit status follows the command-line contract:
 * 2 for usage errors, 3 for input that could not be read, 1 for problems found in a model. */
#define OV_STATUS_TABLE(X)                                        \
	X(OK, 0, "no error")                                      \
	X(IO, 3, "input/output error")                            \
	X(FORMAT, 3, "malformed model")                           \
	X(LIMIT, 3, "over a safety limit")                        \
	X(EXTERNAL, 3, "bad external data")                       \
	X(USAGE, 2, "usage error")                                \
	X(EXISTS, 1, "refused to replace an existing file")       \
	X(WRITE, 1, "could not write")                            \
	X(NOMEM, 3, "out of memory")                              \
	X(INVALID, 1, "invalid request")

enum ov_status {
#define OV_X(name, exit, desc) OV_##name,
	OV_STATUS_TABLE(OV_X)
#undef OV_X
	OV_STATUS_COUNT
};

struct ov_error {
	enum ov_status code;
	char msg[1024];
};

/* Record an error and return -1, so callers write `return ov_fail(err, OV_FORMAT, "...", ...)`.
 * err may be NULL (the message is then dropped). */
int ov_fail(struct ov_error *err, enum ov_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix an existing message with more context ("initializer 'w': " + old message). Returns -1. */
int ov_wrap(struct ov_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ov_error_clear(struct ov_error *err);
int ov_status_exit_code(enum ov_status code);

/* For front ends (cli/, ui/): print "onnxview: WHAT: message" to f (names and messages pass through
 * strbuf_put_safe, so bytes from a model never drive the terminal; what may be NULL) and return the exit status
 * of the error's code. */
int ov_error_report(FILE *f, const char *what, const struct ov_error *e);
/* Print "onnxview: message" and the usage lines to f; returns 2 (the usage exit status). */
int ov_usage_error(FILE *f, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *ov_status_name(enum ov_status code);

#endif
