# Call stacks recorded on an H200 (tests/gpu/stacks_h200.sh): every finding names the
# exact line behind it, checked against the examples' own source (the lines marked
# "kgantt-site:"), in kgantt traces (native and Python frames), in PyTorch profiler traces
# (operators, Python functions) and through diff, export and SQL.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
for f in syncs_bad syncs_fixed syncs_stripped syncs_nounwind torch_cnn_bad torch_cnn_fixed py_threads; do
	[ -f "$FIXTURES/$f.kgt.xz" ] || skip "no fixture $f (record with tests/gpu/stacks_h200.sh)"
done

# line NAME FILE: the line of FILE marked "kgantt-site: NAME"
line() { grep -n "kgantt-site: $1\$" "$2" | cut -d: -f1; }
SYNC=$(line sync examples/syncs.cu)
ITEM=$(line item examples/torch_cnn.py)
COPY=$(line copy examples/torch_cnn.py)
THREAD=$(line thread-item tests/gpu/py_threads.py)
[ -n "$SYNC" ] && [ -n "$ITEM" ] && [ -n "$COPY" ] && [ -n "$THREAD" ] || fail "marked lines not found"

# check TRACE PY [report options...]: report --json of TRACE, then PY asserts on it (j)
check() {
	local t=$1 py=$2
	shift 2
	"$K" report --json --no-progress "$@" "$t" > "$WORK/r.json" 2> "$WORK/err" ||
		fail "report --json $t exited $?: $(cat "$WORK/err")"
	SYNC=$SYNC ITEM=$ITEM COPY=$COPY THREAD=$THREAD python3 - "$WORK/r.json" <<PY || fail "$t: $(head -c 3000 "$WORK/r.json")"
import json, os, sys
j = json.load(open(sys.argv[1], encoding="utf-8"))
SYNC, ITEM, COPY, THREAD = (int(os.environ[k]) for k in ("SYNC", "ITEM", "COPY", "THREAD"))
def finding(rule):
    f = [x for x in j["findings"] if x["rule"] == rule]
    assert f, ("no finding", rule, [x["rule"] for x in j["findings"]])
    return f[0]
def at(site, file, line):
    fr = site["frame"]
    return fr is not None and (fr["file"] or "").endswith(file) and fr["line"] == line
$py
PY
	echo "ok: $(basename "$t") $*"
}

# A native program: the sync planted in log_progress(), which the compiler inlined into
# main; the line and the inlined function's name both come back.
t=$(fixture syncs_bad)
check "$t" '
f = finding("host-sync-stall")
top = f["sites"][0]
assert at(top, "syncs.cu", SYNC), top["frame"]
assert top["frame"]["function"] == "log_progress", top["frame"]
assert top["api"].startswith("cudaStreamSynchronize") and top["share"] > 0.9, top
assert not top["partial"] and j["trace"]["stacks"]
assert j["sites"][0]["label"] == top["label"]
names = [fr["function"] for fr in top["stack"]]
assert names.index("log_progress") < names.index("train") < names.index("main"), names
'
"$K" report --no-progress --sites "$t" > "$WORK/page" || fail "report --sites"
grep -Eq "where  *(9[0-9]|100)% (.*) at syncs.cu:$SYNC in log_progress → cudaStreamSynchronize$" "$WORK/page" ||
	fail "the finding does not name syncs.cu:$SYNC: $(grep -A3 '^#1' "$WORK/page")"
grep -q "^Call sites" "$WORK/page" || fail "no call-site table"
python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' "$WORK/page" ||
	fail "report --sites is wider than 100 columns"
echo "ok: syncs_bad page names syncs.cu:$SYNC in log_progress"

# its fixed twin: no stall, and diff says the site is gone
check "$(fixture syncs_fixed)" '
assert not [x for x in j["findings"] if x["rule"] == "host-sync-stall"], [x["rule"] for x in j["findings"]]
'
"$K" diff "$t" "$(fixture syncs_fixed)" > "$WORK/diff" || fail "diff syncs"
grep -q "^  gone .* at syncs.cu:$SYNC in log_progress → cudaStreamSynchronize" "$WORK/diff" ||
	fail "diff does not say the site is gone: $(sed -n '/^Call sites/,/^$/p' "$WORK/diff")"
echo "ok: diff syncs_bad syncs_fixed: the site is gone"

# the same binary stripped: the frame keeps its module and address; built without unwind
# tables: the unwinder stops inside the program and the stack says it is partial
check "$(fixture syncs_stripped)" '
top = finding("host-sync-stall")["sites"][0]
fr = top["frame"]
assert fr["module"].endswith("syncs_stripped") and fr["function"] is None and not top["partial"], top
assert "(no symbols)" in top["label"], top["label"]
'
check "$(fixture syncs_nounwind)" '
top = finding("host-sync-stall")["sites"][0]
assert top["partial"] and top["frame"]["module"].endswith("syncs_nounwind"), top
'

