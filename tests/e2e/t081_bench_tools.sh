# The benchmarks that need no GPU still build and run, so that their figures in
# docs/results/ can be measured again: the recorder's parts (bench/recorder_parts.c: every
# part prints a time per event) and the merge benchmark (bench/merge_speed.sh on small
# traces: both kgantts given write the same trace).
. tests/e2e/lib.sh
make -s bench-parts > "$WORK/make" 2>&1 || fail "make bench-parts: $(tail -5 "$WORK/make")"
build/bench/recorder_parts -n 1 -d "$WORK" > "$WORK/parts" 2>&1 || fail "recorder_parts: $(cat "$WORK/parts")"
for part in clock api_callback kernel_record api_record api_callback_written \
	kernel_record_written api_record_written; do
	grep -Eq "^${part}_ns=[0-9]+\.[0-9]$" "$WORK/parts" || fail "no time for $part: $(cat "$WORK/parts")"
done
[ -z "$(ls "$WORK" | grep kgspool)" ] || fail "recorder_parts left its spool"
echo "ok: recorder_parts: $(tr '\n' ' ' < "$WORK/parts")"
command -v sqlite3 > /dev/null || skip "no sqlite3 shell (merge_speed.sh needs it)"
bench/merge_speed.sh -n 20000 -R 2 -r 1 -k "$K $K" -o "$WORK/merge.md" > "$WORK/ms" 2>&1 ||
	fail "merge_speed.sh: $(tail -5 "$WORK/ms")"
grep -q "byte for byte): yes. Merged trace: .* 40000 kernels" "$WORK/merge.md" ||
	fail "merge_speed.sh: $(cat "$WORK/merge.md")"
echo "ok: merge_speed.sh: $(grep -c '^| 2 ' "$WORK/merge.md") rows, the same trace every time"
# the GPU benchmarks' own logic, with a stand-in for the launch loop (untraced only: the
# other configurations need a GPU): a table with the figure the loop printed
# (4.1 µs untraced; 5.0 under the raw-CUPTI configuration, which sets CUDA_INJECTION64_PATH)
# (and 3.0 untraced without address-space randomisation, which CONFIG@noaslr turns off)
printf '#!/bin/sh\nif [ -n "$CUDA_INJECTION64_PATH" ]; then echo "reps_us_per_launch=5.0,5.1"; elif [ $(( 0x$(cat /proc/self/personality) & 0x40000 )) != 0 ]; then echo "reps_us_per_launch=3.0"; else echo "reps_us_per_launch=4.2,4.1,4.3"; fi\necho us_per_launch=4.2\n' > "$WORK/loop"
chmod +x "$WORK/loop"
LAUNCH_LOOP=$WORK/loop bash bench/recorder_cost.sh -r 2 -c untraced,raw,untraced@noaslr -o "$WORK/rc" > "$WORK/rc.out" 2>&1 ||
	fail "recorder_cost.sh: $(cat "$WORK/rc.out")"
grep -q "^| untraced | 4.100 | 4.100–4.100 | 1.000 | 0.820 | 0.820 | - | 2 |$" "$WORK/rc/table.md" &&
	grep -q "^| raw | 5.000 | 5.000–5.000 | 1.220 | 1.000 | 1.000 | - | 2 |$" "$WORK/rc/table.md" &&
	grep -q "^| untraced@noaslr | 3.000 | 3.000–3.000 | 0.732 | 0.600 | 0.600 | - | 2 |$" "$WORK/rc/table.md" ||
	fail "recorder_cost.sh table: $(cat "$WORK/rc/table.md")"
LAUNCH_LOOP=$WORK/loop bash bench/recorder_memory.sh -n 1000 -i 1 -s 100 -c untraced -o "$WORK/rm" \
	> "$WORK/rm.out" 2>&1 || fail "recorder_memory.sh: $(cat "$WORK/rm.out")"
grep -q "^| untraced | 4.2 |" "$WORK/rm/summary.md" && grep -q "synchronisation every 100 launches" "$WORK/rm/summary.md" ||
	fail "recorder_memory.sh summary: $(cat "$WORK/rm/summary.md")"
echo "ok: recorder_cost.sh and recorder_memory.sh with a stand-in loop"
# bench/steady_window.py on two real full-mode recordings of the GPT step (H200): the fast
# run's host launched 8.7 ms ahead of the GPU, the slow run's 0.5 ms, with 4,017 gaps
for run in fast slow; do
	bench/steady_window.py -k "$K" "$(fixture gpt_full_$run)" > "$WORK/sw.$run" 2>&1 ||
		fail "steady_window.py $run: $(cat "$WORK/sw.$run")"
