# Issue 12, "one way to do each thing": every file kgantt writes goes through util/outfile
# (README, "Outputs"). An input is never written over (defect 2); a symlink is followed and
# kept, a FIFO or a device written through (defect 3); Ctrl-C or SIGTERM leaves no
# temporary file (defect 4) and the old trace valid, with no hot journal (defect 1); every
# command replaces an existing output the same way; a chart's name and --format agree, and
# the docs say what is true (defect 13).
. tests/e2e/lib.sh
command -v sqlite3 > /dev/null || skip "no sqlite3 shell"

sum() { cksum < "$1"; }
# no_leftovers DIR WHAT: no temporary file (".NAME.XXXXXX", an older "NAME.tmpPID") and
# no SQLite journal in DIR
no_leftovers() {
	local l
	l=$(ls -A "$1" | grep -E '^\.|\.tmp|-journal$')
	[ -z "$l" ] || fail "$2 left in $1: $l"
}
valid_trace() { # valid_trace TRACE WHAT: every command can still read it
	"$K" info "$1" > /dev/null 2> "$WORK/err" || fail "$2: 'kgantt info' cannot read it: $(cat "$WORK/err")"
	[ "$(sqlite3 "$1" "PRAGMA integrity_check")" = ok ] || fail "$2: integrity check"
}

t=$WORK/run.kgt
cp "$(fixture streams_bad)" "$t"
before=$(sum "$t")

# ---------------------------------------------------------------- defect 2: inputs
expect_error 1 "plot: '$t' is the input trace; refusing to write the chart over it" \
	"$K" plot "$t" -o "$t" --format png
expect_error 1 "view: '$t' is the input trace; refusing to write the page over it" \
	"$K" view "$t" -o "$t"
for f in perfetto chrome csv; do
	expect_error 1 "export: '$t' is the input trace; refusing to write the export over it" \
		"$K" export -f $f "$t" -o "$t"
done
expect_error 1 "export: '$t' is the input trace; refusing to write the trace over it" \
	"$K" export -f sqlite "$t" -o "$t"
expect_error 1 "merge: '$t' is an input trace; refusing" "$K" merge -o "$t" "$(fixture streams_fixed)" "$t"
# through a symlink and a hard link: the same file
ln -s run.kgt "$WORK/link.png"
ln "$t" "$WORK/hard.svg"
expect_error 1 "is the input trace '$t' (the same file)" "$K" plot "$t" -o "$WORK/link.png"
expect_error 1 "(the same file); refusing" "$K" plot "$t" -o "$WORK/hard.svg"
[ -L "$WORK/link.png" ] || fail "the symlink to the input was replaced"
[ "$(sum "$t")" = "$before" ] || fail "the input trace changed"
rm "$WORK/hard.svg"
echo "ok: no command writes over its input, by name, symlink or hard link"

# ---------------------------------------------------------------- defect 3: links, FIFOs, devices
mkdir "$WORK/charts"
ln -s charts/real.png "$WORK/chart.png"
"$K" plot "$t" -o "$WORK/chart.png" 2> "$WORK/err" || fail "plot through a symlink: $(cat "$WORK/err")"
[ -L "$WORK/chart.png" ] || fail "plot replaced the symlink with a file"
[ "$(head -c 4 "$WORK/charts/real.png" | tail -c 3)" = PNG ] || fail "the link's target is not the chart"
"$K" plot "$t" -o "$WORK/chart.png" || fail "plot through the symlink again"
[ -L "$WORK/chart.png" ] || fail "a second plot replaced the symlink"
echo "ok: a symlink's target is written (created when dangling), the link stays"
mkfifo "$WORK/fifo"
for cmd in "plot --format svg" "view" "export -f csv"; do
	cat "$WORK/fifo" > "$WORK/from_fifo" &
	"$K" $cmd "$t" -o "$WORK/fifo" 2> "$WORK/err" || fail "$cmd into a FIFO: $(cat "$WORK/err")"
	wait
	[ -p "$WORK/fifo" ] || fail "$cmd replaced the FIFO"
	[ -s "$WORK/from_fifo" ] || fail "$cmd wrote nothing through the FIFO"
