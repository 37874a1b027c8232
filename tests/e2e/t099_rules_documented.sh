# One table of rules (kg_rules in src/analysis/metrics.c): every id the rules raise is in
# it, and every id in it is documented in docs/rules.md under its own heading.
. tests/e2e/lib.sh
python3 - <<'PY' || fail "rules and their documentation disagree"
import re
metrics = open("src/analysis/metrics.c", encoding="utf-8").read()
table = re.search(r"const struct kg_rule_info kg_rules\[\] = \{(.*?)\n\};", metrics, re.S).group(1)
ids = re.findall(r'\{"([a-z-]+)",', table)
assert len(ids) == len(set(ids)) and ids, ids
rules = open("src/analysis/rules.c", encoding="utf-8").read()
raised = set()
for call in re.findall(r"analysis_add_finding\(a,([^;]*?)\);", rules, re.S):
    raised |= set(re.findall(r'"([a-z-]+)"', call))
missing = raised - set(ids)
assert not missing, "raised but not in kg_rules: %s" % sorted(missing)
unused = set(ids) - raised
assert not unused, "in kg_rules but never raised: %s" % sorted(unused)
doc = open("docs/rules.md", encoding="utf-8").read()
headings = " ".join(re.findall(r"^### (.*)$", doc, re.M))
undocumented = [i for i in ids if not re.search(r"(^|\W)%s(\W|$)" % re.escape(i), headings)]
assert not undocumented, "no heading in docs/rules.md for: %s" % undocumented
print("%d rules, each raised and documented: %s" % (len(ids), ", ".join(ids)))
PY
echo "ok: t099_rules_documented"
