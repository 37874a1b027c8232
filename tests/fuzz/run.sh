#!/usr/bin/env bash
# Runs the libFuzzer targets one after the other (tests/fuzz/README.md).
#   tests/fuzz/run.sh [--fresh] DIR SECONDS TARGET...   DIR: where make fuzz-build put them
#   tests/fuzz/run.sh --check [CC]                      exit 0 when CC can link a fuzzer
# Each target starts from its committed seeds (tests/fuzz/corpus/TARGET, only read) and
# what earlier runs found (DIR/corpus/TARGET, where new inputs go); with --fresh (make
# test) from the seeds alone, new inputs going to a directory removed afterwards, so that
# the run's time does not grow with the corpus of earlier runs (libFuzzer reads its whole
# corpus before the clock it is given applies). Crashes land in DIR/crashes/. One line per
# target: seconds, executions, executions per second, corpus; then "fuzz: N passed,
# N failed" for tests/run-all.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = "--check" ]; then
	cc=${2:-clang}
	command -v "$cc" >/dev/null 2>&1 || exit 1
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' \
		>"$t/f.c"
	"$cc" -fsanitize=fuzzer,address,undefined -o "$t/f" "$t/f.c" >/dev/null 2>&1
	exit $?
fi

fresh=
if [ "${1:-}" = "--fresh" ]; then
	fresh=$(mktemp -d)
	trap 'rm -rf "$fresh"' EXIT
	shift
fi
dir=$1 seconds=$2
shift 2
mkdir -p "$dir/crashes" "$dir/logs"
passed=0 failed=0
for t in "$@"; do
	bin=$dir/$t
	work=${fresh:-$dir/corpus}/$t
	mkdir -p "$work"
	args=(-max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=20
	      -print_final_stats=1 -artifact_prefix="$dir/crashes/$t-")
	# SQLite files and SQL scripts are larger than the default 4 KB inputs
	case $t in
	fuzz_kgt|fuzz_nsys|fuzz_job*|fuzz_diff|fuzz_merge) args+=(-max_len=65536) ;;
	*) args+=(-max_len=16384) ;;
	esac
	dict=$here/$t.dict
	[ "$t" = fuzz_analysis ] && dict=$here/fuzz_kineto.dict # its seeds are Kineto JSON
	case $t in # several traces in one input: kgantt traces (SQL) and Kineto JSON
	fuzz_job|fuzz_diff|fuzz_merge)
		dict=$dir/logs/$t.dict
		cat "$here/fuzz_traces.dict" "$here/fuzz_kgt.dict" "$here/fuzz_kineto.dict" >"$dict" ;;
	esac
	[ -f "$dict" ] && args+=(-dict="$dict")
	log=$dir/logs/$t.log
	if [ ! -x "$bin" ]; then
		echo "$t: not built ($bin)"
		failed=$((failed + 1))
		continue
	fi
	start=$(date +%s)
	"$bin" "${args[@]}" "$work" "$here/corpus/$t" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
	corp=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2)
	if [ $rc -eq 0 ]; then
		echo "$t: ok, ${took} s, ${execs:-?} execs (${rate:-?}/s), corpus ${corp:-?}, peak RSS ${rss:-?} MB"
		passed=$((passed + 1))
	else
		# the seed, to run it again the same way: $bin -seed=N over the same seeds
		seed=$(sed -n 's/^INFO: Seed: *//p' "$log" | head -1)
		echo "$t: FAILED (exit $rc) after ${took} s, seed ${seed:-?}: $log"
		grep -E -m 4 'ERROR: |runtime error|SUMMARY|Test unit written|^fuzz_[a-z_]+: ' "$log" |
			sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
