# Hardware samples (kgantt record --hw) in 'kgantt plot', 'view', 'export' and 'info'. No
# fixture was recorded with --hw yet, so tests/tools/add_hw_samples.py gives real H200
# traces samples that follow their kernels (busy share of each 100 µs interval), with
# awkward rows (a zero-length sample, NULL figures, samples outside the kernels' span), a
# device that refused sampling, and a GPU that counts DRAM bytes but not its % of peak.
# Checked against the trace's own rows (sqlite3): the strip of each device in the plot's
# manifest (samples in the window, steps or per-pixel columns, the curves, the refusal's
# note) and in its pixels (the SM-active line high over a kernel, low in a gap: aligned
# with the lanes), the page's data and, in chromium, its strip and tooltip, one Perfetto
# counter event per sample and figure (plus a 0 where each run of samples ends), the
# SQLite export's rows, and info's line per device.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "python3 is needed to build traces with samples"
ADD=tests/tools/add_hw_samples.py

python3 $ADD --odd "$FIXTURES/syncs_bad.kgt.xz" "$WORK/syncs.kgt" > /dev/null ||
	fail "add_hw_samples.py syncs_bad"
python3 $ADD --refuse "1:CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: counters held by another profiler" \
	"$FIXTURES/multigpu_bad.kgt.xz" "$WORK/multi.kgt" > /dev/null || fail "add_hw_samples.py multigpu_bad"
python3 $ADD --only sm_active_pct,occupancy_pct,dram_read_bps,dram_write_bps \
	"$FIXTURES/copies_bad.kgt.xz" "$WORK/copies.kgt" > /dev/null || fail "add_hw_samples.py copies_bad"
PLAIN=$(fixture streams_bad)

# ---------------------------------------------------------------- info

"$K" info "$WORK/syncs.kgt" > "$WORK/info" || fail "info syncs"
n=$(sqlite3 "$WORK/syncs.kgt" "SELECT COUNT(*) FROM hw_samples")
n=$(python3 -c "print('{:,}'.format($n))")
want="hardware samples: device 0 (GH100) every 100 µs: $n samples, SM active, achieved occupancy, DRAM read, DRAM write, DRAM bandwidth used, tensor pipes active, SM clock (lost 0)"
grep -qxF "$want" "$WORK/info" || fail "info: no line '$want' in: $(grep hardware "$WORK/info")"
"$K" info "$WORK/multi.kgt" > "$WORK/info" || fail "info multi"
grep -qxF "hardware samples: device 1 refused: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: counters held by another profiler" \
	"$WORK/info" || fail "info: no refusal line in: $(grep hardware "$WORK/info")"
"$K" info "$PLAIN" | grep -q "hardware samples" && fail "info: a hardware line for a trace without samples"
echo "ok: info"

# ---------------------------------------------------------------- plot

cat > "$WORK/check_plot.py" <<'EOF'
"""check_plot.py MANIFEST TRACE [--pixels]: each strip of the manifest against the trace's
rows; with --pixels, the SM-active line's pixels in the PNG beside the manifest."""
import json, sqlite3, struct, sys, zlib

man = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
begin = min(r[0] for t in ("kernels", "memcpys", "memsets")
            for r in db.execute("SELECT MIN(start) FROM %s" % t) if r[0] is not None)
