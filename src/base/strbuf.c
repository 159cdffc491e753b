/* Growable strings. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/strbuf.h"

static int grow(struct strbuf *b, size_t more)
{
	size_t cap;
	char *ns;

	if (b->failed)
		return -1;
	if (b->len + more + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < b->len + more + 1) {
		if (cap > ((size_t)-1) / 2) {
			b->failed = 1;
			return -1;
		}
		cap *= 2;
	}
	ns = realloc(b->s, cap);
	if (!ns) {
		b->failed = 1;
		return -1;
	}
	b->s = ns;
	b->cap = cap;
	return 0;
}

void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	if (grow(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_puts(struct strbuf *b, const char *s)
{
	strbuf_add(b, s, strlen(s));
}

void strbuf_putc(struct strbuf *b, char c)
{
	strbuf_add(b, &c, 1);
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
		return 0;
	return len;
}

/* The code point of the valid UTF-8 sequence s[0..len). */
static unsigned utf8_cp(const unsigned char *s, size_t len)
{
	unsigned cp = len == 1 ? s[0] : len == 2 ? s[0] & 0x1fu : len == 3 ? s[0] & 0x0fu : s[0] & 0x07u;

	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (s[i] & 0x3fu);
	return cp;
}

int strbuf_is_bidi_control(unsigned cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

void strbuf_put_safe(struct strbuf *b, const char *str, size_t n, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < n) {
		if (max && i >= max) {
			strbuf_puts(b, "...");
			return;
		}
		size_t l = utf8_len(s + i, n - i);
		if (l == 1 && (s[i] < 0x20 || s[i] == 0x7f)) {
			if (s[i] == '\n')
				strbuf_puts(b, "\\n");
			else if (s[i] == '\t')
				strbuf_puts(b, "\\t");
			else
				strbuf_printf(b, "\\x%02x", s[i]);
			i++;
		} else if (l == 0) {
			strbuf_printf(b, "\\x%02x", s[i]);
			i++;
		} else if (l == 3 && strbuf_is_bidi_control(utf8_cp(s + i, l))) {
			/* it would reorder what follows it on the terminal (a name that reads reversed): shown, not obeyed */
			strbuf_printf(b, "\\u%04x", utf8_cp(s + i, l));
			i += l;
		} else if (l == 2 && utf8_cp(s + i, l) == 0x61c) {
			strbuf_puts(b, "\\u061c");
			i += l;
		} else {
			strbuf_add(b, (const char *)s + i, l);
			i += l;
		}
	}
}

void strbuf_put_word(struct strbuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	int bare = n > 0 && s[0] != '#' && s[0] != '@';

	for (size_t i = 0; i < n && bare; i++)
		bare = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		       strchr("_.:/+-", s[i]);
	if (bare) {
		strbuf_add(b, str, n);
		return;
	}
	strbuf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		size_t l = utf8_len(s + i, n - i);
		if (l == 1 && (s[i] == '"' || s[i] == '\\')) {
			strbuf_putc(b, '\\');
			strbuf_putc(b, (char)s[i]);
		} else if (l == 1 && s[i] >= 0x20 && s[i] != 0x7f && s[i] != '\'') {
			strbuf_putc(b, (char)s[i]);
		} else if (l > 1 && !strbuf_is_bidi_control(utf8_cp(s + i, l))) {
			strbuf_add(b, (const char *)s + i, l);
		} else {
			/* control bytes, invalid UTF-8, bidirectional controls, and the quote a shell would end at */
			if (!l)
				l = 1;
			for (size_t k = 0; k < l; k++)
				strbuf_printf(b, "\\x%02x", s[i + k]);
		}
		i += l;
	}
	strbuf_putc(b, '"');
}

const char *strbuf_str(const struct strbuf *b)
{
	return b->s ? b->s : "";
}

void strbuf_reset(struct strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void strbuf_free(struct strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof *b);
}
