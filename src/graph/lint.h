/* Reference checks that do not stop a model from loading: values used but never defined, outputs nobody produces.
 * (The full diagnostics live in `check`; these are the ones `info` must flag for every model.) */
#ifndef OV_LINT_H
#define OV_LINT_H

#include "src/model/model.h"

typedef void (*lint_report_fn)(const char *message, void *ctx);
/* Reports each problem as one line; returns the count, or -1 when out of memory. */
long lint_references(const struct ov_model *m, lint_report_fn report, void *ctx);

#endif
