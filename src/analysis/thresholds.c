/* The thresholds' defaults, parser and description, all walked from KG_THRESHOLDS. */
#include "analysis/thresholds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum threshold_type { T_PCT, T_RATIO, T_BW, T_NS, T_COUNT };

struct threshold {
	const char *name;
	enum threshold_type type;
	size_t offset;
	double def, lo, hi;
	const char *what;
};

static const struct threshold thresholds[] = {
#define KG_THRESHOLD_ROW_(name, type, def, lo, hi, what) \
	{#name, T_##type, offsetof(struct kg_config, name), def, lo, hi, what},
	KG_THRESHOLDS(KG_THRESHOLD_ROW_)
#undef KG_THRESHOLD_ROW_
};
#define N_THRESHOLDS (sizeof(thresholds) / sizeof(thresholds[0]))

static void store(struct kg_config *c, const struct threshold *t, double v)
{
	char *p = (char *)c + t->offset;
	if (t->type == T_NS)
		*(int64_t *)p = (int64_t)v;
	else if (t->type == T_COUNT)
		*(int *)p = (int)v;
	else
		*(double *)p = v;
}

void analysis_config_default(struct kg_config *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < N_THRESHOLDS; i++)
		store(c, &thresholds[i], thresholds[i].def);
}

/* "250us", "2ms", "1.5s", "300ns" or a bare number of ns; NAN when it is none. */
static double parse_ns(const char *v)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"", 1}, {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *end;
	double d = strtod(v, &end);
	if (end == v)
		return NAN;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return d * units[i].ns;
	return NAN;
}

/* A value as --set takes it: "250us", "0.5", "30". */
static void format_value(const struct threshold *t, double v, char *buf, size_t len)
{
	if (t->type != T_NS || v == 0)
		snprintf(buf, len, "%.10g", v);
	else if (v >= 1e9 && fmod(v, 1e9) == 0)
		snprintf(buf, len, "%gs", v / 1e9);
	else if (v >= 1e6 && fmod(v, 1e6) == 0)
		snprintf(buf, len, "%gms", v / 1e6);
	else if (v >= 1e3 && fmod(v, 1e3) == 0)
		snprintf(buf, len, "%gus", v / 1e3);
	else
		snprintf(buf, len, "%gns", v);
}

static int parse_value(const struct threshold *t, const char *v, double *out)
{
	char *end;
	double d = t->type == T_NS ? parse_ns(v) : strtod(v, &end);
	if (t->type != T_NS && (end == v || *end))
		return -1;
	if (!(d >= t->lo && d <= t->hi)) /* NaN too */
		return -1;
	if (t->type == T_COUNT && d != floor(d))
		return -1;
	*out = d;
	return 0;
}

int analysis_config_set(struct kg_config *c, const char *assignment, char *err, size_t errlen)
{
	const char *eq = strchr(assignment, '=');
	if (!eq) {
		snprintf(err, errlen, "--set '%s': expected NAME=VALUE", assignment);
		return -1;
	}
	size_t n = (size_t)(eq - assignment);
	const char *v = eq + 1;
	for (size_t i = 0; i < N_THRESHOLDS; i++) {
		const struct threshold *t = &thresholds[i];
		if (strlen(t->name) != n || strncmp(t->name, assignment, n))
			continue;
		double d;
		if (parse_value(t, v, &d) < 0) {
			char lo[32], hi[32];
			format_value(t, t->lo, lo, sizeof(lo));
			format_value(t, t->hi, hi, sizeof(hi));
			snprintf(err, errlen, "--set %s: '%s' is not %s from %s to %s", t->name, v,
				 t->type == T_NS      ? "a duration (e.g. 250us, 2ms)"
				 : t->type == T_COUNT ? "a whole number"
						      : "a number",
				 lo, hi);
			return -1;
		}
		store(c, t, d);
		return 0;
	}
	snprintf(err, errlen, "--set: no threshold named '%.*s' (see --list-thresholds)", (int)n,
		 assignment);
	return -1;
}

void analysis_config_describe(void (*line)(const char *, const char *, const char *,
					   const char *, void *),
			      void *arg)
{
	for (size_t i = 0; i < N_THRESHOLDS; i++) {
		const struct threshold *t = &thresholds[i];
		char v[32], lo[32], hi[32], range[72];
		format_value(t, t->def, v, sizeof(v));
		format_value(t, t->lo, lo, sizeof(lo));
		format_value(t, t->hi, hi, sizeof(hi));
		snprintf(range, sizeof(range), "%s..%s", lo, hi);
		line(t->name, v, range, t->what, arg);
	}
}
