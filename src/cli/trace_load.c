#include "cli/trace_load.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"

/* A trace recorded while another profiler held CUPTI is a clean, empty file: without
 * this, report says "losses none" and view writes a blank page, as if the program had
 * done nothing on the GPU. The reason is on the process (model/read_kgt.c). */
int cli_check_recorded(const char *path, const struct kg_model *m)
{
	uint32_t refused = 0, first = KG_NONE;
	for (uint32_t i = 0; i < m->n_processes; i++)
		if (m->processes[i].refused && !refused++)
			first = i;
	if (!refused && !m->n_ops && !m->n_apis && !m->n_ranges && !m->unread_rows) {
		/* an empty trace, or one whose every event was malformed: said, not reported as
		 * a run without problems */
		kg_err("nothing to show in '%s': it holds no GPU operation, API call or range%s%s",
		       path, m->n_notes ? "; " : "", m->n_notes ? m->notes[0] : "");
		return KG_EXIT_FAILURE;
	}
	if (!refused)
		return KG_EXIT_OK;
	if (!m->n_ops && !m->n_apis && !m->unread_rows) {
		const struct kg_process *p = &m->processes[first];
		char more[64] = "";
		if (refused > 1)
			snprintf(more, sizeof(more), " (and in %" PRIu32 " more processes)",
				 refused - 1);
		kg_err("nothing to show in '%s': recording was refused in pid %" PRIu32 "%s: %s", path,
		       p->pid, more, model_text(m, p->refused));
		return KG_EXIT_FAILURE;
	}
	for (uint32_t i = 0; i < m->n_processes; i++)
		if (m->processes[i].refused)
			kg_warn("pid %" PRIu32 " of '%s' was not recorded: %s", m->processes[i].pid,
				path, model_text(m, m->processes[i].refused));
	return KG_EXIT_OK;
}
