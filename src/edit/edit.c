/* The edit engine: parsing command lines, running commands with undo snapshots, the journal, scripts. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/edit/edit.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"
#include "src/model/save.h"

#define UNDO_BUDGET (256u << 20) /* history beyond this (snapshots and the payloads they keep) drops the oldest undo steps */

int edit_session_open(struct edit_session **out, struct ov_model *m, struct ov_error *err)
{
	struct edit_session *s = calloc(1, sizeof *s);

	*out = NULL;
	if (!s)
		return ov_fail(err, OV_NOMEM, "out of memory");
	s->m = m;
	s->save_path = m->path;
	s->save_flags = 0;
	*out = s;
	return 0;
}

static void entry_free(struct edit_entry *e)
{
	free(e->line);
	model_snapshot_free(e->before);
	model_snapshot_free(e->after);
}

void edit_session_free(struct edit_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_journal; i++)
		entry_free(&s->journal[i]);
	free(s->journal);
	for (size_t i = 0; i < s->n_pending; i++)
		save_discard(s->pending[i]);
	free(s->pending);
	shapes_free(s->sh);
	graph_free(s->g);
	free(s);
}

void edit_touch(struct edit_session *s)
{
	shapes_free(s->sh);
	graph_free(s->g);
	s->sh = NULL;
	s->g = NULL;
}

int edit_index(struct edit_session *s, struct ov_error *err)
{
	if (s->g && s->sh)
		return 0;
	edit_touch(s);
	if (graph_build(&s->g, s->m->proto->graph, err))
		return -1;
	if (shape_infer(&s->sh, s->m, s->g, err)) {
		graph_free(s->g);
		s->g = NULL;
		return -1;
	}
	return 0;
}

int32_t edit_node(struct edit_session *s, const char *ref, struct ov_error *err)
{
	if (edit_index(s, err))
		return -1;
	int32_t i = graph_find_node(s->g, ref);
	if (i < 0) {
		if (ref[0] == '#')
			ov_fail(err, OV_INVALID, "no node %s (the graph has nodes #0 to #%u)", ref,
				s->g->n_nodes ? s->g->n_nodes - 1 : 0);
		else
			ov_fail(err, OV_INVALID, "no node named '%s' (use #N for a node's index)", ref);
		return -1;
	}
	if (ref[0] != '#' && s->g->n_duplicate_names) {
		for (uint32_t k = 0; k < s->g->n_nodes; k++)
			if ((int32_t)k != i && s->g->nodes[k].proto->name && !strcmp(s->g->nodes[k].proto->name, ref)) {
				ov_fail(err, OV_INVALID, "more than one node is named '%s' (#%d and #%u): use #N", ref, i, k);
				return -1;
			}
	}
	return i;
}

int32_t edit_value(struct edit_session *s, const char *name, struct ov_error *err)
{
	if (edit_index(s, err))
		return -1;
	int32_t id = graph_value_id(s->g, name);
	if (id < 0 || s->g->values[id].origin == VALUE_UNDEFINED) {
		ov_fail(err, OV_INVALID, "no value named '%s' in the graph", name);
		return -1;
	}
	return id;
}

void edit_say(struct edit_session *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!s->say)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* Notes quote names from the model: never let their bytes drive the terminal. */
	struct strbuf b = {0};
	strbuf_put_safe(&b, buf, strlen(buf), 0);
	s->say(s->say_ctx, strbuf_str(&b));
	strbuf_free(&b);
}

char *edit_strdup(struct edit_session *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *p = s->m->alloc.alloc(s->m->alloc.allocator_data, n);

	if (p)
		memcpy(p, str, n);
	return p;
}

/* ---- parsing ---- */

