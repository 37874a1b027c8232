# The command line says what it ignored before (issue 22): help and behaviour agree, a
# name or rank that matches nothing is an error naming what exists, the job report says
# why it left a trace out, and colour goes only to the user's terminal.
. tests/e2e/lib.sh
t=$(fixture copies_bad)
J=build/golden-job/job
[ -d "$J" ] || python3 bench/gen_job.py -o "$J" -n 16 -k 2000 --ranks-per-host 4 > /dev/null

# merge and import: -f is --format everywhere (README, "Outputs"), so their help does
# not offer it, and giving it says why it is refused
for c in merge import; do
	"$K" $c --help > "$WORK/help" || fail "$c --help"
	grep -q -- "-f\b" "$WORK/help" && fail "$c --help offers -f: $(grep -- -f "$WORK/help")"
	grep -q -- "--force" "$WORK/help" || fail "$c --help does not say --force is accepted"
	expect_error 2 "-f is --format" "$K" $c -f -o "$WORK/x.kgt" "$t"
done
"$K" merge --force -q -o "$WORK/forced.kgt" "$t" || fail "merge --force"

# --nvtx NAME that matches nothing: the names there are, the most frequent first
torch=tests/fixtures/torch/torch_cnn_bad_profiler.json.gz
expect_error 1 "has no NVTX or annotation range named 'ProfilerStep' (or starting with it); the names it has, most frequent first: " \
	"$K" report --nvtx ProfilerStep "$torch"
grep -q "'step' (20)" "$WORK/err" || fail "--nvtx: the names there are: $(cat "$WORK/err")"
expect_error 1 "'step' (20)" "$K" plot --nvtx nosuch "$torch" -o "$WORK/n.png"
expect_error 1 "it has no range at all" "$K" view --nvtx step "$t" -o "$WORK/n.html"
"$K" report --nvtx step "$torch" > /dev/null || fail "report --nvtx step (the docs' example) failed"

# --ranks, --steps, --full that match nothing: errors naming what exists
expect_error 1 "--ranks 99 matches none of the job's 16 ranks: 0-15" "$K" report --ranks 99 "$J"
expect_error 1 "--ranks 20-30 matches none of the job's 16 ranks: 0-15" "$K" plot --ranks 20-30 "$J" -o "$WORK/j.png"
expect_error 1 "--steps 'nosuch': no trace has two ranges of that name" "$K" report --steps nosuch "$J"
grep -q "most frequent first: 'step' (" "$WORK/err" || fail "--steps: the names there are: $(cat "$WORK/err")"
expect_error 1 "--full 99 matches none of the job's 16 ranks: 0-15" "$K" plot "$J" -o "$WORK/j.png" --full 99
expect_error 1 "--full 99 matches none of the job's 16 ranks" "$K" view "$J" -o "$WORK/j.html" --full 99
"$K" report --steps step --ranks 3 "$J" > /dev/null || fail "--steps step --ranks 3 failed"

# a job with unreadable traces: the report itself says which and why (text and JSON),
# and a folder given with a trailing slash names its traces with one slash
mkdir -p "$WORK/mix"
cp "$J/rank_00000.kgt" "$J/rank_00001.kgt" "$WORK/mix/"
head -c 3000 "$J/rank_00002.kgt" > "$WORK/mix/rank_00002.kgt"
echo "not a trace" > "$WORK/mix/x.kgt"
"$K" report "$WORK/mix/" > "$WORK/mix.txt" 2> "$WORK/mix.err"
[ $? = 1 ] || fail "a job with unreadable traces did not exit 1"
grep -q "//" "$WORK/mix.txt" "$WORK/mix.err" && fail "a path with '//': $(grep -h // "$WORK/mix.txt" "$WORK/mix.err")"
grep -q "message above" "$WORK/mix.txt" && fail "the report sends the reader to stderr"
tr -s ' \n' ' ' < "$WORK/mix.txt" > "$WORK/mix.flat" # wrapped lines joined
grep -q "not read '$WORK/mix/rank_00002.kgt' is truncated" "$WORK/mix.flat" ||
	fail "the text report does not say why rank_00002.kgt was left out: $(grep -A3 'not read' "$WORK/mix.txt")"
grep -q "'$WORK/mix/x.kgt' is not a trace kgantt can read" "$WORK/mix.flat" ||
	fail "the text report does not say why x.kgt was left out: $(grep -A5 'not read' "$WORK/mix.txt")"
"$K" report --json "$WORK/mix" > "$WORK/mix.json" 2> /dev/null
python3 - "$WORK/mix.json" "$WORK/mix" <<'PY' || fail "the JSON report does not say why"
import json, sys
d = json.load(open(sys.argv[1]))
why = d["not_read"]
assert len(why) == 2, why
assert any(sys.argv[2] + "/rank_00002.kgt' is truncated" in w for w in why), why
assert any(sys.argv[2] + "/x.kgt' is not a trace kgantt can read" in w for w in why), why
PY
echo "ok: the job report says which traces it left out and why"

# --set: the threshold's own message, with the command's name, in every command
for c in report plot view diff; do
	expect_error 2 "kgantt: $c: --set: no threshold named 'nope'" "$K" $c --set nope=1 "$t" "$t" -o "$WORK/s.out"
done

# colour: only on the user's terminal (a pseudo terminal here), never under an MPI
# launcher or srun (their ranks' stdout is a pseudo terminal while the user's is a file),
# nor with NO_COLOR; --color says it outright
tty_report() { # tty_report ENV...: report's stdout through a pseudo terminal
	env "$@" python3 -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)' "$K" report --no-progress "$t"
}
esc=$(printf '\033[')
tty_report > "$WORK/c.txt"
grep -qF "$esc" "$WORK/c.txt" || fail "no colour on a terminal"
for var in OMPI_COMM_WORLD_SIZE=2 PMI_SIZE=2 PMIX_RANK=0 SLURM_PROCID=0 NO_COLOR=1; do
	tty_report "$var" > "$WORK/c.txt"
	grep -qF "$esc" "$WORK/c.txt" && fail "colour on a terminal with $var"
done
"$K" report --color=always "$t" | grep -qF "$esc" || fail "--color=always wrote no colour"
NO_COLOR=1 "$K" report --color always "$t" | grep -qF "$esc" || fail "--color always lost to NO_COLOR"
"$K" report --color=never "$t" | grep -qF "$esc" && fail "--color=never coloured"
"$K" report --color=always "$J" | grep -qF "$esc" || fail "the job report: --color=always wrote no colour"
"$K" record --summarize-only "$t" --report --color=always 2> /dev/null | grep -qF "$esc" ||
	fail "record --report --color=always wrote no colour"
"$K" report "$t" | grep -qF "$esc" && fail "colour in a file"
echo "ok: colour only on the user's terminal, --color never|always|auto"
