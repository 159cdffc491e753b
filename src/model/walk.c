/* Visiting every TensorProto of a model, wherever it lives: graphs, subgraphs, functions, training graphs. */
#include "config.h"

#include <stdio.h>

#include "src/model/model.h"

struct walk {
	tensor_visit_fn fn;
	void *ctx;
};

static int walk_graph(struct walk *w, Onnx__GraphProto *g, int depth);

static int walk_sparse(struct walk *w, Onnx__SparseTensorProto *sp, struct tensor_site *site)
{
	int r = 0;

	if (sp && sp->values)
		r = w->fn(sp->values, site, w->ctx);
	if (!r && sp && sp->indices)
		r = w->fn(sp->indices, site, w->ctx);
	return r;
}

static int walk_nodes(struct walk *w, Onnx__NodeProto **nodes, size_t n, int depth)
{
	for (size_t i = 0; i < n; i++) {
		Onnx__NodeProto *nd = nodes[i];
		for (size_t a = 0; a < nd->n_attribute; a++) {
			Onnx__AttributeProto *at = nd->attribute[a];
			struct tensor_site site = {"attribute", nd, (long)i, at->name, depth};
			int r = 0;
			if (at->t)
				r = w->fn(at->t, &site, w->ctx);
			for (size_t k = 0; !r && k < at->n_tensors; k++)
				r = w->fn(at->tensors[k], &site, w->ctx);
			if (!r)
				r = walk_sparse(w, at->sparse_tensor, &site);
			for (size_t k = 0; !r && k < at->n_sparse_tensors; k++)
				r = walk_sparse(w, at->sparse_tensors[k], &site);
			if (!r && at->g)
				r = walk_graph(w, at->g, depth + 1);
			for (size_t k = 0; !r && k < at->n_graphs; k++)
				r = walk_graph(w, at->graphs[k], depth + 1);
			if (r)
				return r;
		}
	}
	return 0;
}

static int walk_graph(struct walk *w, Onnx__GraphProto *g, int depth)
{
	int r = 0;

	if (!g)
		return 0;
	for (size_t i = 0; !r && i < g->n_initializer; i++) {
		struct tensor_site site = {"initializer", NULL, -1, NULL, depth};
		r = w->fn(g->initializer[i], &site, w->ctx);
	}
	for (size_t i = 0; !r && i < g->n_sparse_initializer; i++) {
		struct tensor_site site = {"sparse initializer", NULL, -1, NULL, depth};
		r = walk_sparse(w, g->sparse_initializer[i], &site);
	}
	return r ? r : walk_nodes(w, g->node, g->n_node, depth);
}

int model_foreach_tensor(Onnx__ModelProto *p, tensor_visit_fn fn, void *ctx)
{
	struct walk w = {fn, ctx};
	int r = walk_graph(&w, p->graph, 0);

	for (size_t i = 0; !r && i < p->n_training_info; i++) {
		r = walk_graph(&w, p->training_info[i]->initialization, 1);
		if (!r)
			r = walk_graph(&w, p->training_info[i]->algorithm, 1);
	}
	for (size_t i = 0; !r && i < p->n_functions; i++)
		r = walk_nodes(&w, p->functions[i]->node, p->functions[i]->n_node, 1);
	return r;
}

const char *tensor_site_describe(const struct tensor_site *site, const Onnx__TensorProto *t, char *buf, size_t n)
{
	const char *name = t && t->name && *t->name ? t->name : NULL;

	if (site->node)
		snprintf(buf, n, "%snode #%ld%s%s%s (%s) attribute '%s'", site->depth ? "subgraph " : "",
			 site->node_index, site->node->name && *site->node->name ? " '" : "",
			 site->node->name && *site->node->name ? site->node->name : "",
			 site->node->name && *site->node->name ? "'" : "",
			 site->node->op_type ? site->node->op_type : "?", site->attr ? site->attr : "?");
	else
		snprintf(buf, n, "%s%s '%s'", site->depth ? "subgraph " : "", site->kind, name ? name : "(unnamed)");
	return buf;
}
