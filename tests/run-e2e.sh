#!/usr/bin/env bash
# Runs tests/e2e/tNNN_*.sh in order. Exit 0 = pass, 77 = skipped (the test says why),
# anything else = fail. Each test's output goes to build/test-logs/e2e/ (LABEL/ with
# --label).
#   tests/run-e2e.sh [--label LABEL] [NAME...]   NAME: tNNN_*, the tests to run (default all)
# The summary line is "LABEL: N passed, N failed, N skipped" (LABEL e2e by default).
set -u
cd "$(dirname "$0")/.." || exit 2
label=e2e
if [ "${1:-}" = --label ]; then
	label=$2
	shift 2
fi
logs=build/test-logs/e2e
[ "$label" = e2e ] || logs=build/test-logs/$label
mkdir -p "$logs"
tests=()
if [ $# -eq 0 ]; then
	tests=(tests/e2e/t[0-9][0-9][0-9]_*.sh)
else
	for n in "$@"; do tests+=("tests/e2e/$n.sh"); done
fi
p=0 f=0 s=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	out=$logs/$name.log
	bash "$t" > "$out" 2>&1
	rc=$?
	case $rc in
	0) echo "ok   $name"; p=$((p + 1)) ;;
	77) echo "skip $name: $(tail -1 "$out")"; s=$((s + 1)) ;;
	*)
		echo "FAIL $name (exit $rc)"
		# the checks that failed first (a long log's tail may not hold them), then the tail
		grep -E '^ *FAIL' "$out" | head -10 | sed 's/^ */     failed: /'
		sed 's/^/     /' "$out" | tail -20
		f=$((f + 1))
		;;
	esac
done
echo "$label: $p passed, $f failed, $s skipped"
[ $f -eq 0 ]
