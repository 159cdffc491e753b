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
		} else {
			strbuf_add(b, (const char *)s + i, l);
			i += l;
		}
	}
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
