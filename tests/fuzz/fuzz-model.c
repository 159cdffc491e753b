/* libFuzzer target for model loading: src/model/wire.c's pre-pass, protobuf-c unpacking, payload lifting and
 * validation, then everything `info` and `dump` render from a model that loaded, then packing it again.
 *
 * Build and run with tests/fuzz/build.sh and tests/fuzz/run.sh.  The target never writes files: the model's
 * name points into a folder that does not exist, so external data references fail to resolve, and only
 * in-memory output (struct strbuf, model_pack) is produced.
 *
 * Round trip: protobuf allows many encodings of one message (field order, packed or not, overlong varints,
 * repeated optional fields, unknown fields), so the packed bytes are not compared with the input in general.
 * What must hold is that the packer's own output is canonical: the first pack P1 must load again, and packing
 * that must give P1 byte for byte.  An input equal to P1 (a canonical input) must therefore round-trip exactly.
 * The JSON that `info --json` and `dump --json` print is checked to be valid JSON in valid UTF-8, and, with the
 * text they print, never to carry what a terminal obeys: C0 controls (but newline and tab in text), C1 controls
 * (U+009B is CSI to xterm and VTE), or bidirectional controls (a name that displays reversed) (issue 14).
 * Shape inference runs on every model that loads (dump shows inferred shapes): an Einsum equation of any length,
 * and every attribute list a rule copies into a fixed array (tests/fuzz/regress/shape-*, einsum-*).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"
#include "src/base/error.h"
#include "src/model/model.h"
#include "src/model/save.h"
#include "src/base/strbuf.h"

#define FUZZ_NAME "/nonexistent-dir/fuzz.onnx"

static void fail(const char *what, const struct ov_error *err)
{
	fprintf(stderr, "fuzz-model: %s%s%s\n", what, err ? ": " : "", err ? err->msg : "");
	abort();
}

/* What a terminal would obey rather than show: C1 controls and the bidirectional controls. */
static int terminal_control(unsigned cp)
{
	return (cp >= 0x80 && cp < 0xa0) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The text output: valid UTF-8 or not (it escapes what is not), it must hold no C0 control but newline and tab,
 * no DEL, and no C1 or bidirectional control encoded as UTF-8. */
static void check_text(const struct strbuf *sb, const char *what)
{
	const unsigned char *s = (const unsigned char *)strbuf_str(sb), *end = s + sb->len;

	if (sb->failed)
		return;
	for (const unsigned char *p = s; p < end; p++) {
		unsigned cp = *p;
		size_t len = 1;
		if ((*p & 0xe0) == 0xc0 && end - p >= 2)
			len = 2, cp = *p & 0x1fu;
		else if ((*p & 0xf0) == 0xe0 && end - p >= 3)
			len = 3, cp = *p & 0x0fu;
		for (size_t i = 1; i < len; i++)
			cp = (cp << 6) | (p[i] & 0x3fu);
		if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f || (len > 1 && terminal_control(cp))) {
			size_t at = (size_t)(p - s), from = at > 200 ? at - 200 : 0;
			fprintf(stderr, "fuzz-model: %s printed U+%04X raw at byte %zu:\n%.*s<HERE>\n", what, cp, at,
				(int)(at - from), (const char *)s + from);
			abort();
		}
		p += len - 1;
	}
}

/* A strict JSON syntax check (RFC 8259, strings in valid UTF-8) of what --json prints. */
struct jp {
	const unsigned char *s, *end;
};

static void jp_ws(struct jp *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static int jp_lit(struct jp *p, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, lit, n))
		return -1;
	p->s += n;
	return 0;
}

static int jp_utf8(struct jp *p)
{
	const unsigned char *s = p->s;
	unsigned cp;
	size_t len;

	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return -1;
	if ((size_t)(p->end - s) < len)
		return -1;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	if (terminal_control(cp))
		return -1;
	p->s += len;
	return 0;
}

static int jp_string(struct jp *p)
{
	if (p->s >= p->end || *p->s != '"')
		return -1;
	p->s++;
	while (p->s < p->end && *p->s != '"') {
		if (*p->s < 0x20)
			return -1;
		if (*p->s == '\\') {
			p->s++;
			if (p->s >= p->end)
				return -1;
			if (*p->s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (p->end - p->s <= i || !strchr("0123456789abcdefABCDEF", p->s[i]) || !p->s[i])
						return -1;
				p->s += 5;
			} else if (strchr("\"\\/bfnrt", *p->s) && *p->s) {
				p->s++;
			} else {
				return -1;
			}
		} else if (*p->s >= 0x80) {
			if (jp_utf8(p))
				return -1;
		} else {
			p->s++;
		}
	}
	if (p->s >= p->end)
		return -1;
	p->s++;
	return 0;
}

