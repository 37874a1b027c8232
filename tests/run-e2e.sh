#!/usr/bin/env bash
# Runs tests/e2e/tNNN_*.sh in order. Exit 0 = pass, 77 = skipped (the test says why),
# anything else = fail. Each test's output goes to build/test-logs/e2e/.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/test-logs/e2e
p=0 f=0 s=0
for t in tests/e2e/t[0-9][0-9][0-9]_*.sh; do
	name=$(basename "$t" .sh)
	out=build/test-logs/e2e/$name.log
	bash "$t" > "$out" 2>&1
	rc=$?
	case $rc in
	0) echo "ok   $name"; p=$((p + 1)) ;;
	77) echo "skip $name: $(tail -1 "$out")"; s=$((s + 1)) ;;
	*) echo "FAIL $name (exit $rc)"; sed 's/^/     /' "$out" | tail -20; f=$((f + 1)) ;;
	esac
done
echo "e2e: $p passed, $f failed, $s skipped"
[ $f -eq 0 ]
