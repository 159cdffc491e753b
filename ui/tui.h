/* The terminal UI's entry point. */
#ifndef OV_TUI_H
#define OV_TUI_H

#include "src/cli.h"

int tui_main(const struct tui_options *opts);

#endif