done
head -c 200 "$WORK/from_fifo" | grep -q "^kind,name" || fail "the CSV through the FIFO: $(head -c 100 "$WORK/from_fifo")"
for cmd in "plot --format png" "view" "export -f perfetto"; do
	"$K" $cmd "$t" -o /dev/null 2> "$WORK/err" || fail "$cmd -o /dev/null: $(cat "$WORK/err")"
done
[ -c /dev/null ] || fail "/dev/null is no longer a device"
"$K" plot "$t" -o - --format svg | grep -q "<svg" || fail "plot -o - --format svg"
# /dev/stdout is the descriptor the shell opened: appended to with >>, not truncated
"$K" export -f csv "$t" -o /dev/stdout > "$WORK/twice.csv" || fail "export -o /dev/stdout"
"$K" export -f csv "$t" -o /dev/stdout >> "$WORK/twice.csv" || fail "export -o /dev/stdout >>"
[ "$(grep -c '^kind,name' "$WORK/twice.csv")" = 2 ] || fail "-o /dev/stdout truncated what >> opened"
"$K" plot "$t" -o /dev/stdout --format svg | grep -q "<svg" || fail "plot -o /dev/stdout into a pipe"
expect_error 1 "expected a regular file" "$K" export -f sqlite "$t" -o /dev/null
expect_error 1 "is a directory" "$K" plot "$t" -o "$WORK/charts"
if [ -w /dev/full ]; then
	expect_error 1 "cannot write '/dev/full'" "$K" plot "$t" -o /dev/full --format svg
	[ -c /dev/full ] || fail "/dev/full is no longer a device"
fi
no_leftovers "$WORK" "writing links, FIFOs and devices"
echo "ok: FIFOs, /dev/null and '-' written through, /dev/full an error, all still what they were"

# ---------------------------------------------------------------- one overwrite rule
# every command replaces an existing output (as cp, sort -o, gcc -o); -f changes nothing
mkdir "$WORK/again"
a=$WORK/again
for round in 1 2; do
	"$K" plot "$t" -o "$a/c.svg" --manifest 2> "$WORK/err" || fail "plot, round $round: $(cat "$WORK/err")"
	"$K" view -q "$t" -o "$a/v.html" 2> "$WORK/err" || fail "view, round $round: $(cat "$WORK/err")"
	for f in perfetto csv sqlite; do
		"$K" export -f $f "$t" -o "$a/e.$f" 2> "$WORK/err" ||
			fail "export $f, round $round: $(cat "$WORK/err")"
	done
	"$K" merge -o "$a/m.kgt" "$t" "$(fixture streams_fixed)" 2> "$WORK/err" ||
		fail "merge, round $round: $(cat "$WORK/err")"
	"$K" merge --force -o "$a/mf.kgt" "$t" 2> "$WORK/err" || fail "merge --force, round $round: $(cat "$WORK/err")"
	cp "$t" "$a/p.kgt"
	"$K" pack "$a/p.kgt" 2> "$WORK/err" || fail "pack, round $round: $(cat "$WORK/err")"
done
for x in c.svg c.svg.json v.html e.perfetto e.csv e.sqlite m.kgt mf.kgt p.kgt; do
	[ -s "$a/$x" ] || fail "$x missing after two rounds"
done
valid_trace "$a/m.kgt" "merge over an earlier merge"
valid_trace "$a/e.sqlite" "export sqlite over an earlier export"
no_leftovers "$a" "writing every output twice"
# record: no refusal either (here nothing is recorded, and the old file stays as it was)
echo old > "$a/r.kgt"
"$K" record -o "$a/r.kgt" -- true > /dev/null 2> "$WORK/err"
grep -q "already exists" "$WORK/err" && fail "record still refuses an existing output: $(cat "$WORK/err")"
[ "$(cat "$a/r.kgt")" = old ] || fail "record without a recording changed its output"
for c in record plot view export merge import pack; do
	"$K" $c --help > "$WORK/help" || fail "$c --help"
	grep -qi "replace" "$WORK/help" || fail "$c --help does not say that an output is replaced"
