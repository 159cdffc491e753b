/* Unit tests of the op database and the op documentation: lookups by opset, defaults, variadic inputs, and
 * loading damaged files (truncated, garbled, mutated byte by byte) without crashing. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/base/datadir.h"
#include "src/base/error.h"
#include "src/graph/opdb.h"
#include "src/graph/opdoc.h"
#include "tests/unit/tap.h"

static char *read_all(const char *path, size_t *len)
{
	char *buf;
	struct ov_error e = {0};

	if (datadir_read(path, 64u << 20, &buf, len, &e)) {
		printf("# %s\n", e.msg);
		return NULL;
	}
	return buf;
}

static void test_lookups(const struct opdb *db)
{
	const struct op_schema *s;
	const struct op_attr *a;
	size_t n;

	s = opdb_find(db, "", "Resize", 12);
	OK(s && s->since_version == 11, "Resize at opset 12 is Resize-11");
	OK(opdb_find(db, "ai.onnx", "Resize", 12) == s, "\"ai.onnx\" and \"\" are the same domain");
	OK(opdb_find(db, NULL, "Resize", 12) == s, "NULL is the default domain too");
	OK(opdb_find(db, "", "Resize", 9) == NULL, "no Resize at opset 9");
	OK(opdb_first_version(db, "", "Resize") == 10, "Resize first appears at opset 10");
	s = opdb_find(db, "", "Upsample", 9);
	OK(s && s->since_version == 9 && !s->deprecated, "Upsample-9 in force at opset 9");
	s = opdb_find(db, "", "Upsample", 13);
	OK(s && s->since_version == 10 && s->deprecated, "Upsample at opset 13: the deprecated Upsample-10");
	OK(opdb_removed_at(db, "", "Upsample") == 10, "Upsample was removed at opset 10");
	OK(opdb_removed_at(db, "", "Scatter") == 11, "Scatter was removed at opset 11");
	OK(opdb_removed_at(db, "", "Resize") == 0, "Resize is not removed");
	OK(opdb_removed_at(db, "", "GroupNormalization") == 0,
	   "GroupNormalization is not removed (a deprecated middle version)");
	OK(opdb_first_version(db, "", "GridSample") == 16, "GridSample first appears at opset 16");
	OK(opdb_find(db, "", "GridSample", 11) == NULL, "no GridSample at opset 11");
	OK(opdb_first_version(db, "", "NoSuchOp") == 0, "unknown op: first version 0");
	OK(opdb_find(db, "", "NoSuchOp", 20) == NULL, "unknown op: not found");
	OK(opdb_find(db, "com.example", "Resize", 20) == NULL, "unknown domain: not found");
	OK(opdb_find(db, "", "Resize", 0) == NULL && opdb_find(db, "", "Resize", -5) == NULL, "opset 0 or less");
	OK(opdb_latest_opset(db, "") >= 21, "ai.onnx goes up to at least opset 21 (%d)", opdb_latest_opset(db, ""));
	OK(opdb_latest_opset(db, "ai.onnx.ml") >= 3, "ai.onnx.ml goes up to at least opset 3");
	OK(opdb_latest_opset(db, "nope") == 0, "unknown domain: latest opset 0");

	const struct op_schema *v = opdb_versions(db, "", "Resize", &n);
	OK(v && n >= 4 && v[0].since_version == 10 && v[1].since_version == 11 && v[2].since_version == 13,
	   "Resize versions 10, 11, 13, ...");
	int sorted = 1;
	for (size_t i = 1; i < n; i++)
		sorted &= v[i - 1].since_version < v[i].since_version;
	OK(sorted, "versions are oldest first");
	OK(opdb_versions(db, "", "NoSuchOp", &n) == NULL && n == 0, "unknown op: no versions");

	s = opdb_find(db, "", "Resize", 19);
	a = s ? op_schema_attr(s, "mode") : NULL;
	OK(a && a->type == OP_ATTR_STRING && !a->required, "Resize mode is an optional STRING");
	OK(a && a->default_text && !strcmp(a->default_text, "\"nearest\""), "Resize mode default text \"nearest\"");
	OK(a && a->n_defaults == 1 && !strcmp(a->defaults[0].s, "nearest") && a->defaults[0].s_len == 7,
	   "Resize mode default decodes to nearest");
	a = s ? op_schema_attr(s, "cubic_coeff_a") : NULL;
	OK(a && a->type == OP_ATTR_FLOAT && a->n_defaults == 1 && a->defaults[0].f == -0.75,
	   "Resize cubic_coeff_a default -0.75");
	a = s ? op_schema_attr(s, "axes") : NULL;
	OK(a && a->type == OP_ATTR_INTS && !a->default_text && a->n_defaults == 0, "Resize axes has no default");
	OK(s && op_schema_attr(s, "align_corners") == NULL, "Resize has no align_corners attribute");
	OK(s && s->n_inputs == 4 && !strcmp(s->inputs[2].name, "scales") &&
	   s->inputs[2].option == OP_FORMAL_OPTIONAL && !strcmp(s->inputs[2].type_str, "tensor(float)"),
	   "Resize-19 input 2 is the optional tensor(float) scales");
	const struct op_type_constraint *tc = s ? op_schema_constraint(s, s->inputs[0].type_str) : NULL;
	OK(tc && tc->n_allowed > 5, "Resize-19 X's type is a constraint with %zu types", tc ? tc->n_allowed : 0);

	s = opdb_find(db, "", "Conv", 11);
	a = s ? op_schema_attr(s, "auto_pad") : NULL;
	OK(a && a->n_defaults == 1 && !strcmp(a->defaults[0].s, "NOTSET"), "Conv auto_pad default NOTSET");
	a = s ? op_schema_attr(s, "group") : NULL;
	OK(a && a->type == OP_ATTR_INT && a->defaults[0].i == 1, "Conv group default 1");
	OK(s && s->min_inputs == 2 && s->max_inputs == 3 && s->inputs[2].option == OP_FORMAL_OPTIONAL,
	   "Conv takes 2 or 3 inputs, the bias optional");
	int attrs_sorted = 1;
	for (size_t i = 1; s && i < s->n_attrs; i++)
		attrs_sorted &= strcmp(s->attrs[i - 1].name, s->attrs[i].name) < 0;
	OK(attrs_sorted, "attributes are sorted by name");

	s = opdb_find(db, "", "Concat", 13);
	OK(s && s->n_inputs == 1 && s->inputs[0].option == OP_FORMAL_VARIADIC && s->inputs[0].min_arity == 1 &&
	   s->inputs[0].homogeneous, "Concat's input is variadic, homogeneous, at least 1");
	OK(s && s->max_inputs == OP_UNBOUNDED && s->min_inputs == 1, "Concat takes 1 or more inputs");
	a = s ? op_schema_attr(s, "axis") : NULL;
	OK(a && a->required && !a->default_text, "Concat axis is required");
	s = opdb_find(db, "", "Loop", 21);
	OK(s && s->n_inputs == 3 && s->inputs[2].option == OP_FORMAL_VARIADIC && !s->inputs[2].homogeneous &&
	   s->inputs[2].min_arity == 0, "Loop's v_initial is variadic, heterogeneous, may be empty");

	s = opdb_find(db, "", "MeanVarianceNormalization", 13);
	a = s ? op_schema_attr(s, "axes") : NULL;
	OK(a && a->n_defaults == 3 && a->defaults[0].i == 0 && a->defaults[1].i == 2 && a->defaults[2].i == 3,
	   "MeanVarianceNormalization axes default [0, 2, 3]");
	s = opdb_find(db, "", "RNN", 14);
	a = s ? op_schema_attr(s, "activations") : NULL;
	OK(a && a->n_defaults == 2 && !strcmp(a->defaults[1].s, "Tanh"), "RNN activations default [\"Tanh\", \"Tanh\"]");
	s = opdb_find(db, "", "Clip", 6);
	a = s ? op_schema_attr(s, "max") : NULL;
	OK(a && a->n_defaults == 1 && a->defaults[0].f > 3.4e38, "Clip-6 max default is FLT_MAX");

	s = opdb_find(db, "ai.onnx.ml", "LinearClassifier", 1);
	OK(s && !strcmp(s->domain, "ai.onnx.ml"), "ai.onnx.ml LinearClassifier");
	OK(opdb_find(db, "", "LinearClassifier", 20) == NULL, "ai.onnx.ml ops are not in ai.onnx");

	const char *const *names = opdb_op_names(db, "", &n);
	int names_sorted = names != NULL && n > 150;
	for (size_t i = 1; names && i < n; i++)
		names_sorted &= strcmp(names[i - 1], names[i]) < 0;
	OK(names_sorted, "ai.onnx has %zu op names, sorted", n);
	const char *const *domains = opdb_domains(db, &n);
	OK(n >= 2 && !strcmp(domains[0], "ai.onnx") && !strcmp(domains[1], "ai.onnx.ml"), "domains: ai.onnx first");
	OK(strcmp(opdb_onnx_version(db), "unknown") != 0, "generated from onnx %s", opdb_onnx_version(db));
}

/* A small valid database, for the error tests. */
static const char mini[] =
	"onnxview-opdb 1\n"
	"onnx 1.0\n"
	"domain ai.onnx 1 20\n"
	"op ai.onnx Foo 1 0 1 1 1 1\n"
	"in 0 X single T 1 1\n"
	"out 0 Y single T 1 1\n"
	"attr alpha FLOAT 0 0.5\n"
	"attr name STRING 0 \"a \\\"b\\\"\\x41\"\n"
	"attr list STRINGS 0 [\"x\", \"y z\"]\n"
	"attr empty INTS 0 []\n"
	"tc T tensor(float) tensor(double)\n"
	"op ai.onnx Foo 7 1 1 1 1 1\n"
	"in 0 X single T 1 1\n"
	"out 0 Y single T 1 1\n"
	"tc T tensor(float)\n"
	"end 2\n";