done
python3 - "$WORK/sw.fast" "$WORK/sw.slow" <<'PY' || fail "steady_window.py: $(cat "$WORK/sw.fast" "$WORK/sw.slow")"
import re, sys
def figures(path):
    text = open(path).read()
    m = re.search(r"(\d+) kernels, span ([\d.]+) ms, busy ([\d.]+) ms, (\d+) gaps >= 20 us "
                  r"\(([\d.]+) ms\), queue wait p50 ([\d.]+) ms", text)
    assert m, text
    assert "cudaLaunchKernel_v7000:" in text, text
    return [float(x) for x in m.groups()]
fast, slow = figures(sys.argv[1]), figures(sys.argv[2])
assert fast[0] == 26385 and abs(fast[5] - 8.70) < 0.01 and fast[3] == 296, fast
assert slow[0] == 23756 and abs(slow[5] - 0.52) < 0.01 and slow[3] == 4017, slow
assert fast[2] < fast[1] <= 1300.1, fast
PY
echo "ok: steady_window.py: fast run $(head -1 "$WORK/sw.fast" | sed 's/.*queue wait/queue wait/'), slow run $(head -1 "$WORK/sw.slow" | sed 's/.*queue wait/queue wait/')"
# bench/kept_runs.sh with a stand-in program: each run's output, trace path and threads kept
printf '#!/bin/sh\necho "trace $1" > "$1"\necho out\nsleep 0.5\n' > "$WORK/prog"
chmod +x "$WORK/prog"
bench/kept_runs.sh -n 2 -o "$WORK/kr" -m prog -- "$WORK/prog" "{}.kgt" > "$WORK/kr.out" 2>&1 ||
	fail "kept_runs.sh: $(cat "$WORK/kr.out")"
for i in 1 2; do
	grep -qx out "$WORK/kr/run$i.out" && grep -qx "trace $WORK/kr/run$i.kgt" "$WORK/kr/run$i.kgt" &&
		grep -q "^run$i exit 0 " "$WORK/kr/runs.txt" &&
		grep -Eq "^[0-9]+\.[0-9]{3} [0-9]+ [0-9]+ [^ ]+ [0-9]+ [0-9]+ [0-9]+$" "$WORK/kr/run$i.threads" ||
		fail "kept_runs.sh run $i: $(ls "$WORK/kr"; cat "$WORK/kr/runs.txt" "$WORK/kr/run$i.threads")"
done
echo "ok: kept_runs.sh: $(wc -l < "$WORK/kr/run1.threads") thread samples in run 1"
# bench/paired.py pools the rounds of several calls, each round pairing only runs of its
# own call (call A: full 1.1x kernels, call B: 1.2x at twice the scale: mixing the calls'
# round 1 would give 0.55x or 2.4x), with the distribution-free 95 % interval of the
# median (6 rounds: the lowest and highest); bench/ab_cost.py on a trace whose launches
# come 11 µs apart while the part is on and 10 µs while off (1.100x), with sampled
# launches 50 µs apart and a 500 µs pause that it must leave out.
python3 - "$WORK" <<'PY' || fail "paired.py / ab_cost.py: see above"
import os, sqlite3, subprocess, sys
w = sys.argv[1]
head = "run,workload,config,status,figure\n"
for name, k, f in (("a", 10.0, 11.0), ("b", 20.0, 24.0)):
    with open(os.path.join(w, name + ".csv"), "w") as out:
        out.write(head)
        for r in (1, 2, 3):
            out.write("%d,loop,kernels,OK,%s\n%d,loop,full,OK,%s\n" % (r, k, r, f))
got = subprocess.run([sys.executable, "bench/paired.py", os.path.join(w, "a.csv"),
                      os.path.join(w, "b.csv"), "full/kernels"],
                     capture_output=True, text=True, check=True).stdout
want = "| loop | full / kernels | 1.15× | 1.10–1.20 | 1.10–1.20 | 6 |"
assert want in got, got
print("ok: paired.py pools 6 rounds of two calls:", want)
# --field compares another column (the whole command's wall-clock: 2.0 s against 1.6 s
# in every round), and a column the CSV lacks is an error naming it
with open(os.path.join(w, "c.csv"), "w") as out:
    out.write("run,workload,config,status,figure,wall_s\n")
    for r in (1, 2, 3, 4, 5, 6):
        out.write("%d,loop,kernels,OK,10,1.6\n%d,loop,full,OK,11,2.0\n" % (r, r))
got = subprocess.run([sys.executable, "bench/paired.py", "--field=wall_s",
                      os.path.join(w, "c.csv"), "full/kernels"],
                     capture_output=True, text=True, check=True).stdout
