/* set-attr NODE NAME VALUE: set one attribute of a node, typed by the op's schema at the model's opset. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/edit/internal.h"
#include "src/graph/opdb.h"
#include "src/base/strbuf.h"

/* The bytes of a string literal: "a\"b" (quoted, C escapes) or a bare word. Returns a malloc'd string. */
static char *unquote(const char *t, size_t *len)
{
	size_t n = strlen(t), k = 0;
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
		for (size_t i = 1; i + 1 < n; i++) {
			char c = t[i];
			if (c == '\\' && i + 2 < n) {
				c = t[++i];
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
			}
			out[k++] = c;
		}
	} else {
		memcpy(out, t, n);
		k = n;
	}
	out[k] = '\0';
	*len = k;
	return out;
}

static void *model_alloc(struct edit_session *s, size_t n)
{
	return s->m->alloc.alloc(s->m->alloc.allocator_data, n ? n : 1);
}

static int is_int(const char *t)
{
	int64_t v;

	return edit_parse_int(t, &v, NULL) == 0;
}

static int is_float(const char *t)
{
	double v;

	return edit_parse_float(t, &v, NULL) == 0;
}

/* The type a value's form suggests, for an attribute no schema describes. */
static int type_from_form(const char *text, char **items, int64_t n, int rank)
{
	int ints = 1, floats = 1;

	for (int64_t i = 0; i < n; i++) {
		ints &= is_int(items[i]);
		floats &= is_float(items[i]);
	}
	if (rank == 0 && text[0] != '[')
		return ints ? OP_ATTR_INT : floats ? OP_ATTR_FLOAT : OP_ATTR_STRING;
	return ints ? OP_ATTR_INTS : floats ? OP_ATTR_FLOATS : OP_ATTR_STRINGS;
}

static int parse_float_item(const char *t, float *out, struct ov_error *err)
{
	double d;

	if (edit_parse_float(t, &d, err))
		return -1;
	if (isfinite(d) && fabs(d) > FLT_MAX)
		return ov_fail(err, OV_USAGE, "%s is out of the range of a float", t);
	*out = (float)d;
	return 0;
}

/* Fill a (fresh) attribute with the value text as type. items/n/rank: the text parsed as a list. */
static int fill_value(struct edit_session *s, Onnx__AttributeProto *a, int type, const char *text, char **items,
		      int64_t n, int rank, struct ov_error *err)
{
	int scalar = type == OP_ATTR_INT || type == OP_ATTR_FLOAT || type == OP_ATTR_STRING;

	a->has_type = 1;
	a->type = (Onnx__AttributeProto__AttributeType)type;
	if (scalar && type != OP_ATTR_STRING && (rank != 0 || text[0] == '['))
		return ov_fail(err, OV_USAGE, "'%s' is a list; %s takes one value", text, op_attr_type_name(type));
	if (!scalar && rank > 1)
		return ov_fail(err, OV_USAGE, "'%s' is nested; %s takes a flat list such as [1, 2]", text,
			       op_attr_type_name(type));
	switch (type) {
	case OP_ATTR_INT:
		a->has_i = 1;
		return edit_parse_int(text, &a->i, err);
	case OP_ATTR_FLOAT:
		a->has_f = 1;
		return parse_float_item(text, &a->f, err);
	case OP_ATTR_STRING: {
		/* The command line already took the quotes off "nearest"; a quoted item inside [...] is not a string. */
		size_t len = strlen(text);
		a->has_s = 1;
		a->s.len = len;
		if (!(a->s.data = model_alloc(s, len)))
			return ov_fail(err, OV_NOMEM, "out of memory");
		memcpy(a->s.data, text, len);
		return 0;
	}
	case OP_ATTR_INTS:
		if (!(a->ints = model_alloc(s, (size_t)n * sizeof *a->ints)))
			return ov_fail(err, OV_NOMEM, "out of memory");
		for (int64_t i = 0; i < n; i++, a->n_ints++)
			if (edit_parse_int(items[i], &a->ints[i], err))
				return -1;
		return 0;
	case OP_ATTR_FLOATS:
		if (!(a->floats = model_alloc(s, (size_t)n * sizeof *a->floats)))
			return ov_fail(err, OV_NOMEM, "out of memory");
		for (int64_t i = 0; i < n; i++, a->n_floats++)
			if (parse_float_item(items[i], &a->floats[i], err))
				return -1;
		return 0;
	case OP_ATTR_STRINGS:
		if (!(a->strings = model_alloc(s, (size_t)n * sizeof *a->strings)))
			return ov_fail(err, OV_NOMEM, "out of memory");
		for (int64_t i = 0; i < n; i++) {
			size_t len;
			char *u = unquote(items[i], &len);
			uint8_t *d = u ? model_alloc(s, len) : NULL;
			if (!d) {
				free(u);
				return ov_fail(err, OV_NOMEM, "out of memory");
			}
			memcpy(d, u, len);
			free(u);
			a->strings[a->n_strings++] = (ProtobufCBinaryData){len, d};
		}
		return 0;
	default:
		return ov_fail(err, OV_INVALID, "set-attr cannot write %s attributes", op_attr_type_name(type));
	}
}

