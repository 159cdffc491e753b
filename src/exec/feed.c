/* Feeding a run: the tensors `run` and `compare` give a model (files, generated random/zeros/ones inputs), checked
 * against what the model declares, and the small descriptions both commands print (dtype[dims], multi-indices). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "src/base/dtype.h"
#include "src/exec/seqfile.h"
#include "src/base/json.h"
#include "src/exec/feed.h"
#include "src/base/strbuf.h"
#include "src/model/tensorfile.h"

static void put_dims(struct strbuf *b, const int64_t *dims, int rank)
{
	strbuf_putc(b, '[');
	for (int i = 0; i < rank; i++)
		strbuf_printf(b, "%s%" PRId64, i ? "," : "", dims[i]);
	strbuf_putc(b, ']');
}

void put_xtype(struct strbuf *b, const struct xtensor *t)
{
	if (t->kind != XT_TENSOR) {
		char buf[256];
		xt_describe(t, buf, sizeof buf);
		strbuf_puts(b, buf);
		return;
	}
	strbuf_puts(b, dtype_short_name(t->dtype));
	put_dims(b, t->dims, t->rank);
}

/* What a value is declared or inferred to be, for checking fed tensors and generating inputs (NULL: unknown). */
const struct vshape *feed_value_shape(struct feed *s, int32_t id)
{
	const struct vshape *v = s->sh ? shapes_get(s->sh, s->g, id) : NULL;

	if (v && (v->dtype || v->rank >= 0))
		return v;
	const Onnx__ValueInfoProto *d = s->g->values[id].declared;
	if (d && d->type && s->sh && !shape_from_type(s->sh, d->type, &s->decl))
		return &s->decl;
	return v;
}

void put_vshape(struct strbuf *b, const struct vshape *v)
{
	shape_describe(b, v);
}

/* The flat index as a multi-index: [0,3,17] */
void put_copies(struct strbuf *b, const struct exec_result *r)
{
	if (r->to_device || r->to_host)
		strbuf_printf(b, "copies: %" PRIu64 " to the device (%" PRIu64 " bytes), %" PRIu64
			      " to the host (%" PRIu64 " bytes)\n", r->to_device, r->to_device_bytes, r->to_host,
			      r->to_host_bytes);
}

void put_index(struct strbuf *b, const struct xtensor *t, int64_t i)
{
	int64_t idx[XT_MAX_RANK];

	for (int d = t->rank - 1; d >= 0; d--) {
		idx[d] = t->dims[d] ? i % t->dims[d] : 0;
		i = t->dims[d] ? i / t->dims[d] : 0;
	}
	put_dims(b, idx, t->rank);
}

void json_index(struct json *j, const struct xtensor *t, int64_t i)
{
	int64_t idx[XT_MAX_RANK];

	if (i < 0) {
		json_null(j);
		return;
	}
	for (int d = t->rank - 1; d >= 0; d--) {
		idx[d] = t->dims[d] ? i % t->dims[d] : 0;
		i = t->dims[d] ? i / t->dims[d] : 0;
	}
	json_arr(j);
	for (int d = 0; d < t->rank; d++)
		json_int(j, idx[d]);
	json_end_arr(j);
}

int xt_stats(const struct xtensor *t, struct tensor_stats *st)
{
	struct tensor_view v = {.dtype = t->dtype, .numel = t->numel, .raw = t->data};

	if (t->dtype == OV_DT_STRING || !t->data || t->kind != XT_TENSOR) {
		memset(st, 0, sizeof *st);
		st->count = t->kind != XT_TENSOR ? 0 : t->numel;
		return -1;
	}
	return tensor_stats_compute(&v, st);
}

/* ---- inputs ---- */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int is_float(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
}

static int is_unsigned(int32_t dt)
{
	return dt == OV_DT_UINT8 || dt == OV_DT_UINT16 || dt == OV_DT_UINT32 || dt == OV_DT_UINT64;
}

/* ---- sizes for open dims ---- */

static int parse_count(const char *p, const char *end, int64_t *out)
{
	int64_t v = 0;

	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_C(1) << 40))
			return -1;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return 0;
}

