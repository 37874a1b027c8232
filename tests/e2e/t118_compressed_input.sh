# Compressed traces read in place (src/trace/uncompress.h): a kgantt trace, a PyTorch
# profiler JSON and an Nsight Systems export, each compressed by the system's own xz,
# zstd and gzip, give what their plain file gives (the expected answer: the plain file,
# decompressed by those tools, not by kgantt) in report, report --json, info, export,
# diff, merge and the job report of a folder; known by content, whatever the name; data
# that compresses 100-fold. Damaged or
# cut compressed data is an error naming the file and the compressed byte, never a
# crash; pack refuses to rewrite a compressed trace; a $TMPDIR that cannot hold the copy
# is said.
. tests/e2e/lib.sh
for tool in xz zstd gzip python3; do
	command -v $tool > /dev/null || skip "no $tool here"
done
body() { sed 1,3d "$1" | grep -v '^  trace  \|^               (Kineto'; } # the header names the file

# the same report, text and JSON, plain and compressed three ways
same_as_plain() { # NAME PLAIN [report options]
	local name=$1 plain=$2
	shift 2
	"$K" report --no-progress "$@" "$plain" > "$WORK/$name.plain.txt" || fail "$name: report of the plain file"
	"$K" report --json --no-progress "$@" "$plain" > "$WORK/$name.plain.json" || fail "$name: report --json"
	for z in xz zstd gzip; do
		local f=$WORK/$name.$z
		case $z in
		xz) xz -c "$plain" > "$f" ;;
		zstd) zstd -q -c "$plain" > "$f" ;;
		gzip) gzip -c "$plain" > "$f" ;;
		esac
		"$K" report --no-progress "$@" "$f" > "$WORK/$name.$z.txt" || fail "$name: report of the $z file: $(cat "$WORK/$name.$z.txt")"
		diff <(body "$WORK/$name.plain.txt") <(body "$WORK/$name.$z.txt") > "$WORK/d" ||
			fail "$name: the $z file's report differs from the plain one's: $(head -5 "$WORK/d")"
		"$K" report --json --no-progress "$@" "$f" > "$WORK/$name.$z.json" || fail "$name: report --json of the $z file"
		python3 - "$WORK/$name.plain.json" "$WORK/$name.$z.json" <<'PY' || fail "$name: the $z file's JSON differs"
import json, sys
a, b = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
for x in (a, b):
    x.get("trace", {}).pop("path", None)
    x.pop("path", None)
assert a == b, [k for k in a if a[k] != b.get(k)]
PY
	done
	echo "ok: $name: xz, zstd and gzip give the plain file's report, text and JSON"
}

t=$(fixture current/copies_bad)
same_as_plain kgt "$t"

grep -q "^  trace .*$WORK/kgt.zstd (kgantt trace, zstd)$" "$WORK/kgt.zstd.txt" ||
	fail "the header does not say zstd: $(sed -n 2p "$WORK/kgt.zstd.txt")"
