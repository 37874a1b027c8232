#!/usr/bin/env bash
# The recorder's memory over a long run (issue 23: host samples on by default must keep it
# bounded). The planted training loop (tests/gpu/host_dataloader.py: a DataLoader with two
# worker processes, a collate that computes, a logging call that sleeps) runs SECONDS under
# four configurations at once, on one GPU:
#   untraced        the program alone: what PyTorch itself grows by
#   full            kgantt record, the default (full mode, host samples 100 a second)
#   full-nohost     --host-samples=off: the host samples' share of full's growth
#   full-nolatency  --latency off: without what CUPTI keeps per kernel while the queued and
#                   submitted timestamps are on (docs/results/recorder-memory-h200.md)
# Every 5 s: the program's resident memory, kgantt record's, the spool's size. At the end
# each trace's counts (`kgantt info`) and OUTDIR/summary.md; OUTDIR/done when all is over.
#   tests/gpu/long_run_h200.sh OUTDIR [SECONDS]
set -u
out=${1:?usage: long_run_h200.sh OUTDIR [SECONDS]}
secs=${2:-600}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
work=$(mktemp -d /tmp/kgantt-long.XXXXXX)
mkdir -p "$out"
rm -f "$out/done"
prog=(python3 tests/gpu/host_dataloader.py --workers 2 --steps 200 --batch 64 --seconds "$secs")
configs=(untraced full full-nohost full-nolatency)
declare -A pid
for c in "${configs[@]}"; do
	case $c in
	untraced) cmd=("${prog[@]}") ;;
	full) cmd=("$K" record -q -o "$work/$c.kgt" -- "${prog[@]}") ;;
	full-nohost) cmd=("$K" record -q -o "$work/$c.kgt" --host-samples=off -- "${prog[@]}") ;;
	full-nolatency) cmd=("$K" record -q -o "$work/$c.kgt" --latency off -- "${prog[@]}") ;;
	esac
	"${cmd[@]}" > "$out/$c.out" 2> "$out/$c.err" &
	pid[$c]=$!
	echo "t_s,program_rss_kb,kgantt_rss_kb,spool_bytes" > "$out/$c.csv"
done
start=$(date +%s.%N)
# the program's own process: the record's child, or the untraced command itself
program_of() {
	if [ "$1" = untraced ]; then echo "${pid[$1]}"; else pgrep -P "${pid[$1]}" -f host_dataloader | head -1; fi
}
running=1
while [ $running = 1 ]; do
	running=0
	t=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}")
	for c in "${configs[@]}"; do
		kill -0 "${pid[$c]}" 2> /dev/null || continue
		running=1
		p=$(program_of "$c")
		prss=; [ -n "$p" ] && prss=$(ps -o rss= -p "$p" | tr -d ' ')
		own=; [ "$c" != untraced ] && own=$(ps -o rss= -p "${pid[$c]}" | tr -d ' ')
		spool=0; [ -d "$work/$c.kgt.spool" ] && spool=$(du -sb "$work/$c.kgt.spool" | cut -f1)
		echo "$t,$prss,$own,$spool" >> "$out/$c.csv"
	done
	sleep 5
done
for c in "${configs[@]}"; do
	wait "${pid[$c]}"; echo "exit $?" >> "$out/$c.err"
	[ -f "$work/$c.kgt" ] || continue
	ls -l "$work/$c.kgt" > "$out/$c.info"
	"$K" info "$work/$c.kgt" >> "$out/$c.info" 2>&1
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for t in ("host_settings", "host_threads"):
    for r in db.execute("SELECT * FROM " + t):
        print(t, r)' "$work/$c.kgt" >> "$out/$c.info" 2>&1
done
"$K" report "$work/full.kgt" > "$out/full.report" 2>&1
python3 - "$out" "${configs[@]}" > "$out/summary.md" <<'PY'
import csv, json, sys
out, configs = sys.argv[1], sys.argv[2:]
print("| config | steps | program RSS at 60 s (MB) | at the end (MB) | growth after 60 s (MB/min) | kgantt record peak (MB) | spool (MB) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for c in configs:
    rows = [r for r in csv.DictReader(open("%s/%s.csv" % (out, c))) if r["program_rss_kb"]]
    steps = "?"
    for line in open("%s/%s.out" % (out, c)):
        if line.startswith("{"):
            steps = json.loads(line)["steps"]
    if not rows:
        print("| %s | %s | — | — | — | — | — |" % (c, steps)); continue
    t = [float(r["t_s"]) for r in rows]; rss = [int(r["program_rss_kb"]) / 1024 for r in rows]
    i60 = next((i for i, x in enumerate(t) if x >= 60), 0)
    rate = (rss[-1] - rss[i60]) / ((t[-1] - t[i60]) / 60) if t[-1] > t[i60] else 0
    own = max((int(r["kgantt_rss_kb"]) for r in rows if r["kgantt_rss_kb"]), default=0) / 1024
    spool = max(int(r["spool_bytes"]) for r in rows) / 2**20
    print("| %s | %s | %.0f | %.0f | %.1f | %.0f | %.0f |" % (c, steps, rss[i60], rss[-1], rate, own, spool))
PY
rm -rf "$work"
touch "$out/done"
