/* `onnxview --version`. */
#include "config.h"

#include <protobuf-c/protobuf-c.h>
#include <stdio.h>

#include "cli/cli.h"
#include "src/exec/device.h"

void cli_print_version(FILE *out)
{
	char cuda[512];

	ov_cuda_describe(cuda, sizeof cuda);
	fprintf(out, "onnxview %s\n", PACKAGE_VERSION);
	fprintf(out, "protobuf-c %s\n", protobuf_c_version());
	fprintf(out, "CUDA backend: %s\n", cuda);
}
