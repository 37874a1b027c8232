# Every H200 fixture reads back, and holds exactly what its example says it launched,
# with api_start <= queued <= submitted <= start <= end for every kernel.
. tests/e2e/lib.sh
n=0
for xz in "$FIXTURES"/*.kgt.xz; do
	name=$(basename "$xz" .kgt.xz)
	trace=$(fixture "$name")
	"$K" info "$trace" > "$WORK/info" || fail "kgantt info $name"
	# cupti_first: kgantt was refused by CUPTI there, so it saw no device
	[ "$name" = cupti_first ] || grep -q "NVIDIA H200" "$WORK/info" ||
		fail "$name: no H200 device in 'kgantt info'"
	[ -f "$FIXTURES/$name.out" ] || continue
	opts=()
	case $name in longrun_killed) opts=(--allow-incomplete) ;; esac
	if [ "$name" = longrun_killed ]; then
		# killed before it printed its counts: check what a kill must leave instead
		python3 - "$trace" <<'PY' || fail "$name"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
complete, status, note = db.execute('select complete, exit_status, spool_note from processes').fetchone()
k = db.execute('select count(*) from kernels').fetchone()[0]
assert complete == 0 and status.startswith('signal 9') and k > 1000 and 'no end record' in note, (complete, status, k, note)
print('killed trace:', k, 'kernels,', status)
PY
	else
		python3 tests/gpu/validate.py "${opts[@]}" "$trace" "$FIXTURES/$name.out" > "$WORK/v" ||
			{ cat "$WORK/v"; fail "$name does not match its example's expectations"; }
		echo "$name: $(tail -1 "$WORK/v")"
	fi
	n=$((n + 1))
done
[ $n -ge 15 ] || fail "only $n fixtures checked"