void edit_free_words(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

int edit_split(const char *line, char ***out, struct ov_error *err)
{
	char **argv = NULL;
	int argc = 0;
	const char *p = line;

	*out = NULL;
	for (;;) {
		struct strbuf w = {0};
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p)
			break;
		int depth = 0, quoted = 0;
		for (; *p; p++) {
			char c = *p;
			if (quoted) {
				if (c == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) && isxdigit((unsigned char)p[3])) {
					/* \xHH: any byte, as check's hints write names that hold control characters */
					char hex[3] = {p[2], p[3], 0};
					int byte = (int)strtol(hex, NULL, 16);
					if (!byte) {
						strbuf_free(&w);
						edit_free_words(argc, argv);
						return ov_fail(err, OV_USAGE, "\\x00 in: %s (a name cannot hold a NUL byte)", line);
					}
					strbuf_putc(&w, (char)byte);
					p += 3;
				} else if (c == '\\' && p[1]) {
					p++;
					strbuf_putc(&w, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
				} else if (c == '"')
					quoted = 0;
				else
					strbuf_putc(&w, c);
				continue;
			}
			if (c == '"' && depth == 0) {
				quoted = 1;
				continue;
			}
			if (c == '[')
				depth++;
			else if (c == ']' && --depth < 0)
				break;
			else if ((c == ' ' || c == '\t' || c == '\r' || c == '\n') && depth == 0)
				break;
			strbuf_putc(&w, c);
			if (c == '"' && depth > 0) { /* a quoted string inside a list stays quoted */
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && p[1])
						strbuf_putc(&w, *p++);
					strbuf_putc(&w, *p);
				}
				if (*p)
					strbuf_putc(&w, '"');
				else
					p--;
			}
		}
		if (quoted || depth != 0) {
			strbuf_free(&w);
			edit_free_words(argc, argv);
			return ov_fail(err, OV_USAGE, quoted ? "unterminated \" in: %s" : "unbalanced [ ] in: %s", line);
		}
		char **na = realloc(argv, (size_t)(argc + 2) * sizeof *na);
		char *word = strdup(strbuf_str(&w));
		strbuf_free(&w);
		if (!na || !word || w.failed) {
			free(word);
			if (na)
				argv = na;
			edit_free_words(argc, argv);
			return ov_fail(err, OV_NOMEM, "out of memory");
		}
		argv = na;
		argv[argc++] = word;
		argv[argc] = NULL;
	}
	*out = argv;
	return argc;
}

int edit_parse_int(const char *s, int64_t *v, struct ov_error *err)
{
	char *end;

	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (!*s || *end || errno)
		return ov_fail(err, OV_USAGE, "'%s' is not an integer", s);
	*v = x;
	return 0;
}

