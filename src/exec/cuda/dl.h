/* Loading a CUDA library with dlopen and filling a table of its functions (cuBLAS, cuDNN: see cuda/blas.h for why
 * they are not linked).  C++, for the loaders src/exec/cuda/blas.cu and cuda/dnn.cu. */
#ifndef OV_EXEC_CUDA_DL_H
#define OV_EXEC_CUDA_DL_H

#include <stddef.h>

struct cu_dl_sym {
	const char *name;
	void **slot;
};

/* Open soname from the toolkit's library folder (OV_CUDA_LIBDIR), else through the loader's search path, and set
 * each slot to its symbol.  Returns 0, or -1 with why in failed (the loader's message, or the missing symbol) and
 * the n_table bytes at table zeroed.  The library stays loaded for the process. */
int cu_dl_load(const char *soname, const struct cu_dl_sym *syms, size_t n, void *table, size_t n_table, char *failed,
	       size_t len);

#endif