done
echo "ok: plot, view, export, merge, pack and record replace an output alike; every --help says so"

# ---------------------------------------------------------------- defect 13: names, docs
expect_error 2 "'$WORK/y.png' does not end in .svg: say --format png or name it $WORK/y.svg" \
	"$K" plot "$t" -o "$WORK/y.png" --format svg
expect_error 2 "does not end in .png: say --format pdf or name it $WORK/y.png" "$K" plot "$t" -o "$WORK/y.pdf" --format png
[ ! -e "$WORK/y.png" ] && [ ! -e "$WORK/y.pdf" ] || fail "a refused chart was written"
"$K" plot "$t" -o "$WORK/Y.PNG" || fail "an upper-case extension"
"$K" plot "$t" -o "$WORK/y.svg" --format svg || fail "a name and --format that agree"
# every fixture path the docs name exists (a glob matches something; a bare name is a
# fixture NAME.kgt.xz)
for p in $(grep -rhoE 'tests/fixtures/[A-Za-z0-9_.*/-]+[A-Za-z0-9*]' README.md docs | sort -u); do
	compgen -G "$p" > /dev/null || [ -e "$p.kgt.xz" ] || fail "the docs name $p, which does not exist"
done
# the report times docs/speed.md gives are those of docs/results/report-speed*.md
python3 - <<'EOF' || fail "docs/speed.md and the report-speed results disagree"
import re, sys
readme = open("docs/speed.md").read()
speed = open("docs/results/report-speed.md").read()
latest = open("docs/results/report-speed-2026-12-04.md").read()  # the synthetic 1M's, since
def median(trace, cmd="report", text=speed):
    m = re.search(r"^\| %s \|[^|]*\|[^|]*\| `%s` \| ([0-9.]+) \|" % (re.escape(trace), cmd), text, re.M)
    return float(m.group(1))
claims = {"1M launches recorded on an H200": median("h200-launch-1M (real)"),
          "a synthetic LLM-training trace of 1M kernels": median("1M", text=latest),
          "(10M calls)": median("1M, 10 calls/kernel")}
for where, secs in claims.items():
    i = readme.index(where)
    near = readme[max(0, i - 40):i + 160]
    if "%.2f s" % secs not in near:
        sys.exit("docs/speed.md near %r does not say %.2f s: %r" % (where, secs, near))
EOF
echo "ok: a chart's name agrees with --format; the docs' fixtures exist; docs/speed.md's times are the measured ones"

# ---------------------------------------------------------------- defects 1 and 4: signals
# interrupt SIG DELAY DIR CMD...: runs CMD (with SIG at its default action, even where
# this script runs with it ignored) and sends SIG DELAY seconds after a new entry appears
# in DIR (the command's temporary file, or in older versions its journal). Prints
# "killed" when CMD died of SIG, else "exit N" (it ended first).
cat > "$WORK/interrupt.py" <<'EOF'
import os, signal, subprocess, sys, time
sig = getattr(signal, "SIG" + sys.argv[1])
delay, d, cmd = float(sys.argv[2]), sys.argv[3], sys.argv[4:]
before = set(os.listdir(d))
def default_signals():
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     preexec_fn=default_signals)
end = time.time() + 120
while p.poll() is None and time.time() < end and not set(os.listdir(d)) - before:
    time.sleep(0.0005)
time.sleep(delay)
if p.poll() is None:
    p.send_signal(sig)
rc = p.wait()
print("killed" if rc == -sig else "exit %d" % rc)
EOF
interrupt() { python3 "$WORK/interrupt.py" "$@"; }

# a synthetic trace big enough that every command is still at work when the signal comes
big=build/fixtures/synthetic_300k.kgt
if [ ! -s "$big" ]; then
	mkdir -p build/fixtures
	python3 bench/gen_trace.py -q -n 300000 --seed 12 -o "$big.$$" && mv "$big.$$" "$big" ||
		fail "gen_trace"
fi
i=$WORK/int
mkdir "$i"

