/* Loading the operator documentation (ops-doc.txt) into records, checking every line. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/datadir.h"
#include "src/base/error.h"
#include "src/graph/opdoc.h"

#define OPDOC_MAX_BYTES (16u << 20)

struct opdoc {
	char *text; /* a copy of the file; every string of the records points into it */
	struct op_doc *docs;
	size_t n_docs;
};

struct parser {
	struct opdoc *d;
	const char *name;
	struct ov_error *err;
	int line;
	struct op_doc *cur;
	int in_text;      /* inside a text block */
	char *text_start; /* its first non-blank line, once seen */
	char *text_end;   /* the end of its last non-blank line */
};

__attribute__((format(printf, 2, 3))) static int bad(struct parser *p, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ov_fail(p->err, OV_FORMAT, "%s:%d: %s", p->name, p->line, msg);
}

static int grow(void *arrp, size_t n, size_t size)
{
	void **arr = arrp;

	if (n && (n & (n - 1)))
		return 0;
	size_t cap = n ? n * 2 : 1;
	void *a = realloc(*arr, cap * size);
	if (!a)
		return -1;
	*arr = a;
	return 0;
}

static int is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Ends the text block of the current record, if one is open. */
static void close_text(struct parser *p)
{
	if (p->text_start) {
		*p->text_end = '\0';
		p->cur->text = p->text_start;
	}
	p->text_start = p->text_end = NULL;
	p->in_text = 0;
}

static int set_once(struct parser *p, const char **slot, const char *key, char *value)
{
	if (*slot)
		return bad(p, "%s: '%s' given twice", p->cur->name, key);
	if (!*value)
		return bad(p, "%s: '%s' is empty", p->cur->name, key);
	*slot = value;
	return 0;
}

static int add_history(struct parser *p, char *value)
{
	struct op_doc *c = p->cur;
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (end == value || *end != ':' || errno || v < 1 || v > 1000000 || *value == '-' || *value == '+')
		return bad(p, "%s: history is written 'VERSION: text', not '%.40s'", c->name, value);
	struct op_doc_history **arr = (struct op_doc_history **)&c->history;
	if (grow(arr, c->n_history, sizeof **arr))
		return ov_fail(p->err, OV_NOMEM, "out of memory");
	(*arr)[c->n_history++] = (struct op_doc_history){(int)v, trim(end + 1)};
	return 0;
}

static int start_record(struct parser *p, char *rest)
{
	struct opdoc *d = p->d;
	char *name = trim(rest);

	close_text(p);
	if (!*name || strpbrk(name, " \t"))
		return bad(p, "a record starts with '== NAME' (one word), not '== %.40s'", name);
	if (grow(&d->docs, d->n_docs, sizeof *d->docs))
		return ov_fail(p->err, OV_NOMEM, "out of memory");
	p->cur = &d->docs[d->n_docs++];
	memset(p->cur, 0, sizeof *p->cur);
	p->cur->name = name;
	p->cur->line = p->line;
	return 0;
}

/* A "key: value" line of the current record. line is NUL-terminated. */
static int key_line(struct parser *p, char *line)
{
	struct op_doc *c = p->cur;
	char *colon = strchr(line, ':'), *key, *value;

	if (!colon)
		return bad(p, "%s: expected 'key: value' or the next '== NAME', not '%.40s'", c->name, line);
	*colon = '\0';
	key = trim(line);
	if (!*key || strpbrk(key, " \t"))
		return bad(p, "%s: '%.40s' is not a key", c->name, key);
	if (strcmp(key, "text"))
		value = trim(colon + 1);
	else
		value = colon + 1;
	if (!strcmp(key, "domain")) {
		if (strpbrk(value, " \t"))
			return bad(p, "%s: domain '%.40s' has spaces", c->name, value);
		return set_once(p, &c->domain, key, value);
	}
	if (!strcmp(key, "category")) {
		if (strpbrk(value, " \t"))
			return bad(p, "%s: category '%.40s' is not one word", c->name, value);
		return set_once(p, &c->category, key, value);
	}
	if (!strcmp(key, "summary"))
		return set_once(p, &c->summary, key, value);
	if (!strcmp(key, "pytorch")) {
		if (!*value)
			return bad(p, "%s: 'pytorch' is empty", c->name);
		const char ***arr = (const char ***)&c->pytorch;
		if (grow(arr, c->n_pytorch, sizeof **arr))
			return ov_fail(p->err, OV_NOMEM, "out of memory");
		(*arr)[c->n_pytorch++] = value;
		return 0;
	}
	if (!strcmp(key, "history"))
		return add_history(p, value);
	if (!strcmp(key, "text")) {
		/* Everything up to the next record is text; text on the "text:" line itself is its first line. */
		char *inline_text = colon + 1;
		while (*inline_text == ' ' || *inline_text == '\t')
			inline_text++;
		p->in_text = 1;
		if (*inline_text) {
			p->text_start = inline_text;
			p->text_end = inline_text + strlen(inline_text);
		}
		return 0;
	}
	return 0; /* unknown keys are for newer readers */
}