int feed_sizes_add_shape(struct feed_sizes *fs, const char *arg, struct ov_error *e)
{
	const char *eq = strrchr(arg, '=');
	struct feed_shape sh = {.name = arg};

	if (!eq || eq == arg)
		return ov_fail(e, OV_USAGE, "--shape %s: give NAME=DIMS, e.g. x=1x3x224x224", arg);
	sh.name_len = (size_t)(eq - arg);
	for (const char *p = eq + 1; *p;) {
		const char *x = strchr(p, 'x');
		const char *end = x ? x : p + strlen(p);
		if (sh.rank >= XT_MAX_RANK)
			return ov_fail(e, OV_USAGE, "--shape %s: more than %d dims", arg, XT_MAX_RANK);
		if (parse_count(p, end, &sh.dims[sh.rank]))
			return ov_fail(e, OV_USAGE, "--shape %s: '%.*s' is not a size (dims are numbers joined by x: "
				       "1x3x224x224)", arg, (int)(end - p), p);
		sh.rank++;
		p = x ? x + 1 : end;
		if (x && !*p)
			return ov_fail(e, OV_USAGE, "--shape %s: a dim is missing after the last x", arg);
	}
	for (size_t i = 0; i < fs->n_shape; i++)
		if (fs->shape[i].name_len == sh.name_len && !strncmp(fs->shape[i].name, arg, sh.name_len))
			return ov_fail(e, OV_USAGE, "--shape %s: '%.*s' has a --shape already", arg, (int)sh.name_len, arg);
	struct feed_shape *n = realloc(fs->shape, (fs->n_shape + 1) * sizeof *n);
	if (!n)
		return ov_fail(e, OV_NOMEM, "out of memory");
	fs->shape = n;
	fs->shape[fs->n_shape++] = sh;
	return 0;
}

int feed_sizes_add_dim(struct feed_sizes *fs, const char *arg, struct ov_error *e)
{
	const char *eq = strrchr(arg, '=');
	struct feed_dim d = {.sym = arg};

	if (!eq || eq == arg || parse_count(eq + 1, eq + strlen(eq), &d.value))
		return ov_fail(e, OV_USAGE, "--dim %s: give SYMBOL=N, e.g. batch=1", arg);
	d.sym_len = (size_t)(eq - arg);
	for (size_t i = 0; i < fs->n_dim; i++)
		if (fs->dim[i].sym_len == d.sym_len && !strncmp(fs->dim[i].sym, arg, d.sym_len))
			return ov_fail(e, OV_USAGE, "--dim %s: '%.*s' has a --dim already", arg, (int)d.sym_len, arg);
	struct feed_dim *n = realloc(fs->dim, (fs->n_dim + 1) * sizeof *n);
	if (!n)
		return ov_fail(e, OV_NOMEM, "out of memory");
	fs->dim = n;
	fs->dim[fs->n_dim++] = d;
	return 0;
}

void feed_sizes_free(struct feed_sizes *fs)
{
	free(fs->shape);
	free(fs->dim);
	memset(fs, 0, sizeof *fs);
}

static const struct feed_shape *shape_for(const struct feed_sizes *fs, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; fs && i < fs->n_shape; i++)
		if (fs->shape[i].name_len == n && !strncmp(fs->shape[i].name, name, n))
			return &fs->shape[i];
	return NULL;
}

static const struct feed_dim *dim_for(const struct feed_sizes *fs, const char *sym)
{
	size_t n = sym ? strlen(sym) : 0;

	for (size_t i = 0; n && fs && i < fs->n_dim; i++)
		if (fs->dim[i].sym_len == n && !strncmp(fs->dim[i].sym, sym, n))
			return &fs->dim[i];
	return NULL;
}

