# One table of rules (kg_rules in src/analysis/metrics.c; the job's kg_job_rules in
# src/job/job_rules.c): every id the rules raise is in it, and every id in it is raised
# and documented in docs/rules.md under its own heading.
. tests/e2e/lib.sh
python3 - <<'PY' || fail "rules and their documentation disagree"
import re
doc = open("docs/rules.md", encoding="utf-8").read()
headings = " ".join(re.findall(r"^### (.*)$", doc, re.M))

def check(table_file, table, raise_files, raise_call):
    src = open(table_file, encoding="utf-8").read()
    body = re.search(r"const struct kg_rule_info %s\[\] = \{(.*?)\n\};" % table, src, re.S).group(1)
    ids = re.findall(r'\{"([a-z-]+)",', body)
    assert len(ids) == len(set(ids)) and ids, ids
    raised = set()
    for f in raise_files:
        for call in re.findall(raise_call, open(f, encoding="utf-8").read(), re.S):
            raised |= set(re.findall(r'"([a-z-]+)"', call))
    assert not raised - set(ids), "raised but not in %s: %s" % (table, sorted(raised - set(ids)))
    assert not set(ids) - raised, "in %s but never raised: %s" % (table, sorted(set(ids) - raised))
    undocumented = [i for i in ids if not re.search(r"(^|\W)%s(\W|$)" % re.escape(i), headings)]
    assert not undocumented, "no heading in docs/rules.md for: %s" % undocumented
    print("%d rules of %s, each raised and documented: %s" % (len(ids), table, ", ".join(ids)))

check("src/analysis/metrics.c", "kg_rules", ["src/analysis/rules.c"],
      r"analysis_add_finding\(a,([^;]*?)\);")
check("src/job/job_rules.c", "kg_job_rules", ["src/job/job_rules.c"],
      r"add_finding\(j,([^;]*?)\);")
PY
echo "ok: t099_rules_documented"