"$K" info "$WORK/kgt.xz" > "$WORK/info" || fail "info of the xz file"
want=$(python3 -c 'import os, sys
def size(n):
    if n < 1024: return "%d B" % n
    v, u = n / 1024, 0
    while v >= 1024 and u < 3: v, u = v / 1024, u + 1
    return "%.1f %s" % (v, ["KiB", "MiB", "GiB", "TiB"][u])
print("trace: %s (xz, %s; %s decompressed)" % (sys.argv[1], size(os.path.getsize(sys.argv[1])), size(os.path.getsize(sys.argv[2]))))' "$WORK/kgt.xz" "$t")
[ "$(head -1 "$WORK/info")" = "$want" ] || fail "info: '$(head -1 "$WORK/info")', expected '$want'"
diff <("$K" info "$t" | sed 1d) <(sed 1d "$WORK/info") > "$WORK/d" || fail "info of the xz file differs: $(head "$WORK/d")"
# a gzip JSON is streamed, not copied: its size alone
gz=tests/fixtures/public/kineto/resnet50_workers0.json.gz
want="trace: $gz (gzip, $(python3 -c 'import os, sys; print("%.1f KiB" % (os.path.getsize(sys.argv[1]) / 1024))' "$gz"))"
[ "$("$K" info "$gz" | head -1)" = "$want" ] || fail "info of a gzip JSON: '$("$K" info "$gz" | head -1)', expected '$want'"
echo "ok: the header and info say the compression and both sizes (a streamed gzip: its own)"

# export and diff read them too; a compressed file named as a plain one is known by content
"$K" export -q -f sqlite -o "$WORK/plain.sqlite" "$t" || fail "export of the plain file"
"$K" export -q -f sqlite -o "$WORK/xz.sqlite" "$WORK/kgt.xz" || fail "export of the xz file"
rows() { sqlite3 "$1" .dump | grep -v "^INSERT INTO meta VALUES('exported_from'"; } # names the file
[ "$(rows "$WORK/plain.sqlite" | md5sum)" = "$(rows "$WORK/xz.sqlite" | md5sum)" ] ||
	fail "export: the xz file's rows differ from the plain file's"
cp "$WORK/kgt.zstd" "$WORK/named_plain.kgt"
"$K" diff --no-progress "$t" "$WORK/named_plain.kgt" > "$WORK/diff.txt" || fail "diff plain against zstd"
grep -qi "no change\|same" "$WORK/diff.txt" || grep -q "after " "$WORK/diff.txt" || fail "diff: $(head "$WORK/diff.txt")"
"$K" merge -o "$WORK/m_plain.kgt" "$t" "$t" > /dev/null 2>&1 || fail "merge of the plain file"
"$K" merge -o "$WORK/m_packed.kgt" "$WORK/kgt.xz" "$WORK/kgt.gzip" > /dev/null 2> "$WORK/err" ||
	fail "merge of the xz and gzip files: $(cat "$WORK/err")"
from_span() { sed -n '/^  span/,$p'; } # the header names the inputs
diff <("$K" report --no-progress "$WORK/m_plain.kgt" | from_span) \
	<("$K" report --no-progress "$WORK/m_packed.kgt" | from_span) > "$WORK/d" ||
	fail "merge: compressed inputs give another trace: $(head -5 "$WORK/d")"
echo "ok: export, diff and merge read compressed traces; a .kgt holding zstd is read as one"

# a PyTorch profiler trace (others' recording: the public Kineto fixture, gzip as published)
gzip -dc tests/fixtures/public/kineto/resnet50_workers0.json.gz > "$WORK/resnet.json" || fail "gzip -d"
same_as_plain kineto "$WORK/resnet.json"

# data that compresses 100-fold: 4 KiB of zstd give more than the 1 MiB kgantt decodes
# into at a time, which must be drained before the next (60,000 kernels of one stream)
python3 - "$WORK/dense.json" <<'PY' || fail "cannot write dense.json"
import json, sys
ev = [{"ph": "X", "cat": "kernel", "name": "k" * 50, "pid": 0, "tid": 7, "ts": i * 10, "dur": 5,
       "args": {"device": 0, "stream": 7, "correlation": i}} for i in range(60000)]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
same_as_plain dense "$WORK/dense.json"
# in blocks of 1 MiB, as xz -T writes them: decoded by liblzma's threads
xz -T2 --block-size=1MiB -c "$WORK/dense.json" > "$WORK/dense.blocks.xz"
"$K" report --no-progress "$WORK/dense.blocks.xz" > "$WORK/dense.blocks.txt" || fail "report of the xz in blocks"
diff <(body "$WORK/dense.plain.txt") <(body "$WORK/dense.blocks.txt") > /dev/null ||
	fail "the xz file in blocks gives another report"
echo "ok: an xz file in blocks (decoded on threads) gives the plain file's report"

# an Nsight Systems export (laid out from an H200 trace by tests/tools/kgt_to_nsys.py)
xz -dc tests/fixtures/h200/host/hf_decode.kgt.xz > "$WORK/hf.kgt" || fail "xz -d"
KGANTT=$K python3 tests/tools/kgt_to_nsys.py "$WORK/hf.kgt" "$WORK/hf.sqlite" 2> "$WORK/conv.err" ||
	fail "kgt_to_nsys.py: $(tail -3 "$WORK/conv.err")"
same_as_plain nsys "$WORK/hf.sqlite" --host --whole

# a job's folder of compressed ranks: the public two-rank pipeline job, its ranks as xz
# and zstd, reports what the folder as published (gzip) reports
PUB=tests/fixtures/public/hta/job_trace_filter
mkdir -p "$WORK/job"
gzip -dc "$PUB/sampled_rank-0.json.gz" | xz -c > "$WORK/job/sampled_rank-0.json.xz"
gzip -dc "$PUB/sampled_rank-1.json.gz" | zstd -q -c > "$WORK/job/sampled_rank-1.json.zst"
"$K" report --json --no-progress "$PUB" > "$WORK/job.gz.json" || fail "job report of the published folder"
"$K" report --json --no-progress "$WORK/job" > "$WORK/job.xz.json" || fail "job report of the compressed ranks"
python3 - "$WORK/job.gz.json" "$WORK/job.xz.json" <<'PY' || fail "the job report of compressed ranks differs"
import json, re, sys
a, b = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
def strip(x):  # the ranks' file names: the commands a fix names
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items()}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return re.sub(r"\S*sampled_rank-\d\.json\.(gz|xz|zst)", "RANK", x) if isinstance(x, str) else x
fa, fb = strip(a.get("findings")), strip(b.get("findings"))
assert fa and fa == fb, "findings differ"
PY
echo "ok: a job's ranks as xz and zstd give the published folder's findings"

