/* Command-line dispatch and the shared error reporting of the subcommands. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "src/model/describe.h"
#include "src/model/model.h"
#include "src/base/strbuf.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv, FILE *out, FILE *err);
	const char *usage;
} commands[] = {
	{"info", cmd_info, "info [--json] MODEL        header, opsets, inputs/outputs, op histogram, sizes"},
	{"dump", cmd_dump, "dump [--json] MODEL        every node, attribute and initializer"},
	{"check", cmd_check, "check [--json] MODEL       diagnostics: opsets, domains, references, shapes, export traps"},
	{"edit", cmd_edit, "edit MODEL -o OUT [--force]  load and save a model (atomically)"},
	{"ops", cmd_ops, "ops [--json] [--domain D] [OP]  the operator reference: signatures per opset, notes"},
	{"dot", cmd_dot, "dot MODEL [-o FILE] [--focus NODE]  the graph as Graphviz DOT text, SVG or PNG"},
	{"run", cmd_run, "run MODEL [--input N=FILE|random] [--expect DIR] [--to T,..]  run it, check outputs"},
	{"compare", cmd_compare, "compare MODEL [OTHER] [--vs cuda] [--against DIR]  the first node whose output differs"},
};

void cli_print_help(FILE *out)
{
	fprintf(out, "usage: onnxview [--ascii] [--no-color] [--no-mouse] MODEL    open MODEL in the terminal UI\n"
		     "       onnxview COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %s\n", commands[i].usage);
	fprintf(out, "\n  --help      this text          --version   version and CUDA backend state\n"
		     "\nexit status: 0 success, 1 a problem was found, 2 usage error, 3 the input could not be read\n"
		     "See onnxview(1) for everything.\n");
}




int cli_main(int argc, char **argv, tui_entry_fn tui)
{
	struct tui_options opts = {0};

	if (argc < 2) {
		cli_print_help(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 2, argv + 2, stdout, stderr);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			cli_print_help(stdout);
			return 0;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			cli_print_version(stdout);
			return 0;
		} else if (!strcmp(a, "--ascii")) {
			opts.ascii = 1;
		} else if (!strcmp(a, "--no-color")) {
			opts.no_color = 1;
		} else if (!strcmp(a, "--no-mouse")) {
			opts.no_mouse = 1;
		} else if (!strcmp(a, "--keys") || !strcmp(a, "--dump") || !strcmp(a, "--size")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "onnxview: %s needs an argument\n", a);
				return 2;
			}
			const char *v = argv[++i];
			if (a[2] == 'k')
				opts.keys = v;
			else if (a[2] == 'd')
				opts.dump = v;
			else if (sscanf(v, "%dx%d", &opts.cols, &opts.rows) != 2 || opts.cols < 20 || opts.rows < 5 ||
				 opts.cols > 1000 || opts.rows > 500) {
				fprintf(stderr, "onnxview: --size wants COLSxROWS between 20x5 and 1000x500, not '%s'\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--")) {
			if (i + 1 < argc && !opts.path)
				opts.path = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "onnxview: unknown option '%s'\n", a);
			cli_print_help(stderr);
			return 2;
		} else if (opts.path) {
			fprintf(stderr, "onnxview: '%s' is not a command, and the TUI opens one model at a time "
					"(already given '%s')\n", a, opts.path);
			return 2;
		} else {
			opts.path = a;
		}
	}
	if (!opts.path) {
		fprintf(stderr, "onnxview: no model given\n");
		cli_print_help(stderr);
		return 2;
	}
	/* A bare word that names no file is a mistyped command, not a missing model. */
	if (!strpbrk(opts.path, "./") && access(opts.path, F_OK) != 0) {
		fprintf(stderr, "onnxview: '%s' is neither a command nor a file (commands: info, dump, edit, ops, dot, run; "
				"see --help)\n", opts.path);
		return 2;
	}
	return tui(&opts);
}
