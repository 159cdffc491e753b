/* RegexFullMatch's engine (see regex.h): the pattern is parsed into a tree, the tree compiled into a small program
 * (byte classes, splits, jumps, position assertions), and the program run as a Thompson NFA over the bytes of the
 * text: every live state steps together, so the time is linear in the text for a given pattern and no pattern
 * can make it blow up.  '.' and negated classes take one whole UTF-8 character, as RE2 does. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/ops/regex.h"

#define MAX_PROG 20000 /* instructions: {m,n} copies its operand, so a pattern can ask for many */
#define MAX_REPEAT 1000
#define MAX_DEPTH 200  /* nested groups */
#define MAX_PATTERN 4096 /* bytes: the parser and the code generator recurse about once a byte */

/* ---- the program ---- */

enum op { I_CLASS, I_SPLIT, I_JMP, I_MATCH, I_BOL, I_EOL, I_WORDB, I_NWORDB };

struct inst {
	enum op op;
	int x, y;      /* SPLIT: both; JMP: x; CLASS: x the class */
};

struct cls {
	uint8_t bits[32];
};

struct ov_regex {
	struct inst *prog;
	int n, cap;
	struct cls *cls;
	int ncls, capcls;
};

/* ---- the tree ---- */

enum kind { N_CLASS, N_NOTCLASS, N_CAT, N_ALT, N_REP, N_EMPTY, N_BOL, N_EOL, N_WORDB, N_NWORDB };

struct node {
	enum kind kind;
	struct cls c;          /* N_CLASS (one byte), N_NOTCLASS (its ASCII complement: set bits are excluded) */
	int min, max;          /* N_REP; max -1: no bound */
	struct node *a, *b;    /* N_CAT, N_ALT: both; N_REP: a */
};

struct parser {
	const char *p, *end;
	char *err;
	size_t errn;
	int failed, depth;
};

static void fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = 1;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errn, fmt, ap);
	va_end(ap);
}

static struct node *mk(struct parser *ps, enum kind k)
{
	struct node *n = calloc(1, sizeof *n);

	if (!n)
		fail(ps, "out of memory");
	else
		n->kind = k;
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	free(n);
}

