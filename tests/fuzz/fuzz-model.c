/* libFuzzer target for model loading: src/wire.c's pre-pass, protobuf-c unpacking, payload lifting and
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
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cmd.h"
#include "src/error.h"
#include "src/model.h"
#include "src/save.h"
#include "src/strbuf.h"

#define FUZZ_NAME "/nonexistent-dir/fuzz.onnx"

static void render_all(struct ov_model *m)
{
	struct strbuf sb = {0};

	info_render(m, &sb, 0);
	strbuf_reset(&sb);
	info_render(m, &sb, 1);
	strbuf_reset(&sb);
	dump_render(m, &sb, 0);
	strbuf_reset(&sb);
	dump_render(m, &sb, 1);
	strbuf_free(&sb);
}

static void fail(const char *what, const struct ov_error *err)
{
	fprintf(stderr, "fuzz-model: %s%s%s\n", what, err ? ": " : "", err ? err->msg : "");
	abort();
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