int feed_resolve_shape(struct feed *s, int32_t id, struct feed_resolved *r)
{
	const char *name = s->g->values[id].name;
	const struct vshape *v = feed_value_shape(s, id);
	const struct feed_shape *given = shape_for(s->sizes, name);

	memset(r, 0, sizeof *r);
	r->rank = v ? v->rank : -1;
	if (r->rank > XT_MAX_RANK)
		return ov_fail(s->e, OV_LIMIT, "input '%s': rank %d is over the executor's limit", name, r->rank);
	if (given) {
		if (r->rank >= 0 && given->rank != r->rank)
			return ov_fail(s->e, OV_USAGE, "--shape %.*s=...: %d dim%s given, the model declares '%s' with %d",
				       (int)given->name_len, given->name, given->rank, given->rank == 1 ? "" : "s", name,
				       r->rank);
		for (int i = 0; i < given->rank && r->rank >= 0; i++) {
			int64_t want = v->dims[i].v;
			if (want != DIM_UNKNOWN && want >= 0 && want != given->dims[i])
				return ov_fail(s->e, OV_USAGE, "--shape %.*s=...: dim %d is %" PRId64 ", the model declares "
					       "it %" PRId64, (int)given->name_len, given->name, i, given->dims[i], want);
		}
		r->rank = given->rank;
		memcpy(r->dims, given->dims, (size_t)given->rank * sizeof *r->dims);
		r->from_shape = 1;
		return 0;
	}
	for (int i = 0; i < r->rank; i++) {
		const struct feed_dim *d;
		r->dims[i] = -1;
		if (v->dims[i].v != DIM_UNKNOWN && v->dims[i].v >= 0)
			r->dims[i] = v->dims[i].v;
		else if ((d = dim_for(s->sizes, v->dims[i].sym)))
			r->dims[i] = d->value;
		else
			r->n_open++;
	}
	return 0;
}

int feed_fail_open(struct feed *s, int32_t id, const struct feed_resolved *r)
{
	const char *name = s->g->values[id].name;
	const struct vshape *v = feed_value_shape(s, id);
	struct strbuf decl = {0}, which = {0}, ex = {0}, syms = {0};
	int k = 0, n_sym = 0;

	if (r->rank < 0) {
		return ov_fail(s->e, OV_USAGE, "input '%s': the model does not say its shape: give --shape %s=DIMS (e.g. "
			       "%s=1x3x224x224) or a file (--input %s=FILE)", name, name, name, name);
	}
	put_vshape(&decl, v);
	for (int i = 0; i < r->rank; i++) {
		strbuf_printf(&ex, "%s", i ? "x" : "");
		if (r->dims[i] >= 0) {
			strbuf_printf(&ex, "%" PRId64, r->dims[i]);
			continue;
		}
		const char *sym = v->dims[i].sym;
		strbuf_puts(&ex, i == 0 ? "N" : "D");
		if (i)
			strbuf_printf(&ex, "%d", i);
		k++;
		strbuf_printf(&which, "%s%d", k == 1 ? "" : k == r->n_open ? " and " : ", ", i);
		if (sym) {
			strbuf_printf(&which, " (%s)", sym);
			if (!strstr(strbuf_str(&syms), sym))
				strbuf_printf(&syms, "%s--dim %s=N", n_sym++ ? " " : "", sym);
		}
	}
	ov_fail(s->e, OV_USAGE, "input '%s' is %s: dim%s %s ha%s no size: give --shape %s=%s%s%s", name, strbuf_str(&decl),
		r->n_open == 1 ? "" : "s", strbuf_str(&which), r->n_open == 1 ? "s" : "ve", name, strbuf_str(&ex),
		n_sym ? ", or " : "", strbuf_str(&syms));
	strbuf_free(&decl);
	strbuf_free(&which);
	strbuf_free(&ex);
	strbuf_free(&syms);
	return -1;
}

int feed_resolve_inputs(struct feed *s, const char *const *names, size_t n, struct feed_resolved *out)
{
	int open = 0;

	for (size_t i = 0; s->sizes && i < s->sizes->n_shape; i++) {
		const struct feed_shape *sh = &s->sizes->shape[i];
		int found = 0;
		for (size_t k = 0; k < n && !found; k++)
			found = strlen(names[k]) == sh->name_len && !strncmp(names[k], sh->name, sh->name_len);
		if (!found)
			return ov_fail(s->e, OV_USAGE, "--shape %.*s=...: '%.*s' is no input of this run", (int)sh->name_len,
				       sh->name, (int)sh->name_len, sh->name);
	}
	for (size_t i = 0; s->sizes && i < s->sizes->n_dim; i++) {
		const struct feed_dim *d = &s->sizes->dim[i];
		int found = 0;
		for (size_t k = 0; k < n && !found; k++) {
			int32_t id = graph_value_id(s->g, names[k]);
			const struct vshape *v = id >= 0 ? feed_value_shape(s, id) : NULL;
			for (int a = 0; v && a < v->rank && !found; a++)
				found = v->dims[a].sym && strlen(v->dims[a].sym) == d->sym_len &&
					!strncmp(v->dims[a].sym, d->sym, d->sym_len);
		}
		if (!found)
			return ov_fail(s->e, OV_USAGE, "--dim %.*s=%" PRId64 ": no input of this run has a dim named '%.*s'",
				       (int)d->sym_len, d->sym, d->value, (int)d->sym_len, d->sym);
	}
	for (size_t k = 0; k < n; k++) {
		int32_t id = graph_value_id(s->g, names[k]);
		if (id < 0)
			return ov_fail(s->e, OV_USAGE, "'%s' is no value of the graph", names[k]);
		if (feed_resolve_shape(s, id, &out[k]))
			return -1;
		open += out[k].n_open > 0 || out[k].rank < 0;
	}
	return open;
}

