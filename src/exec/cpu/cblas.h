/* CBLAS's products, loaded when first needed (src/exec/cpu/cblas.c). */
#ifndef OV_EXEC_CPU_CBLAS_H
#define OV_EXEC_CPU_CBLAS_H

#include <cblas.h>
#include <stdint.h>

/* The functions cpu_gemm calls, with cblas.h's prototypes. */
struct cpu_cblas {
	__typeof__(cblas_sgemm) *sgemm;
	__typeof__(cblas_dgemm) *dgemm;
	__typeof__(cblas_sgemv) *sgemv;
};

/* The library's functions, loaded on the first call (thread-safe); NULL when no CBLAS library can be opened. */
const struct cpu_cblas *cpu_cblas(void);
/* Once after the library was opened (or looked for in vain): the milliseconds that took, and its name in *name (NULL
 * when none was found); -1 at every other call. */
double cpu_cblas_take_load_ms(const char **name);

#endif