static void cls_set(struct cls *c, int lo, int hi)
{
	for (int i = lo; i <= hi; i++)
		c->bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static int cls_has(const struct cls *c, int i)
{
	return (c->bits[i >> 3] >> (i & 7)) & 1;
}

static void cls_word(struct cls *c)
{
	cls_set(c, '0', '9');
	cls_set(c, 'A', 'Z');
	cls_set(c, 'a', 'z');
	cls_set(c, '_', '_');
}

static void cls_space(struct cls *c)
{
	cls_set(c, '\t', '\n');
	cls_set(c, '\f', '\r');
	cls_set(c, ' ', ' ');
}

/* The ASCII complement of c into d (bytes 0..127 not in c). */
static void cls_ascii_not(const struct cls *c, struct cls *d)
{
	memset(d, 0, sizeof *d);
	for (int i = 0; i < 128; i++)
		if (!cls_has(c, i))
			cls_set(d, i, i);
}

/* A class escape (after the backslash, at *ps->p): 1 and c filled with neg set for the upper-case ones; 0 for
 * another escape. */
static int class_escape(char e, struct cls *c, int *neg)
{
	memset(c, 0, sizeof *c);
	*neg = e == 'D' || e == 'W' || e == 'S';
	switch (e) {
	case 'd': case 'D': cls_set(c, '0', '9'); return 1;
	case 'w': case 'W': cls_word(c); return 1;
	case 's': case 'S': cls_space(c); return 1;
	default: return 0;
	}
}

/* One literal byte of an escape that stands for itself or a control character; -1 with the parser failed. */
static int literal_escape(struct parser *ps, char e)
{
	switch (e) {
	case 't': return '\t';
	case 'n': return '\n';
	case 'r': return '\r';
	case 'f': return '\f';
	case 'v': return '\v';
	case 'a': return '\a';
	default:
		if ((e >= '!' && e <= '/') || (e >= ':' && e <= '@') || (e >= '[' && e <= '`') || (e >= '{' && e <= '~'))
			return (unsigned char)e;
		fail(ps, "the escape \\%c is not supported", e);
		return -1;
	}
}

static struct node *parse_alt(struct parser *ps);

/* [...]: a class of ASCII bytes, or its negation */
static struct node *parse_class(struct parser *ps)
{
	struct node *n = mk(ps, N_CLASS);
	int neg = 0, first = 1;

	if (!n)
		return NULL;
	if (ps->p < ps->end && *ps->p == '^')
		neg = 1, ps->p++;
	while (!ps->failed) {
		if (ps->p >= ps->end) {
			fail(ps, "a class [ is not closed");
			break;
		}
		int c = (unsigned char)*ps->p++;
		if (c == ']' && !first)
			break;
		first = 0;
		if (c == '[' && ps->p < ps->end && *ps->p == ':') {
			fail(ps, "POSIX classes [:name:] are not supported");
			break;
		}
		if (c == '\\') {
			if (ps->p >= ps->end) {
				fail(ps, "the pattern ends in a backslash");
				break;
			}
			char e = *ps->p++;
			struct cls esc;
			int eneg;
			if (class_escape(e, &esc, &eneg)) {
				if (eneg)
					cls_ascii_not(&esc, &esc);
				for (int i = 0; i < 32; i++)
					n->c.bits[i] |= esc.bits[i];
				continue;
			}
			if ((c = literal_escape(ps, e)) < 0)
				break;
		}
		if (c >= 0x80) {
			fail(ps, "a non-ASCII character in a class is not supported");
			break;
		}
		int hi = c;
		if (ps->p + 1 < ps->end && *ps->p == '-' && ps->p[1] != ']') {
			ps->p++;
			hi = (unsigned char)*ps->p++;
			if (hi == '\\' && ps->p < ps->end) {
				char e = *ps->p++;
				if ((hi = literal_escape(ps, e)) < 0)
					break;
			}
			if (hi >= 0x80 || hi < c) {
				fail(ps, "a bad range %c-%c in a class", c, hi);
				break;
			}
		}
		cls_set(&n->c, c, hi);
	}
	if (neg) {
		n->kind = N_NOTCLASS;
	}
	return n;
}

static struct node *parse_atom(struct parser *ps)
{
	int c = (unsigned char)*ps->p++;
	struct node *n;

	switch (c) {
	case '(':
		if (++ps->depth > MAX_DEPTH) {
			fail(ps, "groups nested more than %d deep", MAX_DEPTH);
			return NULL;
		}
		if (ps->p < ps->end && *ps->p == '?') {
			if (ps->p + 1 < ps->end && ps->p[1] == ':') {
				ps->p += 2;
			} else {
				fail(ps, "the group (?%c is not supported (look-around, flags and named groups are not)",
				     ps->p + 1 < ps->end ? ps->p[1] : ' ');
				return NULL;
			}
		}
		n = parse_alt(ps);
		if (ps->p >= ps->end || *ps->p != ')') {
			fail(ps, "a group ( is not closed");
			node_free(n);
			return NULL;
		}
		ps->p++;
		ps->depth--;
		return n;
	case '[':
		return parse_class(ps);
	case '.':
		if ((n = mk(ps, N_NOTCLASS)))
			cls_set(&n->c, '\n', '\n');
		return n;
	case '^':
		return mk(ps, N_BOL);
	case '$':
		return mk(ps, N_EOL);
	case ')':
		fail(ps, "a ) with no group open");
		return NULL;
	case '*': case '+': case '?':
		fail(ps, "%c repeats nothing", c);
		return NULL;
	case '\\': {
		if (ps->p >= ps->end) {
			fail(ps, "the pattern ends in a backslash");
			return NULL;
		}
		char e = *ps->p++;
		struct cls esc;
		int neg;
		if (class_escape(e, &esc, &neg)) {
			if (!(n = mk(ps, neg ? N_NOTCLASS : N_CLASS)))
				return NULL;
			n->c = esc;
			return n;
		}
		if (e == 'b' || e == 'B')
			return mk(ps, e == 'b' ? N_WORDB : N_NWORDB);
		if (e == 'A')
			return mk(ps, N_BOL);
		if (e == 'z')
			return mk(ps, N_EOL);
		if (e >= '1' && e <= '9') {
			fail(ps, "back references (\\%c) are not supported", e);
			return NULL;
		}
		if (e == 'p' || e == 'P') {
			fail(ps, "Unicode classes (\\%c) are not supported", e);
			return NULL;
		}
		if ((c = literal_escape(ps, e)) < 0)
			return NULL;
		break;
	}
	default:
		break;
	}
	if ((n = mk(ps, N_CLASS)))
		cls_set(&n->c, c, c);
	return n;
}

/* a number for {m,n}; -1 when none */
static int parse_num(struct parser *ps)
{
	int v = -1;

	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		v = (v < 0 ? 0 : v) * 10 + (*ps->p++ - '0');
		if (v > MAX_REPEAT) {
			fail(ps, "a repeat count over %d", MAX_REPEAT);
			return -1;
		}
	}
	return v;
}

