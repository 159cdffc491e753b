// Loading a CUDA library's functions with dlopen (see cuda/dl.h).
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "src/exec/cuda/dl.h"

int cu_dl_load(const char *soname, const struct cu_dl_sym *syms, size_t n, void *table, size_t n_table, char *failed,
	       size_t len)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", OV_CUDA_LIBDIR, soname);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(failed, len, "%s", e ? e : "cannot be loaded");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!(*syms[i].slot = dlsym(h, syms[i].name))) {
			snprintf(failed, len, "%s has no %s", soname, syms[i].name);
			memset(table, 0, n_table);
			dlclose(h);
			return -1;
		}
	return 0;
}
