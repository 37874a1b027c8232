# The command line: usage errors exit 2, help exits 0, an output replaced only when complete.
. tests/e2e/lib.sh
expect_error 2 "usage: kgantt" "$K"
expect_error 2 "'frobnicate' is not a kgantt command" "$K" frobnicate
expect_error 2 "no program to run" "$K" record -o "$WORK/a.kgt"
expect_error 2 "--mode: 'fast' is not a mode" "$K" record --mode fast -- true
expect_error 2 "--delay: 'soon' is not a number" "$K" record --delay soon -- true
expect_error 2 "--buffers: '1' is not a whole number from 2" "$K" record --buffers 1 -- true
expect_error 2 "environment variable NO_SUCH_RANK_VAR is not set" "$K" record -o 'r%q{NO_SUCH_RANK_VAR}.kgt' -- true
# every command's help is made from its option table (cli/options.h): usage, then each
# option beside its help, within 80 columns
for c in record info dump import report plot view export diff merge pack; do
	"$K" $c --help > "$WORK/help" || fail "kgantt $c --help failed"
	grep -q "usage: kgantt $c" "$WORK/help" || fail "kgantt $c --help says no usage"
	grep -q "^  -h, --help  *this help$" "$WORK/help" || fail "kgantt $c --help lists no -h"
	awk 'length > 80 { exit 1 }' "$WORK/help" || fail "kgantt $c --help is wider than 80 columns"
done
"$K" --version | grep -q "^kgantt [0-9]" || fail "--version"
# an existing output is replaced only by a complete trace (README, "Outputs"): here
# nothing is recorded, and the file stays as it was
echo old > "$WORK/exists.kgt"
"$K" record -o "$WORK/exists.kgt" -- true > /dev/null 2> "$WORK/err"
grep -q "already exists" "$WORK/err" && fail "record refuses an existing output"
[ "$(cat "$WORK/exists.kgt")" = old ] || fail "record without a recording replaced its output"
# a full stdout is an error, not a silent truncation
if [ -w /dev/full ]; then
	"$K" dump --table kernels -n 5 "$(fixture streams_bad)" > /dev/full 2> "$WORK/err"; rc=$?
	[ $rc -eq 1 ] && grep -q "cannot write to standard output" "$WORK/err" || fail "dump to a full disk: exit $rc"
fi
