#!/usr/bin/env bash
# SM placement on a GPU (kgantt record --sm, include/kgantt/sm.h). Records, with --sm:
#   - examples/sm_concurrent half and full: two kernels on two streams sharing the SMs;
#   - examples/sm_tailwave bad and fixed: 2.25 waves of one-block-per-SM blocks, and the
#     same work in 2 waves;
#   - examples/streams fixed, whose kernels have no block log: --sm must say so, and
#     plot --sm must refuse the trace;
# then, for each: kgantt info, plot --sm (PNG + manifest), view, and checks of the trace's
# own tables (tests/gpu/sm_h200.sh's Python below): every block of every launch is there
# (the program prints how many it ran), blocks per kernel = its grid, SMs used, how the
# clock alignment came out (offset spread and MAD; each kernel's first block against its
# CUPTI start, each last block's end against its end), the recorder's own driver calls left
# out (how many records that was: whether CUPTI records them at all), waves per SM.
# Also the macros' cost per block (bench/sm_cost: with and without, medians) and the wall
# time of each example untraced, under record and under record --sm.
#
#   tests/gpu/sm_h200.sh OUTDIR
#
# Run from the repository root; builds into ${BUILD:-build} what is missing. Writes
# OUTDIR/sm.txt (the summary) and OUTDIR/sm_h200.tar.xz: the traces as fixtures
# (*.kgt.xz), their pictures, pages, info, the programs' output, the summary.
set -u
out=${1:?usage: sm_h200.sh OUTDIR}
B=${BUILD:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/$B/kgantt
run=/tmp/kgantt-sm-run
rm -rf "$run"
mkdir -p "$run" "$out"
log=$run/sm.txt
say() { echo "$*" | tee -a "$log"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$log"
need=""
for f in kgantt libkgantt-inject.so examples/sm_concurrent examples/sm_tailwave bench/sm_cost \
	examples/streams; do
	[ -e "$B/$f" ] || need="$need $B/$f"
done
if [ -n "$need" ]; then
	say "building:$need"
	make -s BUILD="$B" $need > "$run/build.txt" 2>&1 || { say "build failed: $(tail -5 "$run/build.txt")"; }
fi

# wall NAME CMD...: seconds the command took, its stdout in NAME.out, stderr in NAME.err
wall() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	timeout 300 "$@" > "$run/$name.out" 2> "$run/$name.err"
	local rc=$?
	t1=$(date +%s.%N)
	echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
}

# rec NAME PROGRAM ARGS...: untraced, recorded, recorded with --sm; then info, plot, view
rec() {
	local name=$1
	shift
	local plain traced sm
	plain=$(wall "$name.untraced" "$@")
	traced=$(wall "$name.traced" "$K" record --force -q -o "$run/$name.nosm.kgt" -- "$@")
	sm=$(wall "$name" "$K" record --sm -f -o "$run/$name.kgt" -- "$@")
	say "$name: exit+seconds untraced $plain, record $traced, record --sm $sm"
	say "  program: $(grep -h -E '^sm_|^streams' "$run/$name.untraced.err" | head -1)"
	grep -h "kgantt\[" "$run/$name.err" | grep -v "recording (" | head -6 | sed 's/^/  /' | tee -a "$log"
	"$K" info "$run/$name.kgt" > "$run/$name.info.txt" 2>&1
	grep -E "^SM placement|warning|error" "$run/$name.info.txt" | sed 's/^/  info: /' | tee -a "$log"
	"$K" plot --sm "$run/$name.kgt" -o "$run/$name.png" --manifest > "$run/$name.plot.txt" 2>&1
	say "  plot --sm: exit $? $(grep -o '"sm": {[^}]*}' "$run/$name.png.json" 2> /dev/null) $(head -c 300 "$run/$name.plot.txt")"
	"$K" plot --sm --no-host "$run/$name.kgt" -o "$run/$name.svg" > /dev/null 2>&1
	"$K" view -q "$run/$name.kgt" -o "$run/$name.html" 2>&1 | head -2
	KGANTT=$K python3 "$run/check.py" "$run/$name.kgt" "$run/$name.untraced.out" 2>&1 | sed 's/^/  /' | tee -a "$log"
}

cat > "$run/check.py" <<'PY'
import os, re, statistics as st, sys
sys.path.insert(0, os.path.join(os.getcwd(), "tests/gpu"))
import kgt_rows  # a compacted trace as rows
trace, prog_out = sys.argv[1], sys.argv[2]
db = kgt_rows.connect(trace)
q = lambda sql, *a: db.execute(sql, a).fetchall()
want = None
for line in open(prog_out):
    m = re.match(r"kgantt-sm-blocks (\d+)", line)
    if m:
        want = int(m.group(1))
tables = {r[0] for r in q("select name from sqlite_master where type='table'")}
if "sm_blocks" not in tables:
    print("no sm_blocks table"); sys.exit(0)
n = q("select count(*) from sm_blocks")[0][0]
print(f"blocks stored {n}, the program ran {want}: {'OK' if want is None or n == want else 'MISMATCH'}")
for r in q("select * from sm_settings"):
    print("sm_settings (process, device, blocks, kernels, dropped, unmatched, own_records, offset, spread, mad):", r)
for r in q("select level, text from messages where text like 'SM placement%'"):
    print("message:", r[0], r[1][:200])
# per kernel: blocks vs grid, first block vs start, last end vs end, SMs
rows = q("""select k.id, coalesce(d.text, n.text), k.grid_x*k.grid_y*k.grid_z, k.start, k.end,
            count(b.kernel), min(b.start), max(b.end), count(distinct b.sm), max(b.end - b.start),
            min(b.end - b.start)
            from kernels k left join sm_blocks b on b.kernel = k.id
            left join strings n on n.id = k.name left join strings d on d.id = k.demangled
            group by k.id order by k.start""")
bad = [r for r in rows if r[5] and r[5] != r[2]]
logged = [r for r in rows if r[5]]
print(f"kernels {len(rows)}, with blocks {len(logged)}, blocks != grid: {len(bad)}", bad[:3])
if logged:
    lead = [r[6] - r[3] for r in logged]
    tail = [r[4] - r[7] for r in logged]
    print("first block start - kernel start, ns: min %d median %d max %d" % (min(lead), st.median(lead), max(lead)))
    print("kernel end - last block end, ns: min %d median %d max %d" % (min(tail), st.median(tail), max(tail)))
    for r in logged[:6]:
        print(f"  {r[1][:40]}: {r[5]} blocks on {r[8]} SMs, kernel {(r[4]-r[3])/1e3:.1f} us, "
              f"blocks {r[10]/1e3:.1f}-{r[9]/1e3:.1f} us")
sms = q("select count(distinct sm), min(sm), max(sm) from sm_blocks")[0]
print("SMs used %d (ids %s..%s)" % sms)
# blocks per SM and waves: blocks of one kernel on one SM one after the other
per = q("""select b.kernel, b.sm, count(*) from sm_blocks b group by 1, 2""")
if per:
    c = [r[2] for r in per]
    print("blocks per (kernel, SM): min %d median %d max %d" % (min(c), st.median(c), max(c)))
# two kernels at once on one SM: blocks of different kernels overlapping in time
both = q("""select count(distinct a.sm) from sm_blocks a join sm_blocks b on a.sm = b.sm
            and a.kernel < b.kernel and a.start < b.end and b.start < a.end""")[0][0]
print("SMs where blocks of two kernels ran at the same time:", both)
# the recorder's own calls must not be in the trace
own = q("""select n.text, count(*) from api_calls a join strings n on n.id = a.name
           where n.text in ('cuKernelGetLibrary', 'cuLibraryGetGlobal', 'cuFuncGetModule',
           'cuModuleGetGlobal_v2', 'cuMemcpyHtoD_v2', 'cuCtxPushCurrent_v2', 'cuCtxPopCurrent_v2')
           group by 1""")
print("recorder-only driver calls left in api_calls (expected none):", own)
small = q("select count(*) from memcpys where bytes in (8, 32)")[0][0]
print("8- or 32-byte copies in memcpys (the recorder's header reads; expected 0):", small)
PY

rec sm_concurrent_half "$B/examples/sm_concurrent" half
rec sm_concurrent_full "$B/examples/sm_concurrent" full
rec sm_tailwave_bad "$B/examples/sm_tailwave" bad
rec sm_tailwave_fixed "$B/examples/sm_tailwave" fixed

# kernels without a block log: said, not fatal; plot --sm refuses the trace
rec streams_fixed_nolog "$B/examples/streams" fixed

# the macros' cost per block, untraced (medians of 9 runs each way)
timeout 300 "$B/bench/sm_cost" 9 2>&1 | tee "$run/sm_cost.txt" | tee -a "$log"
# and under record --sm: the blocks of the last run are read at exit
wall sm_cost_recorded "$K" record --sm -f -o "$run/sm_cost.kgt" -- "$B/bench/sm_cost" 3 > /dev/null
say "sm_cost under record --sm: $(grep -h 'ns_per_block' "$run/sm_cost_recorded.out" | tr '\n' ';' | cut -c1-600)"
"$K" info "$run/sm_cost.kgt" 2>&1 | grep -E "^SM placement|SM placement" | head -4 | tee -a "$log"

for f in "$run"/*.kgt; do
	case "$f" in *nosm.kgt) rm -f "$f" ;; *) xz -9 -k -T2 "$f" && rm -f "$f" ;; esac
done
ls -la "$run" > "$run/files.txt"
cp "$log" "$out/sm.txt"
tar -C "$run" -cJf "$out/sm_h200.tar.xz" --exclude='*.nosm.kgt' . 2> /dev/null
ls -la "$out" | tee -a "$out/sm.txt"
echo done | tee -a "$out/sm.txt"