static int jp_number(struct jp *p)
{
	const unsigned char *start = p->s;

	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s < p->end && *p->s == '0')
		p->s++;
	else if (p->s < p->end && *p->s >= '1' && *p->s <= '9')
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	else
		return -1;
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		if (p->s >= p->end || *p->s < '0' || *p->s > '9')
			return -1;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (p->s >= p->end || *p->s < '0' || *p->s > '9')
			return -1;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	return p->s > start ? 0 : -1;
}

static int jp_value(struct jp *p, int depth)
{
	if (depth > 1000)
		return -1;
	jp_ws(p);
	if (p->s >= p->end)
		return -1;
	switch (*p->s) {
	case '{':
	case '[': {
		unsigned char close = *p->s == '{' ? '}' : ']';
		p->s++;
		jp_ws(p);
		if (p->s < p->end && *p->s == close) {
			p->s++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				jp_ws(p);
				if (jp_string(p))
					return -1;
				jp_ws(p);
				if (p->s >= p->end || *p->s++ != ':')
					return -1;
			}
			if (jp_value(p, depth + 1))
				return -1;
			jp_ws(p);
			if (p->s >= p->end)
				return -1;
			if (*p->s == close) {
				p->s++;
				return 0;
			}
			if (*p->s++ != ',')
				return -1;
		}
	}
	case '"': return jp_string(p);
	case 't': return jp_lit(p, "true");
	case 'f': return jp_lit(p, "false");
	case 'n': return jp_lit(p, "null");
	default: return jp_number(p);
	}
}

static void check_json(const struct strbuf *sb, const char *what)
{
	struct jp p = {(const unsigned char *)strbuf_str(sb), (const unsigned char *)strbuf_str(sb) + sb->len};

	if (sb->failed) /* out of memory: the text is cut short */
		return;
	if (jp_value(&p, 0))
		goto bad;
	jp_ws(&p);
	if (p.s == p.end)
		return;
bad:;
	size_t at = (size_t)(p.s - (const unsigned char *)strbuf_str(sb)), from = at > 300 ? at - 300 : 0;
	fprintf(stderr, "fuzz-model: %s wrote invalid JSON at byte %zu; from byte %zu:\n%.*s<HERE>%.*s\n", what, at,
		from, (int)(at - from), strbuf_str(sb) + from, (int)(sb->len - at < 100 ? sb->len - at : 100),
		strbuf_str(sb) + at);
	abort();
}

static void render_all(struct ov_model *m)
{
	struct strbuf sb = {0};

	info_render(m, &sb, 0);
	check_text(&sb, "info");
	strbuf_reset(&sb);
	info_render(m, &sb, 1);
	check_json(&sb, "info --json");
	strbuf_reset(&sb);
	dump_render(m, &sb, 0);
	check_text(&sb, "dump");
	strbuf_reset(&sb);
	dump_render(m, &sb, 1);
	check_json(&sb, "dump --json");
	strbuf_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ov_model *m = NULL, *m2 = NULL;
	struct ov_error err;
	uint8_t *p1 = NULL, *p2 = NULL;
	size_t n1 = 0, n2 = 0;

	if (model_load_buffer(&m, data, size, FUZZ_NAME, &err)) {
		if (m)
			fail("model_load_buffer failed but returned a model", NULL);
		return 0;
	}
	render_all(m);
	if (model_pack(m, &p1, &n1, &err))
		fail("model_pack failed on a loaded model", &err);
	if (n1 != protobuf_c_message_get_packed_size(&m->proto->base))
		fail("model_pack wrote fewer bytes than protobuf-c's packed size", NULL);
	int canonical = n1 == size && memcmp(p1, data, size) == 0;

	/* The packer's output is canonical: it must load and pack to the same bytes. */
	if (model_load_buffer(&m2, p1, n1, FUZZ_NAME, &err))
		fail("the packed model does not load again", &err);
	if (model_pack(m2, &p2, &n2, &err))
		fail("model_pack failed on the reloaded model", &err);
	if (n2 != n1 || memcmp(p1, p2, n1))
		fail(canonical ? "a canonical input does not round-trip byte for byte"
			       : "packing is not idempotent: pack(load(pack(x))) != pack(x)", NULL);
	free(p2);
	model_free(m2);
	free(p1);
	model_free(m);
	return 0;
}
