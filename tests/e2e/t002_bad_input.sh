# Bad input gets a clear error naming the file and a non-zero exit, never a crash.
. tests/e2e/lib.sh
expect_error 1 "cannot open '$WORK/none.kgt'" "$K" info "$WORK/none.kgt"
echo "this is text, not a trace, and long enough to be read as a header" > "$WORK/text.kgt"
# info reads every format the other commands read, and says what they say of the rest
expect_error 1 "'$WORK/text.kgt' is not a trace kgantt can read" "$K" info "$WORK/text.kgt"
expect_error 1 "'$WORK/text.kgt' is not a kgantt trace: not an SQLite database" "$K" dump "$WORK/text.kgt"
: > "$WORK/empty.kgt"
expect_error 1 "'$WORK/empty.kgt' is empty" "$K" info "$WORK/empty.kgt"
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
# a PyTorch execution trace (its operators' graph, no times) is not a profiler trace
printf '{"schema": "1.0.1", "pid": 7, "time": "2024-01-01", "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|process]"}]}' > "$WORK/et.json"
expect_error 1 "a PyTorch execution trace (\"nodes\", no \"traceEvents\")" "$K" report "$WORK/et.json"
# damage inside the file (the header intact): the read fails loudly, not a silent answer
t=$(fixture launches_bad)
cp "$t" "$WORK/damaged.kgt"
size=$(stat -c %s "$WORK/damaged.kgt")
dd if=/dev/urandom of="$WORK/damaged.kgt" bs=4096 seek=$((size / 4096 / 2)) count=40 conv=notrunc 2>/dev/null
"$K" info "$WORK/damaged.kgt" > /dev/null 2> "$WORK/err"; rc=$?
[ $rc -ne 0 ] && grep -q "damaged\|malformed\|cannot read" "$WORK/err" || fail "damaged trace: exit $rc, said: $(cat "$WORK/err")"
echo "ok: damaged trace -> exit $rc: $(head -1 "$WORK/err")"
# An allocation that fails is reported with words, never as a bare "kgantt: ": a spool
# whose string table needs 8 MB (a string id of 2^20 in a 17 MB spool, within what that
# size can hold), imported with every realloc above 1 MB failing (an LD_PRELOAD shim).
cat > "$WORK/failalloc.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
void *realloc(void *p, size_t n)
{
	static void *(*real)(void *, size_t);
	static size_t limit;
	if (!real) {
		real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
		const char *e = getenv("KG_FAIL_ABOVE");
		limit = e ? strtoull(e, NULL, 10) : 0;
	}
	if (limit && n > limit) {
		errno = ENOMEM;
		return NULL;
	}
	return real(p, n);
}
EOF
# ASan's allocator must come first: a preloaded malloc cannot stand in front of it
if [ -n "${KGANTT_SANITIZED:-}" ]; then
	echo "kgantt under ASan: the failed-allocation check is skipped"
elif cc -shared -fPIC -o "$WORK/failalloc.so" "$WORK/failalloc.c" -ldl 2>/dev/null; then
	python3 - "$WORK/big.kgspool" <<'EOF'
import struct, sys
rec = lambda t, body: struct.pack("<HHI", t, 0, 8 + len(body)) + body
string = rec(2, struct.pack("<II", 1 << 20, 1) + b"x\0" + b"\0" * 6)
process = rec(1, struct.pack("<IIQQII4I3II", 7, 1, 1000, 2000, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0))
with open(sys.argv[1], "wb") as f:
    f.write(b"KGSPOOL\0" + struct.pack("<II", 1, 16) + string + process)
    f.truncate(17 << 20)  # zeros after the records: the process was cut short
EOF
	expect_error 1 "out of memory importing '$WORK/big.kgspool'" \
		env LD_PRELOAD="$WORK/failalloc.so" KG_FAIL_ABOVE=1048576 "$K" import -o "$WORK/y.kgt" \
		"$WORK/big.kgspool"
	[ ! -e "$WORK/y.kgt" ] || fail "a failed import left '$WORK/y.kgt'"
else
	echo "no C compiler: the failed-allocation check is skipped"
fi
