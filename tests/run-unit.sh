#!/usr/bin/env bash
# Runs the unit-test binaries given; prints their lines and a total.
set -u
p=0 f=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	echo "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$' | sed "s|^|$(basename "$t"): |"
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
	if [ -z "$line" ]; then
		echo "$(basename "$t"): did not finish (exit $rc)"
		f=$((f + 1))
		continue
	fi
	p=$((p + $(echo "$line" | cut -d' ' -f1)))
	f=$((f + $(echo "$line" | cut -d' ' -f3)))
done
echo "unit: $p passed, $f failed"
[ $f -eq 0 ]
