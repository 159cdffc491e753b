/* The program's entry: the command line in the core, with the terminal UI plugged in. */
#include "config.h"

#include <locale.h>

#include "src/cli.h"
#include "ui/tui.h"

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	return cli_main(argc, argv, tui_main);
}
