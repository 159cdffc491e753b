/* Streaming JSON output. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/base/json.h"

void json_init(struct json *j, struct strbuf *out, int pretty)
{
	memset(j, 0, sizeof *j);
	j->out = out;
	j->first[0] = 1;
	j->pretty = pretty;
}

static void newline(struct json *j)
{
	if (!j->pretty)
		return;
	strbuf_putc(j->out, '\n');
	for (int i = 0; i < j->depth; i++)
		strbuf_puts(j->out, "  ");
}

/* Comma and indentation before a value (or key) at the current level. */
static void before(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (!j->first[j->depth])
		strbuf_putc(j->out, ',');
	j->first[j->depth] = 0;
	if (j->depth > 0)
		newline(j);
}

static void open_(struct json *j, char c)
{
	before(j);
	strbuf_putc(j->out, c);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = 1;
}

static void close_(struct json *j, char c)
{
	int empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		newline(j);
	strbuf_putc(j->out, c);
}

void json_obj(struct json *j) { open_(j, '{'); }
void json_arr(struct json *j) { open_(j, '['); }
void json_end_obj(struct json *j) { close_(j, '}'); }
void json_end_arr(struct json *j) { close_(j, ']'); }

static void put_string(struct strbuf *b, const char *s, size_t n)
{
	strbuf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': strbuf_puts(b, "\\\""); break;
		case '\\': strbuf_puts(b, "\\\\"); break;
		case '\n': strbuf_puts(b, "\\n"); break;
		case '\r': strbuf_puts(b, "\\r"); break;
		case '\t': strbuf_puts(b, "\\t"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				strbuf_printf(b, "\\u%04x", c);
			else if (c >= 0x80) {
				/* Pass valid UTF-8 through; escape stray bytes as U+FFFD-free \u00XX so output stays valid.
				 * Overlong forms, surrogates and code points past U+10FFFF are not valid UTF-8 either. */
				size_t l = 0;
				unsigned cp = 0;
				if ((c & 0xe0) == 0xc0) l = 2, cp = c & 0x1f;
				else if ((c & 0xf0) == 0xe0) l = 3, cp = c & 0x0f;
				else if ((c & 0xf8) == 0xf0) l = 4, cp = c & 0x07;
				int ok = l && i + l <= n;
				for (size_t k = 1; ok && k < l; k++) {
					ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
					cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3f);
				}
				if (ok && ((l == 2 && cp < 0x80) || (l == 3 && cp < 0x800) || (l == 4 && cp < 0x10000) ||
					   cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)))
					ok = 0;
				if (ok && ((cp >= 0x80 && cp < 0xa0) || strbuf_is_bidi_control(cp) || cp == 0x2028 ||
					   cp == 0x2029)) {
					/* C1 controls are ESC sequences to xterm and VTE (U+009B is CSI), bidirectional
					 * controls reorder the text around them: both written as escapes, like C0 */
					strbuf_printf(b, "\\u%04x", cp);
					i += l - 1;
				} else if (ok) {
					strbuf_add(b, s + i, l);
					i += l - 1;
				} else
					strbuf_printf(b, "\\u%04x", c);
			} else
				strbuf_putc(b, (char)c);
		}
	}
	strbuf_putc(b, '"');
}

void json_key(struct json *j, const char *key)
{
	before(j);
	put_string(j->out, key, strlen(key));
	strbuf_puts(j->out, j->pretty ? ": " : ":");
	j->after_key = 1;
}

void json_strn(struct json *j, const char *s, size_t n)
{
	before(j);
	put_string(j->out, s, n);
}

void json_str(struct json *j, const char *s)
{
	if (!s)
		json_null(j);
	else
		json_strn(j, s, strlen(s));
}

void json_int(struct json *j, int64_t v)
{
	before(j);
	strbuf_printf(j->out, "%lld", (long long)v);
}

void json_uint(struct json *j, uint64_t v)
{
	before(j);
	strbuf_printf(j->out, "%llu", (unsigned long long)v);
}

void json_double(struct json *j, double v)
{
	before(j);
	if (isnan(v))
		strbuf_puts(j->out, "\"nan\"");
	else if (isinf(v))
		strbuf_puts(j->out, v > 0 ? "\"inf\"" : "\"-inf\"");
	else
		strbuf_printf(j->out, "%.9g", v);
}

void json_bool(struct json *j, int v)
{
	before(j);
	strbuf_puts(j->out, v ? "true" : "false");
}

void json_null(struct json *j)
{
	before(j);
	strbuf_puts(j->out, "null");
}

void json_kstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_kint(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_int(j, v);
}
