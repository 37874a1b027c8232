# 'kgantt plot' draws every H200 trace as PNG, SVG and PDF. What it drew is checked three
# ways: the pictures themselves (PNG size and colours, decoded here with zlib; SVG and PDF
# headers), the --manifest account against the trace's own tables (sqlite3) and against
# 'kgantt report --json' (same findings, same numbers), and bad input and options.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "python3 is needed to check the pictures"
"$K" plot --help | grep -q "usage: kgantt plot" || fail "plot --help"

# check.py png FILE WIDTH HEIGHT MIN_COLOURS (0: the size only) | svg FILE WIDTH
#          plot BASE MIN_COLOURS TRACE [FROM_MS TO_MS]: BASE.png, .svg, .pdf, .png.json against
#                 the trace and BASE.report.json (a TRACE of - checks the findings only)
cat > "$WORK/check.py" <<'EOF'
import json, sqlite3, struct, sys, zlib
import xml.etree.ElementTree as ET
sys.path.insert(0, "tests/gpu")
import kgt_rows

def png_info(path, decode):
    """(width, height, distinct colours): a PNG decoder small enough to trust, no PIL.
    Without decode, only the size (the header): decoding in pure Python takes a second."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, []
    while pos < len(data):
        n, t = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if t == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "unexpected PNG type"
        elif t == b"IDAT":
            idat.append(body)
    if not decode:
        return w, h, None
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    prev, colours = bytearray(stride), set()
    for y in range(h):
        i = y * (stride + 1)
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        for x in range(stride):  # undo the row filter (PNG spec, section 9)
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line
    return w, h, len(colours)

def check_svg(path, width):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg") and root.get("width") == width + "px", root.attrib
    assert sum(1 for e in root.iter() if e.tag.endswith("path")) > 50, "almost nothing drawn"

def in_window(start, end, t0, t1):
    # what kgantt draws: runs in [t0, t1); a zero-length op when it starts in it
    return start < t1 and (end > t0 or (end == start and start >= t0))

def check_manifest(trace, manifest, report, window):
    m, r = json.load(open(manifest)), json.load(open(report))
    db = kgt_rows.connect(trace)  # a compacted trace's kernels are blocks: as rows
    rows = {}
    for table in ("kernels", "memcpys", "memsets"):
        rows[table] = db.execute(
            "SELECT p.pid, t.device, t.stream, t.start, t.end%s FROM %s t JOIN processes p "
            "USING (process) WHERE t.start IS NOT NULL AND t.end IS NOT NULL"
            % (", t.queued" if table == "kernels" else "", table)).fetchall()
    begin = min(row[3] for table in rows.values() for row in table)
    t0, t1 = begin, max(row[4] for table in rows.values() for row in table)
    if window:
        t0, t1 = begin + int(float(window[0]) * 1e6), begin + int(float(window[1]) * 1e6)
    assert m["window"]["start_ns"] == t0 - begin, (m["window"], t0 - begin)
    lanes = {(l["pid"], l["device"], l["stream"]): l for l in m["lanes"] if l["kind"] == "stream"}
    for table, key in (("kernels", "kernels"), ("memcpys", "copies"), ("memsets", "memsets")):
        want = {}
        for row in rows[table]:
            if in_window(row[3], row[4], t0, t1):
                want[row[:3]] = want.get(row[:3], 0) + 1
        got = {k: l[key] for k, l in lanes.items() if l[key]}
        assert got == want, "%s per stream: drew %s, the trace has %s" % (table, got, want)
        assert m["totals"][key] == sum(want.values())
    for l in lanes.values():  # each op is a block or part of a density band
        assert l["blocks"] + l["merged"] == l["kernels"] + l["copies"] + l["memsets"], l
        assert (l["merged"] > 0) == (l["density_columns"] > 0), l
    waits = sum(1 for k in rows["kernels"] if k[5] is not None and k[3] - k[5] > 100000
                and in_window(k[3], k[4], t0, t1))
    assert m["mark_counts"]["queue-wait"]["count"] == waits, (m["mark_counts"], waits)
    check_findings(m, r)
    print("%d kernels, %d findings, marks %s" % (m["totals"]["kernels"], len(m["findings"]),
          {k: v["count"] for k, v in m["mark_counts"].items()}))

def check_findings(m, r):
    """The same findings as the report, in its order, each on a lane of its GPU, with the
    same call sites; under the chart, its first site when it has one."""
    assert len(m["findings"]) == len(r["findings"]), (len(m["findings"]), len(r["findings"]))
    for f, g in zip(m["findings"], r["findings"]):
        assert f["number"] == g["rank"] and f["rule"] == g["rule"], (f, g)
        assert [(x["site"], x["label"]) for x in f["sites"]] == \
            [(x["site"], x["label"]) for x in g["sites"]], (f["sites"], g["sites"])
        assert all(abs(x["gain_ns"] - y["gain_ns"]) <= 1 for x, y in zip(f["sites"], g["sites"]))
        if not g["sites"] or not m["has_stacks"]:
            assert f["where"] is None, f
        else:
            top = g["sites"][0]
            pct, label = f["where"].split(" at ", 1)
            assert abs(int(pct.rstrip("%")) - 100 * top["share"]) <= 0.51, (f["where"], top)
            assert label.startswith(top["label"]), (f["where"], top)
        if g["start_ns"] is not None and g["gpu"] is not None:  # drawn on a lane of its GPU
            lane = m["lanes"][f["lane"]]
            assert f["drawn"] and lane["kind"] == "stream" and lane["gpu"] == g["gpu"], (f, g)

what = sys.argv[1]
if what == "png":
    w, h, n = png_info(sys.argv[2], int(sys.argv[5]) > 0)
    assert (w, h) == (int(sys.argv[3]), int(sys.argv[4])), "size %dx%d, asked %sx%s" % (
        w, h, sys.argv[3], sys.argv[4])
    assert n is None or n >= int(sys.argv[5]), "only %d colours: blank?" % n
elif what == "svg":
    check_svg(sys.argv[2], sys.argv[3])
else:  # one python for all the checks of one plot: starting python costs more than they do
    base, colours, trace = sys.argv[2:5]
    m = json.load(open(base + ".png.json"))
    w, h, n = png_info(base + ".png", int(colours) > 0)
    assert (w, h) == (1600, m["height"]), "size %dx%d" % (w, h)
    assert n is None or n >= int(colours), "only %d colours: blank?" % n
    check_svg(base + ".svg", "1600")
    data = open(base + ".pdf", "rb").read()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-1024:] and len(data) > 5000
    if trace == "-":
        check_findings(m, json.load(open(base + ".report.json")))
    else:
        check_manifest(trace, base + ".png.json", base + ".report.json", sys.argv[5:7])
EOF
check() { python3 "$WORK/check.py" "$@" || fail "check $*"; }

# plot_ok TRACE NAME [OPTION...]: the three formats of one trace with OPTIONs, and
# report --json with the same options, for check.py plot
plot_ok() {
	local t=$1 name=$2
	shift 2
	# the whole run: what check.py counts is every row of the trace (the steady steps'
	# chart, plot's default, is checked below)
	"$K" plot "$t" -o "$WORK/$name.png" --manifest --whole "$@" 2> "$WORK/err" ||
		fail "plot $name $* exited $?: $(cat "$WORK/err")"
	"$K" plot "$t" -o "$WORK/$name.svg" --whole "$@" || fail "plot $name.svg"
	"$K" plot "$t" -o "$WORK/$name.pdf" --whole "$@" || fail "plot $name.pdf"
	"$K" report --json --whole "$t" "$@" > "$WORK/$name.report.json" || fail "report --json $name"
}

# every fixture, whole trace; the pixels of the rule examples are looked at too
KEY=" streams_bad copies_bad copies_fixed launches_bad timeslice_bad multigpu_bad nvtx_bad "
n=0
for xz in "$FIXTURES"/*.kgt.xz; do
	name=$(basename "$xz" .kgt.xz)
	t=$(fixture "$name")
	if [ "$(sqlite3 "$t" 'SELECT (SELECT COUNT(*) FROM kernels) + (SELECT COUNT(*) FROM memcpys) + (SELECT COUNT(*) FROM memsets)')" = 0 ]; then
		# no GPU work; in cupti_first because CUPTI refused the recorder (t016 too)
		needle="no GPU operation"
		[ "$name" = cupti_first ] && needle="recording was refused"
		expect_error 1 "$needle" "$K" plot "$t" -o "$WORK/$name.png"
		continue
	fi
	colours=0
	[[ $KEY == *" $name "* ]] && colours=100
	plot_ok "$t" "$name"
	# (not inside the echo's $(...): a failure there only ended the subshell, and a
	# compacted trace's checks failed unseen that way)
	out=$(python3 "$WORK/check.py" plot "$WORK/$name" "$colours" "$t") || fail "check plot $name: $out"
	echo "ok: $name: $out"
	n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "only $n fixtures drawn"

# call stacks: each finding's first call site under the chart (the manifest's "where"),
# on traces recorded with stacks (check_findings compares every plot's sites with the report)
for n in syncs_bad torch_cnn_bad py_threads; do
	if [ ! -f "$FIXTURES/$n.kgt.xz" ]; then
		echo "skip: $FIXTURES/$n.kgt.xz is not there: no call-site checks on $n"
		continue
	fi
	python3 - "$WORK/$n.png.json" <<'EOF' || fail "$n: no call site under the chart"
import json, sys
m = json.load(open(sys.argv[1]))
where = [f["where"] for f in m["findings"] if f["where"]]
assert m["has_stacks"] and where, m["findings"]
print("\n".join("    " + w for w in where))
EOF
	echo "ok: $n: the findings' call sites are drawn under the chart (above)"
done
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert not m["has_stacks"] and all(f["where"] is None and not f["sites"] for f in m["findings"])' \
	"$WORK/copies_bad.png.json" || fail "copies_bad: call sites without stacks"
echo "ok: copies_bad (no stacks): no call site"

# the rules' marks where they fired
marks() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["mark_counts"][sys.argv[2]]["count"])' "$@"; }
[ "$(marks "$WORK/copies_fixed.png.json" overlap)" -gt 0 ] || fail "copies_fixed: no overlap link"
[ "$(marks "$WORK/copies_bad.png.json" overlap)" = 0 ] || fail "copies_bad: its copies overlap nothing"
[ "$(marks "$WORK/occupancy_bad.png.json" low-occupancy)" -gt 0 ] || fail "occupancy_bad: no circle"
[ "$(marks "$WORK/occupancy_fixed.png.json" low-occupancy)" = 0 ] || fail "occupancy_fixed: a circle"
[ "$(marks "$WORK/nvtx_bad.png.json" queue-wait)" -gt 0 ] || fail "nvtx_bad: no queue-wait mark"
# the GPT step's 5.6 s of imports and set-up are shaded as start-up over its GPU's lanes
python3 - "$WORK/gpt_full_fast.png.json" <<'EOF' || fail "gpt_full_fast: no start-up band"
import json, sys
m = json.load(open(sys.argv[1]))
bands = [k for k in m["marks"] if k["type"] in ("start-up", "wind-down")]
assert len(bands) == 1 and bands[0]["type"] == "start-up", bands
b = bands[0]
assert 5.64e9 < b["end_ns"] - b["start_ns"] < 5.65e9 and b["lane2"] >= b["lane"], b
print("ok: gpt_full_fast: start-up shaded from %.1f to %.1f ms" % (b["start_ns"] / 1e6, b["end_ns"] / 1e6))
EOF
[ "$(marks "$WORK/syncs_bad.png.json" start-up)" = 0 ] || fail "syncs_bad: a start-up band"

# by default a run whose steady steps leave out 500 ms or more is drawn from its first
# steady step, with the findings report gives of them (issue 24: the GPT step's 5.6 s of
# start-up took three quarters of the width, the badges sat at 0 s on nothing)
t=$(fixture gpt_full_fast)
"$K" plot "$t" -o "$WORK/steady.png" --manifest || fail "plot gpt_full_fast (steady)"
"$K" report --json "$t" > "$WORK/steady.report.json" || fail "report --json gpt_full_fast"
python3 - "$WORK/steady.png.json" "$WORK/steady.report.json" <<'EOF' || fail "gpt_full_fast: the steady steps' chart"
import json, sys
m, r = (json.load(open(p)) for p in sys.argv[1:3])
w = r["trace"]["window"]
assert r["steps"]["applied"] and w["nvtx"] is None, r["steps"]
assert m["window"]["start_ns"] == w["begin_ns"] - w["trace_begin_ns"], (m["window"], w)
assert [f["rule"] for f in m["findings"]] == [f["rule"] for f in r["findings"]], (m["findings"], r["findings"])
assert not [k for k in m["marks"] if k["type"] == "start-up"], "a start-up band in the steady steps"
print("ok: gpt_full_fast: drawn from its first steady step at %.3f s, the report's %d findings"
      % (m["window"]["start_ns"] / 1e9, len(m["findings"])))
EOF

# the program's steps on the time axis (issue 24): examples/syncs runs 200 steps
# (examples/syncs.cu). With --steps 10-12 the chart marks steps 10, 11 and 12, numbered,
# each at its GPU start as report --json gives it, with lines over the lanes; the whole run
# ticks all 200 and numbers every k-th (too many for all); a trace without steps has none
xz -dc tests/fixtures/h200/host/syncs_fp.kgt.xz > "$WORK/sfp.kgt"
"$K" plot --steps 10-12 --manifest "$WORK/sfp.kgt" -o "$WORK/sfp3.png" || fail "plot --steps 10-12"
"$K" plot --manifest "$WORK/sfp.kgt" -o "$WORK/sfp.png" || fail "plot syncs_fp"
"$K" report --json --list-steps --steps 10-12 "$WORK/sfp.kgt" > "$WORK/sfp.report.json" ||
	fail "report --steps 10-12"
python3 - "$WORK/sfp3.png.json" "$WORK/sfp.png.json" "$WORK/sfp.report.json" \
	"$WORK/streams_bad.png.json" <<'EOF' || fail "plot: the step marks"
import json, sys
three, whole, r, none = (json.load(open(p)) for p in sys.argv[1:5])
begin = (r["trace"]["window"] or {}).get("trace_begin_ns", r["trace"]["begin_ns"])
start = {x["step"]: x["start_ns"] - begin for x in r["steps"]["steps"]}
m = three["steps"]
assert m["found"] == 200 and m["in_window"] == 3 and m["ticks"] and m["lines"], m
assert [(x["step"], x["label"]) for x in m["marks"]] == [(10, "10"), (11, "11"), (12, "12")], m["marks"]
assert all(x["start_ns"] == start[x["step"]] for x in m["marks"]), (m["marks"], start)
print("ok: plot --steps 10-12: steps 10, 11, 12 marked and numbered at the report's GPU starts")
w = whole["steps"]
k = w["label_every"]
numbered = [x["step"] for x in w["marks"] if x["label"]]
assert w["found"] == 200 and w["ticks"] and k > 1, {x: w[x] for x in w if x != "marks"}
assert [x["step"] for x in w["marks"]] == list(range(1, 201)), "not every step ticked"
assert all(x["start_ns"] == start[x["step"]] for x in w["marks"]), "a tick not at its step's start"
# every k-th, up to the right edge, where the last may not fit
assert numbered == list(range(k, numbered[-1] + 1, k)) and numbered[-1] >= 200 - 2 * k, numbered
assert all(x["label"] == str(x["step"]) for x in w["marks"] if x["label"]), w["marks"]
assert none["steps"] is None, none["steps"]
print("ok: plot syncs_fp: 200 steps ticked, every %d-th numbered (%.1f px apart); streams_bad: none"
      % (k, w["spacing_px"]))
EOF

# windows: a zoom into 10,000 launches shows single blocks; --nvtx; the same findings as report
t=$(fixture launches_bad)
plot_ok "$t" zoom --from 40ms --to 40.2ms
check plot "$WORK/zoom" 100 "$t" 40 40.2
python3 - "$WORK/zoom.png.json" "$WORK/launches_bad.png.json" <<'EOF' || fail "zoom: blocks vs bands"
import json, sys
zoom, whole = (json.load(open(p))["totals"] for p in sys.argv[1:3])
assert zoom["blocks"] > 0 and zoom["merged"] == 0, zoom      # 200 µs: every kernel a block
assert whole["merged"] > 9000 and whole["blocks"] < 100, whole  # 80 ms: a density band
EOF
plot_ok "$(fixture nvtx_bad)" nvtx --nvtx step
check plot "$WORK/nvtx" 0 -
plot_ok "$(fixture copies_bad)" tail --from 30
check plot "$WORK/tail" 0 -

# filters, size, resolution, no annotations
t=$(fixture multigpu_bad)
"$K" plot "$t" -o "$WORK/dev1.png" --device 1 --manifest || fail "--device 1"
python3 - "$WORK/dev1.png.json" <<'EOF' || fail "--device 1 drew other devices"
import json, sys
m = json.load(open(sys.argv[1]))
assert {l["device"] for l in m["lanes"] if l["kind"] == "stream"} == {1}, m["lanes"]
EOF
"$K" plot "$(fixture copies_fixed)" -o "$WORK/s13.png" --streams 13 --no-host --manifest || fail "--streams"
python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["lanes"]; assert [x["stream"] for x in l] == [13], l' \
	"$WORK/s13.png.json" || fail "--streams 13 --no-host drew other lanes"
"$K" plot "$t" -o "$WORK/size.png" --width 1000 --height 500 --title "two GPUs" || fail "--width/--height"
check png "$WORK/size.png" 1000 500 100
"$K" plot "$t" -o "$WORK/dpi.png" --width 800 --height 300 --dpi 192 || fail "--dpi"
check png "$WORK/dpi.png" 1600 600 0
"$K" plot "$t" -o "$WORK/plain.png" --no-annotations --manifest || fail "--no-annotations"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert not m["annotations"] and not m["marks"] and not m["findings"]' \
	"$WORK/plain.png.json" || fail "--no-annotations still annotated"
"$K" plot "$t" -o "$WORK/chart.out" --format svg || fail "--format svg"
check svg "$WORK/chart.out" 1600

# bad input and options
c=$(fixture copies_bad)
expect_error 1 "cannot open '$WORK/none.kgt'" "$K" plot "$WORK/none.kgt" -o "$WORK/x.png"
head -c 30000 "$c" > "$WORK/cut.kgt"
expect_error 1 "$WORK/cut.kgt" "$K" plot "$WORK/cut.kgt" -o "$WORK/x.png"
echo "not a trace" > "$WORK/text.kgt"
expect_error 1 "is not a trace kgantt can read" "$K" plot "$WORK/text.kgt" -o "$WORK/x.png"
expect_error 2 "cannot tell the format of" "$K" plot "$c" -o "$WORK/x.gif"
expect_error 2 "--format: 'jpg'" "$K" plot "$c" -o "$WORK/x.png" --format jpg
expect_error 2 "is not a time" "$K" plot "$c" -o "$WORK/x.png" --from 12parsecs
expect_error 2 "--to must be later" "$K" plot "$c" -o "$WORK/x.png" --from 5 --to 2
expect_error 2 "no output given" "$K" plot "$c"
expect_error 2 "--width" "$K" plot "$c" -o "$WORK/x.png" --width 12
expect_error 1 "plot: the window 10000 ms – end holds no GPU operation or API call" "$K" plot "$c" -o "$WORK/x.png" --from 10s
expect_error 1 "no GPU operation to draw" "$K" plot "$t" -o "$WORK/x.png" --from 179.9 --to 179.95 --device 1
expect_error 1 "no GPU operation to draw" "$K" plot "$c" -o "$WORK/x.png" --streams 99
expect_error 1 "has no NVTX or annotation range named 'nope'" "$K" plot "$c" -o "$WORK/x.png" --nvtx nope
expect_error 1 "cannot create '$WORK/no/dir/x.png'" "$K" plot "$c" -o "$WORK/no/dir/x.png"
# a full disk (here a file size limit: writes fail with EFBIG) is an error, not a warning
(
	trap '' XFSZ
	ulimit -f 8
	"$K" plot "$c" -o "$WORK/full.svg" 2> "$WORK/err"
)
rc=$?
[ $rc -eq 1 ] && grep -q "cannot write '$WORK/full.svg'" "$WORK/err" ||
	fail "a failed write exited $rc: $(cat "$WORK/err")"
echo "ok: a failed write -> exit 1: $(cat "$WORK/err")"
[ ! -e "$WORK/x.png" ] && [ ! -e "$WORK/full.svg" ] || fail "a failed plot left its output"
ls -A "$WORK" | grep -qE '^\.|\.tmp' && fail "temporary files left: $(ls -A "$WORK" | grep -E '^\.|\.tmp')"
# Issue 12's defect 9: on a machine without a fontconfig set-up (the H200 nodes) every "·"
# and "µ" was a box. The font is compiled in: the chart is the same byte for byte.
trace=$(fixture hw_bound)
"$K" plot "$trace" -o "$WORK/font_here.png" || fail "plot for the font check"
FONTCONFIG_FILE=/nonexistent FONTCONFIG_PATH=/nonexistent HOME=/nonexistent \
	"$K" plot "$trace" -o "$WORK/font_bare.png" 2> "$WORK/font.err" || fail "plot without fontconfig"
cmp -s "$WORK/font_here.png" "$WORK/font_bare.png" ||
	fail "the chart differs without a fontconfig set-up: fonts come from the system"
echo "ok: the same chart without fontconfig (embedded DejaVu Sans)"
# Issue 12's defect 12: a whole-trace chart of a big trace was buried under occupancy
# circles and overlap links; they now thin out with the zoom (at most ~48 a lane), and
# zoomed in each kernel keeps its own.
python3 bench/gen_trace.py -n 100000 -o "$WORK/g100k.kgt" -q || fail "gen_trace"
"$K" plot --manifest "$WORK/g100k.kgt" -o "$WORK/g100k.png" || fail "plot of 100k kernels"
# zoomed to 2 ms from the first circle's start (manifest times are after the trace begin)
from=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print("%dus" % (min(x["start_ns"] for x in m["marks"] if x["type"] == "low-occupancy") // 1000))' \
	"$WORK/g100k.png.json")
"$K" plot --manifest --from "$from" --to "$(( ${from%us} + 2000 ))us" "$WORK/g100k.kgt" \
	-o "$WORK/g10ms.png" || fail "plot of 2 ms of 100k kernels"
python3 - "$WORK/g100k.png.json" "$WORK/g10ms.png.json" <<'PY' || fail "marks do not thin out"
import collections, json, sys
whole, zoomed = (json.load(open(p)) for p in sys.argv[1:3])
per_lane = collections.Counter((m["type"], m["lane"]) for m in whole["marks"]
                               if m["type"] in ("low-occupancy", "overlap"))
assert per_lane and max(per_lane.values()) <= 50, per_lane.most_common(3)
occ = [m for m in whole["marks"] if m["type"] == "low-occupancy"]
assert sum(m["count"] for m in occ) == whole["mark_counts"]["low-occupancy"]["count"]
zocc = [m for m in zoomed["marks"] if m["type"] == "low-occupancy"]
assert zocc and max(m["count"] for m in zocc) <= 2, [m["count"] for m in zocc][:10]
print("whole trace: at most %d circles or links a lane, standing for %d kernels; 2 ms: %d circles for %d kernels"
      % (max(per_lane.values()), sum(m["count"] for m in occ), len(zocc), sum(m["count"] for m in zocc)))
PY
# Issue 23: the host strips. Under each host thread's API lane, its host spans coloured by
# cause: the manifest's spans, time and off-CPU time per thread are the trace's own rows
# (export --table host: a row per span), every thread with rows in the window has a strip
# and no other; the dataloader's main thread spends most of its strip in data loading, the
# cause report --host gives its host-bound finding. A trace without host spans: no strip.
host_strips() { # NAME TRACE
	"$K" plot --manifest "$2" -o "$WORK/hs_$1.png" || fail "plot $1"
	"$K" export -f csv --table host "$2" -o "$WORK/hs_$1.csv" || fail "export --table host $1"
	"$K" report --json --host "$2" > "$WORK/hs_$1.report.json" || fail "report --host $1"
	python3 - "$1" "$WORK/hs_$1" <<'PY' || fail "$1: the host strips"
import collections, csv, json, sys
name, base = sys.argv[1:3]
m, r = json.load(open(base + ".png.json")), json.load(open(base + ".report.json"))
begin = (r["trace"]["window"] or {}).get("trace_begin_ns", r["trace"]["begin_ns"])
w0, w1 = begin + m["window"]["start_ns"], begin + m["window"]["end_ns"]
off = {"blocked in a system call", "waiting for the GIL", "idle"}
rows = collections.defaultdict(list)
for x in csv.DictReader(open(base + ".csv")):
    s, e = int(x["start_ns"]), int(x["end_ns"])
    if s < w1 and e > w0:
        rows[(int(x["pid"]), int(x["tid"]))].append((min(e, w1) - max(s, w0), x["state"] in off))
api = [l for l in m["lanes"] if l["kind"] == "api"]
strips = [l for l in api if "host_strip" in l]
assert strips, "no host strip"
for l in api:
    want = rows.get((l["pid"], l["tid"]), [])
    assert ("host_strip" in l) == bool(want), (l["tid"], len(want))
    if not want:
        continue
    h = l["host_strip"]
    assert h["spans"] == len(want), (l["tid"], h["spans"], len(want))
    assert abs(sum(h["ns"].values()) - sum(d for d, _ in want)) <= len(want), l["tid"]
    assert abs(h["off_cpu_ns"] - sum(d for d, o in want if o)) <= len(want), l["tid"]
    assert 0 < h["columns"] <= m["width"] and h["runs"] >= 1, h
    print("%s: thread %d: %d spans, %d columns; %s" % (name, l["tid"], h["spans"], h["columns"],
          ", ".join("%s %.0f ms" % (c, ns / 1e6) for c, ns in sorted(h["ns"].items(), key=lambda v: -v[1])[:3])))
if name == "dataloader":
    main = [l for l in strips if l["tid"] == l["pid"]][0]["host_strip"]["ns"]
    bound = [f for f in r["findings"] if f["rule"] == "host-bound"][0]["host"]
    assert max(main, key=main.get) == bound["cause"] == "data-loading", (main, bound["cause"])
PY
}
for h in dataloader steps_loop hf_decode; do
	host_strips "$h" "$(fixture host/$h)"
done
host_strips host_train "$(FIXTURES=tests/fixtures fixture host/host_train)"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
assert not any("host_strip" in l for l in m["lanes"])' "$WORK/launches_bad.png.json" ||
	fail "a host strip on a trace without host spans"
echo "ok: host strips: each thread's spans and time as the trace's rows; the dataloader's strip mostly data loading, as report --host"
echo "ok: t030_plot"