static int load_str(const char *text, struct ov_error *e)
{
	struct opdb *db;
	int rc = opdb_load_text(&db, text, strlen(text), "t.txt", e);

	opdb_free(db);
	return rc;
}

/* The mini database with line `line` (1-based) replaced by repl. */
static int load_with(int line, const char *repl, struct ov_error *e)
{
	char buf[4096], *o = buf;
	const char *p = mini;

	for (int l = 1; *p; l++) {
		const char *nl = strchr(p, '\n');
		size_t n = (size_t)(nl - p) + 1;
		if (l == line) {
			o += sprintf(o, "%s\n", repl);
		} else {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = '\0';
	return load_str(buf, e);
}

/* Replacing line `line` must fail at line at (the op's line for checks made when its record ends). */
static void expect_error_at(int line, const char *repl, int at, const char *want, const char *what)
{
	struct ov_error e = {0};
	char prefix[32];

	snprintf(prefix, sizeof prefix, "t.txt:%d: ", at);
	int rc = load_with(line, repl, &e);
	OK(rc == -1 && e.code == OV_FORMAT && !strncmp(e.msg, prefix, strlen(prefix)) && strstr(e.msg, want),
	   "%s: refused at line %d", what, at);
	if (rc != -1 || !strstr(e.msg, want))
		printf("#   got: %s\n", rc ? e.msg : "(loaded)");
}

static void expect_error(int line, const char *repl, const char *want, const char *what)
{
	expect_error_at(line, repl, line, want, what);
}

static void test_errors(void)
{
	struct opdb *db;
	struct ov_error e = {0};

	OK(opdb_load_text(&db, mini, strlen(mini), "t.txt", &e) == 0, "the mini database loads (%s)", e.msg);
	if (db) {
		const struct op_schema *s = opdb_find(db, "", "Foo", 5);
		const struct op_attr *a = s ? op_schema_attr(s, "name") : NULL;
		OK(a && !strcmp(a->defaults[0].s, "a \"b\"A"), "string escapes decode");
		a = s ? op_schema_attr(s, "list") : NULL;
		OK(a && a->n_defaults == 2 && !strcmp(a->defaults[1].s, "y z"), "a string list with a space");
		a = s ? op_schema_attr(s, "empty") : NULL;
		OK(a && a->n_defaults == 0 && a->default_text && !strcmp(a->default_text, "[]"), "an empty list");
		a = s ? op_schema_attr(s, "alpha") : NULL;
		OK(a && a->defaults[0].f == 0.5, "a float default");
		OK(opdb_removed_at(db, "", "Foo") == 7, "a deprecated last version: removed at 7");
		opdb_free(db);
	}
	expect_error(1, "onnxview-opdb 2", "format version 2", "a newer format");
	expect_error(1, "hello", "not an onnxview op database", "not a database");
	expect_error(3, "domain ai.onnx 5 1", "first opset", "a backwards opset range");
	expect_error(4, "op ai.onnx Foo 1 0 1 1 1", "max_outputs is missing", "a short op line");
	expect_error(4, "op ai.onnx Foo 1 0 1 1 1 1 9", "extra field", "a long op line");
	expect_error(4, "op ai.onnx Foo x 0 1 1 1 1", "not a number", "a version that is not a number");
	expect_error(4, "op ai.onnx Foo 21 0 1 1 1 1", "out of range", "a version past the domain's last opset");
	expect_error(4, "op com.x Foo 1 0 1 1 1 1", "no 'domain' record", "an undeclared domain");
	expect_error(4, "op ai.onnx Foo 1 2 1 1 1 1", "deprecated flag", "a flag that is not 0 or 1");
	expect_error(4, "op ai.onnx Foo 1 0 2 1 1 1", "above its maximum", "min above max");
	expect_error(5, "in 1 X single T 1 1", "input index 1, expected 0", "a skipped input index");
	expect_error(5, "in 0 X sometimes T 1 1", "not single, optional or variadic", "a bad option");
	expect_error_at(5, "in 0 X single U 1 1", 4, "no 'tc' record", "an undefined type parameter");
	expect_error(7, "attr alpha FLOAT 0 zero", "not a number", "a float default that is not a number");
	expect_error(7, "attr alpha BANANA 0 -", "unknown type", "an unknown attribute type");
	expect_error(7, "attr alpha FLOAT 0", "no default", "an attribute without its default field");
	expect_error(8, "attr name STRING 0 \"abc", "unterminated", "an unterminated string");
	expect_error(8, "attr name STRING 0 \"a\\qb\"", "unknown escape", "a bad escape");
	expect_error(8, "attr name STRING 0 \"a\\x4\"", "two hex digits", "a short \\x escape");
	expect_error(8, "attr name STRING 0 \"a\" junk", "after the default", "junk after a default");
	expect_error(9, "attr list STRINGS 0 [\"x\" \"y\"]", "expected ','", "a list without commas");
	expect_error(9, "attr list STRINGS 0 [\"x\", \"y\"", "unterminated", "a list without its ]");
	expect_error(9, "attr list STRINGS 0 \"x\"", "a list in [ ]", "a scalar for a list");
	expect_error(9, "attr list TENSOR 0 1", "cannot be written", "a tensor default");
	expect_error_at(9, "attr alpha FLOAT 0 1", 4, "appears twice", "a duplicate attribute");
	expect_error_at(11, "tc T tensor(float)\ntc T tensor(double)", 4, "appears twice", "a duplicate type constraint");
	expect_error(12, "op ai.onnx Foo 1 1 1 1 1 1", "must be sorted", "a duplicate version");
	expect_error(12, "op ai.onnx Bar 7 1 1 1 1 1", "must be sorted", "ops out of order");
	expect_error(16, "end 3", "'end' says 3", "a wrong count in 'end'");
	expect_error(16, "bogus 1", "unknown record", "an unknown record");
	expect_error(10, "attr empty INTS 0 [1,\x01]", "byte 0x01", "a control byte");

	e.code = OV_OK;
	OK(load_str("onnxview-opdb 1\ndomain ai.onnx 1 2\n", &e) == -1 && strstr(e.msg, "t.txt:3: no 'end' record"),
	   "a file without 'end' is truncated (%s)", e.msg);
	OK(load_str("", &e) == -1 && strstr(e.msg, "t.txt:1:"), "an empty file is refused");
	OK(load_str("onnxview-opdb 1\nin 0 X single T 1 1\nend 0\n", &e) == -1 && strstr(e.msg, "t.txt:2:") &&
	   strstr(e.msg, "before any 'op'"), "an input before any op");
	OK(load_str("onnxview-opdb 1\nend 0\nop ai.onnx Foo 1 0 1 1 1 1\n", &e) == -1 && strstr(e.msg, "t.txt:3:"),
	   "records after 'end'");
	OK(load_str("onnxview-opdb 1\nend 0\n\n# fine\n", &e) == 0, "blank and comment lines after 'end' are fine");
	OK(opdb_load(&db, "/nonexistent/opdb.txt", &e) == -1 && e.code == OV_IO && strstr(e.msg, "/nonexistent"),
	   "a missing file is an I/O error naming it");
}

/* Every prefix and many single-byte changes of the real file: each either loads or fails with a line
 * number; none crashes (the suite also runs under the sanitizers). */
static void test_fuzz(const char *text, size_t len)
{
	struct opdb *db;
	struct ov_error e;
	size_t loaded = 0, refused = 0, bad_msgs = 0;
	uint32_t seed = 12345;
	char *copy = malloc(len + 1);

	/* Truncations: at every line end and many places inside lines. */
	for (size_t cut = 0; cut < len; cut += cut < 4096 ? 1 : 997) {
		e = (struct ov_error){0};
		if (opdb_load_text(&db, text, cut, "opdb.txt", &e) == 0) {
			loaded++;
			opdb_free(db);
		} else {
			refused++;
			bad_msgs += strncmp(e.msg, "opdb.txt:", 9) != 0;
		}
	}
	OK(loaded == 0, "no truncated database loads (%zu refused)", refused);
	OK(bad_msgs == 0, "every refusal names a line");

	/* Mutations: random bytes at random places, a few at a time. */
	loaded = refused = bad_msgs = 0;
	for (int round = 0; copy && round < 600; round++) {
		memcpy(copy, text, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 4) % len;
			seed = seed * 1103515245u + 12345u;
			static const char alphabet[] = " \n\"\\[],-0123456789xTopinattrtcend\t\x01\xff#";
			copy[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
		}
		e = (struct ov_error){0};
		if (opdb_load_text(&db, copy, len, "opdb.txt", &e) == 0) {
			loaded++;
			opdb_free(db);
		} else {
			refused++;
			bad_msgs += strncmp(e.msg, "opdb.txt:", 9) != 0;
		}
	}
	OK(refused > 0, "mutated databases: %zu loaded, %zu refused, none crashed", loaded, refused);
	OK(bad_msgs == 0, "every refusal of a mutated database names a line");
	free(copy);
}

static const char *doc_path(void)
{
	static char path[4096];
	const char *src = getenv("SRCDIR");

	snprintf(path, sizeof path, "%s/tests/data/ops-doc-sample.txt", src && *src ? src : ".");
	return path;
}

static void test_opdoc(void)
{
	struct opdoc *d;
	struct ov_error e = {0};
	const struct op_doc *r;
	size_t n;

	OK(opdoc_load(&d, doc_path(), &e) == 0, "the sample ops-doc loads (%s)", e.msg);
	if (!d)
		return;
	opdoc_all(d, &n);
	OK(n == 3, "three records");
	r = opdoc_find(d, "", "Resize");
	OK(r && !strcmp(r->category, "shape") && r->n_pytorch == 2 && r->n_history == 5, "Resize's record");
	OK(r && r->history[1].version == 11 && !strncmp(r->history[1].text, "adds roi", 8), "history 11");
	OK(r && r->text && !strncmp(r->text, "Give either", 11) && r->text[strlen(r->text) - 1] == '.' &&
	   strstr(r->text, "\n\nExporters"), "the text block, without blank lines at the ends");
	OK(opdoc_find(d, "ai.onnx", "Resize") == r, "ai.onnx is the default domain");
	r = opdoc_find(d, NULL, "Conv");
	OK(r && !strcmp(r->domain, "ai.onnx") && r->text && !strncmp(r->text, "The weight's", 12) &&
	   strstr(r->text, "\nPadding is"), "Conv: text on the 'text:' line goes on with the next lines");
	r = opdoc_find(d, NULL, "Upsample");
	OK(r && !r->text && r->n_history == 2, "Upsample: no text, an unknown key ignored");
	OK(opdoc_find(d, NULL, "Floor") == NULL, "an op without a record");
	OK(opdoc_find(d, "ai.onnx.ml", "Resize") == NULL, "records are per domain");
	opdoc_free(d);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"stray\n== A\n", "ops-doc:1: text before the first record"},
		{"== A\nsummary: x\nsummary: y\n", "ops-doc:3: A: 'summary' given twice"},
		{"== A\nno colon here\n", "ops-doc:2: A: expected 'key: value'"},
		{"== A\nhistory: ten: x\n", "ops-doc:2: A: history is written"},
		{"== A\n\n== A\n", "ops-doc:3: A (ai.onnx) is documented twice (first at line 1)"},
		{"== A B\n", "ops-doc:1: a record starts with"},
		{"== A\nsummary: bell\x07\n", "ops-doc:2: control character 0x07"},
		{"== A\ncategory: two words\n", "ops-doc:2: A: category"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		e = (struct ov_error){0};
		int rc = opdoc_load_text(&d, bad[i].text, strlen(bad[i].text), NULL, &e);
		OK(rc == -1 && !strncmp(e.msg, bad[i].want, strlen(bad[i].want)), "ops-doc refuses: %s", bad[i].want);
		if (rc != -1 || strncmp(e.msg, bad[i].want, strlen(bad[i].want)))
			printf("#   got: %s\n", rc ? e.msg : "(loaded)");
		if (!rc)
			opdoc_free(d);
	}
	const char crlf[] = "== A\r\ntext:\r\none\r\ntwo\r\n\r\n";
	OK(opdoc_load_text(&d, crlf, strlen(crlf), NULL, &e) == 0 && opdoc_find(d, NULL, "A")->text &&
	   !strcmp(opdoc_find(d, NULL, "A")->text, "one\ntwo"), "CRLF line ends");
	opdoc_free(d);
	OK(opdoc_load_text(&d, "", 0, NULL, &e) == 0 && (opdoc_all(d, &n), n == 0), "an empty file");
	opdoc_free(d);

	/* Truncated copies of the sample never crash. */
	char *text;
	size_t len;
	text = read_all(doc_path(), &len);
	size_t ok = 0;
	for (size_t cut = 0; text && cut <= len; cut++) {
		if (opdoc_load_text(&d, text, cut, NULL, &e) == 0) {
			ok++;
			opdoc_free(d);
		}
	}
	OK(text && ok > 0, "truncated ops-doc files: %zu of %zu load, none crashed", ok, len + 1);
	free(text);
}

static void test_datadir(void)
{
	char buf[64];
	const char *old = getenv("ONNXVIEW_DATADIR");
	char *saved = old ? strdup(old) : NULL;

	setenv("ONNXVIEW_DATADIR", "/some/where", 1);
	OK(datadir_path("opdb.txt", buf, sizeof buf) && !strcmp(buf, "/some/where/opdb.txt"),
	   "ONNXVIEW_DATADIR wins, whether or not the file is there");
	OK(datadir_path("opdb.txt", buf, 12) == NULL, "a path that does not fit gives NULL");
	setenv("ONNXVIEW_DATADIR", "", 1);
	char big[4096];
	const char *p = datadir_path("opdb.txt", big, sizeof big);
	OK(p && strlen(p) > 9 && !strcmp(p + strlen(p) - 9, "/opdb.txt") && access(p, R_OK) == 0,
	   "an empty ONNXVIEW_DATADIR is ignored: installed or source-tree copy %s", p ? p : "(none)");
	if (saved)
		setenv("ONNXVIEW_DATADIR", saved, 1);
	else
		unsetenv("ONNXVIEW_DATADIR");
	free(saved);
}

int main(void)
{
	char path[4096];
	struct ov_error e = {0};
	struct opdb *db = opdb_default(&e);

	OK(db != NULL, "the default database loads from %s (%s)", datadir_path("opdb.txt", path, sizeof path),
	   db ? "ok" : e.msg);
	OK(opdb_default(&e) == db, "it is loaded once");
	if (db)
		test_lookups(db);
	test_errors();
	size_t len;
	char *text = read_all(datadir_path("opdb.txt", path, sizeof path), &len);
	if (text)
		test_fuzz(text, len);
	free(text);
	test_opdoc();
	test_datadir();
	return tap_done();
}
