#include "cli/settings.h"

#include "cli/cli.h"

int cli_opt_set(const struct cli_option *opt, const char *arg)
{
	struct cli_sets *s = opt->value;
	if (s->n == CLI_MAX_SETS) {
		kg_err("--set: at most %d thresholds at once", CLI_MAX_SETS);
		return KG_EXIT_USAGE;
	}
	struct kg_config scratch;
	char err[512];
	analysis_config_default(&scratch);
	if (analysis_config_set(&scratch, arg, err, sizeof(err)) < 0) {
		kg_err("%s", err); /* analysis_config_set names the option: "--set: ..." */
		return KG_EXIT_USAGE;
	}
	s->v[s->n++] = arg;
	return -1;
}

void cli_config(const struct cli_sets *s, struct kg_config *cfg)
{
	char err[512];
	analysis_config_default(cfg);
	for (int i = 0; i < s->n; i++)
		analysis_config_set(cfg, s->v[i], err, sizeof(err)); /* checked by cli_opt_set */
}
