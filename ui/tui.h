/* The terminal UI's entry point, and the options the command line (cli/) hands it. */
#ifndef OV_TUI_H
#define OV_TUI_H

struct tui_options {
	const char *path;
	int ascii;    /* --ascii: no box-drawing characters */
	int no_color; /* --no-color (NO_COLOR in the environment does the same) */
	int no_mouse; /* --no-mouse */
	/* headless runs, for tests and scripted screenshots */
	const char *keys; /* --keys FILE: read keys from FILE instead of the terminal */
	const char *dump; /* --dump FILE: write the screen there when the keys run out (and at <Dump>) */
	int cols, rows;   /* --size COLSxROWS of the headless screen (default 80x24) */
};

int tui_main(const struct tui_options *opts);

#endif
