/* Check rules about operators: does each op exist in its domain at the imported opset, is its domain imported,
 * will a standard runtime run it, and do its attributes, inputs and outputs fit its schema. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "src/base/strbuf.h"
#include "src/check/internal.h"
#include "src/graph/opdoc.h"
#include "src/model/describe.h"

static int is_default(const char *d)
{
	return !d || !*d || !strcmp(d, "ai.onnx");
}

/* Domains onnxview's database describes. */
static int known_domain(const struct check_ctx *c, const char *d)
{
	size_t n;
	const char *const *ds = opdb_domains(c->db, &n);

	if (is_default(d))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ds[i], d))
			return 1;
	return 0;
}

/* Does text mention word as a whole identifier (case-insensitive)?  "torchvision.ops.deform_conv2d" mentions
 * deform_conv2d, "deform_conv2d_v2" does not. */
static int mentions(const char *text, const char *word)
{
	size_t n = strlen(word);

	if (!n)
		return 0;
	for (const char *p = text; *p; p++)
		if (!strncasecmp(p, word, n) && (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
		    !(isalnum((unsigned char)p[n]) || p[n] == '_'))
			return 1;
	return 0;
}

/* The standard op a custom-domain op stands for, or NULL: one of the same name (any case), or one whose PyTorch
 * calls in the op docs name it (custom::deform_conv2d is DeformConv). */
static const char *standard_op_for(const struct check_ctx *c, const char *op)
{
	size_t n, nd;
	const char *const *names = opdb_op_names(c->db, "", &n);
	struct ov_error e;
	const struct opdoc *docs = opdoc_default(&e);
	const struct op_doc *all = docs ? opdoc_all(docs, &nd) : NULL;

	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(names[i], op))
			return names[i];
	for (size_t i = 0; all && i < nd; i++)
		for (size_t k = 0; k < all[i].n_pytorch && is_default(all[i].domain); k++)
			if (mentions(all[i].pytorch[k], op) && opdb_first_version(c->db, "", all[i].name))
				return all[i].name;
	return NULL;
}

/* The hint for a custom-domain node: the concrete edit when a standard op does the same job, the opset it needs
 * raised first when the model's is older. */
static void custom_hint(const struct check_ctx *c, uint32_t i, const char *dom, const char *op, char *hint,
			size_t len)
{
	const char *std = standard_op_for(c, op);
	int first = std ? opdb_first_version(c->db, "", std) : 0;
	int64_t have = check_opset(c, "");

	if (!std) {
		snprintf(hint, len, "replace it with standard ops (set-op #%u OPTYPE) or give the runtime a plugin for "
			 "%s::%s", i, dom, op);
		return;
	}
	if (have && have < first && !*c->where)
		snprintf(hint, len, "ONNX has it as %s (opset %d): onnxview edit MODEL -e 'set-opset %d' -e 'set-op #%u "
			 "%s' -o OUT, then check its inputs and attributes", std, first, first, i, std);
	else if (!*c->where)
		snprintf(hint, len, "ONNX has it as %s (opset %d): onnxview edit MODEL -e 'set-op #%u %s' -o OUT, then "
			 "check its inputs and attributes", std, first, i, std);
	else
		snprintf(hint, len, "ONNX has it as %s (opset %d): replace it (set-op) and check its inputs and "
			 "attributes", std, first);
}

static void check_schema(struct check_ctx *c, uint32_t i, const struct op_schema *s)
{
	const Onnx__NodeProto *n = c->g->nodes[i].proto;
	char hint[256], range[40];

	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];
		const char *name = at->name ? at->name : "";
		const struct op_attr *sa = op_schema_attr(s, name);
		if (!sa) {
			if (!strcmp(name, "align_corners") && !strcmp(s->name, "Upsample"))
				/* upsample_bilinear2d(align_corners=True) before opset 11: dropping it changes the results */
				snprintf(hint, sizeof hint, "export with opset_version=11 or newer (Resize has align_corners); "
					 "removing it would silently change the results");
			else
			{
				/* a command that works when pasted: the name as the command language writes it */
				struct strbuf w = {0};
				strbuf_put_word(&w, name);
				snprintf(hint, sizeof hint, "remove it: onnxview edit MODEL -e 'del-attr #%u %s'", i,
					 w.len < 200 ? strbuf_str(&w) : "NAME");
				strbuf_free(&w);
			}
			diag_add(c, DIAG_unknown_attribute, (int32_t)i, NULL, hint,
				 "%s-%d takes no attribute '%s'", s->name, s->since_version, name);
			continue;
		}
		if (at->ref_attr_name && *at->ref_attr_name)
			continue; /* bound when the function is called */
		int t = attr_type(at);
		if (t != sa->type && t != 0)
			diag_add(c, DIAG_attribute_type, (int32_t)i, NULL, NULL, "attribute '%s' is %s, %s-%d wants %s",
				 name, attr_type_name(at), s->name, s->since_version, op_attr_type_name(sa->type));
	}
	for (size_t k = 0; k < s->n_attrs; k++) {
		const struct op_attr *sa = &s->attrs[k];
		int found = 0;
		if (!sa->required)
			continue;
		for (size_t a = 0; a < n->n_attribute && !found; a++)
			found = n->attribute[a]->name && !strcmp(n->attribute[a]->name, sa->name);
		if (!found)
			diag_add(c, DIAG_missing_attribute, (int32_t)i, NULL, NULL, "%s-%d requires attribute '%s' (%s)",
				 s->name, s->since_version, sa->name, op_attr_type_name(sa->type));
	}
	int nin = (int)n->n_input, nout = (int)n->n_output;
	if (nin < s->min_inputs || nin > s->max_inputs)
		diag_add(c, DIAG_input_count, (int32_t)i, NULL, NULL, "%d input%s; %s-%d takes %s", nin,
			 nin == 1 ? "" : "s", s->name, s->since_version, op_arity_text(range, sizeof range, s->min_inputs,
			 s->max_inputs));
	else
		for (int k = 0; k < nin && (size_t)k < s->n_inputs; k++)
			if (!*n->input[k] && s->inputs[k].option == OP_FORMAL_SINGLE)
				diag_add(c, DIAG_input_count, (int32_t)i, NULL, NULL,
					 "required input %d ('%s') of %s-%d is left empty", k, s->inputs[k].name, s->name,
					 s->since_version);
	if (nout < s->min_outputs || nout > s->max_outputs)
		diag_add(c, DIAG_output_count, (int32_t)i, NULL, NULL, "%d output%s; %s-%d gives %s", nout,
			 nout == 1 ? "" : "s", s->name, s->since_version, op_arity_text(range, sizeof range, s->min_outputs,
			 s->max_outputs));
}

