# Helpers for the end-to-end tests (sourced). Run from the repository root.
set -u
K=${KGANTT:-build/kgantt}
FIXTURES=tests/fixtures/h200
WORK=$(mktemp -d /tmp/kgantt-e2e-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

# fixture NAME: path of the decompressed H200 trace NAME.kgt
fixture() {
	local dst=build/fixtures/$1.kgt
	if [ ! -f "$dst" ] || [ "$FIXTURES/$1.kgt.xz" -nt "$dst" ]; then
		mkdir -p "$(dirname "$dst")"
		xz -dc "$FIXTURES/$1.kgt.xz" > "$dst.tmp" && mv "$dst.tmp" "$dst" || fail "cannot decompress $1"
	fi
	echo "$dst"
}

# expect_error EXIT NEEDLE CMD...: CMD must exit with EXIT and say NEEDLE on stderr
expect_error() {
	local want=$1 needle=$2
	shift 2
	"$@" > "$WORK/out" 2> "$WORK/err"
	local rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want; stderr: $(cat "$WORK/err")"
	grep -qF -- "$needle" "$WORK/err" || fail "'$*' did not say '$needle'; stderr: $(cat "$WORK/err")"
	echo "ok: '$*' -> exit $rc: $(head -1 "$WORK/err")"
}

# every_command TRACE NAME: a version 5 or 6 (compact) trace read by every command; its rows
# come back through export --format sqlite ($WORK/NAME.json, .png, .html, .sqlite stay)
every_command() {
	local t=$1 n=$2 k want
	"$K" info "$t" | grep -qE "kgantt-trace version [56]," || fail "$n: not a version 5 or 6 (compact) trace"
	# --whole: every kernel, not only the steady steps' (docs/report.md, "Steps")
	"$K" report --json --whole --no-progress "$t" > "$WORK/$n.json" || fail "$n: report"
	"$K" plot "$t" -o "$WORK/$n.png" || fail "$n: plot"
	"$K" view -q "$t" -o "$WORK/$n.html" || fail "$n: view"
	"$K" export --format sqlite "$t" -o "$WORK/$n.sqlite" || fail "$n: export sqlite"
	k=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM kernels").fetchone()[0])' "$WORK/$n.sqlite")
	want=$(python3 -c 'import json,sys; print(sum(k["count"] for k in json.load(open(sys.argv[1]))["kernels"]))' "$WORK/$n.json")
	[ "$k" = "$want" ] || fail "$n: $k kernel rows exported, the report counts $want"
}

# recorded_examples ROOT SUB CARD: every ROOT/SUB/*.kgt.xz but never_* (windows that never
# opened) names CARD in `kgantt info` and is read by every command; each with its example's
# output (NAME.out) holds what the example launched (a killed run: what it had flushed).
# At least 16 must have an output.
recorded_examples() {
	local root=$1 sub=$2 card=$3 n=0 name t xz opts
	for xz in "$root/$sub"/*.kgt.xz; do
		name=$(basename "$xz" .kgt.xz)
		[[ $name == never_* ]] && continue
		t=$(FIXTURES=$root fixture "$sub/$name")
		"$K" info "$t" > "$WORK/info" || fail "kgantt info $name"
		grep -q "$card" "$WORK/info" || fail "$name: no $card in 'kgantt info'"
		every_command "$t" "$name"
		[ -f "$root/$sub/$name.out" ] || continue
		opts=()
		[ "$name" = longrun_killed ] && opts=(--allow-incomplete)
		python3 tests/gpu/validate.py "${opts[@]}" "$t" "$root/$sub/$name.out" > "$WORK/v" ||
			[ "$name" = longrun_killed ] || { cat "$WORK/v"; fail "$name: not what its example launched"; }
		n=$((n + 1))
	done
	[ $n -ge 16 ] || fail "only $n traces of $root/$sub checked against their examples"
	echo "ok: every trace of $root/$sub read by info, report, plot, view and export; $n hold what their examples launched"
}
