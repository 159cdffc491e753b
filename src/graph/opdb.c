/* Loading and querying the operator database (opdb.txt): every line checked, nothing trusted. */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "src/base/datadir.h"
#include "src/base/error.h"
#include "src/graph/opdb.h"
#include "src/base/strmap.h"

#define OPDB_FORMAT 1
#define OPDB_MAX_BYTES (64u << 20)
#define OPDB_MAX_OPSET 1000000

struct opdb_op {
	const char *name;
	size_t first; /* index of its first version in db->schemas; versions are contiguous, oldest first */
	size_t n;
};

struct opdb_domain {
	const char *name;
	int min_opset, max_opset;
	struct opdb_op *ops; /* sorted by name */
	size_t n_ops;
	const char **names;
	struct strmap index; /* name -> struct opdb_op */
};

struct opdb {
	char *text;    /* a copy of the file; the strings of the schemas point into it */
	char *strings; /* decoded default strings (never longer than the file) */
	size_t strings_used;
	const char *onnx_version;
	struct opdb_domain *domains;
	size_t n_domains;
	const char **domain_names;
	struct op_schema *schemas;
	size_t n_schemas;
};

static const char *const attr_type_names[] = {
	"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS", "TENSORS",
	"GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS",
};
_Static_assert(sizeof attr_type_names / sizeof attr_type_names[0] == OP_ATTR_TYPE_PROTOS + 1,
	       "attribute type names drifted");

static const char *const option_names[] = {"single", "optional", "variadic"};

const char *op_attr_type_name(int type)
{
	return type >= 0 && type <= OP_ATTR_TYPE_PROTOS ? attr_type_names[type] : "?";
}

const char *op_formal_option_name(enum op_formal_option o)
{
	return (unsigned)o < 3 ? option_names[o] : "?";
}

/* ---- parsing ---------------------------------------------------------------------------------------- */

struct parser {
	struct opdb *db;
	const char *name; /* for messages */
	struct ov_error *err;
	int line;
	size_t cur;        /* the op being filled (index into db->schemas), or SIZE_MAX before the first */
	int cur_line;
	size_t schemas_cap;
	int seen_end;
	int seen_onnx;
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

/* The next space-separated field of *s, NUL-terminated in place; NULL at the end of the line. */
static char *field(char **s)
{
	char *p = *s, *start;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		*s = p;
		return NULL;
	}
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return start;
}

/* Grows an array that holds n elements so one more fits (capacity doubles at powers of two). */
static int grow(void *arrp, size_t n, size_t size)
{
	void **arr = arrp;

	if (n && (n & (n - 1)))
		return 0;
	size_t cap = n ? n * 2 : 1;
	if (cap > SIZE_MAX / size)
		return -1;
	void *a = realloc(*arr, cap * size);
	if (!a)
		return -1;
	*arr = a;
	return 0;
}

static int parse_int(struct parser *p, const char *s, long long lo, long long hi, const char *what, long long *out)
{
	char *end;

	if (!s)
		return bad(p, "%s is missing", what);
	if (!(*s == '-' || (*s >= '0' && *s <= '9')))
		return bad(p, "%s '%s' is not a number", what, s);
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || end == s || (*s == '-' && end == s + 1))
		return bad(p, "%s '%s' is not a number", what, s);
	if (errno == ERANGE || v < lo || v > hi)
		return bad(p, "%s %s is out of range (%lld to %lld)", what, s, lo, hi);
	*out = v;
	return 0;
}