want = "| loop | full / kernels | 1.25× | 1.25–1.25 | 1.25–1.25 | 6 |"
assert want in got, got
bad = subprocess.run([sys.executable, "bench/paired.py", "--field=exit_s",
                      os.path.join(w, "c.csv"), "full/kernels"], capture_output=True, text=True)
assert bad.returncode != 0 and "no column 'exit_s'" in bad.stderr, bad
print("ok: paired.py --field=wall_s:", want)
db = sqlite3.connect(os.path.join(w, "ab.kgt"))
db.executescript("CREATE TABLE kernels (process, correlation, queued, graph);"
                 "CREATE TABLE api_calls (process, correlation, start, end);")
log = ["part kinds period_ms 20"]
t, corr, on = 1_000_000_000, 0, True
for period in range(14):
    log.append("%s %d" % ("on" if on else "off", t))
    end = t + 20_000_000
    q = t + 2_000_000                    # past the settling time
    while q < end:
        corr += 1
        db.execute("INSERT INTO kernels VALUES (1, ?, ?, NULL)", (corr, q))
        if corr % 100 == 0:              # a sampled launch, 50 µs later
            q += 50_000
            corr += 1
            db.execute("INSERT INTO kernels VALUES (1, ?, ?, NULL)", (corr, q))
            # its call runs while the driver queues it
            db.execute("INSERT INTO api_calls VALUES (1, ?, ?, ?)", (corr, q - 1500, q + 1500))
        if corr % 777 == 0:              # the program's own pause
            q += 500_000
        q += 11_000 if on else 10_000
    t, on = end, not on
db.commit()
with open(os.path.join(w, "ab.log"), "w") as out:
    out.write("\n".join(log) + "\n")
got = subprocess.run([sys.executable, "bench/ab_cost.py", os.path.join(w, "ab.kgt"),
                      os.path.join(w, "ab.log")], capture_output=True, text=True, check=True).stdout
row = [c.strip() for c in got.splitlines()[-1].strip("|").split("|")]
assert row[1] == "kinds" and row[3] == "11.000" and row[4] == "10.000", got
assert row[5] == "1.100" and row[6] == "1.100" and row[7] == "1.100–1.100" and row[8] == "6", got
assert row[9] == "1.100", got  # the sampled launches and 500 µs pauses are out of the means too
print("ok: ab_cost.py: on/off %s, paired %s over %s periods" % (row[5], row[6], row[8]))
# part "all" switches the windows too: their sampled launches count, so more intervals
with open(os.path.join(w, "ab_all.log"), "w") as out:
    out.write("\n".join(["part all period_ms 20"] + log[1:]) + "\n")
got = subprocess.run([sys.executable, "bench/ab_cost.py", os.path.join(w, "ab.kgt"),
                      os.path.join(w, "ab_all.log")], capture_output=True, text=True, check=True).stdout
row_all = [c.strip() for c in got.splitlines()[-1].strip("|").split("|")]
n = lambda r: sum(int(x) for x in r[2].split(" / "))
assert row_all[1] == "all" and n(row_all) > n(row) and row_all[5] == "1.100", (row, row_all)
# bench/gpu_gaps.py: back-to-back kernels 1.5 µs apart when queued 50 µs ahead; the
# ones the host held back (queued late) and the 30 µs waits are not the GPU's gaps
db = sqlite3.connect(os.path.join(w, "gaps.kgt"))
db.executescript("CREATE TABLE kernels (process, stream, start, end, queued);"
                 "CREATE TABLE processes (latency_timestamps); INSERT INTO processes VALUES (1);")
t = 10_000_000
for i in range(200):
    late = i % 10 == 9
    gap = 30_000 if i % 25 == 24 else 4_000 if late else 1_500
    q = t + gap - 100 if late else t - 50_000
    db.execute("INSERT INTO kernels VALUES (1, 7, ?, ?, ?)", (t + gap, t + gap + 5_000, q))
    t += gap + 5_000
db.commit()
got = subprocess.run([sys.executable, "bench/gpu_gaps.py", os.path.join(w, "gaps.kgt")],
                     capture_output=True, text=True, check=True).stdout
row = [c.strip() for c in got.splitlines()[-1].strip("|").split("|")]
assert row[1] == "1" and row[3:6] == ["1500", "1500", "1500"], got
print("ok: gpu_gaps.py: the GPU's own gaps, %s of them, p50 %s ns" % (row[2], row[4]))
bad = subprocess.run([sys.executable, "bench/ab_cost.py", os.path.join(w, "ab.kgt"),
                      os.path.join(w, "a.csv")], capture_output=True, text=True)