# PyTorch, recorded by kgantt: Python frames through the interpreter, the operator from
# libtorch's symbols; only the training steps (NVTX ranges "step"). The loop is the
# host's: its GPU work done before loss.item() is read (which blocks about 12 µs a step,
# nothing to win), the GPU idles while the DataLoader makes the next batch; the work that
# comes late is the batch's copy, xb.cuda(), named first.
check "$(fixture torch_cnn_bad)" '
f = finding("host-bound")
top = f["sites"][0]
assert at(top, "torch_cnn.py", COPY), f["sites"]
assert top["operator"] == "aten::to_dtype_layout" and top["frame"]["function"] == "train_step", top
assert top["frame"]["kind"] == "python"
assert not [x for x in j["findings"] if x["rule"] == "host-sync-stall"], "a sync that blocks for µs"
' --nvtx step
# at batch 4096 the GPU's step is long and loss.item() blocks 10 ms of it: the sync's
# finding names it, first (tests/gpu/sync_gain_h200.sh recorded it; the noitem twin has
# no such finding, tests/unit/test_rules.c)
check "$(fixture torch_cnn_item_b4096)" '
f = finding("host-sync-stall")
top = f["sites"][0]
assert at(top, "torch_cnn.py", ITEM) and top["share"] > 0.9, f["sites"]
assert top["operator"] == "aten::item" and top["frame"]["function"] == "train_step", top
' --nvtx step
# and loss.item()'s own stack at batch 256, where its sync is a finding's only with every
# threshold at 0
check "$(fixture torch_cnn_bad)" '
f = finding("host-sync-stall")
item = [s for s in f["sites"] if at(s, "torch_cnn.py", ITEM)]
assert item and item[0]["operator"] == "aten::item" and item[0]["frame"]["function"] == "train_step", f["sites"]
assert item[0]["frame"]["kind"] == "python"
' --nvtx step --set min_gain_pct=0
check "$(fixture torch_cnn_fixed)" '
assert not any(at(s, "torch_cnn.py", ITEM) or at(s, "torch_cnn.py", COPY) for s in j["sites"]), [s["label"] for s in j["sites"]]
' --nvtx step

# four Python threads calling CUDA at once: each thread's frames, no mix-up
t=$(fixture py_threads)
check "$t" '
assert any(at(s, "py_threads.py", THREAD) for s in j["sites"]), [s["label"] for s in j["sites"]]
'
python3 - "$t" "$THREAD" <<'PY' || fail "py_threads: stacks by thread"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
threads = db.execute("""SELECT COUNT(DISTINCT a.thread) FROM call_stacks c JOIN api_calls a ON a.id = c.api_id
    WHERE c.kind = 'python' AND c.file LIKE '%py_threads.py' AND c.line = ?""", (int(sys.argv[2]),)).fetchone()[0]
assert threads == 4, threads
bad = db.execute("""SELECT COUNT(*) FROM call_stacks WHERE kind = 'python' AND function = 'work'
    AND file NOT LIKE '%py_threads.py'""").fetchone()[0]
assert bad == 0, bad
PY
echo "ok: py_threads: 4 threads' calls at py_threads.py:$THREAD"

# the sqlite3 shell reads the stacks as anyone would
if command -v sqlite3 > /dev/null; then
	n=$(sqlite3 "$(fixture syncs_bad)" "SELECT COUNT(*) FROM call_stacks WHERE function = 'log_progress' AND line = $SYNC")
	[ "$n" -gt 0 ] || fail "call_stacks view: no frame at syncs.cu:$SYNC"
	echo "ok: sqlite3 call_stacks: $n frames at syncs.cu:$SYNC"
fi

# export --format sqlite keeps the stacks: the report of the copy names the same sites
"$K" export -f sqlite -o "$WORK/copy.kgt" "$(fixture syncs_bad)" || fail "export sqlite"
"$K" report --json --no-progress "$(fixture syncs_bad)" | python3 -c 'import json,sys; print([s["label"] for s in json.load(sys.stdin)["sites"]])' > "$WORK/a"
"$K" report --json --no-progress "$WORK/copy.kgt" | python3 -c 'import json,sys; print([s["label"] for s in json.load(sys.stdin)["sites"]])' > "$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || fail "export sqlite lost sites: $(cat "$WORK/a") vs $(cat "$WORK/b")"
echo "ok: export --format sqlite keeps the sites"

# merge of a trace with itself: twice the calls, the same sites
"$K" merge --force -o "$WORK/m.kgt" "$(fixture syncs_bad)" "$(fixture syncs_bad)" > /dev/null || fail "merge"
check "$WORK/m.kgt" '
top = finding("host-sync-stall")["sites"][0]
assert at(top, "syncs.cu", SYNC) and top["frame"]["function"] == "log_progress", top
'

# PyTorch profiler traces of the same program: the operator without with_stack, and the
# Python function with it (function level: the profiler names the def line)
for k in torch_cnn_bad_profiler torch_cnn_bad_profiler_stack; do
	[ -f tests/fixtures/torch/$k.json.gz ] || skip "no fixture $k"
done
check tests/fixtures/torch/torch_cnn_bad_profiler.json.gz '
assert "without with_stack" in j["trace"]["stack_note"], j["trace"]["stack_note"]
assert any(s["operator"] == "aten::item" for s in j["sites"]), [s["label"] for s in j["sites"]]
' --nvtx step
check tests/fixtures/torch/torch_cnn_bad_profiler_stack.json.gz '
s = [s for s in j["sites"] if s["operator"] == "aten::item"]
assert s and s[0]["frame"]["function"] == "train_step" and s[0]["frame"]["file"].endswith("torch_cnn.py"), [x["label"] for x in j["sites"]]
' --nvtx step

# kgantt info says how the stacks were taken
"$K" info "$(fixture torch_cnn_bad)" > "$WORK/info" || fail "info torch_cnn_bad"
grep -q "^stacks: --stacks waits (launches: first 8 of each kernel, then 1 in 64" "$WORK/info" &&
	grep -q "^  python: CPython 3.12" "$WORK/info" || fail "info: $(cat "$WORK/info")"
"$K" info "$(fixture syncs_nounwind)" > "$WORK/info" || fail "info syncs_nounwind"
grep -qE "stacks, [0-9,]+ frames, [1-9][0-9,]* partial$" "$WORK/info" || fail "info: no partial stacks: $(grep stacks "$WORK/info")"
echo "ok: info says how the stacks were taken"
