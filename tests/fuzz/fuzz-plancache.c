/* libFuzzer target for the CUDA backend's plan cache file (src/exec/cuda/plancache.c), a file in the user's home that
 * anything may have written: the input's bytes are the file.  Reading it must never crash or run past a line, a
 * choice read back must be one some line spells, and a choice added must be found again, by this process and by
 * the next one reading the file (its line appended whole, on a line of its own even after a line cut short).
 *
 * Build with tests/fuzz/build.sh (BUILD_DIR/fuzz-plancache); run with BUILD_DIR/fuzz-plancache CORPUS_DIR, seeded
 * with a cache a CUDA run wrote (tests/fuzz/plancache/). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/exec/cuda/plancache.h"

static char file[64];

static void fail(const char *what)
{
	fprintf(stderr, "fuzz-plancache: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!file[0]) {
		snprintf(file, sizeof file, "/tmp/fuzz-plancache.%ld", (long)getpid());
		setenv("OV_CUDA_PLAN_CACHE", file, 1);
	}
	FILE *f = fopen(file, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);

	/* the key and device of the seed's first line, so that the fuzzer reaches the matching */
	const char *dev = "NVIDIA_H200_cc9.0_cudnn91900";
	int key[PLANCACHE_KEY_MAX] = {0, 0, 64, 2, 1, 3, 64, 1, 224, 112, 7, 3, 2, 1, 224, 112, 7, 3, 2, 1};
	struct plan_choice c, d = {.algo = 2, .math = 3, .blas = 1, .blas_ms = 0.25f, .dnn_ms = 0.5f, .direct_ms = -1};
	struct plan_choice e = {.algo = 1, .math = 3, .blas_ms = 0.25f, .dnn_ms = 0.5f, .direct = 1, .direct_ms = 0.125f};

	plancache_reset();
	plancache_find(dev, key, 26, &c); /* any numbers a line spells may come back: conv.cu checks them */
	key[25] = 12345; /* a key no seed has */
	plancache_add(dev, key, 26, &d);
	key[24] = 54321; /* and one more, the direct kernel's */
	plancache_add(dev, key, 26, &e);
	if (!plancache_find(dev, key, 26, &c) || c.algo != 1 || !c.direct || c.blas)
		fail("a choice of the direct kernel added is not found by the same process");
	key[24] = 0;
	if (!plancache_find(dev, key, 26, &c) || c.algo != 2 || c.blas != 1 || c.direct)
		fail("a choice added is not found by the same process");
	plancache_reset(); /* the next process */
	if (size < PLANCACHE_MAX - 4096 && (!plancache_find(dev, key, 26, &c) || c.algo != 2 || c.math != 3 ||
					    c.blas != 1 || c.direct))
		fail("a choice added is not found by the next process reading the file");
	key[24] = 54321;
	if (size < PLANCACHE_MAX - 4096 &&
	    (!plancache_find(dev, key, 26, &c) || !c.direct || c.blas || c.direct_ms != 0.125f))
		fail("a choice of the direct kernel added is not found by the next process reading the file");
	plancache_reset();
	unlink(file);
	return 0;
}