int edit_is_decimal(const char *s)
{
	const char *p = s + (*s == '+' || *s == '-');
	size_t digits = 0;

	if (!strcasecmp(p, "nan") || !strcasecmp(p, "inf") || !strcasecmp(p, "infinity"))
		return 1;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return 0;
	if (*p == 'e' || *p == 'E') {
		p += p[1] == '+' || p[1] == '-' ? 2 : 1;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return !*p;
}

int edit_parse_float(const char *s, double *v, struct ov_error *err)
{
	char *end;

	/* strtod alone would also take hex (0x10 is 16), hex floats and nan(chars): values are read strictly */
	if (!edit_is_decimal(s))
		return ov_fail(err, OV_USAGE, "'%s' is not a number", s);
	errno = 0;
	double x = strtod(s, &end);
	if (*end)
		return ov_fail(err, OV_USAGE, "'%s' is not a number", s);
	if (errno == ERANGE && isinf(x))
		return ov_fail(err, OV_USAGE, "'%s' is out of range", s);
	*v = x;
	return 0;
}

void edit_free_list(char **items, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

struct list_parser {
	const char *p, *start;
	char **items;
	int64_t n, cap;
	int64_t dims[16];
	int rank;          /* -1 until the first leaf fixes it */
	int64_t count[16]; /* elements seen at each depth in the current list */
	struct ov_error *err;
};

static void skip_ws(struct list_parser *lp)
{
	while (*lp->p == ' ' || *lp->p == '\t')
		lp->p++;
}

static int list_item(struct list_parser *lp, int depth);

static int list_leaf(struct list_parser *lp, int depth)
{
	const char *b = lp->p;

	if (*lp->p == '"') {
		for (lp->p++; *lp->p && *lp->p != '"'; lp->p++)
			if (*lp->p == '\\' && lp->p[1])
				lp->p++;
		if (*lp->p != '"')
			return ov_fail(lp->err, OV_USAGE, "unterminated string in '%s'", lp->start);
		lp->p++;
	} else {
		while (*lp->p && *lp->p != ',' && *lp->p != ']' && *lp->p != ' ' && *lp->p != '\t' && *lp->p != '[')
			lp->p++;
	}
	if (lp->p == b)
		return ov_fail(lp->err, OV_USAGE, "missing value at column %d of '%s'", (int)(b - lp->start) + 1,
			       lp->start);
	if (lp->rank < 0)
		lp->rank = depth;
	else if (lp->rank != depth)
		return ov_fail(lp->err, OV_USAGE, "'%s' mixes nesting depths", lp->start);
	if (lp->n == lp->cap) {
		int64_t cap = lp->cap ? lp->cap * 2 : 16;
		char **ni = realloc(lp->items, (size_t)cap * sizeof *ni);
		if (!ni)
			return ov_fail(lp->err, OV_NOMEM, "out of memory");
		lp->items = ni;
		lp->cap = cap;
	}
	lp->items[lp->n] = strndup(b, (size_t)(lp->p - b));
	if (!lp->items[lp->n])
		return ov_fail(lp->err, OV_NOMEM, "out of memory");
	lp->n++;
	return 0;
}

static int list_item(struct list_parser *lp, int depth)
{
	skip_ws(lp);
	if (*lp->p != '[')
		return list_leaf(lp, depth);
	if (depth >= 15)
		return ov_fail(lp->err, OV_USAGE, "'%s' is nested too deeply", lp->start);
	lp->p++;
	int64_t count = 0;
	skip_ws(lp);
	if (*lp->p == ']') {
		lp->p++;
	} else {
		for (;;) {
			if (list_item(lp, depth + 1))
				return -1;
			count++;
			skip_ws(lp);
			if (*lp->p == ',') {
				lp->p++;
				continue;
			}
			if (*lp->p == ']') {
				lp->p++;
				break;
			}
			return ov_fail(lp->err, OV_USAGE, "expected ',' or ']' at column %d of '%s'",
				       (int)(lp->p - lp->start) + 1, lp->start);
		}
	}
	/* Every list at one depth has the same length (no ragged tensors). */
	if (lp->count[depth] == 0)
		lp->count[depth] = count + 1; /* stored +1 so 0 means unseen */
	else if (lp->count[depth] != count + 1)
		return ov_fail(lp->err, OV_USAGE, "'%s' is ragged: lists at one depth differ in length", lp->start);
	lp->dims[depth] = count;
	if (count == 0 && lp->rank < 0)
		lp->rank = depth + 1;
	return 0;
}

int edit_parse_list(const char *text, char ***items, int64_t *n, int64_t *dims, int *rank, struct ov_error *err)
{
	struct list_parser lp = {.p = text, .start = text, .rank = -1, .err = err};

	*items = NULL;
	*n = 0;
	if (list_item(&lp, 0))
		goto fail;
	skip_ws(&lp);
	if (*lp.p) {
		ov_fail(err, OV_USAGE, "unexpected '%s' after the value", lp.p);
		goto fail;
	}
	*rank = lp.rank < 0 ? 0 : lp.rank;
	for (int i = 0; i < *rank; i++)
		dims[i] = lp.dims[i];
	*items = lp.items;
	*n = lp.n;
	return 0;
fail:
	edit_free_list(lp.items, lp.n);
	return -1;
}

/* ---- running ---- */

static int is_blank_or_comment(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return !*line || *line == '\n' || *line == '\r' || (line[0] == '#' && (line[1] == ' ' || line[1] == '\t' ||
		 line[1] == '\n' || line[1] == '\r' || line[1] == '#' || !line[1]));
}

/* Drop undo steps from the oldest while the history holds more than the budget: the snapshots' structure, and the
 * tensor payloads they alone keep alive (each set-tensor on a 16 MB tensor keeps the old 16 MB for its undo).  The
 * last command stays undoable whatever it costs. */
static void trim_undo(struct edit_session *s)
{
	for (size_t i = 0; i + 1 < s->n_applied &&
			   s->undo_bytes + model_retained_bytes(s->m) > UNDO_BUDGET; i++) {
		struct edit_entry *e = &s->journal[i];
		if (!e->before && !e->after)
			continue;
		s->undo_bytes -= model_snapshot_size(e->before) + model_snapshot_size(e->after);
		model_snapshot_free(e->before);
		model_snapshot_free(e->after);
		/* the entry stays in the journal (the script still replays it); it just cannot be undone */
		e->before = e->after = NULL;
	}
}

int edit_run(struct edit_session *s, const char *line, struct ov_error *err)
{
	char **argv;
	int argc, rc = -1;
	const struct edit_cmd *cmd;
	struct model_snapshot *before = NULL;

	if (is_blank_or_comment(line))
		return 0;
	argc = edit_split(line, &argv, err);
	if (argc <= 0)
		return argc;
	cmd = edit_find_cmd(argv[0]);
	if (!cmd) {
		ov_fail(err, OV_USAGE, "unknown command '%s' (see 'onnxview edit --help' for the list)", argv[0]);
		goto out;
	}
	if (!edit_cmd_arity_ok(cmd, argc - 1)) {
		ov_fail(err, OV_USAGE, "usage: %s", cmd->usage);
		goto out;
	}
	if (cmd->flags & EDIT_NO_CHANGE) {
		rc = edit_cmd_run(s, cmd, argc, argv, err);
		goto out;
	}
	if (model_snapshot_take(s->m, &before, err))
		goto out;
	if (edit_cmd_run(s, cmd, argc, argv, err)) {
		struct ov_error e2;
		edit_touch(s);
		if (model_snapshot_restore(s->m, before, &e2))
			ov_wrap(err, "%s (and the model could not be restored: %s) ", argv[0], e2.msg);
		model_snapshot_free(before);
		goto out;
	}
	edit_touch(s);
	/* A new command forgets the undone ones. */
	for (size_t i = s->n_applied; i < s->n_journal; i++) {
		s->undo_bytes -= model_snapshot_size(s->journal[i].before) + model_snapshot_size(s->journal[i].after);
		entry_free(&s->journal[i]);
	}
	s->n_journal = s->n_applied;
	struct edit_entry *nj = realloc(s->journal, (s->n_journal + 1) * sizeof *nj);
	char *copy = strdup(line);
	if (!nj || !copy) {
		free(copy);
		if (nj)
			s->journal = nj;
		model_snapshot_free(before);
		ov_fail(err, OV_NOMEM, "out of memory recording the command");
		goto out;
	}
	copy[strcspn(copy, "\r\n")] = '\0';
	s->journal = nj;
	s->journal[s->n_journal++] = (struct edit_entry){copy, before, NULL};
	s->n_applied = s->n_journal;
	s->undo_bytes += model_snapshot_size(before);
	s->modified = 1;
	trim_undo(s);
	rc = 0;
out:
	edit_free_words(argc, argv);
	return rc;
}

int edit_undo(struct edit_session *s, struct ov_error *err)
{
	struct edit_entry *e;

	if (!s->n_applied)
		return ov_fail(err, OV_INVALID, "nothing to undo");
	e = &s->journal[s->n_applied - 1];
	if (!e->before)
		return ov_fail(err, OV_INVALID, "'%s' can no longer be undone (undo memory limit)", e->line);
	if (!e->after) {
		if (model_snapshot_take(s->m, &e->after, err))
			return -1;
		s->undo_bytes += model_snapshot_size(e->after);
	}
	edit_touch(s);
	if (model_snapshot_restore(s->m, e->before, err))
		return -1;
	s->n_applied--;
	s->modified = 1;
	edit_say(s, "undid: %s", e->line);
	return 0;
}

int edit_redo(struct edit_session *s, struct ov_error *err)
{
	struct edit_entry *e;

	if (s->n_applied == s->n_journal)
		return ov_fail(err, OV_INVALID, "nothing to redo");
	e = &s->journal[s->n_applied];
	edit_touch(s);
	if (model_snapshot_restore(s->m, e->after, err))
		return -1;
	s->n_applied++;
	s->modified = 1;
	edit_say(s, "redid: %s", e->line);
	return 0;
}

#define JOURNAL_HEADER "# onnxview edit script: replay with  onnxview edit MODEL -s THIS_FILE -o OUT\n"

void edit_journal_write(const struct edit_session *s, FILE *out)
{
	fputs(JOURNAL_HEADER, out);
	for (size_t i = 0; i < s->n_applied; i++)
		fprintf(out, "%s\n", s->journal[i].line);
}

char *edit_journal_text(const struct edit_session *s, size_t *len)
{
	struct strbuf b = {0};

	strbuf_puts(&b, JOURNAL_HEADER);
	for (size_t i = 0; i < s->n_applied; i++) {
		strbuf_puts(&b, s->journal[i].line);
		strbuf_putc(&b, '\n');
	}
	if (b.failed) {
		strbuf_free(&b);
		return NULL;
	}
	*len = b.len;
	char *r = malloc(b.len + 1);
	if (r)
		memcpy(r, strbuf_str(&b), b.len + 1);
	strbuf_free(&b);
	return r;
}

/* Keep p among the pending saves, in place of one that writes the same file. */
static int add_pending(struct edit_session *s, struct save_pending *p, struct ov_error *err)
{
	for (size_t i = 0; i < s->n_pending; i++)
		if (!strcmp(save_pending_target(s->pending[i]), save_pending_target(p))) {
			save_discard(s->pending[i]);
			memmove(s->pending + i, s->pending + i + 1, (s->n_pending - i - 1) * sizeof *s->pending);
			s->n_pending--;
			break;
		}
	struct save_pending **np = realloc(s->pending, (s->n_pending + 1) * sizeof *np);
	if (!np) {
		save_discard(p);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	s->pending = np;
	s->pending[s->n_pending++] = p;
	return 0;
}

int edit_defer_save(struct edit_session *s, const char *path, unsigned flags, struct ov_error *err)
{
	struct save_pending *p;

	if (model_save_prepare(s->m, path, flags, &p, err))
		return -1;
	return add_pending(s, p, err);
}

int edit_defer_buffer(struct edit_session *s, const char *path, unsigned flags, const void *data, size_t len,
		      struct ov_error *err)
{
	struct save_pending *p;

	if (save_prepare_buffer(path, flags, data, len, &p, err))
		return -1;
	return add_pending(s, p, err);
}

int edit_commit_saves(struct edit_session *s, struct ov_error *err)
{
	size_t i;
	int r = 0;

	for (i = 0; i < s->n_pending && !r; i++) {
		char *what = strdup(save_pending_target(s->pending[i]));
		r = save_commit(s->pending[i], err);
		if (r && what)
			ov_wrap(err, "%s: ", what);
		free(what);
	}
	for (; i < s->n_pending; i++)
		save_discard(s->pending[i]);
	s->n_pending = 0;
	return r;
}

int edit_run_script(struct edit_session *s, const char *path, struct ov_error *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	int rc = 0;

	if (!f)
		return ov_fail(err, OV_IO, "%s: cannot open: %s", path, strerror(errno));
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)n)) {
			rc = ov_fail(err, OV_USAGE, "%s:%ld: a NUL byte (not a text file?)", path, lineno);
			break;
		}
		if (edit_run(s, line, err)) {
			ov_wrap(err, "%s:%ld: ", path, lineno);
			rc = -1;
			break;
		}
	}
	if (ferror(f) && !rc)
		rc = ov_fail(err, OV_IO, "%s: read error", path);
	free(line);
	fclose(f);
	return rc;
}