int feed_is_generator(const char *spec)
{
	return !strcmp(spec, "zeros") || !strcmp(spec, "ones") ||
	       (!strncmp(spec, "random", 6) && (!spec[6] || spec[6] == ':'));
}

/* What an integer input's name says it holds (see feed.h). */
enum int_role { INT_PLAIN, INT_RATE, INT_SIZE, INT_INDEX };

static int name_has(const char *lower, const char *word)
{
	return strstr(lower, word) != NULL;
}

static enum int_role int_role(const char *name)
{
	char lower[128];
	size_t n = 0;

	for (const char *p = name; *p && n + 1 < sizeof lower; p++)
		lower[n++] = (char)tolower((unsigned char)*p);
	lower[n] = '\0';
	if (!strcmp(lower, "sr") || name_has(lower, "sample_rate") || name_has(lower, "sampling_rate") ||
	    name_has(lower, "samplerate"))
		return INT_RATE;
	if (name_has(lower, "size") || name_has(lower, "len") || name_has(lower, "count") || name_has(lower, "num") ||
	    name_has(lower, "steps"))
		return INT_SIZE;
	if (name_has(lower, "ids") || name_has(lower, "index") || name_has(lower, "idx") || name_has(lower, "token") ||
	    name_has(lower, "position") || name_has(lower, "label") || name_has(lower, "mask"))
		return INT_INDEX;
	return INT_PLAIN;
}

/* random[:seed], zeros, ones with the value's declared or inferred shape, completed by --shape/--dim. */
int feed_generate(struct feed *s, int32_t id, const char *spec, struct xtensor *t)
{
	const char *name = s->g->values[id].name;
	const struct vshape *v = feed_value_shape(s, id);
	struct feed_resolved r;
	uint64_t seed = 0;
	int kind; /* 0 zeros, 1 ones, 2 random */

	if (!strcmp(spec, "zeros"))
		kind = 0;
	else if (!strcmp(spec, "ones"))
		kind = 1;
	else if (!strncmp(spec, "random", 6) && (!spec[6] || spec[6] == ':')) {
		kind = 2;
		if (spec[6]) {
			char *end;
			errno = 0;
			seed = strtoull(spec + 7, &end, 10);
			if (errno || end == spec + 7 || *end)
				return ov_fail(s->e, OV_USAGE, "--input %s: the seed in '%s' is not a number", name, spec);
		}
	} else {
		return -2; /* not a generator: a file */
	}
	if (feed_value_kind(s->g, id) != XT_TENSOR)
		return ov_fail(s->e, OV_USAGE, "input '%s' is a %s: '%s' makes tensors only; give a .pb file (--input %s=FILE)",
			       name, xt_kind_name(feed_value_kind(s->g, id)), spec, name);
	if (!v || !v->dtype)
		return ov_fail(s->e, OV_USAGE,
			       "input '%s': its type is not known, so '%s' cannot make it; give a file (--input %s=FILE)",
			       name, spec, name);
	if (feed_resolve_shape(s, id, &r))
		return -1;
	if (r.rank < 0 || r.n_open)
		return feed_fail_open(s, id, &r);
	if (v->dtype == OV_DT_STRING)
		return ov_fail(s->e, OV_USAGE, "input '%s' holds strings: give a file (--input %s=FILE)", name, name);
	if (xt_alloc(t, v->dtype, r.rank, r.dims, s->e))
		return ov_wrap(s->e, "input '%s': ", name);
	enum int_role role = is_float(t->dtype) || t->dtype == OV_DT_BOOL ? INT_PLAIN : int_role(name);
	if (kind < 2)
		snprintf(s->how, sizeof s->how, "%s", kind ? "ones" : "zeros");
	else if (is_float(t->dtype))
		snprintf(s->how, sizeof s->how, "uniform in [-1,1)");
	else if (t->dtype == OV_DT_BOOL)
		snprintf(s->how, sizeof s->how, "booleans");
	else if (role == INT_RATE)
		snprintf(s->how, sizeof s->how, "16000: a sample rate, by its name");
	else if (role == INT_SIZE)
		snprintf(s->how, sizeof s->how, "integers in [1,10]: a size or count, by its name");
	else if (role == INT_INDEX || is_unsigned(t->dtype))
		snprintf(s->how, sizeof s->how, "integers in [0,10)%s", role == INT_INDEX ? ": indices, by its name" : "");
	else
		snprintf(s->how, sizeof s->how, "integers in [-5,5]");
	/* each input gets its own stream, so adding an input does not change the others */
	uint64_t st = seed ^ 0x6f6e6e78766965ull;
	for (const char *c = name; *c; c++)
		st = (st ^ (uint8_t)*c) * 0x100000001b3ull;
	for (int64_t i = 0; i < t->numel; i++) {
		double x = kind;
		if (kind == 2) {
			uint64_t rnd = splitmix(&st);
			if (is_float(t->dtype))
				x = (double)(rnd >> 11) * 0x1.0p-53 * 2.0 - 1.0;
			else if (t->dtype == OV_DT_BOOL)
				x = (double)(rnd & 1);
			else if (role == INT_RATE)
				x = 16000;
			else if (role == INT_SIZE)
				x = (double)(rnd % 10) + 1;
			else if (role == INT_INDEX || is_unsigned(t->dtype))
				x = (double)(rnd % 10);
			else
				x = (double)(rnd % 11) - 5;
		}
		xt_set(t, i, x);
	}
	return 0;
}