void check_ops(struct check_ctx *c)
{
	const struct graph *g = c->g;
	char hint[300];

	if (!c->db) {
		if (!*c->where)
			diag_add(c, DIAG_opset_newer_than_db, -1, NULL, "reinstall onnxview (share/onnxview/opdb.txt)",
				 "the op database could not be loaded: op and attribute checks were skipped");
		return;
	}
	if (!*c->where)
		for (size_t i = 0; i < c->n_opsets; i++) {
			const char *d = c->opsets[i]->domain ? c->opsets[i]->domain : "";
			int64_t v = c->opsets[i]->version;
			int latest = opdb_latest_opset(c->db, d);
			if (latest && v > latest)
				diag_add(c, DIAG_opset_newer_than_db, -1, NULL, NULL,
					 "the model imports %s opset %lld; onnxview's op database (onnx %s) knows up to %d",
					 is_default(d) ? "ai.onnx" : d, (long long)v, opdb_onnx_version(c->db), latest);
		}
	for (uint32_t i = 0; i < g->n_nodes && !c->oom; i++) {
		const Onnx__NodeProto *n = g->nodes[i].proto;
		const char *dom = n->domain ? n->domain : "", *op = n->op_type ? n->op_type : "";
		int64_t opset = check_opset(c, dom);

		if (!opset) {
			if (is_default(dom))
				snprintf(hint, sizeof hint, "add the ai.onnx opset import the model was exported with "
					 "(onnxview edit MODEL -e 'set-opset ai.onnx N')");
			else {
				struct strbuf w = {0};
				strbuf_put_word(&w, dom);
				snprintf(hint, sizeof hint, "add an opset import for '%s' (onnxview edit MODEL -e "
					 "'set-opset %s 1')", dom, w.len < 150 ? strbuf_str(&w) : "DOMAIN");
				strbuf_free(&w);
			}
			diag_add(c, DIAG_domain_not_imported, (int32_t)i, NULL, hint,
				 "domain '%s' is used but the model does not import it", is_default(dom) ? "ai.onnx" : dom);
		}
		if (check_is_function(c, dom, op))
			continue;
		if (!strcmp(op, "ATen") || !strcmp(dom, "org.pytorch.aten") || !strncmp(dom, "org.pytorch", 11)) {
			diag_add(c, DIAG_aten_fallback, (int32_t)i, NULL,
				 "export with a newer opset, or rewrite that PyTorch call with ops ONNX has",
				 "ATen fallback node: PyTorch exported a call it could not translate; no standard runtime "
				 "(onnxruntime without PyTorch, TensorRT) will run this");
			continue;
		}
		if (!strcmp(dom, "com.microsoft") || !strncmp(dom, "com.microsoft.", 14)) {
			diag_add(c, DIAG_ort_only, (int32_t)i, NULL, "export without onnxruntime's fusions for other runtimes",
				 "%s::%s is an onnxruntime contrib op: no other standard runtime will run this", dom, op);
			continue;
		}
		if (!known_domain(c, dom)) {
			custom_hint(c, i, dom, op, hint, sizeof hint);
			diag_add(c, DIAG_custom_domain, (int32_t)i, NULL, hint,
				 "custom domain '%s': no standard runtime (onnxruntime, TensorRT) will load this model", dom);
			continue;
		}
		int first = opdb_first_version(c->db, dom, op);
		if (!first) {
			const char *close = opdb_closest_op(c->db, dom, op);
			if (close)
				snprintf(hint, sizeof hint, "did you mean '%s'?", close);
			diag_add(c, DIAG_unknown_op, (int32_t)i, NULL, close ? hint : NULL, "no operator '%s' in %s", op,
				 is_default(dom) ? "ai.onnx" : dom);
			continue;
		}
		if (!opset)
			continue;
		const struct op_schema *s = opdb_find(c->db, dom, op, opset);
		if (!s) {
			snprintf(hint, sizeof hint, "export with opset_version=%d or newer (torch.onnx.export), or replace "
				 "the op", first);
			diag_add(c, DIAG_op_not_in_opset, (int32_t)i, NULL, hint,
				 "%s does not exist in %s at opset %lld (it was added at opset %d)", op,
				 is_default(dom) ? "ai.onnx" : dom, (long long)opset, first);
			continue;
		}
		if (s->deprecated) {
			const char *repl = !strcmp(op, "Upsample") ? " (use Resize)" : !strcmp(op, "Scatter") ?
				" (use ScatterElements)" : "";
			snprintf(hint, sizeof hint, "replace it%s, or export with an opset before %d", repl,
				 s->since_version);
			diag_add(c, DIAG_op_removed, (int32_t)i, NULL, hint, "%s was removed at opset %d; the model "
				 "uses opset %lld", op, s->since_version, (long long)opset);
			continue;
		}
		check_schema(c, i, s);
	}
}
