/* A small streaming JSON writer into a strbuf: it tracks commas and nesting so callers only say what comes next. */
#ifndef OV_JSON_H
#define OV_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/strbuf.h"

#define JSON_MAX_DEPTH 128

struct json {
	struct strbuf *out;
	int depth;
	int first[JSON_MAX_DEPTH]; /* nothing written yet at this level */
	int after_key;
	int pretty;
};

void json_init(struct json *j, struct strbuf *out, int pretty);
void json_obj(struct json *j);   /* { */
void json_arr(struct json *j);   /* [ */
void json_end_obj(struct json *j);
void json_end_arr(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);          /* NULL writes null */
void json_strn(struct json *j, const char *s, size_t n);
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_double(struct json *j, double v);             /* NaN/Inf as strings "nan", "inf", "-inf" */
void json_bool(struct json *j, int v);
void json_null(struct json *j);
/* Key + value shorthands. */
void json_kstr(struct json *j, const char *key, const char *s);
void json_kint(struct json *j, const char *key, int64_t v);

#endif
