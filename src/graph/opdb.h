/* The operator database: what every ONNX operator looks like at every opset version, loaded from opdb.txt. */
#ifndef OV_OPDB_H
#define OV_OPDB_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct ov_error;

/* The file, share/onnxview/opdb.txt, is written by scripts/gen-opdb.py from the schemas of an installed onnx
 * package. It is text, one record per line, fields separated by spaces; '#' lines and blank lines are ignored:
 *
 *   onnxview-opdb 1                        the first line: format version
 *   onnx 1.23.2                            the onnx package it was generated from
 *   domain ai.onnx 1 28                    a domain and its opset range; declared before its ops
 *   op DOMAIN NAME SINCE DEPRECATED MIN_IN MAX_IN MIN_OUT MAX_OUT
 *   in INDEX NAME single|optional|variadic TYPE HOMOGENEOUS MIN_ARITY      inputs of the op above, in order
 *   out INDEX NAME single|optional|variadic TYPE HOMOGENEOUS MIN_ARITY
 *   attr NAME TYPE REQUIRED DEFAULT        TYPE as INT, FLOATS...; DEFAULT is "-" for none, or the rest of the
 *                                          line: 0, -0.75, "nearest" (C escapes), [0, 2, 3], ["Tanh", "Tanh"]
 *   tc PARAM TYPE...                       a type constraint: the types PARAM may stand for
 *   end COUNT                              the last line: how many op records came before (catches truncation)
 *
 * Every line is checked when the file is loaded; the first bad one fails the load with its line number. */

#define OP_UNBOUNDED INT_MAX /* max_inputs/max_outputs of an op with a variadic last parameter */

enum op_formal_option {
	OP_FORMAL_SINGLE,
	OP_FORMAL_OPTIONAL,
	OP_FORMAL_VARIADIC,
};

/* An input or output of an operator. */
struct op_formal {
	const char *name;
	enum op_formal_option option;
	const char *type_str; /* a type parameter of the schema ("T") or a type ("tensor(int64)", "seq(tensor(float))") */
	int homogeneous;      /* variadic: every argument has the same type */
	int min_arity;        /* variadic: the fewest arguments */
};

/* One element of an attribute default; the attribute's type says which field holds it. */
struct op_value {
	int64_t i;     /* INT, INTS */
	double f;      /* FLOAT, FLOATS */
	const char *s; /* STRING, STRINGS: the decoded bytes, NUL-terminated (s_len excludes the NUL) */
	size_t s_len;
};

/* Attribute types use the numbers of ONNX's AttributeProto.AttributeType. */
enum op_attr_type {
	OP_ATTR_UNDEFINED = 0,
	OP_ATTR_FLOAT = 1,
	OP_ATTR_INT = 2,
	OP_ATTR_STRING = 3,
	OP_ATTR_TENSOR = 4,
	OP_ATTR_GRAPH = 5,
	OP_ATTR_FLOATS = 6,
	OP_ATTR_INTS = 7,
	OP_ATTR_STRINGS = 8,
	OP_ATTR_TENSORS = 9,
	OP_ATTR_GRAPHS = 10,
	OP_ATTR_SPARSE_TENSOR = 11,
	OP_ATTR_SPARSE_TENSORS = 12,
	OP_ATTR_TYPE_PROTO = 13,
	OP_ATTR_TYPE_PROTOS = 14,
};

struct op_attr {
	const char *name;
	int type;                     /* enum op_attr_type */
	int required;
	const char *default_text;     /* as written in the file ("nearest" with its quotes, [0, 2, 3]); NULL: none */
	const struct op_value *defaults; /* the default, decoded: one element for a scalar, one per list element */
	size_t n_defaults;
};

struct op_type_constraint {
	const char *param;            /* "T" */
	const char *const *allowed;   /* "tensor(float)", ... in the schema's order */
	size_t n_allowed;
};

