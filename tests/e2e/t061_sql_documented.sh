# The SQL that docs/record.md and docs/trace-format.md tell users to run on a trace, run as
# written: every command of their ```sh blocks that reads run.kgt or rows.db with the
# sqlite3 shell, python3's sqlite3, or 'kgantt export' / 'kgantt dump', in order, on a
# compacted trace (format 5) named run.kgt; each must succeed and print rows, and the
# documented kernel_phases query must count every kernel.
. tests/e2e/lib.sh
command -v sqlite3 > /dev/null || skip "no sqlite3 shell"
command -v python3 > /dev/null || skip "no python3"

# a PyTorch trace with Python call stacks, compacted
src=$(fixture torch_cnn_bad)
kernels=$(sqlite3 "$src" "SELECT COUNT(*) FROM kernels")
mkdir -p "$WORK/bin"
ln -s "$(cd "$(dirname "$K")" && pwd)/$(basename "$K")" "$WORK/bin/kgantt"

for doc in docs/record.md docs/trace-format.md; do
	dir=$WORK/$(basename "$doc" .md)
	mkdir -p "$dir/build"
	ln -s "$WORK/bin/kgantt" "$dir/build/kgantt"
	cp "$src" "$dir/run.kgt"
	"$K" pack "$dir/run.kgt" || fail "pack"
	[ "$(sqlite3 "$dir/run.kgt" "SELECT value FROM meta WHERE key = 'packed_version'")" = 2 ] ||
		fail "run.kgt is not compacted"
	# the commands, one per line (NUL-separated), as the shell would split them
	python3 - "$doc" > "$WORK/cmds" <<'EOF' || fail "$doc: cannot read its commands"
import re, shlex, sys
text = open(sys.argv[1], encoding="utf-8").read()
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    buf = ""
    for line in block.splitlines():
        line = line.strip()
        if not line:
            continue
        buf = buf + "\n" + line if buf else line
        try:
            toks = shlex.split(buf, comments=True)
        except ValueError:
            continue  # inside a quote: the command goes on on the next line
        buf = ""
        if not toks:
            continue
        reads = any("run.kgt" in t or "rows.db" in t for t in toks)
        tool = toks[0] in ("sqlite3", "python3") or (
            toks[0].endswith("kgantt") and len(toks) > 1 and toks[1] in ("export", "dump"))
        if reads and tool:
            sys.stdout.write(shlex.join(toks) + "\0")
EOF
	n=0 rows=0
	while IFS= read -r -d '' cmd; do
		(cd "$dir" && PATH=$WORK/bin:$PATH bash -c "$cmd") > "$WORK/out" 2> "$WORK/err" ||
			fail "$doc: '$cmd' exited $?: $(cat "$WORK/err")"
		case $cmd in
		*export*) [ -s "$dir/rows.db" ] || fail "$doc: '$cmd' wrote no rows.db" ;;
		*) [ -s "$WORK/out" ] || fail "$doc: '$cmd' printed nothing" ;;
		esac
		# "select name, count(*) from kernel_phases group by 1": every kernel, once
		case $cmd in
		*"count(*) from kernel_phases group by 1"*)
			rows=$(awk -F'|' '{ n += $2 } END { print n }' "$WORK/out")
			[ "$rows" = "$kernels" ] || fail "$doc: kernel_phases counts $rows kernels, the trace has $kernels" ;;
		esac
		echo "ok: $doc: $(echo "$cmd" | head -1 | cut -c1-90)"
		n=$((n + 1))
	done < "$WORK/cmds"
	[ "$n" -ge 3 ] || fail "$doc: only $n documented commands found"
done
exit 0
