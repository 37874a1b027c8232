/* Two analysed traces side by side (`kgantt diff BEFORE AFTER`): did the change help, and
 * where did the time go? The span, GPU busy and idle time by cause, every kernel name's
 * count and time, and the findings: resolved, new, or with a different gain.
 * docs/diff.md describes the page and the JSON document. */
#ifndef KGANTT_DIFF_H
#define KGANTT_DIFF_H

#include <stdio.h>

#include "analysis/analysis.h"

#define KG_DIFF_VERSION 1 /* "kgantt_diff_version" of the JSON document */

enum kg_diff_status { KG_DIFF_SAME = 0, KG_DIFF_RESOLVED, KG_DIFF_NEW, KG_DIFF_CHANGED };

/* A kernel name in one trace or both (an index into that analysis' kernels, or KG_NONE). */
struct kg_diff_kernel {
	uint32_t before, after;
	int64_t delta;             /* total time after - before */
};

/* A rule's finding on a GPU (matched by rule and GPU number) in one trace or both. */
struct kg_diff_finding {
	uint32_t before, after;    /* indices into the findings, KG_NONE */
	enum kg_diff_status status;
};

/* A call site in one trace or both (indices into that analysis' sites, KG_NONE), matched
 * by the user's frame (function and file, not the line: fixing the code moves lines), the
 * operator and the API function. RESOLVED: no finding is placed there any more. */
struct kg_diff_site {
	uint32_t before, after;
	enum kg_diff_status status;
};

/* What the host did while the GPU waited (analysis/host.h), in one trace or both
 * (indices into that analysis' host.acts, KG_NONE), matched by the activity's path as
 * the report names it. Only when both traces have host activity. */
struct kg_diff_host {
	uint32_t before, after;
	enum kg_diff_status status;
	double delta;              /* ns after - before */
};

struct kg_diff {
	const struct kg_analysis *before, *after;
	const char *before_path, *after_path;
	struct kg_diff_kernel *kernels; /* by |delta|, largest first */
	uint32_t n_kernels;
	struct kg_diff_finding *findings; /* resolved, new, changed, same; by gain */
	uint32_t n_findings;
	struct kg_diff_site *sites;     /* resolved, new, changed, same; by gain */
	uint32_t n_sites;
	struct kg_diff_host *host;      /* by |delta|, largest first */
	uint32_t n_host;
};

struct kg_diff_opts {
	int top;                   /* kernel names shown; 0 = all */
	int color;
};

/* 0, or -ENOMEM. */
int diff_compute(const struct kg_analysis *before, const struct kg_analysis *after,
		 const char *before_path, const char *after_path, struct kg_diff *d);
void diff_free(struct kg_diff *d);
/* 0, or -EIO when writing failed. */
int diff_text(FILE *f, const struct kg_diff *d, const struct kg_diff_opts *o);
int diff_json(FILE *f, const struct kg_diff *d);
const char *diff_status_name(enum kg_diff_status s);

#endif
