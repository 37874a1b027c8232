# Bad input gets a clear error naming the file and a non-zero exit, never a crash.
. tests/e2e/lib.sh
expect_error 1 "cannot open '$WORK/none.kgt'" "$K" info "$WORK/none.kgt"
echo "this is text, not a trace, and long enough to be read as a header" > "$WORK/text.kgt"
expect_error 1 "'$WORK/text.kgt' is not a kgantt trace: not an SQLite database" "$K" info "$WORK/text.kgt"
: > "$WORK/empty.kgt"
expect_error 1 "'$WORK/empty.kgt' is not a kgantt trace" "$K" info "$WORK/empty.kgt"
expect_error 1 "is a directory" "$K" dump "$WORK"
# a real trace cut in half
head -c 20000 "$(fixture streams_bad)" > "$WORK/cut.kgt"
expect_error 1 "$WORK/cut.kgt" "$K" info "$WORK/cut.kgt"
expect_error 1 "$WORK/cut.kgt" "$K" dump "$WORK/cut.kgt"
# spools: not a spool, empty directory
mkdir -p "$WORK/spool"
expect_error 1 "no *.kgspool file" "$K" import -o "$WORK/x.kgt" "$WORK/spool"
echo "garbage" > "$WORK/spool/a.1.kgspool"
expect_error 1 "'$WORK/spool/a.1.kgspool' is not a kgantt spool" "$K" import -o "$WORK/x.kgt" "$WORK/spool"
[ ! -e "$WORK/x.kgt" ] || fail "a failed import left '$WORK/x.kgt'"
expect_error 1 "is truncated" "$K" info "$WORK/cut.kgt"
# damage inside the file (the header intact): the read fails loudly, not a silent answer
t=$(fixture launches_bad)
cp "$t" "$WORK/damaged.kgt"
size=$(stat -c %s "$WORK/damaged.kgt")
dd if=/dev/urandom of="$WORK/damaged.kgt" bs=4096 seek=$((size / 4096 / 2)) count=40 conv=notrunc 2>/dev/null
"$K" info "$WORK/damaged.kgt" > /dev/null 2> "$WORK/err"; rc=$?
[ $rc -ne 0 ] && grep -q "damaged\|malformed\|cannot read" "$WORK/err" || fail "damaged trace: exit $rc, said: $(cat "$WORK/err")"
echo "ok: damaged trace -> exit $rc: $(head -1 "$WORK/err")"
