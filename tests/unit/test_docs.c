/* The rules and thresholds are one list each in the code (analysis/finding.h: KG_RULES;
 * analysis/thresholds.h: KG_THRESHOLDS); docs/rules.md must say the same: a heading
 * "### id" for every rule (and no heading for a rule that is not there), a table row
 * "| `name` | default | range | meaning |" for every threshold, in the list's order. */
#include "harness.h"

#include "analysis/finding.h"
#include "analysis/thresholds.h"

static char *read_doc(void)
{
	FILE *f = fopen("docs/rules.md", "r");
	if (!f)
		return NULL;
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* Is id a word of the heading line at h ("### under-filled-grid and low-occupancy")? */
static int heading_names(const char *h, const char *id)
{
	size_t n = strlen(id);
	const char *end = strchr(h, '\n');
	for (const char *p = strstr(h, id); p && (!end || p < end); p = strstr(p + 1, id)) {
		char before = p == h ? ' ' : p[-1], after = p[n];
		if ((before == ' ' || before == '#') && (after == ' ' || after == '\n' || !after))
			return 1;
	}
	return 0;
}

TEST(every_rule_has_a_heading)
{
	const char *doc = read_doc();
	CHECK(doc != NULL);
	for (int r = 0; doc && r < KG_RULE_COUNT; r++) {
		int found = 0;
		for (const char *h = strstr(doc, "\n### "); h && !found; h = strstr(h + 1, "\n### "))
			found = heading_names(h + 5, kg_rules[r].id);
		if (!found)
			fprintf(stderr, "    docs/rules.md has no '### %s'\n", kg_rules[r].id);
		CHECK(found);
	}
}

TEST(every_rule_heading_is_a_rule)
{
	const char *doc = read_doc();
	CHECK(doc != NULL);
	const char *rules = doc ? strstr(doc, "\n## The rules") : NULL;
	const char *end = rules ? strstr(rules, "\n## Checked") : NULL;
	CHECK(rules && end);
	for (const char *h = rules ? strstr(rules, "\n### ") : NULL; h && h < end;
	     h = strstr(h + 1, "\n### ")) {
		int named = 0;
		for (int r = 0; r < KG_RULE_COUNT; r++)
			named |= heading_names(h + 5, kg_rules[r].id);
		if (!named)
			fprintf(stderr, "    docs/rules.md: '%.*s' names no rule\n",
				(int)(strchr(h + 1, '\n') - h - 1), h + 1);
		CHECK(named);
	}
}

static const char *doc_at; /* where the next threshold row must come after */

static void check_row(const char *name, const char *value, const char *range, const char *what,
		      void *arg)
{
	char row[1024];
	snprintf(row, sizeof(row), "\n| `%s` | %s | %s | %s |\n", name, value, range, what);
	const char *at = doc_at ? strstr(doc_at, row) : NULL;
	if (!at)
		fprintf(stderr, "    docs/rules.md lacks, after the rows before it:%s", row);
	CHECK(at != NULL);
	if (at)
		doc_at = at + 1;
}

TEST(every_threshold_has_its_row_in_order)
{
	doc_at = read_doc();
	CHECK(doc_at != NULL);
	analysis_config_describe(check_row, NULL);
}