assert bad.returncode != 0 and "a.csv:1: expected" in bad.stderr, bad.stderr
PY
# the report-speed benchmark's synthetic traces: gen_trace.py reads the schema from
# src/trace/schema.c and its X-lists (it failed once they held host_samples)
python3 bench/gen_trace.py -q -n 2000 -o "$WORK/synthetic.kgt" > "$WORK/gen" 2>&1 ||
	fail "bench/gen_trace.py: $(tail -3 "$WORK/gen")"
"$K" report --no-progress "$WORK/synthetic.kgt" > /dev/null || fail "report of gen_trace.py's trace"
echo "ok: gen_trace.py writes a trace report reads"
# bench/overhead.sh: every configuration once in its table, listed with its command (-l);
# an unknown one refused; a round with stand-ins gives each its figure and trace rows
bench/overhead.sh -l > "$WORK/configs" || fail "overhead.sh -l: $(cat "$WORK/configs")"
grep -qxF '    env -u CUDA_INJECTION64_PATH KGANTT_DEV_SYNC_KIND=1 build/kgantt record --force -o TRACE --mode full -- PROG' "$WORK/configs" &&
	grep -qxF '    env -u CUDA_INJECTION64_PATH build/kgantt record --force -o TRACE --mode kernels --latency on -- PROG' "$WORK/configs" &&
	grep -qxF '    env -u CUDA_INJECTION64_PATH PROG --profiler' "$WORK/configs" ||
	fail "overhead.sh -l: $(cat "$WORK/configs")"
names=$(grep -v '^ ' "$WORK/configs")
[ "$(echo "$names" | sort | uniq -d)" = "" ] && [ "$(echo "$names" | wc -l)" -ge 28 ] ||
	fail "overhead.sh -l names: $names"
expect_error 1 "unknown configuration 'kgantt-fast' (-l lists them)" bench/overhead.sh -c untraced,kgantt-fast
printf '#!/bin/sh\n[ -n "$CUDA_INJECTION64_PATH" ] && echo "cupti_raw: initialized" >&2\necho us_per_launch=4.2\n' > "$WORK/loop2"
cat > "$WORK/kgantt" <<'SH'
#!/bin/sh
[ "$1" = --version ] && { echo "kgantt stand-in"; exit 0; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do [ "$1" = -o ] && out=$2; shift; done
shift
"$@" || exit
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("CREATE TABLE kernels (id)"); db.executemany("INSERT INTO kernels VALUES (?)", [(i,) for i in range(7)]); db.commit()' "$out"
SH
chmod +x "$WORK/loop2" "$WORK/kgantt"
SKIP_GPU_CHECK=1 PRIME=0 KGANTT=$WORK/kgantt LAUNCH_LOOP=$WORK/loop2 CUPTI_RAW=$WORK/loop2 \
	bench/overhead.sh -n 2 -w launch_loop -c kgantt-full-synckind,untraced,cupti-raw,cupti-raw-latency -o "$WORK/ovh" > "$WORK/ovh.out" 2>&1 ||
	fail "overhead.sh with stand-ins: $(tail -5 "$WORK/ovh.out")"
grep -q '^| launch_loop | untraced | 4.200 µs/launch | 1.00× |' "$WORK/ovh/overhead.md" &&
	grep -q '^| launch_loop | cupti-raw | 4.200 µs/launch | 1.00× |.* | 2/2 |$' "$WORK/ovh/overhead.md" &&
	grep -q '^| launch_loop | kgantt-full-synckind | 0.0 MB | 7 | 0 |' "$WORK/ovh/overhead.md" ||
	fail "overhead.sh report: $(cat "$WORK/ovh/overhead.md")"
[ "$(grep -n '^| launch_loop | ' "$WORK/ovh/overhead.md" | head -3 | cut -d'|' -f3 | tr -d ' ' | paste -sd, -)" = \
	untraced,cupti-raw,cupti-raw-latency ] || fail "overhead.sh report order: $(cat "$WORK/ovh/overhead.md")"
grep -q '^| launch_loop | cupti-raw-latency | 4.200 µs/launch | 1.00× |.* | 2/2 |$' "$WORK/ovh/overhead.md" &&
	grep -qF "CUPTI_RAW_LATENCY=1" "$WORK"/ovh/logs/launch_loop.cupti-raw-latency.1.out.cmd ||
	fail "overhead.sh's cupti-raw-latency: $(cat "$WORK"/ovh/logs/launch_loop.cupti-raw-latency.1.out.cmd)"
grep -qF "KGANTT_DEV_SYNC_KIND=1" "$WORK"/ovh/logs/launch_loop.kgantt-full-synckind.1.out.cmd ||
	fail "overhead.sh's synckind command: $(cat "$WORK"/ovh/logs/launch_loop.kgantt-full-synckind.1.out.cmd)"
echo "ok: overhead.sh: $(echo "$names" | wc -l) configurations listed; a round with stand-ins reported in the table's order"
