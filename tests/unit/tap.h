/* A tiny TAP producer for the unit tests: ok/not ok lines, a plan at the end, exit status = failures. */
#ifndef OV_TAP_H
#define OV_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define OK(cond, ...) tap_ok((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)
#define IS_STR(a, b, ...) tap_ok(strcmp((a), (b)) == 0, __FILE__, __LINE__, __VA_ARGS__), \
	(strcmp((a), (b)) ? fprintf(stderr, "#   got:      '%s'\n#   expected: '%s'\n", (a), (b)) : 0)

__attribute__((format(printf, 4, 5))) static void tap_ok(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%s %d - ", ok ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
}

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
