# The recorder's Python frame reader (src/recorder/pyframes.c) inside every CPython found
# here: /usr/bin/python3 and pyenv's /root/.pyenv/versions/*/bin/python3.
#  - 3.10 to 3.13: tests/py/test_pyframes.py (exact file:line:function of the caller with
#    the GIL released and held, methods, generators, coroutines, lambdas, comprehensions,
#    4 threads at once, 10,000 captures of fresh code objects, line tables against
#    co_lines(), the cost of a capture), once more under ASan/UBSan for one of them, and
#    the hard-coded layout table against offsetof() from that version's internal headers
#    when they are installed;
#  - the same versions embedded in a C program (tests/py/embed.c): nothing read before
#    Py_Initialize or after Py_FinalizeEx, libpython found when loaded RTLD_LOCAL;
#  - older or newer versions: init must refuse with a reason, and capture nothing;
#  - no Python at all: init says so.
# A version that is not installed is skipped, saying so.
. tests/e2e/lib.sh
B=${BUILD:-build}
PROBE=$B/tests/py/pyframes_probe.so
ASAN_PROBE=$B/tests/py/pyframes_probe_asan.so
make -s --no-print-directory BUILD="$B" "$PROBE" "$ASAN_PROBE" > "$WORK/make.log" 2>&1 ||
	fail "cannot build the probe: $(tail -5 "$WORK/make.log")"

${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -O1 tests/py/embed.c -o "$WORK/embed" -ldl ||
	fail "tests/py/embed.c does not build"
"$WORK/embed" - "$PROBE" none || fail "a process without Python"

pythons=""
for p in /usr/bin/python3 /root/.pyenv/versions/*/bin/python3; do
	[ -x "$p" ] && pythons="$pythons $p"
done
seen=" "
ran=0
asan_done=0
for py in $pythons; do
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
	case $v in
	3.10 | 3.11 | 3.12 | 3.13)
		log=$WORK/py$v.log
		timeout 600 "$py" tests/py/test_pyframes.py "$PROBE" > "$log" 2>&1
		rc=$?
		sed "s|^|  [$py] |" "$log" | grep -v '^  \[[^]]*\] ok '
		[ $rc -eq 0 ] || fail "$py: test_pyframes.py exited $rc"
		seen="$seen$v "
		ran=$((ran + 1))
		# the same library with ASan/UBSan: libasan must come first, hence LD_PRELOAD
		asan=$(${CC:-cc} -print-file-name=libasan.so 2>/dev/null)
		if [ $asan_done -eq 0 ] && [ -f "$asan" ]; then
			LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0 timeout 600 "$py" \
				tests/py/test_pyframes.py "$ASAN_PROBE" > "$WORK/asan.log" 2>&1 ||
				fail "$py under ASan: $(tail -20 "$WORK/asan.log")"
			echo "ok: $py under ASan/UBSan: $(tail -1 "$WORK/asan.log")"
			asan_done=1
		fi
		# embedded in a C program
		lp=$("$py" -c 'import os, sysconfig as s; v = s.get_config_var
print(os.path.join(v("LIBDIR") or "", v("INSTSONAME") or ""))' 2>/dev/null)
		if [ -f "$lp" ]; then
			for mode in local global; do
				"$WORK/embed" "$lp" "$PWD/$PROBE" $mode > "$WORK/embed.log" 2>&1 ||
					fail "$lp embedded ($mode): $(cat "$WORK/embed.log")"
			done
			echo "ok: CPython $v embedded ($lp): $(tail -1 "$WORK/embed.log")"
		else
			echo "skip: no libpython for $py: the embedded case is not tested"
		fi
		# the hard-coded table against this version's own headers
		inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
		if [ -f "$inc/internal/pycore_runtime.h" ] || { [ "$v" = 3.10 ] && [ -f "$inc/Python.h" ]; }; then
			${CC:-cc} -std=c11 -DPy_BUILD_CORE -I"$inc" -I"$inc/internal" \
				tests/py/layout_check.c -o "$WORK/layout$v" 2> "$WORK/layout.err" ||
				fail "layout_check for $v does not build: $(head -5 "$WORK/layout.err")"
			"$WORK/layout$v" | sort > "$WORK/headers$v"
			"$py" tests/py/test_pyframes.py "$PROBE" --layout | sort > "$WORK/table$v"
			[ -s "$WORK/table$v" ] || fail "no hard-coded table for $v"
			diff "$WORK/headers$v" "$WORK/table$v" > "$WORK/layout.diff" ||
				fail "table for $v differs from $inc (< headers, > table): $(cat "$WORK/layout.diff")"
			echo "ok: CPython $v table = offsetof() from $inc ($(wc -l < "$WORK/table$v") values)"
		else
			echo "skip: no internal headers of CPython $v ($py): its table is not checked against them"
		fi
		;;
	3.*)
		out=$(timeout 120 "$py" tests/py/test_pyframes.py "$PROBE" --unsupported 2>&1)
		rc=$?
		echo "$out" | sed "s|^|  [$py] |"
		[ $rc -eq 0 ] || fail "$py: CPython $v must be refused with a reason and capture nothing"
		;;
	*) echo "skip: $py is Python $v" ;;
	esac
done
for v in 3.10 3.11 3.12 3.13; do
	case $seen in *" $v "*) ;; *) echo "skip: CPython $v is not installed here: not tested" ;; esac
done
[ $ran -gt 0 ] || skip "no CPython 3.10 to 3.13 here: the Python frame reader is not tested"
echo "pyframes: tested under $ran interpreters"
