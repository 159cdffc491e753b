/* The program's entry: the command line in the core, with the terminal UI plugged in. */
#include "config.h"

#include <locale.h>

#include "src/cli.h"
#include "ui/tui.h"

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, ""); /* only character types: numbers stay "0.5" in every output */
	return cli_main(argc, argv, tui_main);
}