t0 = begin + man["window"]["start_ns"]
t1 = begin + man["window"]["end_ns"]
strips = man["hw_strips"]
devs = db.execute("SELECT process, device, state, note, interval_ns FROM hw_devices ORDER BY 1, 2").fetchall()
assert len(strips) == len(devs), "%d strips for %d sampled devices" % (len(strips), len(devs))
for s, (proc, dev, state, note, interval) in zip(strips, devs):
    assert s["device"] == dev and s["state"] == state and s["note"] == (note or ""), s
    assert s["interval_ns"] == interval, s
    n = db.execute("SELECT COUNT(*) FROM hw_samples WHERE process = ? AND device = ? AND start < ? "
                   "AND (end > ? OR (end = start AND start >= ?))", (proc, dev, t1, t0, t0)).fetchone()[0]
    assert s["samples"] == n, "device %d: %d samples drawn, %d in the window" % (dev, s["samples"], n)
    total = db.execute("SELECT COUNT(*) FROM hw_samples WHERE process = ? AND device = ?", (proc, dev)).fetchone()[0]
    if not total:
        assert s["drawn_as"] == "note" and s["curves"] == [] and s["height"] < 30, s
        continue
    assert s["height"] == 72, s
    cols = s["x1"] - s["x0"]
    assert s["drawn_as"] == ("columns" if n > cols else "steps"), s
    has = lambda c: db.execute("SELECT COUNT(%s) FROM hw_samples WHERE process = ? AND device = ?" % c,
                               (proc, dev)).fetchone()[0] > 0
    want = [l for c, l in (("sm_active_pct", "SM active"), ("occupancy_pct", "achieved occupancy"))
            if has(c)]
    if has("dram_peak_pct"):
        want.append("DRAM bandwidth, % of peak")
        assert s["dram"] == "pct"
    elif has("dram_read_bps"):
        top = db.execute("SELECT MAX(COALESCE(dram_read_bps, 0) + COALESCE(dram_write_bps, 0)) "
                         "FROM hw_samples WHERE process = ? AND device = ? AND start < ? AND end > ?",
                         (proc, dev, t1, t0)).fetchone()[0]
        assert s["dram"] == "bps" and top <= s["dram_top_bps"] < 10 * top, (s, top)
        want.append("DRAM read+write, 0–%g GB/s" % (s["dram_top_bps"] / 1e9))
    if has("tensor_active_pct"):
        want.append("tensor pipes active")
    assert s["curves"] == want, (s["curves"], want)
print("strips", [(s["device"], s["drawn_as"], s["samples"]) for s in strips])

if "--pixels" not in sys.argv[3:]:
    sys.exit(0)

def png(path):
    data = open(path, "rb").read()
    pos, idat = 8, []
    while pos < len(data):
        n, t = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if t == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif t == b"IDAT":
            idat.append(body)
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(b"".join(idat)), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        i = y * (stride + 1)
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, bpp, rows

# The SM-active line (#1c5fb8, drawn last) in a column: its topmost pixel in the strip.
w, bpp, rows = png(sys.argv[1][:-len(".json")])
s = strips[0]
def line_y(x):
    for y in range(int(s["y"]), int(s["y"] + s["height"])):
        r, g, b = rows[y][x * bpp:x * bpp + 3]
        if abs(r - 0x1c) < 40 and abs(g - 0x5f) < 40 and abs(b - 0xb8) < 40:
            return y - s["y"]
    return None
kernels = db.execute("SELECT start, end FROM kernels WHERE end > ? AND start < ? ORDER BY start",
                     (t0, t1)).fetchall()