static int parse_small(struct parser *p, const char *s, long long lo, long long hi, const char *what, int *out)
{
	long long v;

	if (parse_int(p, s, lo, hi, what, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_flag(struct parser *p, const char *s, const char *what, int *out)
{
	return parse_small(p, s, 0, 1, what, out);
}

/* Numbers in the file use '.' whatever the user's locale says (the TUI sets LC_ALL from the environment). */
static double c_strtod(const char *s, char **end)
{
	static locale_t c_locale;

	if (!c_locale)
		c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	return c_locale ? strtod_l(s, end, c_locale) : strtod(s, end);
}

static int no_more(struct parser *p, char **s, const char *record)
{
	char *extra = field(s);

	return extra ? bad(p, "'%s' record has an extra field '%s'", record, extra) : 0;
}

static struct op_schema *current(struct parser *p, const char *record)
{
	if (p->cur == SIZE_MAX) {
		bad(p, "'%s' record before any 'op' record", record);
		return NULL;
	}
	if (p->seen_end) {
		bad(p, "'%s' record after the 'end' record", record);
		return NULL;
	}
	return &p->db->schemas[p->cur];
}

static struct opdb_domain *domain_by_name(const struct opdb *db, const char *name)
{
	if (!name || !*name)
		name = "ai.onnx";
	for (size_t i = 0; i < db->n_domains; i++)
		if (!strcmp(db->domains[i].name, name))
			return &db->domains[i];
	return NULL;
}

static int parse_domain(struct parser *p, char **s)
{
	struct opdb *db = p->db;
	char *name = field(s);
	int lo, hi;

	if (!name)
		return bad(p, "'domain' record without a name");
	if (parse_small(p, field(s), 1, OPDB_MAX_OPSET, "first opset", &lo) ||
	    parse_small(p, field(s), 1, OPDB_MAX_OPSET, "last opset", &hi) || no_more(p, s, "domain"))
		return -1;
	if (lo > hi)
		return bad(p, "domain %s: first opset %d is after the last, %d", name, lo, hi);
	if (domain_by_name(db, name))
		return bad(p, "domain %s is declared twice", name);
	if (p->cur != SIZE_MAX)
		return bad(p, "domain %s is declared after the first 'op' record", name);
	if (grow(&db->domains, db->n_domains, sizeof *db->domains))
		return ov_fail(p->err, OV_NOMEM, "out of memory");
	db->domains[db->n_domains++] = (struct opdb_domain){.name = name, .min_opset = lo, .max_opset = hi};
	return 0;
}

static int formal_has_type(const struct op_schema *s, const char *type)
{
	return strchr(type, '(') || op_schema_constraint(s, type);
}

static int cmp_attr(const void *a, const void *b)
{
	return strcmp(((const struct op_attr *)a)->name, ((const struct op_attr *)b)->name);
}

/* Checks that need the whole record of an op; errors name the op's line. */
static int finish_op(struct parser *p)
{
	struct op_schema *s;
	int line = p->line;

	if (p->cur == SIZE_MAX)
		return 0;
	s = &p->db->schemas[p->cur];
	p->line = p->cur_line;
	for (size_t i = 0; i < s->n_inputs; i++)
		if (!formal_has_type(s, s->inputs[i].type_str))
			return bad(p, "%s-%d: input '%s' has type '%s', which no 'tc' record of the op defines", s->name,
				   s->since_version, s->inputs[i].name, s->inputs[i].type_str);
	for (size_t i = 0; i < s->n_outputs; i++)
		if (!formal_has_type(s, s->outputs[i].type_str))
			return bad(p, "%s-%d: output '%s' has type '%s', which no 'tc' record of the op defines",
				   s->name, s->since_version, s->outputs[i].name, s->outputs[i].type_str);
	if (s->n_attrs)
		qsort((void *)s->attrs, s->n_attrs, sizeof *s->attrs, cmp_attr);
	for (size_t i = 1; i < s->n_attrs; i++)
		if (!strcmp(s->attrs[i - 1].name, s->attrs[i].name))
			return bad(p, "%s-%d: attribute '%s' appears twice", s->name, s->since_version, s->attrs[i].name);
	for (size_t i = 0; i < s->n_constraints; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->constraints[i].param, s->constraints[j].param))
				return bad(p, "%s-%d: type constraint '%s' appears twice", s->name, s->since_version,
					   s->constraints[i].param);
	p->line = line;
	return 0;
}

static int parse_op(struct parser *p, char **s)
{
	struct opdb *db = p->db;
	char *dname = field(s), *name;
	struct opdb_domain *d;
	struct op_schema n = {0};

	if (p->seen_end)
		return bad(p, "'op' record after the 'end' record");
	if (finish_op(p))
		return -1;
	if (!dname)
		return bad(p, "'op' record without a domain");
	d = domain_by_name(db, dname);
	if (!d)
		return bad(p, "op in domain '%s', which no 'domain' record declares", dname);
	name = field(s);
	if (!name)
		return bad(p, "'op' record without a name");
	n.domain = d->name;
	n.name = name;
	if (parse_small(p, field(s), 1, d->max_opset, "since_version", &n.since_version) ||
	    parse_flag(p, field(s), "deprecated flag", &n.deprecated) ||
	    parse_small(p, field(s), 0, INT_MAX, "min_inputs", &n.min_inputs) ||
	    parse_small(p, field(s), 0, INT_MAX, "max_inputs", &n.max_inputs) ||
	    parse_small(p, field(s), 0, INT_MAX, "min_outputs", &n.min_outputs) ||
	    parse_small(p, field(s), 0, INT_MAX, "max_outputs", &n.max_outputs) || no_more(p, s, "op"))
		return -1;
	if (n.min_inputs > n.max_inputs || n.min_outputs > n.max_outputs)
		return bad(p, "%s-%d: a minimum count is above its maximum", name, n.since_version);
	/* Sorted by domain (in declaration order), name and version: this also rules out duplicates. */
	if (p->cur != SIZE_MAX) {
		const struct op_schema *prev = &db->schemas[p->cur];
		size_t pd = (size_t)(domain_by_name(db, prev->domain) - db->domains), nd = (size_t)(d - db->domains);
		int c = strcmp(prev->name, name);
		if (nd < pd || (nd == pd && (c > 0 || (c == 0 && prev->since_version >= n.since_version))))
			return bad(p, "%s %s-%d comes after %s %s-%d: the records must be sorted", n.domain, name,
				   n.since_version, prev->domain, prev->name, prev->since_version);
	}
	if (db->n_schemas == p->schemas_cap) {
		size_t cap = p->schemas_cap ? p->schemas_cap * 2 : 256;
		struct op_schema *ns = realloc(db->schemas, cap * sizeof *ns);
		if (!ns)
			return ov_fail(p->err, OV_NOMEM, "out of memory");
		db->schemas = ns;
		p->schemas_cap = cap;
	}
	p->cur = db->n_schemas;
	p->cur_line = p->line;
	db->schemas[db->n_schemas++] = n;
	return 0;
}

static int parse_formal(struct parser *p, char **s, int is_input)
{
	const char *rec = is_input ? "in" : "out";
	struct op_schema *sc = current(p, rec);
	struct op_formal f = {0};
	int index, opt = -1;
	char *name, *option, *type;

	if (!sc)
		return -1;
	size_t *count = is_input ? &sc->n_inputs : &sc->n_outputs;
	if (parse_small(p, field(s), 0, INT_MAX, "index", &index))
		return -1;
	if ((size_t)index != *count)
		return bad(p, "%s-%d: %s index %d, expected %zu", sc->name, sc->since_version, is_input ? "input" : "output",
			   index, *count);
	name = field(s);
	option = field(s);
	type = field(s);
	if (!type)
		return bad(p, "'%s' record needs an index, a name, an option and a type", rec);
	for (int i = 0; i < 3; i++)
		if (!strcmp(option, option_names[i]))
			opt = i;
	if (opt < 0)
		return bad(p, "'%s' is not single, optional or variadic", option);
	f.name = name;
	f.option = (enum op_formal_option)opt;
	f.type_str = type;
	if (parse_flag(p, field(s), "homogeneous flag", &f.homogeneous) ||
	    parse_small(p, field(s), 0, INT_MAX, "min_arity", &f.min_arity) || no_more(p, s, rec))
		return -1;
	/* The builder owns these arrays until the load ends; the const in op_schema is for readers. */
	struct op_formal **arr = (struct op_formal **)(is_input ? &sc->inputs : &sc->outputs);
	if (grow(arr, *count, sizeof **arr))
		return ov_fail(p->err, OV_NOMEM, "out of memory");
	(*arr)[(*count)++] = f;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A quoted string at *c: decoded into the database's string area, *c left after the closing quote. */
static int parse_quoted(struct parser *p, const char **c, struct op_value *v)
{
	const char *q = *c;
	char *out = p->db->strings + p->db->strings_used, *o = out;

	if (*q != '"')
		return bad(p, "expected a quoted string at '%.20s'", q);
	for (q++; *q != '"'; q++) {
		if (!*q)
			return bad(p, "unterminated string");
		if (*q != '\\') {
			*o++ = *q;
			continue;
		}
		q++;
		switch (*q) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'x': {
			int hi = hexval(q[1]), lo = hi < 0 ? -1 : hexval(q[2]);
			if (lo < 0)
				return bad(p, "'\\x' must be followed by two hex digits");
			*o++ = (char)(hi << 4 | lo);
			q += 2;
			break;
		}
		default:
			return bad(p, "unknown escape '\\%c' in a string", *q ? *q : '0');
		}
	}
	*o = '\0';
	v->s = out;
	v->s_len = (size_t)(o - out);
	p->db->strings_used += v->s_len + 1;
	*c = q + 1;
	return 0;
}

/* A number at *c, ending at a space, ',' or ']' or the end; *c left after it. */
static int parse_number(struct parser *p, const char **c, int is_float, struct op_value *v)
{
	char tok[64];
	size_t n = strcspn(*c, " \t,]");

	if (!n)
		return bad(p, "expected a number at '%.20s'", *c);
	if (n >= sizeof tok)
		return bad(p, "number '%.20s...' is too long", *c);
	memcpy(tok, *c, n);
	tok[n] = '\0';
	*c += n;
	if (is_float) {
		char *end;
		v->f = c_strtod(tok, &end);
		if (*end || end == tok)
			return bad(p, "'%s' is not a number", tok);
		return 0;
	}
	long long i;
	if (parse_int(p, tok, LLONG_MIN, LLONG_MAX, "default", &i))
		return -1;
	v->i = i;
	return 0;
}

static int parse_element(struct parser *p, const char **c, int scalar_type, struct op_value *v)
{
	if (scalar_type == OP_ATTR_STRING)
		return parse_quoted(p, c, v);
	return parse_number(p, c, scalar_type == OP_ATTR_FLOAT, v);
}

static void skip_spaces(const char **c)
{
	while (**c == ' ' || **c == '\t')
		(*c)++;
}

static int parse_default(struct parser *p, struct op_attr *a, const char *text)
{
	struct op_value *vals = NULL;
	size_t n = 0;
	const char *c = text;
	int scalar;

	if (!strcmp(text, "-"))
		return 0;
	switch (a->type) {
	case OP_ATTR_INT: case OP_ATTR_FLOAT: case OP_ATTR_STRING:
		scalar = a->type;
		break;
	case OP_ATTR_INTS: scalar = OP_ATTR_INT; break;
	case OP_ATTR_FLOATS: scalar = OP_ATTR_FLOAT; break;
	case OP_ATTR_STRINGS: scalar = OP_ATTR_STRING; break;
	default:
		return bad(p, "attribute '%s': a %s default cannot be written in this file", a->name,
			   op_attr_type_name(a->type));
	}
	if (scalar == a->type) {
		vals = calloc(1, sizeof *vals);
		if (!vals)
			return ov_fail(p->err, OV_NOMEM, "out of memory");
		if (parse_element(p, &c, scalar, vals))
			goto fail;
		n = 1;
	} else {
		if (*c != '[') {
			bad(p, "attribute '%s': a %s default is a list in [ ]", a->name, op_attr_type_name(a->type));
			goto fail;
		}
		c++;
		skip_spaces(&c);
		while (*c != ']') {
			if (!*c) {
				bad(p, "attribute '%s': unterminated list (no closing ']')", a->name);
				goto fail;
			}
			if (n) {
				if (*c != ',') {
					bad(p, "attribute '%s': expected ',' or ']' in the default at '%.20s'", a->name, c);
					goto fail;
				}
				c++;
				skip_spaces(&c);
			}
			if (grow(&vals, n, sizeof *vals)) {
				ov_fail(p->err, OV_NOMEM, "out of memory");
				goto fail;
			}
			memset(&vals[n], 0, sizeof vals[n]);
			if (parse_element(p, &c, scalar, &vals[n]))
				goto fail;
			n++;
			skip_spaces(&c);
		}
		c++;
	}
	if (*c) {
		bad(p, "attribute '%s': unexpected '%.20s' after the default", a->name, c);
		goto fail;
	}
	a->default_text = text;
	a->defaults = vals;
	a->n_defaults = n;
	return 0;
fail:
	free(vals);
	return -1;
}

static int parse_attr(struct parser *p, char **s)
{
	struct op_schema *sc = current(p, "attr");
	struct op_attr a = {0};
	char *name, *type, *text;

	if (!sc)
		return -1;
	name = field(s);
	type = field(s);
	if (!type)
		return bad(p, "'attr' record needs a name, a type, a required flag and a default");
	a.name = name;
	a.type = -1;
	for (int i = 1; i <= OP_ATTR_TYPE_PROTOS; i++)
		if (!strcmp(type, attr_type_names[i]))
			a.type = i;
	if (a.type < 0)
		return bad(p, "attribute '%s': unknown type '%s'", name, type);
	if (parse_flag(p, field(s), "required flag", &a.required))
		return -1;
	/* The default is the rest of the line (strings and lists hold spaces). */
	text = *s;
	while (*text == ' ' || *text == '\t')
		text++;
	size_t len = strlen(text);
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		text[--len] = '\0';
	if (!len)
		return bad(p, "attribute '%s': no default (write '-' for none)", name);
	if (parse_default(p, &a, text))
		return -1;
	struct op_attr **arr = (struct op_attr **)&sc->attrs;
	if (grow(arr, sc->n_attrs, sizeof **arr)) {
		free((void *)a.defaults);
		return ov_fail(p->err, OV_NOMEM, "out of memory");
	}
	(*arr)[sc->n_attrs++] = a;
	return 0;
}

static int parse_tc(struct parser *p, char **s)
{
	struct op_schema *sc = current(p, "tc");
	struct op_type_constraint tc = {0};
	const char **allowed = NULL;
	char *t;

	if (!sc)
		return -1;
	tc.param = field(s);
	if (!tc.param)
		return bad(p, "'tc' record without a type parameter");
	while ((t = field(s))) {
		if (grow(&allowed, tc.n_allowed, sizeof *allowed)) {
			free(allowed);
			return ov_fail(p->err, OV_NOMEM, "out of memory");
		}
		allowed[tc.n_allowed++] = t;
	}
	tc.allowed = allowed;
	struct op_type_constraint **arr = (struct op_type_constraint **)&sc->constraints;
	if (grow(arr, sc->n_constraints, sizeof **arr)) {
		free(allowed);
		return ov_fail(p->err, OV_NOMEM, "out of memory");
	}
	(*arr)[sc->n_constraints++] = tc;
	return 0;
}

static int parse_end(struct parser *p, char **s)
{
	int count;

	if (p->seen_end)
		return bad(p, "a second 'end' record");
	if (parse_small(p, field(s), 0, INT_MAX, "op count", &count) || no_more(p, s, "end"))
		return -1;
	if ((size_t)count != p->db->n_schemas)
		return bad(p, "'end' says %d op records, the file has %zu", count, p->db->n_schemas);
	if (finish_op(p))
		return -1;
	p->seen_end = 1;
	return 0;
}

static int parse_line(struct parser *p, char *line)
{
	char *s = line, *kw;

	for (const char *c = line; *c; c++)
		if ((*c < ' ' && *c != '\t') || *c == 0x7f || (unsigned char)*c >= 0x80)
			return bad(p, "byte 0x%02x at column %d: the file is plain ASCII text", (unsigned char)*c,
				   (int)(c - line) + 1);
	kw = field(&s);
	if (p->line == 1) {
		long long v;
		if (!kw || strcmp(kw, "onnxview-opdb"))
			return bad(p, "not an onnxview op database (the first line should be 'onnxview-opdb %d')",
				   OPDB_FORMAT);
		if (parse_int(p, field(&s), 0, INT_MAX, "format version", &v) || no_more(p, &s, "onnxview-opdb"))
			return -1;
		if (v != OPDB_FORMAT)
			return bad(p, "format version %lld; this onnxview reads version %d (regenerate the file with "
				      "scripts/gen-opdb.py)", v, OPDB_FORMAT);
		return 0;
	}
	if (!kw || kw[0] == '#')
		return 0;
	if (p->seen_end)
		return bad(p, "'%s' record after the 'end' record", kw);
	if (!strcmp(kw, "op"))
		return parse_op(p, &s);
	if (!strcmp(kw, "in"))
		return parse_formal(p, &s, 1);
	if (!strcmp(kw, "out"))
		return parse_formal(p, &s, 0);
	if (!strcmp(kw, "attr"))
		return parse_attr(p, &s);
	if (!strcmp(kw, "tc"))
		return parse_tc(p, &s);
	if (!strcmp(kw, "domain"))
		return parse_domain(p, &s);
	if (!strcmp(kw, "end"))
		return parse_end(p, &s);
	if (!strcmp(kw, "onnx")) {
		char *v = field(&s);
		if (!v)
			return bad(p, "'onnx' record without a version");
		if (p->seen_onnx)
			return bad(p, "a second 'onnx' record");
		p->seen_onnx = 1;
		p->db->onnx_version = v;
		return no_more(p, &s, "onnx");
	}
	return bad(p, "unknown record '%s'", kw);
}

/* Per-domain indexes over the sorted schemas. */
static int build_index(struct opdb *db, struct ov_error *err)
{
	db->domain_names = calloc(db->n_domains ? db->n_domains : 1, sizeof *db->domain_names);
	if (!db->domain_names)
		return ov_fail(err, OV_NOMEM, "out of memory");
	for (size_t i = 0; i < db->n_domains; i++)
		db->domain_names[i] = db->domains[i].name;
	for (size_t i = 0; i < db->n_schemas;) {
		struct op_schema *s = &db->schemas[i];
		struct opdb_domain *d = domain_by_name(db, s->domain);
		size_t j = i + 1;
		while (j < db->n_schemas && db->schemas[j].domain == s->domain && !strcmp(db->schemas[j].name, s->name))
			j++;
		if (grow(&d->ops, d->n_ops, sizeof *d->ops) || grow(&d->names, d->n_ops, sizeof *d->names))
			return ov_fail(err, OV_NOMEM, "out of memory");
		d->ops[d->n_ops] = (struct opdb_op){s->name, i, j - i};
		d->names[d->n_ops] = s->name;
		d->n_ops++;
		i = j;
	}
	/* Only now: the ops arrays no longer move. */
	for (size_t k = 0; k < db->n_domains; k++) {
		struct opdb_domain *d = &db->domains[k];
		for (size_t i = 0; i < d->n_ops; i++)
			if (strmap_put(&d->index, d->ops[i].name, &d->ops[i]))
				return ov_fail(err, OV_NOMEM, "out of memory");
	}
	return 0;
}

int opdb_load_text(struct opdb **out, const char *text, size_t len, const char *name, struct ov_error *err)
{
	struct opdb *db;
	struct parser p = {.name = name ? name : "opdb", .err = err, .cur = SIZE_MAX};
	char *line, *end;

	*out = NULL;
	if (len > OPDB_MAX_BYTES)
		return ov_fail(err, OV_LIMIT, "%s: larger than %u bytes", p.name, OPDB_MAX_BYTES);
	db = calloc(1, sizeof *db);
	if (!db)
		return ov_fail(err, OV_NOMEM, "out of memory");
	p.db = db;
	db->onnx_version = "unknown";
	db->text = malloc(len + 1);
	db->strings = malloc(len + 1);
	if (!db->text || !db->strings) {
		opdb_free(db);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	memcpy(db->text, text, len);
	db->text[len] = '\0';
	if (memchr(db->text, '\0', len)) {
		p.line = 1;
		for (const char *c = db->text; *c; c++)
			p.line += *c == '\n';
		bad(&p, "NUL byte: the file is plain ASCII text");
		opdb_free(db);
		return -1;
	}
	for (line = db->text; line < db->text + len || (p.line == 0 && len == 0); line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		*end = '\0';
		if (end > line && end[-1] == '\r')
			end[-1] = '\0';
		p.line++;
		if (parse_line(&p, line)) {
			opdb_free(db);
			return -1;
		}
	}
	if (!p.seen_end) {
		p.line++;
		bad(&p, "no 'end' record: the file is truncated");
		opdb_free(db);
		return -1;
	}
	if (build_index(db, err)) {
		opdb_free(db);
		return -1;
	}
	*out = db;
	return 0;
}

int opdb_load(struct opdb **out, const char *path, struct ov_error *err)
{
	char *text;
	size_t len;

	*out = NULL;
	if (datadir_read(path, OPDB_MAX_BYTES, &text, &len, err))
		return -1;
	int rc = opdb_load_text(out, text, len, path, err);
	free(text);
	return rc;
}

void opdb_free(struct opdb *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n_schemas; i++) {
		struct op_schema *s = &db->schemas[i];
		free((void *)s->inputs);
		free((void *)s->outputs);
		for (size_t a = 0; a < s->n_attrs; a++)
			free((void *)s->attrs[a].defaults);
		free((void *)s->attrs);
		for (size_t c = 0; c < s->n_constraints; c++)
			free((void *)s->constraints[c].allowed);
		free((void *)s->constraints);
	}
	for (size_t i = 0; i < db->n_domains; i++) {
		free(db->domains[i].ops);
		free(db->domains[i].names);
		strmap_free(&db->domains[i].index);
	}
	free(db->domains);
	free(db->domain_names);
	free(db->schemas);
	free(db->strings);
	free(db->text);
	free(db);
}

struct opdb *opdb_default(struct ov_error *err)
{
	static struct opdb *cached;
	static struct ov_error failed; /* why the database could not be had, said on every call (as opdoc_default) */
	char path[4096];

	if (cached)
		return cached;
	if (failed.code != OV_OK) {
		if (err)
			*err = failed;
		return NULL;
	}
	if (!datadir_path("opdb.txt", path, sizeof path))
		ov_fail(&failed, OV_IO, "the data folder's path is too long");
	else if (access(path, F_OK) != 0 && errno == ENOENT)
		ov_fail(&failed, OV_IO, "the op database %s is missing: no op signatures or checks against opsets (is "
			"onnxview installed? ONNXVIEW_DATADIR names another folder)", path);
	else if (opdb_load(&cached, path, &failed))
		cached = NULL;
	else
		return cached;
	if (err)
		*err = failed;
	return NULL;
}

/* ---- queries ------------------------------------------------------------------------------------------ */

const char *opdb_onnx_version(const struct opdb *db)
{
	return db->onnx_version;
}

static const struct opdb_op *find_op(const struct opdb *db, const char *domain, const char *op)
{
	const struct opdb_domain *d = domain_by_name(db, domain);

	return d && op ? strmap_get(&d->index, op) : NULL;
}

const struct op_schema *opdb_versions(const struct opdb *db, const char *domain, const char *op, size_t *n)
{
	const struct opdb_op *o = find_op(db, domain, op);

	*n = o ? o->n : 0;
	return o ? &db->schemas[o->first] : NULL;
}

const struct op_schema *opdb_find(const struct opdb *db, const char *domain, const char *op, int64_t opset)
{
	size_t n;
	const struct op_schema *v = opdb_versions(db, domain, op, &n);
	const struct op_schema *best = NULL;

	for (size_t i = 0; i < n && v[i].since_version <= opset; i++)
		best = &v[i];
	return best;
}

int opdb_first_version(const struct opdb *db, const char *domain, const char *op)
{
	size_t n;
	const struct op_schema *v = opdb_versions(db, domain, op, &n);

	return n ? v[0].since_version : 0;
}

int opdb_removed_at(const struct opdb *db, const char *domain, const char *op)
{
	size_t n;
	const struct op_schema *v = opdb_versions(db, domain, op, &n);

	return n && v[n - 1].deprecated ? v[n - 1].since_version : 0;
}

int opdb_latest_opset(const struct opdb *db, const char *domain)
{
	const struct opdb_domain *d = domain_by_name(db, domain);

	return d ? d->max_opset : 0;
}

const char *const *opdb_domains(const struct opdb *db, size_t *n)
{
	*n = db->n_domains;
	return db->domain_names;
}

const char *const *opdb_op_names(const struct opdb *db, const char *domain, size_t *n)
{
	const struct opdb_domain *d = domain_by_name(db, domain);

	*n = d ? d->n_ops : 0;
	return d ? d->names : NULL;
}

/* Edit distance with swapped neighbours counting as one edit (Rleu -> Relu), ignoring ASCII case; 99 for names
 * too long to be worth it. */
static size_t name_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[3][64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = row[i % 3], *prev = row[(i - 1) % 3], *prev2 = row[(i + 1) % 3];
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + ((a[i - 1] | 32) != (b[j - 1] | 32));
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			if (i > 1 && j > 1 && (a[i - 1] | 32) == (b[j - 2] | 32) && (a[i - 2] | 32) == (b[j - 1] | 32) &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
	}
	return row[la % 3][lb];
}

const char *opdb_closest_op(const struct opdb *db, const char *domain, const char *op)
{
	size_t n, best = 3;
	const char *const *names = opdb_op_names(db, domain, &n);
	const char *r = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(names[i], op))
			return names[i];
		size_t d = name_distance(names[i], op);
		if (d < best)
			best = d, r = names[i];
	}
	return r;
}

const struct op_attr *op_schema_attr(const struct op_schema *s, const char *name)
{
	size_t lo = 0, hi = s->n_attrs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->attrs[mid].name, name);
		if (!c)
			return &s->attrs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct op_type_constraint *op_schema_constraint(const struct op_schema *s, const char *param)
{
	for (size_t i = 0; i < s->n_constraints; i++)
		if (!strcmp(s->constraints[i].param, param))
			return &s->constraints[i];
	return NULL;
}

const char *op_arity_text(char *buf, size_t len, int min, int max)
{
	if (max == OP_UNBOUNDED)
		snprintf(buf, len, "at least %d", min);
	else if (min == max)
		snprintf(buf, len, "%d", min);
	else
		snprintf(buf, len, "%d to %d", min, max);
	return buf;
}
