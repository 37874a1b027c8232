# Hardware truth on real H200 recordings (tests/gpu/hw_h200.sh, tests/gpu/sm_h200.sh):
# PM samples (record --hw) tell a memory-bound, a tensor-core and an FMA kernel apart, give
# achieved occupancy beside theoretical, see the context switches of two processes, and say
# why the second process got no samples; SM placement (record --sm) shows where the blocks
# of concurrent kernels and of a tail wave ran.
. tests/e2e/lib.sh

report_json() { # fixture -> report JSON file
	"$K" report --json --no-progress "$(fixture "$1")" > "$WORK/$1.json" || fail "report --json $1"
	echo "$WORK/$1.json"
}

# --- bound: four kernels, each limited by something else
python3 - "$(report_json hw_bound)" <<'PY' || fail "hw_bound: achieved figures"
import json, sys
d = json.load(open(sys.argv[1]))
k = {x["name"].split("(")[0]: x for x in d["kernels"]}
copy, tensor, fma = (k[n]["achieved"] for n in ("bound_copy", "bound_tensor", "bound_fma"))
assert copy["dram_peak_pct"] > 60 and copy["tensor_active_pct"] < 1, copy
assert copy["dram_read_bps"] > 1e12 and copy["dram_write_bps"] > 1e12, copy
assert tensor["tensor_active_pct"] > 50 and tensor["dram_peak_pct"] < 5, tensor
assert fma["tensor_active_pct"] < 1 and fma["dram_peak_pct"] < 5 and fma["sm_active_pct"] > 50, fma
assert k["bound_copy"]["hw_samples_alone"] >= 100, k["bound_copy"]
rules = [f["rule"] for f in d["findings"]]
assert "memory-bound" in rules, rules
mb = [f for f in d["findings"] if f["rule"] == "memory-bound"][0]
assert "bound_copy" in mb["title"] and "bound_tensor" not in mb["title"], mb["title"]
hw = d["gpus"][0]["hardware"]
assert hw["state"] == "sampled" and hw["chip"] == "GH100" and hw["samples"] > 500, hw
assert 1.5e9 < hw["mean"]["sm_clock_hz"] < 2.1e9, hw["mean"]
print("bound: copy DRAM %.0f%% of peak, tensor pipes %.0f%%, fma SMs %.0f%%; memory-bound: %s" % (
    copy["dram_peak_pct"], tensor["tensor_active_pct"], fma["sm_active_pct"], mb["title"][:60]))
PY
"$K" report --no-progress "$(fixture hw_bound)" > "$WORK/bound.txt" || fail "report hw_bound"
grep -q "achieved: achieved occupancy 96%, SM active 96%" "$WORK/bound.txt" ||
	fail "hw_bound: the text report lacks bound_copy's achieved line"
grep -q "^    hardware     SM active" "$WORK/bound.txt" || fail "hw_bound: no hardware line per GPU"

# --- occupancy: achieved beside theoretical, the under-filled share from the counters
python3 - "$(report_json hw_occupancy_bad)" "$(report_json hw_occupancy_fixed)" <<'PY' || fail "occupancy"
import json, sys
bad, fixed = (json.load(open(p)) for p in sys.argv[1:3])
f = {x["rule"]: x for x in bad["findings"]}
low, under = f["low-occupancy"], f["under-filled-grid"]
assert "20% theoretical, 16% achieved occupancy" in low["title"], low["title"]
assert "achieved_occupancy_pct=" in low["figures"], low["figures"]
assert "counters found idle (70%)" in under["gain_estimate"], under["gain_estimate"]
k = {x["name"].split("(")[0]: x for x in bad["kernels"]}
assert k["occupancy_grid"]["achieved"]["sm_active_pct"] < 35, k["occupancy_grid"]["achieved"]
assert k["occupancy_tile"]["achieved"]["occupancy_pct"] <= 100 * k["occupancy_tile"]["occupancy"] + 1
rules = [x["rule"] for x in fixed["findings"]]
assert "low-occupancy" not in rules and "under-filled-grid" not in rules, rules
print("occupancy_bad: %s" % low["title"][:70])
PY

# --- two processes on one GPU: one holds the counters, the other is told why not
trace=$(fixture hw_timeslice_bad)
"$K" info "$trace" > "$WORK/ts.info" || fail "info hw_timeslice_bad"
grep -q "refused: reading the chip's counters: CUPTI_ERROR_HARDWARE_BUSY" "$WORK/ts.info" ||
	fail "hw_timeslice_bad: info does not say why the second process has no samples"
