/* The one finding (analysis/finding.h): texts of any length, one rating, one order. */
#include "harness.h"

#include "analysis/finding.h"
#include "model/model.h"

/* A title was cut at 199 bytes mid-word ("…(limited by s"): texts have no fixed size. */
TEST(texts_are_not_cut)
{
	struct kg_findings l = {0};
	struct kg_finding *f = findings_add(&l, KG_RULE_LOW_OCCUPANCY);
	CHECK(f != NULL);
	char kernel[401];
	memset(kernel, 'k', 400);
	kernel[400] = 0;
	finding_set(&f->title, "%s runs at 20%% theoretical occupancy (limited by shared memory)",
		    kernel);
	CHECK(strlen(f->title) == 400 + strlen(" runs at 20% theoretical occupancy (limited by "
					       "shared memory)"));
	CHECK(strstr(f->title, "(limited by shared memory)") != NULL);
	finding_set(&f->figures, "a=1");
	for (int i = 0; i < 200; i++)
		finding_append(&f->figures, ", x%d=%d", i, i);
	CHECK(strstr(f->figures, ", x199=199") != NULL);
	for (int i = 0; i < KG_MAX_EVIDENCE + 3; i++)
		finding_evidence(f, 1, 2, KG_NONE, KG_NONE, "%s", kernel);
	CHECK_EQ_INT(f->n_evidence, KG_MAX_EVIDENCE);
	CHECK_EQ_INT(strlen(f->evidence[KG_MAX_EVIDENCE - 1].text), 400);
	findings_free(&l);
}

TEST(one_rating_from_the_share)
{
	struct kg_config c;
	analysis_config_default(&c);
	CHECK_EQ_INT(severity_of_share(&c, 10.0), KG_SEV_CRITICAL);
	CHECK_EQ_INT(severity_of_share(&c, 9.99), KG_SEV_WARNING);
	CHECK_EQ_INT(severity_of_share(&c, 3.0), KG_SEV_WARNING);
	CHECK_EQ_INT(severity_of_share(&c, 2.99), KG_SEV_INFO);
	c.critical_pct = 50;
	CHECK_EQ_INT(severity_of_share(&c, 20), KG_SEV_WARNING);
	CHECK(finding_worth(&c, 1000000000, 1e8));
	CHECK(!finding_worth(&c, 1000000000, 1e6)); /* 0.1 % of the span */
	CHECK(!finding_worth(&c, 1000000, 40000));  /* below min_gain_ns */
	CHECK(!finding_worth(&c, 0, 1e8));
	CHECK_EQ_INT(severity_by_name("warning"), KG_SEV_WARNING);
	CHECK_EQ_INT(severity_by_name("fatal"), KG_SEV_COUNT);
	CHECK_EQ_STR(severity_name((enum kg_severity)99), "info");
}

/* By gain; ties by severity, rule, GPU or rank, then as found; a finding without an
 * estimate keeps its rule's severity. */
TEST(ranked_by_gain_with_a_fixed_order_among_ties)
{
	struct kg_config c;
	analysis_config_default(&c);
	struct kg_findings l = {0};
	struct {
		enum kg_rule_id rule;
		double gain;
		uint32_t gpu;
		enum kg_severity sev;
	} in[] = {
		{KG_RULE_GPU_UTILIZATION, 0, 1, KG_SEV_INFO},
		{KG_RULE_HOST_BOUND, 5e6, 0, KG_SEV_INFO},
		{KG_RULE_GPU_UTILIZATION, 0, 0, KG_SEV_INFO},
		{KG_RULE_MEMORY_BOUND, 0, 0, KG_SEV_WARNING},
		{KG_RULE_HOST_SYNC_STALL, 5e6, 1, KG_SEV_INFO},
		{KG_RULE_HOST_SYNC_STALL, 5e6, 0, KG_SEV_INFO},
	};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct kg_finding *f = findings_add(&l, in[i].rule);
		f->gain_ns = in[i].gain;
		f->gpu = in[i].gpu;
		f->severity = in[i].sev;
	}
	findings_rank(&l, &c, 100000000); /* 5 ms of 100: 5 %, a warning */
	CHECK_EQ_INT(l.v[0].rule, KG_RULE_HOST_SYNC_STALL);
	CHECK_EQ_INT(l.v[0].gpu, 0);
	CHECK_EQ_INT(l.v[1].rule, KG_RULE_HOST_SYNC_STALL);
	CHECK_EQ_INT(l.v[1].gpu, 1);
	CHECK_EQ_INT(l.v[2].rule, KG_RULE_HOST_BOUND);
	CHECK_EQ_INT(l.v[2].severity, KG_SEV_WARNING);
	CHECK(l.v[2].gain_pct > 4.99 && l.v[2].gain_pct < 5.01);
	CHECK_EQ_INT(l.v[3].rule, KG_RULE_MEMORY_BOUND); /* kept its warning: the more severe */
	CHECK_EQ_INT(l.v[3].severity, KG_SEV_WARNING);
	CHECK_EQ_INT(l.v[4].rule, KG_RULE_GPU_UTILIZATION);
	CHECK_EQ_INT(l.v[4].gpu, 0);
	CHECK_EQ_INT(l.v[5].gpu, 1);
	findings_free(&l);
}

TEST(every_rule_named_once_and_found_by_its_id)
{
	for (int r = 0; r < KG_RULE_COUNT; r++) {
		CHECK_EQ_INT(rule_by_id(kg_rules[r].id), r);
		for (int s = r + 1; s < KG_RULE_COUNT; s++)
			CHECK(strcmp(kg_rules[r].id, kg_rules[s].id) != 0);
	}
	CHECK_EQ_INT(rule_by_id("no-such-rule"), KG_RULE_COUNT);
}
