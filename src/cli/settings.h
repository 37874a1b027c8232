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

/* One --set (an options.h callback, opt->value the struct cli_sets): checked at once, so
 * that a bad name or value is a usage error before any work. -1 to go on, or
 * KG_EXIT_USAGE after saying why. */
struct cli_option;
int cli_opt_set(const struct cli_option *opt, const char *arg);
/* The defaults, then the --set values in the order given. */
void cli_config(const struct cli_sets *s, struct kg_config *cfg);

#endif