/* "auto_pad, dilations, group" into b. */
static void list_attr_names(struct strbuf *b, const struct op_schema *sch)
{
	for (size_t k = 0; k < sch->n_attrs; k++)
		strbuf_printf(b, "%s%s", k ? ", " : "", sch->attrs[k].name);
}

static int is_constant_value_attr(const char *name)
{
	return !strncmp(name, "value", 5) || !strcmp(name, "sparse_value");
}

/* Window geometry that no op can run with (a stride of 0 divides by zero in the output size): taken, since
 * the user may be on the way to another edit, but said. */
static void warn_geometry(struct edit_session *s, const char *label, const Onnx__AttributeProto *a)
{
	static const char *const at_least_one[] = {"strides", "dilations", "kernel_shape", "group", "blocksize"};
	const char *name = a->name ? a->name : "";

	for (size_t k = 0; k < sizeof at_least_one / sizeof at_least_one[0]; k++) {
		if (strcmp(name, at_least_one[k]))
			continue;
		for (size_t i = 0; i < a->n_ints; i++)
			if (a->ints[i] < 1) {
				edit_say(s, "warning: %s: %s[%zu] is %lld; it must be at least 1, or the node cannot run", label,
					 name, i, (long long)a->ints[i]);
				return;
			}
		if (a->has_i && a->i < 1)
			edit_say(s, "warning: %s: %s is %lld; it must be at least 1, or the node cannot run", label, name,
				 (long long)a->i);
		return;
	}
}