/* One version of one operator. The strings and arrays belong to the database. */
struct op_schema {
	const char *domain;           /* "ai.onnx" for the default domain, never "" */
	const char *name;
	int since_version;
	int deprecated;               /* at since_version the operator stops being valid (Upsample at 10) */
	int min_inputs, max_inputs;   /* max OP_UNBOUNDED with a variadic input */
	int min_outputs, max_outputs;
	const struct op_formal *inputs;
	size_t n_inputs;
	const struct op_formal *outputs;
	size_t n_outputs;
	const struct op_attr *attrs;  /* sorted by name */
	size_t n_attrs;
	const struct op_type_constraint *constraints;
	size_t n_constraints;
};

struct opdb;

/* Load the database at path. Returns 0 with *out set (free it with opdb_free), or -1 with err: OV_IO when the
 * file cannot be read, OV_FORMAT naming the line ("opdb.txt:12: ...") when a line is malformed. */
int opdb_load(struct opdb **out, const char *path, struct ov_error *err);
/* The same from memory (text of len bytes; need not be NUL-terminated); name is used in error messages. */
int opdb_load_text(struct opdb **out, const char *text, size_t len, const char *name, struct ov_error *err);
void opdb_free(struct opdb *db);

/* The program's database, datadir_path("opdb.txt"), loaded on first use and kept for the life of the
 * process (not thread-safe). NULL with err when it cannot be loaded; a later call tries again. */
struct opdb *opdb_default(struct ov_error *err);

/* The version of the onnx package the database was generated from ("1.23.2"). */
const char *opdb_onnx_version(const struct opdb *db);

/* Domains are named as in a model's opset_import: "" and NULL both mean "ai.onnx". */

/* The version of op in force at opset: the one with the largest since_version <= opset, deprecated or not
 * (check ->deprecated: a deprecated version means the op is no longer valid from that opset on). NULL when
 * the op is unknown or only appears after opset. */
const struct op_schema *opdb_find(const struct opdb *db, const char *domain, const char *op, int64_t opset);
/* The since_version of the op's first version; 0 when the domain has no such op. */
int opdb_first_version(const struct opdb *db, const char *domain, const char *op);
/* Every version of the op, oldest first, as an array of *n schemas; NULL with *n = 0 when unknown. */
const struct op_schema *opdb_versions(const struct opdb *db, const char *domain, const char *op, size_t *n);
/* The opset at which the op was removed: the since_version of its last version when that version is
 * deprecated (Upsample: 10, Scatter: 11); 0 when the op is still valid at the latest opset, or unknown. */
int opdb_removed_at(const struct opdb *db, const char *domain, const char *op);
/* The newest opset version of the domain; 0 when the database does not know the domain. */
int opdb_latest_opset(const struct opdb *db, const char *domain);

/* The domains, in the file's order ("ai.onnx" first); *n of them. */
const char *const *opdb_domains(const struct opdb *db, size_t *n);
/* The names of every op of the domain, sorted (strcmp order); NULL with *n = 0 for an unknown domain. */
const char *const *opdb_op_names(const struct opdb *db, const char *domain, size_t *n);
/* The op of the domain whose name is closest to op (case aside, or within two edits), for "did you mean";
 * NULL when none is close. */
const char *opdb_closest_op(const struct opdb *db, const char *domain, const char *op);

/* The attribute called name, or NULL. */
const struct op_attr *op_schema_attr(const struct op_schema *s, const char *name);
/* The type constraint called param ("T"), or NULL (type_str is then a type of its own). */
const struct op_type_constraint *op_schema_constraint(const struct op_schema *s, const char *param);

/* "INT", "FLOATS"...; "?" for a number ONNX does not define. */
const char *op_attr_type_name(int type);
/* How many inputs/outputs a schema takes, for messages: "2", "2 to 3", "at least 1" (into buf). */
const char *op_arity_text(char *buf, size_t len, int min, int max);
/* "single", "optional", "variadic" */
const char *op_formal_option_name(enum op_formal_option o);

#endif
