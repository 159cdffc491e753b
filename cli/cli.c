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
#include "src/base/opts.h"
#include "src/base/strbuf.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv, FILE *out, FILE *err);
	const char *usage;
} commands[] = {
	{.name = "info", .run = cmd_info,
	 .usage = "info [--json] MODEL        header, opsets, inputs/outputs, op histogram, sizes"},
	{.name = "dump", .run = cmd_dump, .usage = "dump [--json] MODEL        every node, attribute and initializer"},
	{.name = "check", .run = cmd_check,
	 .usage = "check [--json] MODEL       diagnostics: opsets, domains, references, shapes, export traps"},
	{.name = "edit", .run = cmd_edit, .usage = "edit MODEL -o OUT [--force]  load and save a model (atomically)"},
	{.name = "ops", .run = cmd_ops,
	 .usage = "ops [--json] [--domain D] [OP]  the operator reference: signatures per opset, notes"},
	{.name = "dot", .run = cmd_dot,
	 .usage = "dot MODEL [-o FILE] [--focus NODE]  the graph as Graphviz DOT text, SVG or PNG"},
	{.name = "run", .run = cmd_run,
	 .usage = "run MODEL [--input N=FILE|random] [--expect DIR] [--to T,..]  run it, check outputs"},
	{.name = "compare", .run = cmd_compare,
	 .usage = "compare MODEL [OTHER] [--vs cuda] [--against DIR]  the first node whose output differs"},
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




enum { TUI_ASCII, TUI_NO_COLOR, TUI_NO_MOUSE, TUI_KEYS, TUI_DUMP, TUI_SIZE, TUI_VERSION };
static const struct opt_spec tui_opts[] = {
	[TUI_ASCII] = {.name = "--ascii", .help = "draw with ASCII characters only"},
	[TUI_NO_COLOR] = {.name = "--no-color", .help = "no colours"},
	[TUI_NO_MOUSE] = {.name = "--no-mouse", .help = "leave the mouse to the terminal"},
	[TUI_KEYS] = {.name = "--keys", .arg = "FILE", .help = "headless: read keys from FILE"},
	[TUI_DUMP] = {.name = "--dump", .arg = "FILE", .help = "headless: write the screens to FILE"},
	[TUI_SIZE] = {.name = "--size", .arg = "COLSxROWS", .help = "headless: the screen size"},
	[TUI_VERSION] = {.name = "--version", .alias = "-V", .help = "version and CUDA backend state"},
};
static const struct opt_cmd tui_cmd = {
	.name = "", .usage = "usage: onnxview [--ascii] [--no-color] [--no-mouse] MODEL  (onnxview --help: the commands)",
	.opts = tui_opts, .n_opts = sizeof tui_opts / sizeof tui_opts[0], .pos_name = "model", .min_pos = 0,
	.max_pos = 1,
};

int cli_main(int argc, char **argv, tui_entry_fn tui)
{
	struct tui_options opts = {0};
	struct opt_parsed p;
	struct ov_error e = {0};

	if (argc < 2) {
		cli_print_help(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 2, argv + 2, stdout, stderr);
	if (opt_parse(&tui_cmd, argc - 1, argv + 1, &p, &e)) {
		opt_free(&p);
		if (e.code != OV_USAGE)
			return ov_error_report(stderr, NULL, &e);
		/* a second bare word: a mistyped command, or two models */
		fprintf(stderr, "onnxview: %s\n", e.msg);
		if (strstr(e.msg, "one model at a time"))
			fprintf(stderr, "(the TUI opens one model; is the first word a command? see --help)\n");
		else
			cli_print_help(stderr);
		return 2;
	}
	if (p.help) {
		opt_free(&p);
		cli_print_help(stdout);
		return 0;
	}
	if (opt_given(&p, TUI_VERSION)) {
		opt_free(&p);
		cli_print_version(stdout);
		return 0;
	}
	opts.ascii = opt_given(&p, TUI_ASCII);
	opts.no_color = opt_given(&p, TUI_NO_COLOR);
	opts.no_mouse = opt_given(&p, TUI_NO_MOUSE);
	opts.keys = opt_value(&p, TUI_KEYS);
	opts.dump = opt_value(&p, TUI_DUMP);
	opts.path = p.n_pos ? p.pos[0] : NULL;
	const char *size = opt_value(&p, TUI_SIZE);
	opt_free(&p);
	if (size && (sscanf(size, "%dx%d", &opts.cols, &opts.rows) != 2 || opts.cols < 20 || opts.rows < 5 ||
		     opts.cols > 1000 || opts.rows > 500)) {
		fprintf(stderr, "onnxview: --size wants COLSxROWS between 20x5 and 1000x500, not '%s'\n", size);
		return 2;
	}
	if (!opts.path) {
		fprintf(stderr, "onnxview: no model given\n");
		cli_print_help(stderr);
		return 2;
	}
	/* A bare word that names no file is a mistyped command, not a missing model. */
	if (!strpbrk(opts.path, "./") && access(opts.path, F_OK) != 0) {
		fprintf(stderr, "onnxview: '%s' is neither a command nor a file (commands: info, dump, check, edit, ops, dot, "
				"run, compare; see --help)\n", opts.path);
		return 2;
	}
	return tui(&opts);
}
