# Without a GPU, record runs the program, says plainly that nothing was recorded and why,
# returns non-zero and leaves no trace or spool behind.
. tests/e2e/lib.sh
if nvidia-smi -L >/dev/null 2>&1; then skip "a GPU is present: this test is for machines without one"; fi
"$K" record -o "$WORK/x.kgt" -- build/examples/streams bad > "$WORK/out" 2> "$WORK/err"
rc=$?
[ $rc -ne 0 ] || fail "record without a GPU exited 0"
grep -q "nothing was recorded" "$WORK/err" || fail "no explanation: $(cat "$WORK/err")"
[ ! -e "$WORK/x.kgt" ] && [ ! -e "$WORK/x.kgt.spool" ] || fail "left files behind"
# the recorder library itself loads (its libcupti is found): record checks this first
"$K" record -o "$WORK/y.kgt" -- true 2> "$WORK/err2"
grep -q "cannot load the recorder" "$WORK/err2" && fail "recorder does not load: $(cat "$WORK/err2")"
echo "record without GPU: exit $rc: $(head -1 "$WORK/err")"
# the program gets the recorder's settings: trivial API queries left out unless --all-api
"$K" record -o "$WORK/z.kgt" -- sh -c 'echo "all_api=$KGANTT_ALL_API mode=$KGANTT_MODE"' \
	> "$WORK/out3" 2> /dev/null
grep -q "all_api=0 mode=full" "$WORK/out3" || fail "default settings: $(cat "$WORK/out3")"
"$K" record --all-api -o "$WORK/z.kgt" -- sh -c 'echo "all_api=$KGANTT_ALL_API"' \
	> "$WORK/out3" 2> /dev/null
grep -q "all_api=1" "$WORK/out3" || fail "--all-api: $(cat "$WORK/out3")"
echo "record passes --all-api to the recorder"
# What record does after the program, without a GPU: a program that leaves a recorder's
# spool (a committed fuzzing seed with call stacks) gets it turned into a trace, and record
# says what it wrote and how long that took after the program ended.
SPOOL=$PWD/tests/fuzz/corpus/fuzz_spool/stacks.kgspool
"$K" record -o "$WORK/s.kgt" -- sh -c "cp '$SPOOL' \"\$KGANTT_DIR/1.kgspool\"" \
	> /dev/null 2> "$WORK/err4" || fail "record of a left spool: $(cat "$WORK/err4")"
grep -Eq "wrote '$WORK/s.kgt': 1 process, 2 kernels, 1 copy, 1 memset, 3 API calls \([0-9.]+ s after the program ended\)" \
	"$WORK/err4" || fail "record's summary line: $(cat "$WORK/err4")"
[ ! -e "$WORK/s.kgt.spool" ] || fail "record left its spool directory"
# when record started the program (the origin of --delay), for the report's start-up advice
start=$(sqlite3 "$WORK/s.kgt" "SELECT value FROM meta WHERE key = 'program_start_ns'")
now=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW))')
[[ $start =~ ^[0-9]+$ ]] && [ "$start" -lt "$now" ] && [ $((now - start)) -lt 600000000000 ] ||
	fail "program_start_ns: '$start' (now $now)"
[ "$("$K" dump "$WORK/s.kgt" 2>/dev/null | grep -c .)" -eq 3 ] || fail "the trace lacks its 2 kernels"
echo "record turns a spool into a trace: $(grep wrote "$WORK/err4")"
# full mode preloads the launch hook (src/preload/launch_hook.h) ahead of the user's own
# preloads; kernels mode, --all-launches and --launch-hook off do not
hook=$(cd build && pwd)/libkgantt-launch.so
preload() { "$K" record -o "$WORK/p.kgt" "$@" -- sh -c 'echo "preload=$LD_PRELOAD"' 2> /dev/null | grep preload= 2> /dev/null; }
[ "$(preload)" = "preload=$hook" ] || fail "full mode: $(preload)"
[ "$(LD_PRELOAD=/lib/x.so preload)" = "preload=$hook:/lib/x.so" ] || fail "with a user's preload: $(LD_PRELOAD=/lib/x.so preload)"
for opts in "--mode kernels" "--all-launches" "--launch-hook off"; do
	[ "$(preload $opts)" = "preload=" ] || fail "$opts: $(preload $opts)"
done
# and a program run with it works: the hook's dlsym finds what the C library's does
"$K" record -o "$WORK/p.kgt" -- python3 -c 'import ctypes, ctypes.util; print(ctypes.CDLL(None).getpid() > 0)' \
	> "$WORK/py" 2> /dev/null
grep -q True "$WORK/py" || fail "a program under the hook: $(cat "$WORK/py")"
echo "record preloads the launch hook in full mode only, ahead of the user's preloads"
