# Issue 26: full mode as it is now (launch calls sampled, sync records from the API
# callbacks, CUPTI's synchronisation kind never enabled), recorded on an H100 on 2026-12-06
# by tests/gpu/lean_full_check.sh (no H200 was lent): every example, a GPT step, and three
# programs that synchronise every way, each recorded with CUPTI's sync records, with the
# callbacks', and with both (tests/fixtures/h100/lean/). Checked here, downstream of the GPU:
# every trace is read by every command and holds what its example launched; its syncs are
# the callbacks' (one per call, starting with it); the examples' diagnosis is the one the
# H200 traces of the recorder before gave; each planted finding's gain is within 15 % of
# what diff measures on its fixed twin; the callbacks' syncs say what CUPTI's say.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
L=tests/fixtures/h100/lean
lean() { FIXTURES=tests/fixtures/h100 fixture "lean/$1"; }
recorded_examples tests/fixtures/h100 lean "NVIDIA H100"

# the syncs of every full-mode trace are the callbacks': one per call, starting exactly
# when the call did (CUPTI's own start within the call, never at it); latency timestamps on
python3 - "$L" <<'PY' || fail "the sync records"
import glob, os, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
checked = syncs = 0
for xz in sorted(glob.glob(os.path.join(sys.argv[1], "*.kgt.xz"))):
    name = os.path.basename(xz)[:-7]
    db = kgt_rows.connect("build/fixtures/lean/%s.kgt" % name)
    mode, latency = db.execute("SELECT mode, latency_timestamps FROM processes").fetchone()
    if mode != "full":
        continue
    assert latency == 1, (name, "latency timestamps", latency)
    calls = {}
    for p, c, s in db.execute("SELECT process, correlation, start FROM api WHERE correlation > 0"):
        calls.setdefault((p, c), set()).add(s)
    seen = set()
    for p, c, s in db.execute("SELECT process, correlation, start FROM syncs"):
        assert s is not None, (name, c, "a sync with no start")
        assert (p, c) not in seen, (name, c, "two syncs of one call")
        seen.add((p, c))
        assert s in calls.get((p, c), ()), (name, c, "a sync that did not start with its call")
    syncs += len(seen)
    checked += 1
assert checked >= 15 and syncs > 100, (checked, syncs)
print("ok: %d full-mode traces: their %d syncs from the callbacks, one per call, each starting "
      "with its call, and latency timestamps" % (checked, syncs))
PY

examples_diagnosis tests/fixtures/h100 lean

# host samples after the thread's last CUDA activity (the recorder's exit handler) stand
# for no time before it (src/model/host_fit.c): in the traces where such a sample's period
# reaches back over the thread's launches (found here from the raw rows), no finding puts
# any of the GPU's idle time in the recorder's exit
python3 - "$L" > "$WORK/exit.txt" 2>&1 <<'PY' || fail "the exit handler's samples: $(cat "$WORK/exit.txt")"
import glob, os, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
for xz in sorted(glob.glob(os.path.join(sys.argv[1], "*.kgt.xz"))):
    name = os.path.basename(xz)[:-7]
    db = kgt_rows.connect("build/fixtures/lean/%s.kgt" % name)
    if not db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'host_samples'").fetchone()[0]:
        continue
    hz = db.execute("SELECT max(hz) FROM host_settings").fetchone()[0]
    if not hz:
        continue
    exits = db.execute("SELECT s.process, s.thread, min(s.ts) FROM host_samples s JOIN "
                       "stack_frames f ON f.stack = s.stack JOIN strings fn ON fn.id = f.function "
                       "WHERE fn.text = 'at_exit' GROUP BY s.process, s.thread").fetchall()
    for process, thread, ts in exits:
        # the examples launch from one thread: its process's kernels are its own
        last = max(db.execute("SELECT coalesce(max(\"end\"), 0) FROM api WHERE process = ? AND "
                              "thread = ?", (process, thread)).fetchone()[0],
                   db.execute("SELECT coalesce(max(queued), 0) FROM kernels WHERE process = ?",
                              (process,)).fetchone()[0])
        if ts - 10**9 // hz < last < ts:
            print(name, thread, ts - last)
PY
[ -s "$WORK/exit.txt" ] || fail "no trace whose exit sample reaches back over its launches: the check below checks nothing"
while read -r name thread after; do
	"$K" report --json --no-progress "$(lean "$name")" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    for a in (f.get("host") or {}).get("activities", []):
        assert "at_exit" not in a["label"], (f["rule"], a["label"][-80:], a["gain_ns"])' ||
		fail "$name: a finding's idle time in the recorder's exit, sampled $after ns after the last launch"
	echo "ok: $name: its exit handler's first sample, $((after / 1000)) µs after the thread's last CUDA activity, stands for none of the idle time"
done < "$WORK/exit.txt"

# the callbacks' syncs against CUPTI's on the GPU (tests/gpu/sync_calls.sh): each program
# recorded with both (the pairs agree), with CUPTI's only and with the callbacks' only (as
# many of each kind), and the two reports give the same findings
for prog in syncs_bad torch driver; do
	for s in both cupti calls; do lean "sync/${prog}_$s" > /dev/null; done
	python3 tests/gpu/sync_calls.py build/fixtures/lean/sync/${prog}_{both,cupti,calls}.kgt > "$WORK/s" ||
		{ cat "$WORK/s"; fail "$prog: the callbacks' syncs differ from CUPTI's"; }
	c=$(rules "build/fixtures/lean/sync/${prog}_cupti.kgt") o=$(rules "build/fixtures/lean/sync/${prog}_calls.kgt")
	[ "$c" = "$o" ] || fail "$prog: CUPTI's syncs give [$c], the callbacks' [$o]"
	echo "ok: $prog: $(head -1 "$WORK/s" | cut -d: -f2-); the same findings ($c)"
done