static int exec_set_attr(struct edit_session *s, const struct edit_args *args, struct ov_error *err)
{
	const char *name = args->v[1].text, *text = args->v[2].text;
	char label[300], **items = NULL;
	int64_t n = 0, dims[16];
	int rank = 0, type, rc = -1, by_form = 0;
	struct strbuf b = {0}, old = {0}, neu = {0};
	Onnx__AttributeProto *a = NULL;

	int32_t idx = args->v[0].node;
	Onnx__NodeProto *nd = s->g->nodes[idx].proto;
	edit_node_label(label, sizeof label, nd, (uint32_t)idx);
	size_t pos = nd->n_attribute;
	for (size_t k = 0; k < nd->n_attribute; k++)
		if (nd->attribute[k]->name && !strcmp(nd->attribute[k]->name, name)) {
			pos = k;
			break;
		}
	Onnx__AttributeProto *cur = pos < nd->n_attribute ? nd->attribute[pos] : NULL;
	const struct op_schema *sch = edit_node_schema(s, nd);
	const struct op_attr *sa = sch ? op_schema_attr(sch, name) : NULL;

	if (sch && !sa) {
		list_attr_names(&b, sch);
		ov_fail(err, OV_INVALID, "%s-%d takes no attribute '%s' (%s%s)", sch->name, sch->since_version, name,
			b.len ? "it takes: " : "it takes none", strbuf_str(&b));
		goto out;
	}
	if (nd->op_type && !strcmp(nd->op_type, "Constant") && edit_is_default_domain(nd->domain) &&
	    is_constant_value_attr(name)) {
		for (size_t k = 0; k < nd->n_attribute; k++)
			if (k != pos && nd->attribute[k]->name && is_constant_value_attr(nd->attribute[k]->name)) {
				ov_fail(err, OV_INVALID, "a Constant holds one value: %s has '%s' already (change the constant "
					"with set-tensor %s VALUES)", label, nd->attribute[k]->name,
					nd->n_output ? nd->output[0] : "OUTPUT");
				goto out;
			}
	}
	if (sa)
		type = sa->type;
	else if (cur && attr_type(cur))
		type = attr_type(cur);
	else
		type = 0, by_form = 1;
	if (type == OP_ATTR_TENSOR || type == OP_ATTR_SPARSE_TENSOR) {
		if (nd->op_type && !strcmp(nd->op_type, "Constant") && nd->n_output)
			ov_fail(err, OV_INVALID, "'%s' of %s is a tensor: change it with set-tensor %s VALUES (the Constant's "
				"output)", name, label, nd->output[0]);
		else
			ov_fail(err, OV_INVALID, "'%s' of %s is a tensor: set-attr writes numbers, strings and lists of "
				"them", name, label);
		goto out;
	}
	if (type != 0 && type != OP_ATTR_INT && type != OP_ATTR_FLOAT && type != OP_ATTR_STRING &&
	    type != OP_ATTR_INTS && type != OP_ATTR_FLOATS && type != OP_ATTR_STRINGS) {
		ov_fail(err, OV_INVALID, "'%s' of %s is %s: set-attr writes numbers, strings and lists of them", name,
			label, op_attr_type_name(type));
		goto out;
	}
	/* A STRING is taken as written (it may contain brackets); everything else is a literal. Without a type to
	 * go by, what does not read as a literal is a string. */
	if (by_form) {
		if (edit_parse_list(text, &items, &n, dims, &rank, text[0] == '[' ? err : NULL) == 0)
			type = type_from_form(text, items, n, rank);
		else if (text[0] != '[')
			type = OP_ATTR_STRING;
		else
			goto out;
	} else if (type != OP_ATTR_STRING && edit_parse_list(text, &items, &n, dims, &rank, err)) {
		goto out;
	}

	if (!(a = model_alloc(s, sizeof *a))) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	onnx__attribute_proto__init(a);
	if (fill_value(s, a, type, text, items, n, rank, err)) {
		ov_wrap(err, "attribute '%s' of %s is %s: ", name, sch ? sch->name : label, op_attr_type_name(type));
		goto out;
	}
	if (cur) {
		describe_attr_value(&old, s->m, cur, 16);
		/* The new value takes the old one's place: same name, same position, same doc string. */
		a->name = cur->name;
		a->doc_string = cur->doc_string;
		cur->name = cur->doc_string = NULL;
		protobuf_c_message_free_unpacked(&cur->base, &s->m->alloc);
		nd->attribute[pos] = a;
	} else {
		Onnx__AttributeProto **na;
		if (!(a->name = edit_strdup(s, name)) ||
		    !(na = edit_array_grow(s, nd->attribute, nd->n_attribute, sizeof *na))) {
			ov_fail(err, OV_NOMEM, "out of memory");
			goto out;
		}
		nd->attribute = na;
		nd->attribute[nd->n_attribute++] = a;
		if (sa && sa->default_text)
			strbuf_printf(&old, "(not set: default %s)", sa->default_text);
		else
			strbuf_puts(&old, "(not set)");
	}
	describe_attr_value(&neu, s->m, a, 16);
	const Onnx__AttributeProto *set = a;
	a = NULL;
	edit_touch(s);
	edit_say(s, "%s: %s %s -> %s", label, name, strbuf_str(&old), strbuf_str(&neu));
	warn_geometry(s, label, set);
	if (by_form)
		edit_say(s, "%s has no schema in onnxview's op database: '%s' is %s by the form of the value", label,
			 name, op_attr_type_name(type));
	rc = 0;
out:
	if (a)
		protobuf_c_message_free_unpacked(&a->base, &s->m->alloc);
	edit_free_list(items, n);
	strbuf_free(&b);
	strbuf_free(&old);
	strbuf_free(&neu);
	return rc;
}

const struct edit_cmd edit_set_attr_cmd = {
	.name = "set-attr",
	.usage = "set-attr NODE NAME VALUE",
	.help = "set an attribute, typed by the op's schema: 3, 0.5, nearest, [1,2], [0.5,2.0], [\"a\",\"b\"]",
	.args = {{.kind = EDIT_ARG_NODE}, {.kind = EDIT_ARG_ATTR}, {.kind = EDIT_ARG_LITERAL}},
	.exec = exec_set_attr,
};
