# Figures that could not be true, and words that named one thing three ways (issue 22's
# defects, each fixed here and checked on what it was found on):
#  - a GPU that finished early on a 2-GPU run was "busy 33.3 %" yet "idle 0 ns in 0 gaps",
#    its idle causes all 0.0 ms for 120 ms of idle, and a kernel took "133.3 %" of the span;
#  - a GPU the program never used got a section and a gpu-utilization finding;
#  - a trace whose GPU side was not recorded said "no scheduling problem found" and
#    "losses: none";
#  - one GPU was "GPU 0 ... device 3", "GPU 3" and "on GPU 0" in one report;
#  - "1 other sites".
. tests/e2e/lib.sh

# 1. multigpu_bad: GPU 1 ran 60 ms of a 180 ms trace
t=$(fixture multigpu_bad)
"$K" report --no-progress "$t" > "$WORK/mg.txt" || fail "report multigpu_bad"
"$K" report --no-progress --json "$t" > "$WORK/mg.json" || fail "report --json multigpu_bad"
grep -q "120.34 ms after its" "$WORK/mg.txt" || fail "GPU 1's idle after its work is not said: $(grep -A1 'idle  ' "$WORK/mg.txt")"
grep -q "Outside its own work.*120.3 ms after its" <(tr '\n' ' ' < "$WORK/mg.txt" | tr -s ' ') ||
	fail "gpu-utilization does not say where GPU 1's idle time went"
python3 - "$WORK/mg.json" <<'EOF' || fail "multigpu_bad figures"
import json, sys
d = json.load(open(sys.argv[1]))
span = d["trace"]["span_ns"]
for g in d["gpus"]:
    busy, idle = g["busy_ns"], sum(g["idle_ns_by_cause"].values())
    # every ns of the span is busy, idle in a gap, or outside the GPU's own work
    assert abs(busy + idle + g["idle_before_ns"] + g["idle_after_ns"] - span) < 0.02 * span, g
for k in d["kernels"]:
    assert 0 <= k["time_share_pct"] <= 100, k
print("ok: every GPU's busy and idle time add up to the span; shares <= 100 %")
EOF
# the kernel table's share of all kernel time, never of the span
grep -q "240.72 ms  100.0%" "$WORK/mg.txt" || fail "kernel share: $(grep -A1 ' total ' "$WORK/mg.txt")"
echo "ok: multigpu_bad: GPU 1's 120 ms after its work are idle and said"

# 2. an unused GPU: end_abort ran on GPU 0 of two
t=$(fixture end_abort)
"$K" report --no-progress "$t" > "$WORK/ua.txt" || fail "report end_abort"
grep -q "^  unused       GPU 1: no operation of the trace ran on it" "$WORK/ua.txt" ||
	fail "GPU 1 is not listed once as unused: $(sed -n '/^GPUs/,/^Streams/p' "$WORK/ua.txt")"
[ "$(grep -c "^  GPU " "$WORK/ua.txt")" = 1 ] || fail "the unused GPU still has a section"
grep -q "gpu-utilization: GPU 1" "$WORK/ua.txt" && fail "the unused GPU has a gpu-utilization finding"
echo "ok: an unused GPU is listed once, with no section and no finding"

# 3. a PyTorch profiler trace of host work only: launches, no kernel
python3 - "$WORK/host_only.json" <<'EOF'
import json, sys
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 1000.0 + 20 * i,
       "dur": 15.0} for i in range(50)]
ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7,
        "ts": 1005.0 + 20 * i, "dur": 5.0, "args": {"correlation": 100 + i}} for i in range(50)]
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
EOF
"$K" report --no-progress "$WORK/host_only.json" > "$WORK/ho.txt" || fail "report of a host-only trace"
grep -q "losses       all of the GPU side: its activity was not traced" "$WORK/ho.txt" &&
grep -q "GPU activity was not traced: 50 API calls launch kernels" "$WORK/ho.txt" ||
	fail "the untraced GPU side is not said: $(grep -A2 losses "$WORK/ho.txt")"
