/* The interactive HTML timeline (`kgantt view`): one self-contained page, no network.
 *
 *   struct kg_view_opts o = { .trace_path = "run.kgt" };
 *   view_html(f, &a, &o);      the page for an analysed model (analysis/analysis.h)
 *
 * The page is src/render/view_template.html, compiled in as kg_view_template (generated
 * at build time by scripts/embed.sh). The trace goes into it as one JSON document inside
 * <script type="application/json">, written by the JSON writer with '<', '>', '&', '/',
 * U+2028 and U+2029 escaped, so no name from a trace can close the script element or run
 * as markup. The operations are columns of zigzag LEB128 varints (deltas where values are
 * sorted), base64url-encoded: about 20 bytes per kernel. docs/view.md describes the
 * format and the page. */
#ifndef KGANTT_VIEW_H
#define KGANTT_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

#define KG_VIEW_DATA_VERSION 1 /* "v" of the embedded document */

struct kg_view_opts {
	const char *trace_path;       /* shown in the page header */
	const char *tool_version;     /* "kgantt 0.1.0" */
	/* The model was restricted to a window (model_restrict): where it lay in the whole
	 * trace, so that the page can say what it shows. */
	int windowed;
	const char *window_nvtx;      /* the range name that chose it, NULL for --from/--to */
	int64_t window_begin, window_end;
	int64_t trace_begin, trace_end;
};

/* Writes the page. 0, -ENOMEM, -EIO (a failed write: the caller reports it), or -EINVAL
 * when the compiled-in template lacks its data marker (a build error). */
int view_html(FILE *f, const struct kg_analysis *a, const struct kg_view_opts *o);

/* The page template with the marker @@KGANTT_DATA@@ where the JSON goes. */
extern const unsigned char kg_view_template[];
extern const size_t kg_view_template_len;

#endif
