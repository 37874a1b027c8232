# 'kgantt view': one self-contained HTML timeline per trace. Static checks over real H200
# traces; then, with Debian's chromium, each page's own self-test in a headless browser
# (tests/browser/view_test.py: hover, zoom, drag, finding click, search, an API call's
# call stack in its tooltip, the findings' call sites and a click on one, no script error)
# and a kernel named <img src=x onerror=alert(1)> that must stay text.
. tests/e2e/lib.sh

# check_static PAGE: one file, nothing fetched, the data cannot end its script element
check_static() {
	local f=$1 size
	size=$(stat -c %s "$f")
	[ "$size" -gt 30000 ] && [ "$size" -lt 8000000 ] || fail "$f: $size bytes"
	grep -Eq 'https?://' "$f" && fail "$f names a URL: $(grep -Eo '.{0,40}https?://.{0,30}' "$f" | head -1)"
	grep -Eiq '(src|href)[[:space:]]*=[[:space:]]*["'\'']?[a-z]*:?//' "$f" && fail "$f loads something"
	[ "$(grep -o '<script' "$f" | wc -l)" -eq 3 ] || fail "$f: not the template's 3 script elements"
	[ "$(grep -o '</script' "$f" | wc -l)" -eq 3 ] || fail "$f: '</script' inside the data"
	grep -q '@@KGANTT_DATA@@' "$f" && fail "$f: the data marker is still there"
	python3 - "$f" <<'EOF' || fail "$f: the embedded document does not parse"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', s, re.S)
d = json.loads(m.group(1))
assert d["v"] == 1 and d["ops"]["rows"] >= 0 and isinstance(d["findings"], list)
EOF
	echo "ok: $f is self-contained ($size bytes)"
}

# page NAME [OPTIONS]: $WORK/NAME.html from the fixture NAME, checked
page() {
	local n=$1
	shift
	"$K" view -q "$@" "$(fixture "$n")" -o "$WORK/$n.html" || fail "view $n exited $?"
	check_static "$WORK/$n.html"
}

for n in streams_bad copies_bad nvtx_bad multigpu_bad timeslice_bad torch_two_streams \
	torchrun_2ranks launches_graph longrun_killed gpt_full_fast; do
	page "$n" --whole # every operation of the trace, as the checks below count them