grep -q "none can be judged: the trace holds no GPU activity" "$WORK/ho.txt" ||
	fail "the findings section claims a healthy trace"
grep -q "no scheduling problem found" "$WORK/ho.txt" && fail "said 'no scheduling problem found'"
"$K" report --no-progress --json "$WORK/host_only.json" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["trace"]["untraced_gpu_calls"] == 50, d["trace"]' ||
	fail "report --json: untraced_gpu_calls"
echo "ok: a trace without its GPU side says so"

# 4. one name per GPU: the program's device 3 is "GPU 3" everywhere
python3 - "$WORK/dev3.json" <<'EOF'
import json, sys
ev, t = [], 1000.0
for i in range(400):   # kernels with host-bound gaps, launched from one thread
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7,
               "ts": t, "dur": 4.0, "args": {"correlation": i}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % (i % 3), "pid": 3, "tid": 7,
               "ts": t + 10, "dur": 30.0, "args": {"correlation": i, "device": 3, "stream": 7,
               "queued": 0, "grid": [256, 1, 1], "block": [256, 1, 1]}})
    t += 200.0
props = [{"id": 3, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8, "computeMinor": 0,
          "numSms": 108, "totalGlobalMem": 42505273344}]
json.dump({"schemaVersion": 1, "deviceProperties": props, "traceEvents": ev}, open(sys.argv[1], "w"))
EOF
"$K" report --no-progress "$WORK/dev3.json" > "$WORK/d3.txt" || fail "report of device 3"
grep -q "^  GPU 3  NVIDIA A100" "$WORK/d3.txt" || fail "GPU section: $(grep '^  GPU' "$WORK/d3.txt")"
grep -q "host-bound: GPU 3 (NVIDIA A100" "$WORK/d3.txt" || fail "finding title: $(grep 'host-bound' "$WORK/d3.txt")"
grep -q "when .* on GPU 3$" "$WORK/d3.txt" || fail "when line: $(grep ' when ' "$WORK/d3.txt")"
grep -E "GPU 0|device 3" "$WORK/d3.txt" && fail "a second name for GPU 3"
echo "ok: device 3 is GPU 3 in every part of the report"

# 5. diff of a run on an A100 against the same on a V100 says the GPUs differ
sed 's/NVIDIA A100-SXM4-40GB/Tesla V100-SXM2-16GB/; s/"computeMajor": 8/"computeMajor": 7/' \
	"$WORK/dev3.json" > "$WORK/v100.json"
"$K" diff "$WORK/dev3.json" "$WORK/v100.json" > "$WORK/dd.txt" || fail "diff A100 V100"
grep -q "GPUs differ  NVIDIA A100-SXM4-40GB before, Tesla V100-SXM2-16GB after" "$WORK/dd.txt" ||
	fail "diff does not say the GPUs differ: $(head -12 "$WORK/dd.txt")"
"$K" diff --json "$WORK/dev3.json" "$WORK/v100.json" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["gpus_differ"] and d["after"]["gpus_used"] == "Tesla V100-SXM2-16GB", d["after"]' ||
	fail "diff --json: gpus_differ"
"$K" diff "$WORK/dev3.json" "$WORK/dev3.json" | grep -q "GPUs differ" && fail "the same GPUs differ"
echo "ok: diff says when the two runs' GPUs differ"

# 6. one span per trace: info, report and the --from message said 65.265, 73.33 and 104.7 ms
t=$(fixture current/copies_bad)
"$K" info "$t" | grep -q "^span: 51.890 ms" || fail "info's span: $("$K" info "$t" | grep span)"
"$K" report --no-progress "$t" | grep -q "^  span         51.89 ms, from the first to the last GPU operation$" ||
	fail "report's span: $("$K" report --no-progress "$t" | grep '  span')"
expect_error 1 "spans 0 – 51.9 ms" "$K" report --from 500 "$t"
echo "ok: one span for one trace"
