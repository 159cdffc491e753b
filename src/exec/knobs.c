/* The executor's switches in the environment (OV_CUDA_*): one table of what each takes, read the same way by the
 * backend that obeys them and by the front ends that name a value none of them would take. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"

struct knob {
	const char *name;
	int choices; /* its values are "0" to "choices - 1"; 0: seconds, a number >= 0 */
};

static const struct knob knobs[] = {
	{"OV_CUDA_CONV_BLAS", 4}, {"OV_CUDA_CONV_FIND", 2}, {"OV_CUDA_CONV_OWN", 2}, {"OV_CUDA_GRAPH", 2},
	{"OV_CUDA_MATMUL_BLAS", 2}, {"OV_CUDA_MATMUL_PERM", 2}, {"OV_CUDA_SYNC", 2}, {"OV_CUDA_TIMEOUT", 0},
};

#define N_KNOBS (sizeof knobs / sizeof knobs[0])

static const struct knob *knob_find(const char *name)
{
	for (size_t i = 0; i < N_KNOBS; i++)
		if (!strcmp(knobs[i].name, name))
			return &knobs[i];
	return NULL;
}

/* Seconds in s: 0 and the value, or -1 when s is not a finite number >= 0 written whole. */
static int seconds_of(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v) && *v >= 0 ? 0 : -1;
}

int exec_knob(const char *name)
{
	const struct knob *k = knob_find(name);
	const char *s = getenv(name);

	if (!k || !k->choices || !s || s[0] < '0' || s[0] >= '0' + k->choices || s[1])
		return -1;
	return s[0] - '0';
}

double exec_knob_seconds(const char *name, double dflt)
{
	const char *s = getenv(name);
	double v;

	return s && *s && !seconds_of(s, &v) ? v : dflt;
}

int exec_knobs_check(char *msg, size_t n)
{
	size_t used = 0;
	int bad = 0;

	if (n)
		msg[0] = '\0';
	for (size_t i = 0; i < N_KNOBS; i++) {
		const char *s = getenv(knobs[i].name);
		double v;
		if (!s || !*s || (knobs[i].choices ? exec_knob(knobs[i].name) >= 0 : !seconds_of(s, &v)))
			continue;
		char shown[40], takes[48];
		size_t j = 0;
		/* the value as the user set it, cut and with anything unprintable as '?' (it reaches a terminal) */
		for (; s[j] && j < sizeof shown - 4; j++)
			shown[j] = s[j] >= 0x20 && s[j] < 0x7f ? s[j] : '?';
		strcpy(shown + j, s[j] ? "..." : "");
		if (!knobs[i].choices)
			snprintf(takes, sizeof takes, "seconds, a number of 0 or more");
		else if (knobs[i].choices == 2)
			snprintf(takes, sizeof takes, "0 or 1");
		else
			snprintf(takes, sizeof takes, "0 to %d", knobs[i].choices - 1);
		int w = snprintf(msg + used, n > used ? n - used : 0, "%s%s='%s' is not understood (it takes %s): it "
				 "is ignored", bad ? "; " : "", knobs[i].name, shown, takes);
		if (w > 0)
			used = used + (size_t)w < n ? used + (size_t)w : n;
		bad = 1;
	}
	return bad;
}
