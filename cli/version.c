/* `onnxview --version`. */
#include "config.h"

#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "src/base/strbuf.h"
#include "src/exec/device.h"

void cli_print_version(FILE *out)
{
	char cuda[512], cblas[512];

	ov_cuda_describe(cuda, sizeof cuda);
	fprintf(out, "onnxview %s\n", PACKAGE_VERSION);
	fprintf(out, "protobuf-c %s\n", protobuf_c_version());
	fprintf(out, "CUDA backend: %s\n", cuda);
	ov_cblas_describe(cblas, sizeof cblas);
	/* it may hold OV_CBLAS's name, from the environment: shown with its control bytes escaped */
	struct strbuf b = {0};
	strbuf_put_safe(&b, cblas, strlen(cblas), 0);
	fprintf(out, "CBLAS: %s\n", strbuf_str(&b));
	strbuf_free(&b);
}
