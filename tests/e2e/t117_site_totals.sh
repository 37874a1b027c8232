# A call site's gain over all findings counts each call once (src/analysis/sites.c,
# site_totals): findings overlap (host-bound and launch-overhead both claim the gap before a
# late launch), and summed, the transformers decoder's attention site stood at 163 % of the
# span. For every recorded program with stacks: no site passes its span, and each site's
# gain lies between the largest part one finding places there and the parts summed.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
for name in hf_decode timm_train cupy_loop lightning_train compile_step; do
	t=$(FIXTURES=tests/fixtures/h100 fixture "thirdparty/$name")
	"$K" report --json --no-progress "$t" > "$WORK/$name.json" || fail "report $name"
done
python3 - "$WORK" <<'PY' || fail "site totals"
import json, sys
overlapping = 0
for name in ("hf_decode", "timm_train", "cupy_loop", "lightning_train", "compile_step"):
    j = json.load(open("%s/%s.json" % (sys.argv[1], name), encoding="utf-8"))
    sites = j["sites"]
    assert sites, name
    parts = {}
    for f in j["findings"]:
        for s in f.get("sites", []):
            parts.setdefault(s["site"], []).append(s["gain_ns"])
    for k, s in enumerate(sites, 1):
        assert s["gain_pct"] <= 100.0 + 1e-9, (name, k, s["label"], s["gain_pct"])
        p = parts.get(k, [])
        if not p:
            continue  # below every finding's top 5
        assert max(p) - 1e3 <= s["gain_ns"] <= sum(p) + 1e3 or s["findings"] > len(p), \
            (name, k, s["label"], s["gain_ns"], p)
        overlapping += len(p) > 1 and s["gain_ns"] < sum(p) - 1e3
    top = sites[0]
    print("ok: %s: %d sites, the first %.1f %% of the span in %d findings" % (
        name, len(sites), top["gain_pct"], top["findings"]))
assert overlapping, "no site where findings overlapped: the test shows nothing"
print("ok: %d sites where overlapping findings' parts were counted once" % overlapping)
PY