python3 - "$(report_json hw_timeslice_bad)" <<'PY' || fail "time-slicing from the counters"
import json, re, sys
d = json.load(open(sys.argv[1]))
hw = d["gpus"][0]["hardware"]
assert hw["state"] == "sampled" and hw["samples"] > 4000, hw
ts = [f for f in d["findings"] if f["rule"] == "time-slicing"][0]
n = int(re.search(r"hw_context_switches=(\d+)", ts["figures"]).group(1))
period = float(re.search(r"hw_switch_period_ms=([\d.]+)", ts["figures"]).group(1))
assert n >= 100 and 1.0 < period < 5.0, ts["figures"]
assert any("switching contexts" in e["text"] for e in ts["evidence"]), ts["evidence"]
print("timeslice: %d context switches every %.2f ms" % (n, period))
PY
"$K" plot "$trace" --from 0 --to 40 -o "$WORK/ts.png" || fail "plot hw_timeslice_bad"

# --- a PyTorch training step: the GEMMs show tensor pipes, the strip is drawn (the whole
# run's samples: --whole, not only its steady steps')
"$K" report --json --whole --no-progress "$(fixture hw_torch_gpt)" > "$WORK/hw_torch_gpt.json" ||
	fail "report --json --whole hw_torch_gpt"
python3 - "$WORK/hw_torch_gpt.json" <<'PY' || fail "hw_torch_gpt"
import json, sys
d = json.load(open(sys.argv[1]))
hw = d["gpus"][0]["hardware"]
assert hw["samples"] > 10000 and hw["state"] == "sampled", hw
tensor = [k for k in d["kernels"] if k.get("achieved", {}).get("tensor_active_pct", 0) > 50]
assert tensor, "no kernel of the GPT step shows busy tensor pipes"
print("torch_gpt: %d samples; %d kernel names with tensor pipes > 50%%, e.g. %s" % (
    hw["samples"], len(tensor), tensor[0]["name"][:60]))
PY
"$K" plot --manifest "$(fixture hw_torch_gpt)" -o "$WORK/gpt.png" || fail "plot hw_torch_gpt"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["hw_strips"]; assert len(s) == 1, s' \
	"$WORK/gpt.png.json" || fail "hw_torch_gpt: no strip in the plot's manifest"

# --- SM placement: lanes, concurrent kernels, the tail wave
python3 - "$(fixture sm_concurrent_half)" "$(fixture sm_concurrent_full)" "$(fixture sm_tailwave_bad)" \
	"$(fixture sm_tailwave_fixed)" <<'PY' || fail "SM placement"
import sqlite3, sys
def blocks(path):
    db = sqlite3.connect(path)
    return db.execute("select kernel, sm, start, end from sm_blocks").fetchall()
half, full, tail_bad, tail_fixed = (blocks(p) for p in sys.argv[1:5])
# two kernels of 66 blocks side by side on two streams: each block on its own SM, none shared
by_kernel = {}
for k, sm, s, e in half:
    by_kernel.setdefault(k, set()).add(sm)
assert len(half) == 396 and all(len(v) == 66 for v in by_kernel.values()), [len(v) for v in by_kernel.values()]
span = {}
for k, sm, s, e in half:
    a, b = span.get(k, (s, e))
    span[k] = (min(a, s), max(b, e))
pairs = [(x, y) for x in span for y in span if x < y and span[x][0] < span[y][1] and span[y][0] < span[x][1]]
assert len(pairs) >= 2, pairs  # rounds of two kernels side by side (the first ran apart: lazy loading)
for x, y in pairs:
    assert not (by_kernel[x] & by_kernel[y]), "concurrent kernels shared SMs"
    assert len(by_kernel[x] | by_kernel[y]) == 132
# the tail wave: 297 blocks, one per SM at a time: 33 SMs run a third block
def per_sm(rows, kernel):
    n = {}
    for k, sm, s, e in rows:
        if k == kernel:
            n[sm] = n.get(sm, 0) + 1
    return n
k0 = min(r[0] for r in tail_bad)
n = per_sm(tail_bad, k0)
assert len(n) == 132 and sum(1 for v in n.values() if v == 3) == 33, sorted(n.values())
k1 = min(r[0] for r in tail_fixed)
assert set(per_sm(tail_fixed, k1).values()) == {2}
print("sm: half: 2 x 66 SMs, disjoint; tail wave: 33 SMs run a third block; fixed: 2 blocks on every SM")
PY
trace=$(fixture sm_tailwave_bad)
"$K" plot --sm --manifest "$trace" -o "$WORK/sm.png" || fail "plot --sm sm_tailwave_bad"
python3 - "$WORK/sm.png.json" "$trace" <<'PY' || fail "plot --sm lanes"
import json, sqlite3, sys
man = json.load(open(sys.argv[1]))["sm"]
db = sqlite3.connect(sys.argv[2])
sms, n = db.execute("select count(distinct sm), count(*) from sm_blocks").fetchone()
assert man["sm_lanes"] == sms == 132 and man["sm_blocks"] == n, (man, sms, n)
print("plot --sm: %d lanes, %d blocks, as recorded" % (man["sm_lanes"], man["sm_blocks"]))
PY
"$K" info "$trace" | grep -q "SM placement: pid .* 594 blocks of 2 kernels on 132 SMs, 0 dropped" ||
	fail "sm_tailwave_bad: info's SM placement line"
echo "ok: t098_hw_h200"
