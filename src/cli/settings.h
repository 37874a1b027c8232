/* --set NAME=VALUE, one way for every command that analyses a trace (report, view, plot,
 * diff): the thresholds of the rules (analysis.h's kg_config, `kgantt report
 * --list-thresholds`), so that their findings are the same for the same settings. */
#ifndef KGANTT_CLI_SETTINGS_H
#define KGANTT_CLI_SETTINGS_H

#include "analysis/analysis.h"

#define CLI_MAX_SETS 64

struct cli_sets {
	const char *v[CLI_MAX_SETS];
	int n;
};

/* One --set (cmd names the command): checked at once, so that a bad name or value is a
 * usage error before any work. -1 to go on, or KG_EXIT_USAGE after saying why. */
int cli_take_set(const char *cmd, struct cli_sets *s, const char *arg);
/* The defaults, then the --set values in the order given. */
void cli_config(const struct cli_sets *s, struct kg_config *cfg);

#endif