ns_px = (t1 - t0) / (s["x1"] - s["x0"])
x_of = lambda t: int(s["x0"] + (t - t0) / ns_px)
# a sample interval wholly inside a kernel, and the middle of the longest gap between two
busy = next(((a, b) for a, b in kernels if b - a > 3 * s["interval_ns"]), None)
gaps = [(kernels[i][1], kernels[i + 1][0]) for i in range(len(kernels) - 1)]
gap = max(gaps, key=lambda g: g[1] - g[0])
assert gap[1] - gap[0] > 5 * s["interval_ns"], "no long gap to look at"
y_gap = line_y(x_of((gap[0] + gap[1]) // 2))
assert y_gap is not None and y_gap > s["height"] - 10, "SM active at %s px in a gap of the kernels" % y_gap
if busy:
    y_busy = line_y(x_of((busy[0] + busy[1]) // 2))
    assert y_busy is not None and y_busy < 16, "SM active at %s px under a kernel" % y_busy
    print("aligned: SM active line at %d px under a kernel, %d px in a gap" % (y_busy, y_gap))
else:
    # short kernels: the line rises to its top somewhere over the kernels' columns
    ys = [line_y(x_of((a + b) // 2)) for a, b in kernels]
    assert min(y for y in ys if y is not None) < 16, ys
    print("aligned: SM active line high over the kernels, %d px in a gap" % y_gap)
EOF

plot() { # plot TRACE OUT [options]: draws with a manifest and checks it against the trace
	local t=$1 out=$2
	shift 2
	"$K" plot "$t" -o "$out" --manifest "$@" 2> "$WORK/err" || fail "plot $t $*: $(cat "$WORK/err")"
}
plot "$WORK/syncs.kgt" "$WORK/syncs.png"
python3 "$WORK/check_plot.py" "$WORK/syncs.png.json" "$WORK/syncs.kgt" || fail "plot syncs: manifest"
grep -q '"drawn_as": "columns"' "$WORK/syncs.png.json" || fail "plot syncs: not reduced per pixel column"
# zoomed in: steps, aligned with the kernels above
plot "$WORK/syncs.kgt" "$WORK/zoom.png" --from 100 --to 125
python3 "$WORK/check_plot.py" "$WORK/zoom.png.json" "$WORK/syncs.kgt" --pixels || fail "plot syncs zoomed"
grep -q '"drawn_as": "steps"' "$WORK/zoom.png.json" || fail "plot zoomed: not steps"
# a refused device: a one-line strip with its note
plot "$WORK/multi.kgt" "$WORK/multi.png"
python3 "$WORK/check_plot.py" "$WORK/multi.png.json" "$WORK/multi.kgt" || fail "plot multi: manifest"
# DRAM in GB/s when its % of peak is not counted
plot "$WORK/copies.kgt" "$WORK/copies.png"
python3 "$WORK/check_plot.py" "$WORK/copies.png.json" "$WORK/copies.kgt" --pixels || fail "plot copies"
# --no-hw, a trace without samples, SVG and PDF
plot "$WORK/multi.kgt" "$WORK/nohw.png" --no-hw
grep -q '"hw_strips": \[\]' "$WORK/nohw.png.json" || fail "plot --no-hw drew a strip"
h1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["height"])' "$WORK/multi.png.json")
h2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["height"])' "$WORK/nohw.png.json")
[ "$h2" -lt "$h1" ] || fail "plot --no-hw is not shorter ($h2 vs $h1)"
plot "$PLAIN" "$WORK/plain.png"
grep -q '"hw_strips": \[\]' "$WORK/plain.png.json" || fail "plot: a strip without samples in the trace"
plot "$WORK/syncs.kgt" "$WORK/syncs.svg" --height 400
plot "$WORK/syncs.kgt" "$WORK/syncs.pdf" --width 500
echo "ok: plot"

# ---------------------------------------------------------------- odd rows

# a device that stopped (no interval, no chip, a two-line note with a byte that is not
# UTF-8), one the trace has no device row for, one with no sample, values out of range, a
# sample that ends before it starts, one long after the kernels, one from int64's lowest time
# to its highest: everything still draws and exports
cp "$WORK/multi.kgt" "$WORK/odd.kgt"
sqlite3 "$WORK/odd.kgt" "
UPDATE hw_devices SET state = 'stopped', note = 'CUPTI_ERROR_UNKNOWN: stopped' || char(10) || 'x' || x'ff',
	interval_ns = NULL, chip = NULL, lost_samples = 12 WHERE device = 1;
INSERT INTO hw_samples(process, device, start, end, sm_active_pct)
	SELECT 1, 1, start, start + 100000, 50 FROM kernels WHERE device = 1;
INSERT INTO hw_devices VALUES(1, 7, 100000, 'GH100', 'sampled', NULL, 0);
INSERT INTO hw_devices VALUES(1, 9, 100000, 'GH100', 'sampled', NULL, 0); -- no sample at all
INSERT INTO hw_samples(process, device, start, end, sm_active_pct) VALUES(1, 7, 40420692306, 40420792306, 50);
INSERT INTO hw_samples(process, device, start, end, sm_active_pct, occupancy_pct, dram_read_bps)
	VALUES(1, 0, 40500000000, 40500000000, 1e300, -5, -1e12);
INSERT INTO hw_samples(process, device, start, end, sm_active_pct) VALUES(1, 0, 40500000000, 40400000000, 20);
INSERT INTO hw_samples(process, device, start, end, sm_active_pct, occupancy_pct, tensor_active_pct)
	VALUES(1, 0, 40550000000, 40550100000, 250, 1e29, -3);
INSERT INTO hw_samples(process, device, start, end, sm_active_pct) VALUES(1, 1, 99990000000, 99990100000, 33);
INSERT INTO hw_samples(process, device, start, end, sm_active_pct)
	VALUES(1, 0, -9223372036854775807, 9223372036854775807, 40);" ||
	fail "cannot make odd.kgt"
for out in odd.png odd.svg odd.pdf; do plot "$WORK/odd.kgt" "$WORK/$out"; done
plot "$WORK/odd.kgt" "$WORK/odd-zoom.png" --from 20 --to 20.4 --width 300
"$K" view -q "$WORK/odd.kgt" -o "$WORK/odd.html" || fail "view odd"
"$K" export "$WORK/odd.kgt" -f perfetto -o "$WORK/odd.json" || fail "export odd"
"$K" export "$WORK/odd.kgt" -f sqlite -o "$WORK/odd.out.kgt" || fail "export sqlite odd"
"$K" info "$WORK/odd.kgt" | grep -q "hardware samples: device 1 interval unknown: 11 samples" ||
	fail "info odd: $("$K" info "$WORK/odd.kgt" | grep hardware)"
grep -q '"state": "stopped"' "$WORK/odd.png.json" || fail "plot odd: no stopped strip"
# the sample that ends before it starts and the one at int64's limits are left out, said
"$K" report "$WORK/odd.kgt" > "$WORK/odd.txt" 2>&1 || fail "report odd"
tr -s ' \n' ' ' < "$WORK/odd.txt" | grep -q "left out 2 hardware samples whose times cannot be true: at INT64_MAX or -INT64_MAX (1), end before start (1)" ||
	fail "report odd: $(grep -i 'left out' "$WORK/odd.txt")"
# a device that sampled nothing in a trace with no sample at all (the model has no samples
# array: the view once did arithmetic on its NULL, which UBSan under clang reports)
cp "$WORK/syncs.kgt" "$WORK/nosample.kgt"
sqlite3 "$WORK/nosample.kgt" "DELETE FROM hw_samples" || fail "cannot make nosample.kgt"
"$K" view -q "$WORK/nosample.kgt" -o "$WORK/nosample.html" || fail "view nosample"
plot "$WORK/nosample.kgt" "$WORK/nosample.png"
"$K" export "$WORK/nosample.kgt" -f perfetto -o "$WORK/nosample.json" || fail "export nosample"
"$K" info "$WORK/nosample.kgt" | grep -q "hardware samples: device 0 (GH100) every 100 µs: 0 samples" ||
	fail "info nosample: $("$K" info "$WORK/nosample.kgt" | grep hardware)"
echo "ok: odd rows"

# ---------------------------------------------------------------- view

"$K" view -q "$WORK/syncs.kgt" -o "$WORK/syncs.html" || fail "view syncs"
"$K" view -q "$WORK/multi.kgt" -o "$WORK/multi.html" || fail "view multi"
cat > "$WORK/check_view.py" <<'EOF'
"""check_view.py PAGE TRACE: the page's "hw" data against the trace."""
import json, re, sqlite3, sys
page = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', page, re.S).group(1))
db = sqlite3.connect(sys.argv[2])
rows = db.execute("SELECT process, device, state, interval_ns FROM hw_devices ORDER BY 1, 2").fetchall()
assert len(d["hw"]) == len(rows), d["hw"]
for h, (proc, dev, state, interval) in zip(d["hw"], rows):
    n = db.execute("SELECT COUNT(*) FROM hw_samples WHERE process = ? AND device = ?", (proc, dev)).fetchone()[0]
    assert d["devices"][h["dev"]]["ord"] == dev and h["state"] == state and h["interval"] == interval, h
    assert h["rows"] == n, "%d rows in the page, %d in the trace" % (h["rows"], n)
    cols = [c[1] for c in db.execute("PRAGMA table_info(hw_samples)")][4:]
    taken = [c for c in cols if db.execute("SELECT COUNT(%s) FROM hw_samples WHERE process = ? AND "
                                           "device = ?" % c, (proc, dev)).fetchone()[0]]
    assert [f["f"] for f in h["figs"]] == taken, ([f["f"] for f in h["figs"]], taken)
print("page hw", [(h["dev"], h["state"], h["rows"], len(h["figs"])) for h in d["hw"]])
EOF
python3 "$WORK/check_view.py" "$WORK/syncs.html" "$WORK/syncs.kgt" || fail "view syncs: data"
python3 "$WORK/check_view.py" "$WORK/multi.html" "$WORK/multi.kgt" || fail "view multi: data"
"$K" view -q "$PLAIN" -o "$WORK/plain.html" || fail "view plain"
grep -q '"hw":\[\]' "$WORK/plain.html" || fail "view: hardware data for a trace without samples"
echo "ok: view data"

# ---------------------------------------------------------------- export

cat > "$WORK/check_counters.py" <<'EOF'
"""check_counters.py JSON TRACE: one counter event per sample of positive length and figure
counted, and a 0 after the last sample of each run (a gap, a value not counted, the end)."""
import collections, json, sqlite3, sys
d = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
names = {"sm_active_pct": "SM active (%)", "occupancy_pct": "achieved occupancy (%)",
         "dram_read_bps": "DRAM read (GB/s)", "dram_write_bps": "DRAM write (GB/s)",
         "dram_peak_pct": "DRAM bandwidth used (%)", "tensor_active_pct": "tensor pipes active (%)",
         "sm_clock_hz": "SM clock (MHz)"}
want = collections.Counter()
for proc, dev, interval in db.execute("SELECT process, device, interval_ns FROM hw_devices"):
    for col, name in names.items():
        s = db.execute("SELECT start, end, %s FROM hw_samples WHERE process = ? AND device = ? AND "
                       "end > start ORDER BY start, end" % col, (proc, dev)).fetchall()
        for i, (a, b, v) in enumerate(s):
            if v is None:
                continue
            want[name] += 1
            if i + 1 == len(s) or s[i + 1][0] > b + interval // 2 or s[i + 1][2] is None:
                want[name] += 1
want = +want
ev = [e for e in d["traceEvents"] if e["ph"] == "C"]
got = collections.Counter(e["name"] for e in ev)
assert got == want, "counters %s, expected %s" % (dict(got), dict(want))
groups = {e["pid"]: e["args"]["name"] for e in d["traceEvents"] if e["name"] == "process_name"}
assert all(groups.get(e["pid"], "").startswith("GPU ") for e in ev), "a counter outside a GPU group"
assert all(0 <= e["args"]["value"] <= 100 for e in ev if e["name"].endswith("(%)"))
print("counters", sum(got.values()), dict(got))
EOF
for fmt in perfetto chrome; do
	"$K" export "$WORK/syncs.kgt" --format $fmt -o "$WORK/syncs.$fmt.json" || fail "export $fmt"
	python3 "$WORK/check_counters.py" "$WORK/syncs.$fmt.json" "$WORK/syncs.kgt" || fail "export $fmt: counters"
done
"$K" export "$WORK/multi.kgt" --format perfetto -o "$WORK/multi.json" || fail "export multi"
python3 "$WORK/check_counters.py" "$WORK/multi.json" "$WORK/multi.kgt" || fail "export multi: counters"

# SQLite: the same rows back, and kgantt reads them as it read the original
for t in syncs multi copies; do
	"$K" export "$WORK/$t.kgt" --format sqlite -o "$WORK/$t.out.kgt" || fail "export sqlite $t"
	for tab in hw_devices hw_metrics hw_samples; do
		a=$(sqlite3 "$WORK/$t.kgt" "SELECT COUNT(*) FROM $tab")
		b=$(sqlite3 "$WORK/$t.out.kgt" "SELECT COUNT(*) FROM $tab")
		[ "$a" = "$b" ] || fail "export sqlite $t: $tab has $b rows, the trace $a"
	done
	# the same values, to a float's precision (the model keeps 32-bit floats)
	bad=$(sqlite3 "$WORK/$t.out.kgt" "ATTACH '$WORK/$t.kgt' AS o; SELECT COUNT(*) FROM
		(SELECT start, end, sm_active_pct AS v, dram_read_bps AS r FROM hw_samples ORDER BY start, end, v) x JOIN
		(SELECT start, end, sm_active_pct AS v, dram_read_bps AS r FROM o.hw_samples ORDER BY start, end, v) y
		USING(start, end) WHERE abs(coalesce(x.v, -1) - coalesce(y.v, -1)) > 1e-4 * abs(coalesce(y.v, 1)) + 1e-6
		OR abs(coalesce(x.r, -1) - coalesce(y.r, -1)) > 1e-6 * abs(coalesce(y.r, 1))")
	[ "$bad" = 0 ] || fail "export sqlite $t: $bad samples with other values"
	"$K" info "$WORK/$t.kgt" | grep "^hardware" > "$WORK/a"
	"$K" info "$WORK/$t.out.kgt" | grep "^hardware" > "$WORK/b"
	cmp -s "$WORK/a" "$WORK/b" || fail "export sqlite $t: info differs: $(diff "$WORK/a" "$WORK/b")"
done
# a window keeps the samples that overlap it
"$K" export "$WORK/syncs.kgt" --format sqlite --from 100 --to 125 -o "$WORK/cut.kgt" || fail "export --from"
n=$(sqlite3 "$WORK/cut.kgt" "SELECT COUNT(*) FROM hw_samples")
[ "$n" -gt 200 ] && [ "$n" -lt 400 ] || fail "export --from 100 --to 125: $n samples"
echo "ok: export"

# ---------------------------------------------------------------- in a browser

CHROME=${KGANTT_CHROME-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$CHROME" ] || skip "chromium is not installed: plot, export, info and the page's data checked, the page not run"
for t in syncs multi; do
	python3 - "$CHROME" "$WORK/$t.html" "$WORK/$t.kgt" "$WORK" <<'EOF' || fail "view $t in chromium"
import html, json, os, re, sqlite3, subprocess, sys
chrome, page, trace, work = sys.argv[1:5]
p = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--user-data-dir=" + os.path.join(work, "chrome-hw"),
                    "--dump-dom", "file://" + os.path.abspath(page) + "#selftest"],
                   capture_output=True, timeout=240)
m = re.search(r'<pre id="selftest">(.*?)</pre>', p.stdout.decode("utf-8", "replace"), re.S)
assert m and m.group(1).strip(), "no self-test result (chromium exit %d)" % p.returncode
r = json.loads(html.unescape(m.group(1)))
assert r["ok"], (r["errors"], r["alerts"])
hw = r["hw"]
db = sqlite3.connect(trace)
devs = db.execute("SELECT COUNT(*) FROM hw_devices").fetchone()[0]
assert hw["lanes"] == devs and hw["samples"] == db.execute("SELECT COUNT(*) FROM hw_samples").fetchone()[0], hw
assert hw["full"]["mode"] == "columns" and hw["zoomed"]["mode"] == "steps", hw
assert 30 <= hw["zoomed"]["samples"] <= 50 and hw["zoomed"]["runs"] >= hw["zoomed"]["curves"], hw
# the tooltip holds the figures of the sample under the mouse
zero = int(re.search(r'"zero":"(-?\d+)"', open(page, encoding="utf-8").read()).group(1))
s0, s1 = (int(zero + t) for t in hw["sample"])
v = db.execute("SELECT sm_active_pct FROM hw_samples WHERE start = ? AND end = ?", (s0, s1)).fetchone()
assert hw["tooltip_visible"] and "SM active%.1f %%" % v[0] in hw["tooltip"], (hw["tooltip"], v)
for note in hw["notes"]:
    assert note in db.execute("SELECT group_concat(note) FROM hw_devices").fetchone()[0]
print("ok: %s in chromium: %s" % (os.path.basename(page), hw["tooltip"][:120]))
EOF
done
echo "ok: view in chromium"
