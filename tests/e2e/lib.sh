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
		mkdir -p build/fixtures
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
