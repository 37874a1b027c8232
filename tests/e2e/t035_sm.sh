# SM placement (kgantt record --sm) end to end without a GPU: an H200 fixture is given a
# block log in SQL (each of its 160 kernels' 16 blocks on one of 132 SMs, on the trace
# clock), then 'info' says what it holds, 'plot --sm' draws every block once (manifest),
# 'view' embeds them all and, in headless chromium, shows and hovers the SM lanes,
# 'export --format sqlite' and 'merge' keep every block with its own kernel; 'plot --sm'
# refuses a trace without blocks, 'record --sm --mode kernels' is refused.
. tests/e2e/lib.sh
command -v sqlite3 > /dev/null || skip "sqlite3 is needed"
command -v python3 > /dev/null || skip "python3 is needed"

t=$WORK/sm.kgt
xz -dc "$FIXTURES/streams_fixed.kgt.xz" > "$t" || fail "cannot decompress streams_fixed"
sqlite3 "$t" "
CREATE TABLE IF NOT EXISTS sm_blocks(kernel INTEGER, sm INTEGER, block INTEGER, start INTEGER,
  end INTEGER);
CREATE TABLE IF NOT EXISTS sm_settings(process INTEGER, device INTEGER, blocks INTEGER,
  kernels INTEGER, dropped INTEGER, unmatched INTEGER, own_records INTEGER, offset_ns INTEGER,
  offset_spread_ns INTEGER, offset_mad_ns INTEGER, PRIMARY KEY(process, device));
WITH RECURSIVE n(b) AS (SELECT 0 UNION ALL SELECT b + 1 FROM n WHERE b < 63)
INSERT INTO sm_blocks SELECT k.id, (k.id * 16 + n.b) % 132, n.b, k.start + 100 + 7 * n.b,
  k.end - 50 FROM kernels k JOIN n ON n.b < k.grid_x * k.grid_y * k.grid_z;
INSERT INTO sm_settings SELECT 1, 0, COUNT(*), COUNT(DISTINCT kernel), 3, 1, 0, 12345, 64, 32
  FROM sm_blocks;" || fail "cannot add blocks to the fixture"
n=$(sqlite3 "$t" "SELECT COUNT(*) FROM sm_blocks")
[ "$n" = 2560 ] || fail "the fixture got $n blocks, expected 160 x 16"
# the blocks as the trace has them, each by its kernel's identity (not its id)
blocks() {
	sqlite3 "$1" "SELECT k.correlation, k.start, b.sm, b.block, b.start, b.end FROM sm_blocks b
		JOIN kernels k ON k.id = b.kernel ORDER BY 1, 2, 3, 4" | sort
}
blocks "$t" > "$WORK/blocks.want"

"$K" info "$t" > "$WORK/info" || fail "info exited $?"
grep -q "^SM placement: pid [0-9]* device 0: 2,560 blocks of 160 kernels on 132 SMs, 3 dropped (log full), 1 matching no kernel, block times ±32 ns (offsets spread 64 ns)" "$WORK/info" ||
	fail "info: $(grep -i sm "$WORK/info")"
echo "ok: info says how many blocks, kernels, SMs, drops and the alignment error"

"$K" plot --sm "$t" -o "$WORK/sm.png" --manifest || fail "plot --sm exited $?"
python3 - "$WORK/sm.png.json" <<'EOF' || fail "plot --sm: the manifest does not count every block"
import json, sys
m = json.load(open(sys.argv[1]))
sm = m["sm"]
assert sm["panels"] == 1 and sm["sm_lanes"] == 132 and sm["sm_blocks"] == 2560, sm
assert 0 < sm["bars"] <= 2560 and sm["kernels"] == 1, sm
assert m["height"] > 800, m["height"]   # 132 lanes under the streams
EOF
echo "ok: plot --sm draws 132 SM lanes and all 2,560 blocks"
"$K" plot --sm --no-host --from 1 --to 2 "$t" -o "$WORK/win.svg" --manifest || fail "plot --sm --from exited $?"
python3 - "$WORK/win.svg.json" <<'EOF' || fail "plot --sm in a window"
import json, sys
sm = json.load(open(sys.argv[1])).get("sm", {"sm_blocks": 0})
assert 0 < sm["sm_blocks"] < 2560, sm
EOF
echo "ok: plot --sm in a window draws the blocks of the window only"

