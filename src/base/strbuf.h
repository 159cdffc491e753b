/* A growable string for building output; allocation failure makes it sticky-failed rather than crashing. */
#ifndef OV_STRBUF_H
#define OV_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *s;    /* always NUL-terminated once anything was added (or "" via strbuf_str) */
	size_t len;
	size_t cap;
	int failed; /* an allocation failed; contents are truncated */
};

void strbuf_add(struct strbuf *b, const char *s, size_t n);
void strbuf_puts(struct strbuf *b, const char *s);
void strbuf_putc(struct strbuf *b, char c);
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s with control characters and invalid UTF-8 shown as escapes, so hostile names cannot drive the
 * terminal; at most max bytes of s are shown (0: all), with "..." after a cut. */
void strbuf_put_safe(struct strbuf *b, const char *s, size_t n, size_t max);
const char *strbuf_str(const struct strbuf *b);
void strbuf_reset(struct strbuf *b);
void strbuf_free(struct strbuf *b);

#endif