static struct node *parse_repeat(struct parser *ps)
{
	struct node *a = parse_atom(ps);

	while (a && !ps->failed && ps->p < ps->end) {
		int min, max;
		const char *save = ps->p;
		if (*ps->p == '*') {
			min = 0, max = -1, ps->p++;
		} else if (*ps->p == '+') {
			min = 1, max = -1, ps->p++;
		} else if (*ps->p == '?') {
			min = 0, max = 1, ps->p++;
		} else if (*ps->p == '{') {
			ps->p++;
			min = parse_num(ps);
			max = min;
			if (ps->p < ps->end && *ps->p == ',') {
				ps->p++;
				max = parse_num(ps);
			}
			if (ps->failed)
				break;
			if (min < 0 || ps->p >= ps->end || *ps->p != '}') {
				ps->p = save; /* RE2 reads a { that starts no repeat as a literal */
				break;
			}
			ps->p++;
			if (max >= 0 && max < min) {
				fail(ps, "a repeat {%d,%d} with its bounds the wrong way round", min, max);
				break;
			}
		} else {
			break;
		}
		if (ps->p < ps->end && *ps->p == '?') /* lazy: the same for a yes/no match */
			ps->p++;
		struct node *r = mk(ps, N_REP);
		if (!r)
			break;
		r->a = a, r->min = min, r->max = max;
		a = r;
	}
	return a;
}

static struct node *parse_seq(struct parser *ps)
{
	struct node *seq = NULL;

	while (!ps->failed && ps->p < ps->end && *ps->p != '|' && *ps->p != ')') {
		struct node *a = parse_repeat(ps);
		if (!a)
			break;
		if (!seq) {
			seq = a;
			continue;
		}
		struct node *c = mk(ps, N_CAT);
		if (!c) {
			node_free(a);
			break;
		}
		c->a = seq, c->b = a;
		seq = c;
	}
	return seq ? seq : mk(ps, N_EMPTY);
}

static struct node *parse_alt(struct parser *ps)
{
	struct node *a = parse_seq(ps);

	while (a && !ps->failed && ps->p < ps->end && *ps->p == '|') {
		ps->p++;
		struct node *b = parse_seq(ps), *alt = b ? mk(ps, N_ALT) : NULL;
		if (!alt) {
			node_free(b);
			break;
		}
		alt->a = a, alt->b = b;
		a = alt;
	}
	return a;
}

/* ---- code generation ---- */

