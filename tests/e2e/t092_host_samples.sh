# The recorder's host sampler (src/recorder/hostsample.c) without a GPU, through
# tests/py/host_shim.so (the sampler from the recorder's own sources, LD_PRELOADed):
#  - C programs built -O2 with and without frame pointers: the known function on CPU with
#    its whole chain (or cut and marked partial), a sleep off CPU on wall-clock time woken
#    at most a few times, the program's own setitimer/SIGALRM, a thread with every signal
#    blocked, the handler's cost;
#  - under every CPython 3.10 to 3.13 found: four Python threads (spinning, sleeping, waiting
#    on a queue), native code without the GIL, the GIL held and waited for, fork(), the
#    program's own SIGALRM, the whole Python stack with library frames, a program that
#    takes the sampler's signal, 300 short-lived threads, exit with threads running, the
#    garbage collector (the interpreter's flag: a <gc> frame), the
#    handler's cost.
# tests/py/test_hostsample.py holds the checks.
. tests/e2e/lib.sh
B=${BUILD:-build}
make -s --no-print-directory BUILD="$B" "$B/tests/py/host_shim.so" "$B/kgantt" > "$WORK/make.log" 2>&1 ||
	fail "cannot build the shim: $(tail -5 "$WORK/make.log")"
pythons=""
for p in /usr/bin/python3 /root/.pyenv/versions/*/bin/python3; do
	[ -x "$p" ] || continue
	case $("$p" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) in
	3.10 | 3.11 | 3.12 | 3.13) pythons="$pythons $p" ;;
	esac
done
[ -n "$pythons" ] || echo "skip: no CPython 3.10 to 3.13 here: the Python cases are not tested"
# shellcheck disable=SC2086
timeout 1800 python3 tests/py/test_hostsample.py --build "$B" --cc "${CC:-cc}" --native $pythons ||
	fail "tests/py/test_hostsample.py"