# damage: cut short and corrupted, in each compression; never a crash, the byte said
head -c 4000 "$WORK/kgt.xz" > "$WORK/cut.xz"
head -c 4000 "$WORK/kgt.zstd" > "$WORK/cut.zst"
head -c 4000 "$WORK/kgt.gzip" > "$WORK/cut.gz"
for z in xz zst gz; do
	expect_error 1 "'$WORK/cut.$z': " "$K" report --no-progress "$WORK/cut.$z"
	grep -q "data ends early at compressed byte 4000 (a truncated copy?)" "$WORK/err" ||
		fail "cut $z: $(cat "$WORK/err")"
done
for z in xz zstd gzip; do
	python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
for i in range(300, 340):
    d[i] ^= 0x5a
open(sys.argv[2], "wb").write(d)' "$WORK/kgt.$z" "$WORK/bad.$z"
	expect_error 1 "'$WORK/bad.$z': " "$K" info "$WORK/bad.$z"
	grep -q "data is corrupt at compressed byte [0-9]" "$WORK/err" || fail "corrupt $z: $(cat "$WORK/err")"
	echo "ok: corrupt $z: $(cat "$WORK/err")"
done
printf '\3757zXZ\0' > "$WORK/magic_only.xz"
expect_error 1 "'$WORK/magic_only.xz': xz data" "$K" report "$WORK/magic_only.xz"
# xz of something that is no trace: said as of a plain file
echo "just text, not a trace, long enough to be looked at" | xz -c > "$WORK/text.xz"
expect_error 1 "'$WORK/text.xz' is not a trace kgantt can read" "$K" report "$WORK/text.xz"
echo "ok: cut, corrupt and foreign compressed files: an error naming the file, no crash"

# pack rewrites a trace in place: not a compressed one (it would be a plain file under
# its name)
cp "$WORK/kgt.xz" "$WORK/pack.kgt.xz"
expect_error 1 "'$WORK/pack.kgt.xz' is compressed (xz): pack rewrites a trace in place" \
	"$K" pack "$WORK/pack.kgt.xz"
cmp -s "$WORK/kgt.xz" "$WORK/pack.kgt.xz" || fail "pack changed the compressed file"
# the copy goes to $TMPDIR: one that cannot hold it is said
TMPDIR=$WORK/none expect_error 1 "'$WORK/kgt.xz': cannot make its decompressed copy in $WORK/none" \
	"$K" report "$WORK/kgt.xz"
echo "ok: pack refuses a compressed trace; a \$TMPDIR that cannot hold the copy is said"
