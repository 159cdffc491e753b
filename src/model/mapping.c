/* Files that change under their mapping: never a SIGBUS, always "changed while open".
 *
 * Weights are read straight from read-only mappings of the model file and of its external data files.  When such a
 * file is truncated while it is mapped (torch.onnx.export rewriting the model in place while the TUI is open, an
 * external data file cut short during `run --repeat`), touching a page past the new end raises SIGBUS, which kills
 * the program and every unsaved edit with it.  Checking the size before each read cannot close that window, and
 * the reads are everywhere (tensor views, the executor, saving).  So every mapping is registered here, and a SIGBUS
 * handler (installed with the first mapping) recognises a fault inside one: it maps zero pages over the whole
 * mapping, so that the read completes and every later read of it is harmless, marks the mapping as changed, and
 * returns.  A fault anywhere else goes to the handler that was there before (the default: the program dies, as a
 * bug should).  map_guard_check() then reports the change as an error: a mapping that faulted, or a file whose size
 * or modification time is no longer what it was (a file rewritten in place with the same length changes the bytes
 * a mapping shows without any fault).  Saving, running and opening a tensor call it, through model_check_unchanged.
 *
 * The registry is a list the handler walks without locks: nodes are published with an atomic store and never freed
 * (a removed node is cleared and reused), so a handler never follows a dangling pointer. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "src/model/internal.h"

struct map_guard {
	_Atomic(uintptr_t) base; /* 0: a free node */
	_Atomic(size_t) len;
	volatile sig_atomic_t faulted;
	_Atomic(struct map_guard *) next;
	/* for map_guard_check, outside the handler */
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

static _Atomic(struct map_guard *) guards;
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous_bus;
static int bus_installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	(void)uc;
	for (struct map_guard *g = atomic_load(&guards); g; g = atomic_load(&g->next)) {
		uintptr_t b = atomic_load(&g->base);
		size_t len = atomic_load(&g->len);
		if (b && a >= b && a - b < len) {
			int saved = errno;
			void *p = mmap((void *)b, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			errno = saved;
			if (p != MAP_FAILED) {
				g->faulted = 1;
				return; /* the read is retried, and reads zeros */
			}
			break;
		}
	}
	/* not a mapping of ours: the fault happens again as the handler returns, under what was there before */
	sigaction(sig, &previous_bus, NULL);
}

static void install_handler(void)
{
	struct sigaction sa;

	if (bus_installed)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &previous_bus) == 0)
		bus_installed = 1;
}

struct map_guard *map_guard_add(const void *base, size_t len, const char *path, const struct stat *st)
{
	struct map_guard *g;
	char *copy = strdup(path);

	if (!copy || !len) {
		free(copy);
		return NULL;
	}
	pthread_mutex_lock(&guard_lock);
	install_handler();
	for (g = atomic_load(&guards); g; g = atomic_load(&g->next))
		if (!atomic_load(&g->base))
			break;
	if (!g) {
		g = calloc(1, sizeof *g);
		if (!g) {
			pthread_mutex_unlock(&guard_lock);
			free(copy);
			return NULL;
		}
		atomic_store(&g->next, atomic_load(&guards));
		atomic_store(&guards, g);
	}
	free(g->path);
	g->path = copy;
	g->dev = st->st_dev;
	g->ino = st->st_ino;
	g->size = st->st_size;
	g->mtime = st->st_mtim;
	g->faulted = 0;
	atomic_store(&g->len, len);
	atomic_store(&g->base, (uintptr_t)base); /* published last: the handler sees a complete node */
	pthread_mutex_unlock(&guard_lock);
	return g;
}

void map_guard_remove(struct map_guard *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&guard_lock);
	atomic_store(&g->base, 0);
	free(g->path);
	g->path = NULL;
	pthread_mutex_unlock(&guard_lock);
}

int map_guard_changed(const struct map_guard *g)
{
	struct stat st;

	if (!g)
		return 0;
	if (g->faulted)
		return 1;
	/* a file replaced by another one (a rename over it) leaves our mapping of the old one intact */
	if (stat(g->path, &st) < 0 || st.st_dev != g->dev || st.st_ino != g->ino)
		return 0;
	return st.st_size != g->size || st.st_mtim.tv_sec != g->mtime.tv_sec || st.st_mtim.tv_nsec != g->mtime.tv_nsec;
}

int map_guard_check(const struct map_guard *g, const char *what, struct ov_error *err)
{
	if (!map_guard_changed(g))
		return 0;
	return ov_fail(err, OV_IO, "%s changed on disk while open (rewritten or truncated in place): its weights can "
		       "no longer be read, and nothing is saved from it; the edits can still be saved as a script "
		       "(journal FILE) and replayed on the new file", what);
}