int feed_read(struct feed *s, const char *path, struct xtensor *t, char **pb_name)
{
	Onnx__TensorProto *tp = NULL;

	if (tensorfile_read(path, NULL, &tp, s->e))
		return -1;
	int rc = exec_tensor_from_proto(s->m, tp, t, s->e);
	if (rc)
		ov_wrap(s->e, "%s: ", path);
	if (pb_name)
		*pb_name = tp->name && *tp->name ? strdup(tp->name) : NULL;
	tensorfile_free(tp, NULL);
	return rc;
}

int feed_value_kind(const struct graph *g, int32_t id)
{
	const Onnx__ValueInfoProto *d = id >= 0 ? g->values[id].declared : NULL;

	if (!d || !d->type)
		return XT_TENSOR;
	if (d->type->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)
		return XT_SEQUENCE;
	if (d->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
		return XT_OPTIONAL;
	return XT_TENSOR;
}

int feed_read_value(struct feed *s, int32_t id, const char *path, struct xtensor *t, char **pb_name)
{
	int kind = feed_value_kind(s->g, id);
	size_t n = strlen(path);

	if (kind == XT_TENSOR)
		return feed_read(s, path, t, pb_name);
	memset(t, 0, sizeof *t);
	if (n < 3 || strcasecmp(path + n - 3, ".pb"))
		return ov_fail(s->e, OV_USAGE, "%s: '%s' is a %s: give it as a .pb file (an ONNX %s)", path,
			       s->g->values[id].name, xt_kind_name(kind), kind == XT_SEQUENCE ? "SequenceProto" : "OptionalProto");
	return seqfile_read(path, kind, t, pb_name, s->e);
}

/* A fed tensor must be what the model declares: same dtype, same rank, same dims where the model has numbers. */
int feed_check(struct feed *s, int32_t id, struct xtensor *t, const char *source,
			 enum ov_status code)
{
	int kind = feed_value_kind(s->g, id);
	if (t->kind != XT_TENSOR || kind != XT_TENSOR) {
		/* a sequence or optional: its kind must be the declared one (its tensors' shapes are the ops' business) */
		if (t->kind == kind)
			return 0;
		return ov_fail(s->e, code, "input '%s': %s is a %s, the model declares a %s", s->g->values[id].name, source,
			       xt_kind_name(t->kind), xt_kind_name(kind));
	}
	const struct vshape *v = feed_value_shape(s, id);
	int bad = 0;

	if (!v)
		return 0;
	/* bfloat16 (and float16) travel as uint16 bit patterns where the format has no such type (.npy, and the
	 * ONNX test data of the Cast tests) */
	if (t->dtype == OV_DT_UINT16 && (v->dtype == OV_DT_BFLOAT16 || v->dtype == OV_DT_FLOAT16))
		t->dtype = v->dtype;
	int bad_shape = 0;
	if (v->dtype && v->dtype != t->dtype)
		bad = 1;
	if (v->rank >= 0) {
		if (v->rank != t->rank)
			bad_shape = 1;
		for (int i = 0; !bad_shape && i < v->rank; i++)
			if (v->dims[i].v != DIM_UNKNOWN && v->dims[i].v != t->dims[i])
				bad_shape = 1;
	}
	if (!bad && !bad_shape)
		return 0;
	struct strbuf got = {0}, want = {0};
	put_xtype(&got, t);
	put_vshape(&want, v);
	/* ONNX's own test data sometimes disagrees with its model's declared shapes (CastLike's 'like'), and its
	 * runner does not check them: a data set's shapes get a note, its dtypes must match */
	if (!bad && s->lenient_shapes) {
		struct ov_error e = {.code = OV_OK};
		snprintf(e.msg, sizeof e.msg, "note: input '%s': %s is %s, the model declares %s; running anyway",
			 s->g->values[id].name, source, strbuf_str(&got), strbuf_str(&want));
		ov_error_report(s->errf, NULL, &e);
		strbuf_free(&got);
		strbuf_free(&want);
		return 0;
	}
	ov_fail(s->e, code, "input '%s': %s is %s, the model declares %s", s->g->values[id].name, source,
		strbuf_str(&got), strbuf_str(&want));
	strbuf_free(&got);
	strbuf_free(&want);
	return -1;
}

int feed_is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int feed_file_exists(const char *p)
{
	struct stat st;
	return !stat(p, &st);
}

/* NAME=SPEC, or SPEC alone when the cut needs exactly one input. */
int feed_split_named(struct feed *s, const char *arg, const char **names, long n_names, const char *what,
		       const char **name, const char **spec)
{
	const char *eq = strchr(arg, '=');

	if (eq) {
		char *nm = strndup(arg, (size_t)(eq - arg));
		int32_t id = nm ? graph_value_id(s->g, nm) : -1;
		free(nm);
		if (id >= 0) {
			*name = s->g->values[id].name;
			*spec = eq + 1;
			return 0;
		}
	}
	if (n_names == 1 && !(eq && !feed_file_exists(arg))) {
		*name = names[0];
		*spec = arg;
		return 0;
	}
	if (eq)
		return ov_fail(s->e, OV_USAGE, "%s %s: '%.*s' is not a value of the graph", what, arg, (int)(eq - arg),
			       arg);
	return ov_fail(s->e, OV_USAGE, "%s %s: say which value (NAME=%s)", what, arg, arg);
}

void feed_safe_name(const char *name, char *buf, size_t n)
{
	size_t j = 0;

	for (const char *c = name; *c && j + 1 < n - 4; c++) {
		int keep = isalnum((unsigned char)*c) || *c == '-' || *c == '_' || (*c == '.' && j > 0);
		buf[j++] = keep ? *c : '_';
	}
	if (!j)
		buf[j++] = '_';
	buf[j] = '\0';
}


int feed_split_list(char **list, size_t *n, size_t max, char *arg)
{
	char *save = NULL;

	for (char *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max)
			return -1;
		list[(*n)++] = tok;
	}
	return 0;
}

int feed_parse_tol(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || isinf(v))
		return -1;
	*out = v;
	return 0;
}

int feed_rule(const char *rtol, const char *atol, int strict, struct compare_rule *r, struct ov_error *e)
{
	*r = strict || rtol || atol ? COMPARE_RULE_ONNX : COMPARE_RULE_DEFAULT;
	if (rtol && feed_parse_tol(rtol, &r->rtol))
		return ov_fail(e, OV_USAGE, "--rtol wants a number >= 0, not '%s'", rtol);
	if (atol && feed_parse_tol(atol, &r->atol))
		return ov_fail(e, OV_USAGE, "--atol wants a number >= 0, not '%s'", atol);
	return 0;
}

int feed_input(struct feed *s, int32_t id, const char *spec, struct xtensor *t)
{
	int g = feed_generate(s, id, spec, t);

	if (g != -2)
		return g;
	if (feed_read_value(s, id, spec, t, NULL))
		return -1;
	if (feed_check(s, id, t, spec, OV_USAGE)) {
		xt_free(t);
		return -1;
	}
	return 0;
}