static int check_duplicates(struct parser *p)
{
	struct opdoc *d = p->d;

	for (size_t i = 0; i < d->n_docs; i++) {
		struct op_doc *c = &d->docs[i];
		if (!c->domain || !strcmp(c->domain, ""))
			c->domain = "ai.onnx";
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->docs[j].name, c->name) && !strcmp(d->docs[j].domain, c->domain)) {
				p->line = c->line;
				return bad(p, "%s (%s) is documented twice (first at line %d)", c->name, c->domain,
					   d->docs[j].line);
			}
	}
	return 0;
}

static int parse(struct parser *p, char *buf, size_t len)
{
	char *line = buf, *end = buf + len;

	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - line);

		p->line++;
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)line[i];
			if ((ch < ' ' && ch != '\t') || ch == 0x7f)
				return bad(p, "control character 0x%02x at column %zu", ch, i + 1);
		}
		if (n >= 3 && !memcmp(line, "== ", 3)) {
			*eol = '\0';
			close_text(p);
			if (start_record(p, line + 3))
				return -1;
		} else if (p->in_text) {
			/* Text lines stay in place, newlines and all; blank lines at either end are dropped. */
			if (!is_blank(line, n)) {
				if (!p->text_start)
					p->text_start = line;
				p->text_end = eol;
			}
		} else {
			*eol = '\0';
			if (is_blank(line, n) || line[0] == '#')
				; /* blank and comment lines */
			else if (!p->cur)
				return bad(p, "text before the first record (records start with '== NAME')");
			else if (key_line(p, line))
				return -1;
			else if (p->in_text && p->text_start && nl)
				*eol = '\n'; /* "text: first line" goes on with the next lines */
		}
		line = eol + 1;
	}
	close_text(p);
	return 0;
}

/* CRLF line ends become LF, so text blocks hold plain newlines. Returns the new length. */
static size_t drop_cr(char *buf, size_t len)
{
	size_t w = 0;

	for (size_t r = 0; r < len; r++)
		if (!(buf[r] == '\r' && r + 1 < len && buf[r + 1] == '\n'))
			buf[w++] = buf[r];
	buf[w] = '\0';
	return w;
}

int opdoc_load_text(struct opdoc **out, const char *text, size_t len, const char *name, struct ov_error *err)
{
	struct opdoc *d;
	struct parser p = {.name = name ? name : "ops-doc", .err = err};

	*out = NULL;
	if (len > OPDOC_MAX_BYTES)
		return ov_fail(err, OV_LIMIT, "%s: larger than %u bytes", p.name, OPDOC_MAX_BYTES);
	d = calloc(1, sizeof *d);
	if (!d || !(d->text = malloc(len + 1))) {
		free(d);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	p.d = d;
	memcpy(d->text, text, len);
	d->text[len] = '\0';
	if (memchr(d->text, '\0', len)) {
		for (const char *c = d->text; *c; c++)
			p.line += *c == '\n';
		p.line++;
		bad(&p, "NUL byte: not a text file");
		opdoc_free(d);
		return -1;
	}
	len = drop_cr(d->text, len);
	if (parse(&p, d->text, len) || check_duplicates(&p)) {
		opdoc_free(d);
		return -1;
	}
	*out = d;
	return 0;
}

int opdoc_load(struct opdoc **out, const char *path, struct ov_error *err)
{
	char *text;
	size_t len;

	*out = NULL;
	if (datadir_read(path, OPDOC_MAX_BYTES, &text, &len, err))
		return -1;
	int rc = opdoc_load_text(out, text, len, path, err);
	free(text);
	return rc;
}

void opdoc_free(struct opdoc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_docs; i++) {
		free((void *)d->docs[i].pytorch);
		free((void *)d->docs[i].history);
	}
	free(d->docs);
	free(d->text);
	free(d);
}

struct opdoc *opdoc_default(struct ov_error *err)
{
	static struct opdoc *cached;
	static struct ov_error failed; /* why the documentation could not be had, said on every call */
	char path[4096];

	ov_error_clear(err);
	if (cached)
		return cached;
	if (failed.code != OV_OK) {
		*err = failed;
		return NULL;
	}
	if (!datadir_path("ops-doc.txt", path, sizeof path))
		ov_fail(&failed, OV_IO, "the data folder's path is too long");
	else if (access(path, F_OK) != 0 && errno == ENOENT)
		ov_fail(&failed, OV_IO, "the op documentation %s is missing: no explanations or PyTorch mappings (is onnxview "
			"installed? ONNXVIEW_DATADIR names another folder)", path);
	else if (opdoc_load(&cached, path, &failed))
		cached = NULL;
	else
		return cached;
	*err = failed;
	return NULL;
}

const struct op_doc *opdoc_find(const struct opdoc *d, const char *domain, const char *op)
{
	if (!d || !op)
		return NULL;
	if (!domain || !*domain)
		domain = "ai.onnx";
	for (size_t i = 0; i < d->n_docs; i++)
		if (!strcmp(d->docs[i].name, op) && !strcmp(d->docs[i].domain, domain))
			return &d->docs[i];
	return NULL;
}

const struct op_doc *opdoc_all(const struct opdoc *d, size_t *n)
{
	*n = d ? d->n_docs : 0;
	return d ? d->docs : NULL;
}