expect_error 1 "has no SM placement" "$K" plot --sm "$(xz -dc "$FIXTURES/copies_bad.kgt.xz" > "$WORK/c.kgt"; echo "$WORK/c.kgt")" -o "$WORK/c.png"
expect_error 2 "--sm needs --mode full" "$K" record --sm --mode kernels -o "$WORK/r.kgt" -- true

"$K" view -q "$t" -o "$WORK/sm.html" || fail "view exited $?"
python3 - "$WORK/sm.html" <<'EOF' || fail "view: the page does not hold every block"
import json, re, sys
d = json.loads(re.search(r'id="kg-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
assert len(d["sm"]) == 1 and d["sm"][0]["rows"] == 2560 and d["sm"][0]["sms"] == 132, d["sm"][0]["rows"]
assert d["sm"][0]["mad"] == 32 and d["sm"][0]["dropped"] == 3
EOF
echo "ok: view embeds the 2,560 blocks of 132 SMs"
if command -v chromium > /dev/null; then
	timeout 240 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
		--user-data-dir="$WORK/chrome" --dump-dom "file://$WORK/sm.html#selftest" 2> /dev/null > "$WORK/dom"
	python3 - "$WORK/dom" <<'EOF' || fail "view: the SM lanes in the browser"
import html, json, re, sys
r = json.loads(html.unescape(re.search(r'<pre id="selftest">(.*?)</pre>', open(sys.argv[1]).read(), re.S).group(1)))
sm = r["sm"]
assert r["ok"], r.get("errors")
assert sm["button"] and sm["lanes"] == 132 and sm["rows_added"] == 133 and sm["rows_after_off"] == 0, sm
assert sm["tooltip_visible"] and "ran on" in sm["tooltip"] and "SM %d" % sm["sm"] in sm["tooltip"], sm
assert sm["hovered"] == sm["op"], sm
EOF
	echo "ok: view's SM lanes button adds 132 lanes; a block's tooltip names its SM and kernel"
else
	echo "skip: no chromium: the SM lanes are not tried in a browser"
fi

"$K" export --format sqlite "$t" -o "$WORK/e.kgt" || fail "export exited $?"
blocks "$WORK/e.kgt" > "$WORK/blocks.export"
cmp -s "$WORK/blocks.want" "$WORK/blocks.export" || fail "export --format sqlite changed the blocks: $(diff "$WORK/blocks.want" "$WORK/blocks.export" | head -3)"
echo "ok: export --format sqlite keeps every block with its kernel"

"$K" merge -o "$WORK/m.kgt" "$t" "$WORK/e.kgt" 2> "$WORK/merge.err" || fail "merge exited $?: $(cat "$WORK/merge.err")"
# the merged trace is compacted: its kernels are read with SQL as rows of its export
"$K" export -q --format sqlite "$WORK/m.kgt" -o "$WORK/m.rows" || fail "export of the merged trace"
for p in 1 2; do
	sqlite3 "$WORK/m.rows" "SELECT k.correlation, k.start, b.sm, b.block, b.start, b.end FROM sm_blocks b
		JOIN kernels k ON k.id = b.kernel WHERE k.process = $p ORDER BY 1, 2, 3, 4" | sort > "$WORK/blocks.m$p"
	cmp -s "$WORK/blocks.want" "$WORK/blocks.m$p" || fail "merge: process $p's blocks changed"
done
[ "$(sqlite3 "$WORK/m.kgt" "SELECT COUNT(*) FROM sm_settings")" = 2 ] || fail "merge: sm_settings"
[ "$("$K" info "$WORK/m.kgt" | grep -c "^SM placement: .* 2,560 blocks of 160 kernels on 132 SMs")" = 2 ] ||
	fail "info of the compacted merge: $("$K" info "$WORK/m.kgt" | grep SM)"
echo "ok: merge keeps each input's blocks with its own kernels; info counts them in the compacted trace"
