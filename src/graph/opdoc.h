/* The operator documentation in our own words (ops-doc.txt): summary, category, PyTorch calls, history, text. */
#ifndef OV_OPDOC_H
#define OV_OPDOC_H

#include <stddef.h>

struct ov_error;

/* The file holds one record per operator:
 *
 *   == Resize                                  starts a record; the op's name
 *   domain: ai.onnx                            optional, ai.onnx by default
 *   category: shape                            one word (shape, conv, activation, norm, pool, ...)
 *   summary: one line
 *   pytorch: F.interpolate(x, scale_factor=2)  any number of these
 *   history: 11: what changed at opset 11      any number of these: VERSION: text
 *   text:                                      the rest of the record, up to the next "== " line, is free text
 *
 * Blank lines and '#' comment lines may come between records and between the keys of a record (inside the
 * text they are kept). Unknown keys are ignored, so the format can grow; a line that is not "key: value" or a
 * key given twice fails the load with its line number. Text is UTF-8; control characters other than tab are
 * refused. */

struct op_doc_history {
	int version;
	const char *text;
};

struct op_doc {
	const char *name;
	const char *domain;   /* "ai.onnx" when the record does not say */
	const char *category; /* NULL when not given, likewise summary and text */
	const char *summary;
	const char *const *pytorch;
	size_t n_pytorch;
	const struct op_doc_history *history; /* in file order */
	size_t n_history;
	const char *text;     /* lines joined with '\n', without blank lines at either end */
	int line;             /* of the "== " line */
};

struct opdoc;

/* Load path. Returns 0 with *out (free with opdoc_free), or -1 with err (OV_IO, or OV_FORMAT naming the line). */
int opdoc_load(struct opdoc **out, const char *path, struct ov_error *err);
/* The same from len bytes of memory; name is used in error messages. */
int opdoc_load_text(struct opdoc **out, const char *text, size_t len, const char *name, struct ov_error *err);
void opdoc_free(struct opdoc *d);

/* The program's documentation, datadir_path("ops-doc.txt"), loaded on first use and kept (not thread-safe).
 * Without it onnxview still works but explains nothing, so a missing or broken file is never silent: this returns
 * NULL with err naming the file and what is wrong (OV_IO when it is missing), the same on every later call, for
 * the front ends to say in one line. */
struct opdoc *opdoc_default(struct ov_error *err);

/* The record of op in domain ("" and NULL mean ai.onnx), or NULL. */
const struct op_doc *opdoc_find(const struct opdoc *d, const char *domain, const char *op);
/* Every record, in file order. */
const struct op_doc *opdoc_all(const struct opdoc *d, size_t *n);

#endif
