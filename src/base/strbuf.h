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
/* Append s with control characters (C0, DEL, and the C1 range, which xterm and VTE take for ESC sequences) and
 * invalid UTF-8 shown as escapes (\x1b), and the bidirectional controls (U+061C, U+200E/F, U+202A-E,
 * U+2066-9) as \u202e, so hostile names can neither drive the terminal nor display reversed; at most max bytes of
 * s are shown (0: all), with "..." after a cut. */
void strbuf_put_safe(struct strbuf *b, const char *s, size_t n, size_t max);
/* 1 for the bidirectional controls above. */
int strbuf_is_bidi_control(unsigned cp);
/* Append name as one word of the edit command language that reads back as exactly name, safe to show and to paste
 * inside a shell's single quotes: bare when it is plain (letters, digits, _ . : / + -), otherwise "..." with \"
 * and \\, and \xHH for control bytes, invalid UTF-8, bidirectional controls and the single quote. */
void strbuf_put_word(struct strbuf *b, const char *name);
const char *strbuf_str(const struct strbuf *b);
void strbuf_reset(struct strbuf *b);
void strbuf_free(struct strbuf *b);

#endif