# defect 1: pack, at once and later on; the trace stays as it was, readable, no journal
for delay in 0 0.05 0.2; do
	cp "$big" "$i/t.kgt"
	got=$(interrupt INT $delay "$i" "$K" pack "$i/t.kgt")
	[ "$delay" != 0 ] || [ "$got" = killed ] || fail "pack was not interrupted ($got)"
	no_leftovers "$i" "pack interrupted after ${delay} s ($got)"
	valid_trace "$i/t.kgt" "pack interrupted after ${delay} s ($got)"
	[ "$got" = killed ] && { [ "$(sum "$i/t.kgt")" = "$(sum "$big")" ] || fail "an interrupted pack changed the trace"; }
	echo "ok: pack, SIGINT after ${delay} s: $got; the trace as it was, readable, no journal"
done
# as the issue reproduced it
cp "$big" "$i/t.kgt"
timeout -s INT 1 env --default-signal=INT "$K" pack "$i/t.kgt" 2> /dev/null
"$K" info "$i/t.kgt" > /dev/null 2> "$WORK/err" || fail "info after 'timeout -s INT 1 pack': $(cat "$WORK/err")"
no_leftovers "$i" "timeout -s INT 1 pack"
rm "$i/t.kgt"

# merge over an earlier merge: the old one stays
"$K" merge -o "$i/job.kgt" "$t" "$(fixture streams_fixed)" 2> /dev/null || fail "first merge"
job=$(sum "$i/job.kgt")
for delay in 0 0.3; do
	got=$(interrupt INT $delay "$i" "$K" merge -o "$i/job.kgt" "$big" "$t")
	[ "$delay" != 0 ] || [ "$got" = killed ] || fail "merge was not interrupted ($got)"
	no_leftovers "$i" "merge interrupted after ${delay} s ($got)"
	valid_trace "$i/job.kgt" "merge interrupted after ${delay} s"
	[ "$got" = killed ] && { [ "$(sum "$i/job.kgt")" = "$job" ] || fail "an interrupted merge changed the old output"; }
	echo "ok: merge, SIGINT after ${delay} s: $got; the earlier merge as it was"
done
rm "$i/job.kgt"

# defect 4: exports; SIGTERM as SIGINT; the exit status says which signal
for f in perfetto csv sqlite; do
	for sig in INT TERM; do
		got=$(interrupt $sig 0 "$i" "$K" export -f $f --no-progress "$big" -o "$i/big.$f")
		[ "$got" = killed ] || fail "export $f was not interrupted by SIG$sig ($got)"
		no_leftovers "$i" "export $f interrupted by SIG$sig"
		[ ! -e "$i/big.$f" ] || fail "an interrupted export $f left its output"
	done
done
echo "ok: export perfetto, csv, sqlite: SIGINT and SIGTERM kill it, nothing left behind"
# issue 22: SIGKILL, which no handler sees, leaves the temporary; the next write of that
# name, by any command, removes it: its writer is dead, so its lock is gone
for f in perfetto sqlite; do
	got=$(interrupt KILL 0.1 "$i" "$K" export -f $f --no-progress "$big" -o "$i/big.$f")
	[ "$got" = killed ] || fail "export $f was not killed by SIGKILL ($got)"
	ls -A "$i" | grep -qE "^\.big\.$f\.[[:alnum:]]{6}\$" ||
		fail "export $f killed by SIGKILL left no temporary: $(ls -A "$i")"
	"$K" export -f csv "$t" -o "$i/big.$f" || fail "export over big.$f after a SIGKILL"
	no_leftovers "$i" "the write after a SIGKILLed export $f"
	rm "$i/big.$f"
done
echo "ok: the temporary of an export killed by SIGKILL is removed by the next write of its name"
for cmd in "view -q" "plot --format png --manifest"; do
	got=$(interrupt INT 0 "$i" "$K" $cmd "$big" -o "$i/out")
	no_leftovers "$i" "$cmd interrupted ($got)"
	rm -f "$i/out" "$i/out.json"
done
ls "$i" | grep -q . && fail "left in $i: $(ls "$i")"
echo "ok: view and plot interrupted: nothing left behind"
exit 0