done
# the GPT step's 5.6 s of start-up, for the band over its GPU's lanes (the whole run:
# --whole); none in streams_bad
python3 - "$WORK/gpt_full_fast.html" "$WORK/streams_bad.html" <<'EOF' || fail "view: the start-up idle is not in the page"
import json, re, sys
data = lambda f: json.loads(re.search(r'id="kg-data">(.*?)</script>', open(f).read(), re.S).group(1))
d = data(sys.argv[1])
assert len(d["edges"]) == 1, d["edges"]
gpu, t0, t1, kind = d["edges"][0]
assert kind == "start-up" and 5.64e9 < t1 - t0 < 5.65e9 and gpu == d["devices"][0]["gpu"], d["edges"]
assert data(sys.argv[2])["edges"] == []
print("ok: view: start-up %.1f to %.1f ms on GPU %d" % (t0 / 1e6, t1 / 1e6, gpu))
EOF
# the graph example's capture on the H200, a band of its own
python3 - "$WORK/launches_graph.html" <<'EOF' || fail "view: the graph capture is not in the page"
import json, re, sys
d = json.loads(re.search(r'id="kg-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
caps = [e for e in d["edges"] if e[3] == "graph capture"]
assert len(caps) == 1 and 1.7e6 < caps[0][2] - caps[0][1] < 1.8e6, d["edges"]  # report: 1.73 ms
print("ok: view: graph capture %.2f ms" % ((caps[0][2] - caps[0][1]) / 1e6))
EOF
# by default the page is of the steady steps, as report judges them: its window and
# findings are the report's, no start-up band
"$K" view -q "$(fixture gpt_full_fast)" -o "$WORK/gpt_steady.html" || fail "view gpt_full_fast"
check_static "$WORK/gpt_steady.html"
"$K" report --json "$(fixture gpt_full_fast)" > "$WORK/gpt.report.json" || fail "report --json gpt"
python3 - "$WORK/gpt_steady.html" "$WORK/gpt.report.json" <<'EOF' || fail "view: the GPT step's steady steps"
import json, re, sys
d = json.loads(re.search(r'id="kg-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
r = json.load(open(sys.argv[2]))
w = r["trace"]["window"]
assert d["window"]["from"] == w["begin_ns"] - w["trace_begin_ns"], (d["window"], w)
assert [f["rule"] for f in d["findings"]] == [f["rule"] for f in r["findings"]], d["findings"]
assert d["edges"] == [], d["edges"]
print("ok: view: the steady steps from %.3f s, the report's %d findings"
      % (d["window"]["from"] / 1e9, len(d["findings"])))
EOF
# the program's steps on the time axis (issue 24): examples/syncs runs 200 steps
# (examples/syncs.cu); the page carries each one's number, GPU start and end, and whether it
# is warm-up, as report --json --list-steps gives them: all 200 in the page of the whole
# run, steps 10, 11 and 12 in --steps 10-12's; none in a trace without steps
xz -dc tests/fixtures/h200/host/syncs_fp.kgt.xz > "$WORK/sfp.kgt"
"$K" view -q "$WORK/sfp.kgt" -o "$WORK/sfp.html" || fail "view syncs_fp"
"$K" view -q --steps 10-12 "$WORK/sfp.kgt" -o "$WORK/sfp3.html" || fail "view --steps 10-12"
check_static "$WORK/sfp3.html"
"$K" report --json --list-steps "$WORK/sfp.kgt" > "$WORK/sfp.report.json" || fail "report syncs_fp"
"$K" report --json --list-steps --steps 10-12 "$WORK/sfp.kgt" > "$WORK/sfp3.report.json" ||
	fail "report --steps 10-12"
python3 - "$WORK" <<'EOF' || fail "view: the steps in the page are not the report's"
import json, sys
sys.path.insert(0, "tests/browser")
from view_test import page_data, page_steps
w = sys.argv[1]
for page, want in (("sfp", list(range(1, 201))), ("sfp3", [10, 11, 12])):
    got = page_steps(page_data("%s/%s.html" % (w, page)))
    r = {x["step"]: x for x in json.load(open("%s/%s.report.json" % (w, page)))["steps"]["steps"]}
    assert [s[0] for s in got] == want, (page, [s[0] for s in got])
    for n, start, end, warm in got:
        assert (start, end, warm) == (r[n]["start_ns"], r[n]["end_ns"], r[n]["warmup"]), (page, n, r[n])
    print("ok: view %s: steps %d-%d, each at the report's GPU start and end" % (page, want[0], want[-1]))
d = page_data(w + "/streams_bad.html")
assert d["steps"]["rows"] == 0, d["steps"]
print("ok: view streams_bad: no steps, none in the page")
EOF
python3 - "$WORK/streams_bad.html" <<'EOF' || fail "streams_bad: a trace without stacks shows stacks"
import json, re, sys
d = json.loads(re.search(r'id="kg-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
assert d["has_stacks"] == 0 and d["frames"]["rows"] == 0 and d["stacks"]["rows"] == 0, d["stacks"]
assert d["apis"]["S"] == "" and not d["sites"] and all(not f["sites"] for f in d["findings"])
EOF
echo "ok: a trace without stacks: no stack, no call site in the page"

# Call stacks: H200 traces recorded with stacks (a CUDA C++ program, a PyTorch CNN, four
# Python threads). The page's stacks and sites against the trace's tables and the report.
STACKED=
for n in syncs_bad torch_cnn_bad py_threads; do
	if [ -f "$FIXTURES/$n.kgt.xz" ]; then
		STACKED="$STACKED $n"
	else
		echo "skip: $FIXTURES/$n.kgt.xz is not there: no call-stack checks on $n"
	fi
done
cat > "$WORK/stacks.py" <<'EOF'
import base64, json, re, sqlite3, sys

def varints(b, n):
    out, p = [], 0
    for _ in range(n):
        v = sh = 0
        while True:
            x = b[p]; p += 1; v |= (x & 127) << sh; sh += 7
            if x < 128:
                break
        out.append(v)
    return out

def column(spec, n):
    """A column of the page (docs/view.md): "", base64url varints, or sparse {n, i, v}."""
    b64 = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    if spec == "":
        return [0] * n
    if isinstance(spec, str):
        return varints(b64(spec), n)
    out, row = [0] * n, 0
    for d, v in zip(varints(b64(spec["i"]), spec["n"]), varints(b64(spec["v"]), spec["n"])):
        row += d
        out[row] = v
    return out

d = json.loads(re.search(r'id="kg-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
r = json.load(open(sys.argv[2]))
db = sqlite3.connect(sys.argv[3])
names = d["strings"]
fr, st = d["frames"], d["stacks"]
fn = column(fr["f"], fr["rows"]); fl = column(fr["F"], fr["rows"]); ln = column(fr["l"], fr["rows"])
count = column(st["n"], st["rows"]); frames = column(st["x"], st["frame_rows"])
user = column(st["u"], st["rows"]); site = column(st["s"], st["rows"])
first = [0] * len(count)
for i in range(1, len(count)):
    first[i] = first[i - 1] + count[i - 1]
api_stack = column(d["apis"]["S"], d["apis"]["rows"])
assert d["has_stacks"] == 1 and sum(count) == st["frame_rows"]
# every API call the trace gives a stack has one on the page, of as many frames
with_stack = db.execute("SELECT count(*) FROM api_calls a JOIN api_stacks x "
                        "USING (process, correlation)").fetchone()[0]
assert sum(1 for s in api_stack if s) == with_stack, (sum(1 for s in api_stack if s), with_stack)
depths = sorted(x[0] for x in db.execute(
    "SELECT depth FROM stacks WHERE id IN (SELECT stack FROM api_stacks)"))
# (the trace may store a stack twice, the page once)
assert set(count) == set(depths) and len(count) <= len(depths), "stack depths differ from the trace's"
assert fr["rows"] < st["frame_rows"], "frames are not shared between stacks"
# the sites: the report's, each on a stack of its own whose user frame is the site's frame
rs = {s["site"]: s for s in r["sites"]}
assert len(rs) == sum(1 for s in d["sites"] if s["ns"] > 0), "not the report's sites"
for i, s in enumerate(d["sites"]):
    if s["ns"] <= 0:
        continue
    w = rs[i + 1]
    assert s["label"] == w["label"] and abs(s["ns"] - w["gain_ns"]) <= 1 and \
        s["findings"] == w["findings"], (s, w)
    k = s["stack"]
    assert site[k] == i + 1, "site %d: its stack maps to %d" % (i + 1, site[k] - 1)
    if w["frame"] is None:  # an operator's site: no frame of the program's own
        assert user[k] == 0, "site %d: a user frame on the page, none in the report" % (i + 1)
        continue
    f = frames[first[k] + user[k] - 1]
    got = (names[fn[f]], names[fl[f]] or None, ln[f])
    assert got == (w["frame"]["function"], w["frame"]["file"], w["frame"]["line"]), (got, w["frame"])
# the findings' sites: the report's, with the same gains
for f, g in zip(d["findings"], r["findings"]):
    assert [x["site"] for x in f["sites"]] == [x["site"] for x in g["sites"]], (f["sites"], g["sites"])
    assert all(abs(x["gain_ns"] - y["gain_ns"]) <= 1 for x, y in zip(f["sites"], g["sites"]))
print("%d stacks, %d frames for %d frame rows, %d sites" % (st["rows"], fr["rows"],
      st["frame_rows"], len(r["sites"])))
EOF
for n in $STACKED; do
	# the whole run (stacks.py counts the trace's rows): the page and the report --whole
	page "$n" --whole
	"$K" report --json --whole "$(fixture "$n")" > "$WORK/$n.report.json" || fail "report --json $n"
	out=$(python3 "$WORK/stacks.py" "$WORK/$n.html" "$WORK/$n.report.json" "$(fixture "$n")") ||
		fail "$n: the page's stacks or call sites are wrong: $out"
	echo "ok: $n: the page's stacks and call sites are the trace's and the report's: $out"
done

# the default output name, and an existing page replaced whole (no temporary left behind)
kabs=$(realpath "$K") tabs=$(realpath "$(fixture copies_bad)")
mkdir "$WORK/cwd"
(cd "$WORK/cwd" && "$kabs" view -q "$tabs") || fail "view without -o"
[ -s "$WORK/cwd/copies_bad.html" ] || fail "no copies_bad.html in the current directory"
"$K" view -q "$(fixture streams_bad)" -o "$WORK/cwd/copies_bad.html" || fail "replacing a page"
grep -q 'streams_bad.kgt' "$WORK/cwd/copies_bad.html" || fail "the page was not replaced"
[ "$(ls "$WORK/cwd")" = copies_bad.html ] || fail "temporary files left: $(ls "$WORK/cwd")"

# a window: fewer operations, and the page says where it lies
"$K" view -q --from 100 --to 200 "$(fixture longrun_killed)" -o "$WORK/win.html" || fail "--from/--to"
python3 - "$WORK/win.html" "$WORK/longrun_killed.html" <<'EOF' || fail "--from/--to did not cut the page"
import json, re, sys
doc = lambda p: json.loads(re.search(r'id="kg-data">(.*?)</script>', open(p).read(), re.S).group(1))
w, a = doc(sys.argv[1]), doc(sys.argv[2])
assert 0 < w["ops"]["rows"] < a["ops"]["rows"], (w["ops"]["rows"], a["ops"]["rows"])
assert w["window"]["from"] == 100000000 and w["window"]["to"] == 200000000, w["window"]
EOF
"$K" view -q --nvtx step "$(fixture nvtx_bad)" -o "$WORK/nvtx.html" || fail "--nvtx"
check_static "$WORK/nvtx.html"

# bad input: a clear message naming the file, exit 1, nothing written
expect_error 1 "$WORK/nope.kgt" "$K" view "$WORK/nope.kgt" -o "$WORK/nope.html"
[ -e "$WORK/nope.html" ] && fail "a page was written for a missing trace"
printf 'not a trace\n' > "$WORK/junk.kgt"
expect_error 1 "junk.kgt" "$K" view "$WORK/junk.kgt" -o "$WORK/junk.html"
expect_error 1 "cannot create" "$K" view "$(fixture copies_bad)" -o "$WORK/no/such/dir/x.html"
expect_error 1 "no NVTX or annotation range named 'nope'" "$K" view --nvtx nope "$(fixture nvtx_bad)" -o "$WORK/x.html"
expect_error 2 "--from" "$K" view --from soon "$(fixture copies_bad)"
expect_error 2 "no trace given" "$K" view -o "$WORK/x.html"
expect_error 2 "no threshold named 'nope'" "$K" view --set nope=1 "$(fixture copies_bad)" -o "$WORK/x.html"

# a hostile kernel name, NVTX name and command line: they must stay text
cp "$(fixture nvtx_bad)" "$WORK/evil.kgt"
python3 - "$WORK/evil.kgt" <<'EOF' || fail "cannot make the hostile trace"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
k = db.execute("SELECT demangled FROM kernels ORDER BY start LIMIT 1").fetchone()[0]
db.execute("UPDATE strings SET text = ? WHERE id = ?", ("<img src=x onerror=alert(1)>", k))
n = db.execute("SELECT name FROM nvtx LIMIT 1").fetchone()[0]
db.execute("UPDATE strings SET text = ? WHERE id = ?",
           ("</script><script>alert(2)</script>\u2028\u2029<!--", n))
db.execute("UPDATE processes SET cmdline = ?", ("<b onmouseover=alert(3)>x</b>",))
db.commit()
EOF
"$K" view -q "$WORK/evil.kgt" -o "$WORK/evil.html" || fail "view of the hostile trace"
check_static "$WORK/evil.html"
grep -q '<img src=x' "$WORK/evil.html" && fail "the hostile name is in the page unescaped"
grep -q 'u003cimg src=x onerror=alert(1)\\u003e' "$WORK/evil.html" || fail "the hostile name is not escaped as expected"

# the host strips (issue 23): the whole run's page carries every host span of each thread
# with CUDA calls, as the trace's rows (export --table host), and in the steady window the
# dataloader's main thread spends the most time in the cause report --host gives its
# host-bound finding, data loading
hd=$(fixture host/dataloader)
"$K" view -q --whole "$hd" -o "$WORK/hostdl.html" || fail "view dataloader"
check_static "$WORK/hostdl.html"
"$K" export -f csv --table host "$hd" -o "$WORK/hostdl.csv" || fail "export --table host"
"$K" report --json --host "$hd" > "$WORK/hostdl.report.json" || fail "report --host dataloader"
python3 - "$WORK/hostdl.html" "$WORK/hostdl.csv" "$WORK/hostdl.report.json" <<'EOF' || fail "view: the host spans are not the trace's"
import collections, csv, json, sys
sys.path.insert(0, "tests/browser")
from view_test import page_data, page_host
d, r = page_data(sys.argv[1]), json.load(open(sys.argv[3]))
spans = page_host(d)
rows = collections.defaultdict(list)
for x in csv.DictReader(open(sys.argv[2])):
    rows[int(x["tid"])].append((int(x["start_ns"]), int(x["end_ns"])))
assert spans and set(spans) <= set(rows), (list(spans), list(rows))
for tid, v in spans.items():
    assert [(s, e) for s, e, *_ in v] == rows[tid], tid
w = r["trace"]["window"]
by = collections.Counter()
for s, e, c, off, st in spans[d["processes"][0]["pid"]]:
    by[c] += max(0, min(e, w["end_ns"]) - max(s, w["begin_ns"]))
bound = [f for f in r["findings"] if f["rule"] == "host-bound"][0]["host"]["cause"]
assert by.most_common(1)[0][0] == bound == "data-loading", (by.most_common(3), bound)
print("ok: view: %d host spans of %d threads as the trace's rows; the main thread's steady window "
      "mostly %s (%.0f ms), as report --host" % (sum(map(len, spans.values())), len(spans), bound,
                                                 by[bound] / 1e6))
EOF

# ---------------------------------------------------------------- in a browser
# KGANTT_CHROME picks the browser (empty: none, to see the skip)
CHROME=${KGANTT_CHROME-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$CHROME" ] || skip "chromium is not installed (apt-get install chromium): static checks passed, browser checks skipped"

browser() { # NAME TRACE HOVER [SEARCH] [EVIL]
	local n=$1 trace=$2
	"$K" report --json --whole "$trace" > "$WORK/$n.report.json" || fail "report --json $n"
	python3 tests/browser/view_test.py --chrome "$CHROME" --page "$WORK/$n.html" \
		--trace "$trace" --report "$WORK/$n.report.json" --hover "$3" ${4:+--search "$4"} \
		${5:+--evil "$5"} --workdir "$WORK" > "$WORK/$n.browser" 2>&1 ||
		fail "$n in the browser: $(grep FAIL "$WORK/$n.browser" || tail -3 "$WORK/$n.browser")"
	echo "ok: $n in chromium: $(grep -c '^ok:' "$WORK/$n.browser") checks; $(grep '^timing' "$WORK/$n.browser")"
}
browser streams_bad "$(fixture streams_bad)" streams_work
browser copies_bad "$(fixture copies_bad)" copies_compute
browser torch_two_streams "$(fixture torch_two_streams)" sm80_xmma_gemm vectorized_elementwise_kernel
browser torchrun_2ranks "$(fixture torchrun_2ranks)" cutlass Kernel2
browser evil "$WORK/evil.kgt" onerror onerror '<img src=x onerror=alert(1)>'
for n in $STACKED; do
	case $n in
	syncs_bad) browser syncs_bad "$(fixture syncs_bad)" syncs_step ;;
	torch_cnn_bad) browser torch_cnn_bad "$(fixture torch_cnn_bad)" nchwToNhwcKernel ;;
	py_threads) browser py_threads "$(fixture py_threads)" sm90_xmma_gemm ;;
	esac
done

# the step row of --steps 10-12's page: the boundaries of steps 10, 11 and 12 numbered, at
# the report's starts (and each page above checked its steps against its report)
python3 - "$CHROME" "$WORK" <<'EOF' || fail "view --steps 10-12 in the browser: the step row"
import json, sys
sys.path.insert(0, "tests/browser")
import view_test
chrome, w = sys.argv[1:3]
for page, first in (("sfp3", [10, 11, 12]), ("sfp", None)):
    dom, st = view_test.run_page(chrome, "%s/%s.html" % (w, page), {}, w)
    view_test.check(st.get("ok") is True, "%s: no script error (%s)" % (page, st.get("errors")))
    view_test.check_steps(st, json.load(open("%s/%s.report.json" % (w, page))))
    if first:
        labels = [l[0] for l in st["steps"]["full"]["labels"]]
        view_test.check(labels == first, "%s: the whole page numbers steps %s" % (page, labels))
EOF
echo "ok: view: the step row in chromium"
# the host strips in chromium: a strip per thread with spans, a span's cause and frames on hover
python3 - "$CHROME" "$WORK" <<'EOF' || fail "view: the host strips in the browser"
import sys
sys.path.insert(0, "tests/browser")
import view_test
chrome, w = sys.argv[1:3]
dom, st = view_test.run_page(chrome, "%s/hostdl.html" % w, {}, w)
view_test.check(st.get("ok") is True, "hostdl: no script error (%s)" % st.get("errors"))
view_test.check_host(st, view_test.page_data("%s/hostdl.html" % w))
EOF
echo "ok: view: the host strips in chromium"

# a screenshot of the page as a person sees it: something was drawn
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
	--user-data-dir="$WORK/chrome-profile" --hide-scrollbars --window-size=1600,900 \
	--screenshot="$WORK/shot.png" "file://$WORK/streams_bad.html#finding=1" > /dev/null 2>&1
[ "$(stat -c %s "$WORK/shot.png" 2>/dev/null || echo 0)" -gt 20000 ] || fail "the screenshot is blank or missing"
echo "ok: screenshot $(stat -c %s "$WORK/shot.png") bytes"
