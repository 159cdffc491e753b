/* Statistics and a histogram of a tensor's values, for the tensor view and anything else that summarises weights.
 *
 * Both functions read the values through a struct tensor_view (src/model/describe.h), so they work wherever the values
 * are stored (raw_data, a typed field, an external file) and for every numeric dtype.  They are linear in the
 * element count, allocate nothing, and read the values in blocks: a 250 MB float32 weight takes a few tenths of a
 * second for the statistics (two passes) and about as much again for a histogram (one more pass).
 *
 * What counts: every element is one of NaN, +Inf, -Inf or finite; min, max, mean and std are over the finite
 * ones (so one NaN does not hide the rest); zeros counts finite values equal to 0 (-0.0 included).  Bool counts
 * as 0/1, complex numbers by their real part, the 4- and 8-bit float formats by their decoded values.  Integer
 * dtypes never go through a double for min and max: imin/imax (umin/umax for uint64) hold them exactly.  Strings
 * have no statistics. */
#ifndef OV_TENSOR_STATS_H
#define OV_TENSOR_STATS_H

#include <stdint.h>

#include "src/model/describe.h"

enum tensor_stats_kind {
	TENSOR_STATS_NONE,   /* strings or an unknown dtype: only count is set */
	TENSOR_STATS_FLOAT,  /* floating point (and bool, complex): min/max as doubles */
	TENSOR_STATS_INT,    /* signed integers and unsigned ones up to 32 bits: imin/imax exact as well */
	TENSOR_STATS_UINT64, /* uint64: umin/umax exact as well */
};

struct tensor_stats {
	enum tensor_stats_kind kind;
	int64_t count;            /* elements */
	int64_t finite;           /* elements that are neither NaN nor infinite: what min..std describe */
	int64_t zeros, nans, pos_inf, neg_inf;
	double min, max;          /* over the finite values (0 when there are none) */
	int64_t argmin, argmax;   /* flat index of the first min / max; -1 when there are no finite values */
	double mean, std;         /* population standard deviation (divides by finite, as numpy's std) */
	int64_t imin, imax;       /* TENSOR_STATS_INT */
	uint64_t umin, umax;      /* TENSOR_STATS_UINT64 */
};

/* Fill out for the values v reads.  Returns 0, or -1 for tensors without numbers (strings, unknown dtypes),
 * with out->kind == TENSOR_STATS_NONE and out->count set. */
int tensor_stats_compute(const struct tensor_view *v, struct tensor_stats *out);

/* Count the finite values into n_bins equal bins over [stats->min, stats->max] (the last bin includes max; when
 * min == max every finite value lands in bin 0).  stats must come from tensor_stats_compute on the same v.
 * Returns the largest bin count, 0 when there is nothing to count (bins are all zero then). */
uint64_t tensor_histogram(const struct tensor_view *v, const struct tensor_stats *stats, uint64_t *bins, int n_bins);

#endif
