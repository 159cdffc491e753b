/* The option parser every command shares (see src/base/opts.h). */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/opts.h"

static int vfail(const struct opt_cmd *c, struct ov_error *e, const char *fmt, va_list ap)
{
	char msg[sizeof e->msg];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (!*c->name) /* the program itself (the TUI's options) */
		return ov_fail(e, OV_USAGE, "%s", msg);
	return ov_fail(e, OV_USAGE, "%s: %s", c->name, msg);
}

int opt_fail(const struct opt_cmd *c, struct ov_error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(c, e, fmt, ap);
	va_end(ap);
	return -1;
}

int opt_usage_error(const struct opt_cmd *c, FILE *err, const char *fmt, ...)
{
	struct ov_error e;
	va_list ap;

	va_start(ap, fmt);
	vfail(c, &e, fmt, ap);
	va_end(ap);
	fprintf(err, "onnxview: %s\n%s\n", e.msg, c->usage);
	return 2;
}

/* The option spelled name (len bytes), or -1. */
static int find(const struct opt_cmd *c, const char *name, size_t len)
{
	for (size_t i = 0; i < c->n_opts; i++) {
		const struct opt_spec *o = &c->opts[i];
		if ((strlen(o->name) == len && !strncmp(o->name, name, len)) ||
		    (o->alias && strlen(o->alias) == len && !strncmp(o->alias, name, len)))
			return (int)i;
	}
	return -1;
}

/* Is v one of "a|b|c"? */
static int is_choice(const char *choices, const char *v)
{
	size_t n = strlen(v);

	for (const char *p = choices; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, v, n))
			return 1;
		p += len + (bar != NULL);
	}
	return 0;
}

/* "a, b or c" from "a|b|c" */
static void choice_text(const char *choices, char *buf, size_t len)
{
	size_t n = 0, bars = 0;

	for (const char *p = choices; *p; p++)
		bars += *p == '|';
	buf[0] = '\0';
	for (const char *p = choices; *p && n + 8 < len; p++) {
		if (*p != '|') {
			buf[n++] = *p;
			continue;
		}
		const char *sep = --bars ? ", " : " or ";
		for (const char *s = sep; *s && n + 1 < len; s++)
			buf[n++] = *s;
	}
	buf[n] = '\0';
}

static int add(struct opt_parsed *p, int opt, char *val)
{
	p->hit[p->n++] = (struct opt_hit){opt, val};
	if (opt >= 0) {
		p->count[opt]++;
		p->last[opt] = val;
	}
	return 0;
}

static int take_option(const struct opt_cmd *c, int argc, char **argv, int *i, struct opt_parsed *p,
		       struct ov_error *e)
{
	char *a = argv[*i];
	char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	int k = find(c, a, len);

	if (k < 0)
		return opt_fail(c, e, "unknown option '%.*s'", (int)len, a);
	const struct opt_spec *o = &c->opts[k];
	char *val = NULL;
	if (!o->arg) {
		if (eq)
			return opt_fail(c, e, "%s takes no value ('%s')", o->name, a);
	} else if (eq) {
		val = eq + 1;
	} else if (*i + 1 < argc) {
		val = argv[++*i];
	} else {
		return opt_fail(c, e, "%s needs a value (%s %s)", o->name, o->name, o->arg);
	}
	if (p->count[k] && !(o->flags & OPT_REPEAT)) {
		if (!o->arg)
			return opt_fail(c, e, "%s is given twice", o->name);
		return opt_fail(c, e, "%s is given twice ('%s' and '%s')", o->name, p->last[k], val);
	}
	if (val && o->choices && !is_choice(o->choices, val)) {
		char text[200];
		choice_text(o->choices, text, sizeof text);
		return opt_fail(c, e, "%s is %s, not '%s'", o->name, text, val);
	}
	return add(p, k, val);
}

static int check_positional(const struct opt_cmd *c, const struct opt_parsed *p, struct ov_error *e)
{
	const char *what = c->pos_name ? c->pos_name : "argument";

	if (p->n_pos < c->min_pos)
		return opt_fail(c, e, "no %s given", what);
	return 0;
}

int opt_parse(const struct opt_cmd *c, int argc, char **argv, struct opt_parsed *p, struct ov_error *e)
{
	int only_pos = 0;

	memset(p, 0, sizeof *p);
	if (c->n_opts > OPT_MAX)
		return ov_fail(e, OV_LIMIT, "%s: more than %d options declared", c->name, OPT_MAX);
	p->hit = calloc((size_t)argc + 1, sizeof *p->hit);
	if (!p->hit)
		return ov_fail(e, OV_NOMEM, "out of memory");
	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		if (!only_pos && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			p->help = 1;
			return 0;
		}
		if (!only_pos && !strcmp(a, "--")) {
			only_pos = 1;
			continue;
		}
		if (!only_pos && a[0] == '-' && a[1]) {
			if (take_option(c, argc, argv, &i, p, e))
				return -1;
			continue;
		}
		if (!c->pos_name || !c->max_pos)
			return opt_fail(c, e, "unexpected argument '%s'", a);
		if (p->n_pos >= c->max_pos) {
			if (c->max_pos == 1)
				return opt_fail(c, e, "one %s at a time ('%s' and '%s')", c->pos_name, p->pos[0], a);
			return opt_fail(c, e, "at most %d %ss ('%s', '%s', '%s')", c->max_pos, c->pos_name, p->pos[0],
					p->pos[1], a);
		}
		if ((size_t)p->n_pos >= sizeof p->pos / sizeof p->pos[0])
			return opt_fail(c, e, "too many arguments");
		p->pos[p->n_pos++] = a;
		add(p, -1, a);
	}
	return check_positional(c, p, e);
}

void opt_free(struct opt_parsed *p)
{
	free(p->hit);
	p->hit = NULL;
	p->n = 0;
}

size_t opt_values(const struct opt_parsed *p, int opt, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		if (p->hit[i].opt == opt) {
			if (n < max)
				out[n] = p->hit[i].val;
			n++;
		}
	return n;
}

void opt_print_help(const struct opt_cmd *c, FILE *out)
{
	fprintf(out, "%s\n", c->usage);
	if (c->n_opts)
		fprintf(out, "\noptions:\n");
	for (size_t i = 0; i < c->n_opts; i++) {
		const struct opt_spec *o = &c->opts[i];
		char left[80];
		snprintf(left, sizeof left, "%s%s%s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "",
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-28s %s%s\n", left, o->help ? o->help : "", o->flags & OPT_REPEAT ? " (repeatable)" : "");
	}
	if (c->more_help)
		c->more_help(out);
}

int opt_parse_cli(const struct opt_cmd *c, int argc, char **argv, struct opt_parsed *p, FILE *out, FILE *err)
{
	struct ov_error e = {0};

	if (opt_parse(c, argc, argv, p, &e)) {
		fprintf(err, "onnxview: %s\n%s\n", e.msg, c->usage);
		return e.code == OV_USAGE ? 2 : ov_status_exit_code(e.code);
	}
	if (p->help) {
		opt_print_help(c, out);
		return 0;
	}
	return -1;
}