static int emit(struct ov_regex *re, enum op op, int x, int y)
{
	if (re->n >= MAX_PROG)
		return -1;
	if (re->n == re->cap) {
		int cap = re->cap ? 2 * re->cap : 64;
		struct inst *p = realloc(re->prog, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		re->prog = p, re->cap = cap;
	}
	re->prog[re->n] = (struct inst){op, x, y};
	return re->n++;
}

static int add_class(struct ov_regex *re, const struct cls *c)
{
	if (re->ncls == re->capcls) {
		int cap = re->capcls ? 2 * re->capcls : 16;
		struct cls *p = realloc(re->cls, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		re->cls = p, re->capcls = cap;
	}
	re->cls[re->ncls] = *c;
	return re->ncls++;
}

static int emit_class(struct ov_regex *re, int lo, int hi)
{
	struct cls c;

	memset(&c, 0, sizeof c);
	cls_set(&c, lo, hi);
	int k = add_class(re, &c);
	return k < 0 ? -1 : emit(re, I_CLASS, k, 0);
}

/* One whole character outside the ASCII class c (N_NOTCLASS): an ASCII byte not in c, or a UTF-8 sequence. */
static int gen_notclass(struct ov_regex *re, const struct cls *excluded)
{
	struct cls a;
	int fix[4], nfix = 0;

	cls_ascii_not(excluded, &a);
	int ka = add_class(re, &a);
	/* SPLIT ascii, multi; ascii: CLASS; JMP end; multi: SPLIT two, more; ... */
	static const int lead[3][2] = {{0xc2, 0xdf}, {0xe0, 0xef}, {0xf0, 0xf4}};
	int s = emit(re, I_SPLIT, 0, 0);
	if (ka < 0 || s < 0)
		return -1;
	re->prog[s].x = re->n;
	if (emit(re, I_CLASS, ka, 0) < 0 || (fix[nfix++] = emit(re, I_JMP, 0, 0)) < 0)
		return -1;
	re->prog[s].y = re->n;
	for (int k = 0; k < 3; k++) {
		int s2 = k < 2 ? emit(re, I_SPLIT, 0, 0) : -2;
		if (s2 == -1)
			return -1;
		if (s2 >= 0)
			re->prog[s2].x = re->n;
		if (emit_class(re, lead[k][0], lead[k][1]) < 0)
			return -1;
		for (int c = 0; c <= k; c++)
			if (emit_class(re, 0x80, 0xbf) < 0)
				return -1;
		if (k < 2) {
			if ((fix[nfix++] = emit(re, I_JMP, 0, 0)) < 0)
				return -1;
			re->prog[s2].y = re->n;
		}
	}
	for (int i = 0; i < nfix; i++)
		re->prog[fix[i]].x = re->n;
	return 0;
}

static int gen(struct ov_regex *re, const struct node *n)
{
	int s, j, k;

	switch (n->kind) {
	case N_EMPTY: return 0;
	case N_CLASS:
		k = add_class(re, &n->c);
		return k < 0 ? -1 : emit(re, I_CLASS, k, 0) < 0 ? -1 : 0;
	case N_NOTCLASS: return gen_notclass(re, &n->c);
	case N_BOL: return emit(re, I_BOL, 0, 0) < 0 ? -1 : 0;
	case N_EOL: return emit(re, I_EOL, 0, 0) < 0 ? -1 : 0;
	case N_WORDB: return emit(re, I_WORDB, 0, 0) < 0 ? -1 : 0;
	case N_NWORDB: return emit(re, I_NWORDB, 0, 0) < 0 ? -1 : 0;
	case N_CAT: return gen(re, n->a) || gen(re, n->b) ? -1 : 0;
	case N_ALT:
		if ((s = emit(re, I_SPLIT, 0, 0)) < 0)
			return -1;
		re->prog[s].x = re->n;
		if (gen(re, n->a) || (j = emit(re, I_JMP, 0, 0)) < 0)
			return -1;
		re->prog[s].y = re->n;
		if (gen(re, n->b))
			return -1;
		re->prog[j].x = re->n;
		return 0;
	case N_REP:
		for (int i = 0; i < n->min; i++)
			if (gen(re, n->a))
				return -1;
		if (n->max < 0) { /* L: SPLIT body, out; body; JMP L */
			int l = emit(re, I_SPLIT, 0, 0);
			if (l < 0)
				return -1;
			re->prog[l].x = re->n;
			if (gen(re, n->a) || emit(re, I_JMP, l, 0) < 0)
				return -1;
			re->prog[l].y = re->n;
			return 0;
		}
		{
			/* each optional copy may be skipped to the end: SPLITs left open (y = -1) until the end is known;
			 * the operand's own SPLITs are all closed by the time it returns */
			int start = re->n;
			for (int i = n->min; i < n->max; i++) {
				if ((s = emit(re, I_SPLIT, 0, -1)) < 0)
					return -1;
				re->prog[s].x = re->n;
				if (gen(re, n->a))
					return -1;
			}
			for (int i = start; i < re->n; i++)
				if (re->prog[i].op == I_SPLIT && re->prog[i].y == -1)
					re->prog[i].y = re->n;
		}
		return 0;
	}
	return -1;
}

struct ov_regex *ov_regex_compile(const char *pattern, size_t len, char *err, size_t errn)
{
	struct parser ps = {pattern, pattern + len, err, errn, 0, 0};
	struct ov_regex *re;
	struct node *tree;

	if (errn)
		err[0] = '\0';
	if (len > MAX_PATTERN) {
		snprintf(err, errn, "a pattern of %zu bytes is over the limit of %d", len, MAX_PATTERN);
		return NULL;
	}
	tree = parse_alt(&ps);
	if (!ps.failed && ps.p < ps.end)
		fail(&ps, "a ) with no group open");
	if (ps.failed || !tree) {
		fail(&ps, "out of memory");
		node_free(tree);
		return NULL;
	}
	re = calloc(1, sizeof *re);
	if (!re || gen(re, tree) || emit(re, I_MATCH, 0, 0) < 0) {
		fail(&ps, re && re->n >= MAX_PROG ? "the pattern is too big (its repeats make over %d steps)"
						  : "out of memory", MAX_PROG);
		node_free(tree);
		ov_regex_free(re);
		return NULL;
	}
	node_free(tree);
	return re;
}

void ov_regex_free(struct ov_regex *re)
{
	if (!re)
		return;
	free(re->prog);
	free(re->cls);
	free(re);
}

/* ---- the simulation ---- */

static int is_word(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

struct list {
	int *pc;
	int n;
};

/* Add pc and every state its jumps, splits and assertions lead to at position i; mark[] holds the generation. */
static void add(const struct ov_regex *re, struct list *l, int *mark, int gen, int *stack, int pc, const char *s,
		size_t n, size_t i)
{
	int sp = 0;

	stack[sp++] = pc;
	while (sp) {
		pc = stack[--sp];
		if (mark[pc] == gen)
			continue;
		mark[pc] = gen;
		const struct inst *in = &re->prog[pc];
		int before = i > 0 && is_word((unsigned char)s[i - 1]), after = i < n && is_word((unsigned char)s[i]);
		switch (in->op) {
		case I_JMP: stack[sp++] = in->x; break;
		case I_SPLIT: stack[sp++] = in->y, stack[sp++] = in->x; break;
		case I_BOL: if (i == 0) stack[sp++] = pc + 1; break;
		case I_EOL: if (i == n) stack[sp++] = pc + 1; break;
		case I_WORDB: if (before != after) stack[sp++] = pc + 1; break;
		case I_NWORDB: if (before == after) stack[sp++] = pc + 1; break;
		default: l->pc[l->n++] = pc; break;
		}
	}
}

int ov_regex_full_match(const struct ov_regex *re, const char *s, size_t n)
{
	/* a state is expanded once a generation and pushes at most two: 2 * n + 1 bounds the stack */
	int *buf = malloc(((size_t)re->n * 5 + 1) * sizeof *buf), gen = 1, found = 0;
	if (!buf)
		return -1;
	int *mark = buf, *stack = buf + re->n, *a = stack + 2 * re->n + 1, *b = a + re->n;
	struct list cur = {a, 0}, next = {b, 0};

	for (int i = 0; i < re->n; i++)
		mark[i] = 0;
	add(re, &cur, mark, gen, stack, 0, s, n, 0);
	for (size_t i = 0; i < n && cur.n; i++) {
		int c = (unsigned char)s[i];
		next.n = 0;
		gen++;
		for (int k = 0; k < cur.n; k++) {
			const struct inst *in = &re->prog[cur.pc[k]];
			if (in->op == I_CLASS && cls_has(&re->cls[in->x], c))
				add(re, &next, mark, gen, stack, cur.pc[k] + 1, s, n, i + 1);
		}
		struct list t = cur;
		cur = next, next = t;
	}
	for (int k = 0; k < cur.n; k++)
		if (re->prog[cur.pc[k]].op == I_MATCH)
			found = 1;
	free(buf);
	return found;
}
