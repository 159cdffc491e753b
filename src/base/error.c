/* The core's error channel: formatting and the status table. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/base/error.h"
#include "src/base/strbuf.h"

static const struct {
	const char *name;
	int exit_code;
} status_table[] = {
#define OV_X(name, exit, desc) {#name, exit},
	OV_STATUS_TABLE(OV_X)
#undef OV_X
};
_Static_assert(sizeof status_table / sizeof status_table[0] == OV_STATUS_COUNT, "status table drifted");

int ov_fail(struct ov_error *err, enum ov_status code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int ov_wrap(struct ov_error *err, const char *fmt, ...)
{
	char prefix[512], old[sizeof err->msg];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	size_t pl = strlen(prefix), ol = strnlen(old, sizeof old - 1);
	if (pl > sizeof err->msg - 1)
		pl = sizeof err->msg - 1;
	if (ol > sizeof err->msg - 1 - pl)
		ol = sizeof err->msg - 1 - pl;
	memcpy(err->msg, prefix, pl);
	memcpy(err->msg + pl, old, ol);
	err->msg[pl + ol] = '\0';
	return -1;
}

void ov_error_clear(struct ov_error *err)
{
	if (err) {
		err->code = OV_OK;
		err->msg[0] = '\0';
	}
}

int ov_status_exit_code(enum ov_status code)
{
	return (unsigned)code < OV_STATUS_COUNT ? status_table[code].exit_code : 3;
}

const char *ov_status_name(enum ov_status code)
{
	return (unsigned)code < OV_STATUS_COUNT ? status_table[code].name : "?";
}

int ov_error_report(FILE *err, const char *what, const struct ov_error *e)
{
	struct strbuf b = {0};

	/* File names and messages may carry bytes from the model: never let them drive the terminal. */
	strbuf_puts(&b, "onnxview: ");
	if (what) {
		strbuf_put_safe(&b, what, strlen(what), 0);
		strbuf_puts(&b, ": ");
	}
	strbuf_put_safe(&b, e->msg, strlen(e->msg), 0);
	fprintf(err, "%s\n", strbuf_str(&b));
	strbuf_free(&b);
	return ov_status_exit_code(e->code);
}

int ov_usage_error(FILE *err, const char *usage, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(err, "onnxview: %s\n%s\n", msg, usage);
	return 2;
}
