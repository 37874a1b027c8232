# CUDA API backtraces of Nsight Systems exports (nsys profile --cudabacktrace) read as call
# stacks. No real kgantt trace with stacks exists yet and nsys cannot run where kgantt is
# developed, so: an H200 fixture gets a few call stacks added with SQL (the tables created
# as src/trace/schema.c creates them when the fixture predates them), tests/tools/kgt_to_nsys.py
# lays it out as an nsys export (CUDA_CALLCHAINS + callchainId), and kgantt's reader
# (model_load, what every command uses) must give each call its native frames, innermost
# first, demangled, with equal backtraces as one stack. Both export layouts (3.28, 3.16).
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
CC=${CC:-cc}
command -v "$CC" > /dev/null || skip "no C compiler to build the stack dumper"
LIB=$(dirname "$K")/libkgantt.a
[ -f "$LIB" ] || skip "no $LIB (build kgantt first)"
[ "$LIB" -nt src/model/model.h ] || skip "$LIB is older than src/model/model.h (rebuild first)"

# the stack dumper: every call with a stack and its frames, as the model has them
cat > "$WORK/dump_stacks.c" <<'EOF'
#include <stdio.h>
#include "model/load.h"
int main(int argc, char **argv)
{
	struct kg_model m;
	char err[1024];
	if (argc != 2 || model_load(argv[1], &m, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", argc == 2 ? err : "usage: dump_stacks FILE");
		return 1;
	}
	printf("note\t%s\nstacks\t%u\n", m.stack_note, m.n_stacks);
	for (uint32_t i = 0; i < m.n_apis; i++) {
		const struct kg_api *a = &m.apis[i];
		if (a->stack == KG_NONE)
			continue;
		const struct kg_stack *s = &m.stacks[a->stack];
		printf("call\t%u\t%u\t%s\t%u\t%u\t%u\n", m.processes[a->process].pid, a->correlation,
		       model_text(&m, a->name), a->stack, s->flags,
		       s->process == a->process);
		for (uint32_t d = 0; d < s->n_frames; d++) {
			const struct kg_frame *f = &m.frames[s->first_frame + d];
			printf("frame\t%u\t%u\t%u\t%u\t%s\t%s\t%s\t%d\t%llu\n",
			       m.processes[a->process].pid, a->correlation, d, f->kind,
			       model_text(&m, f->function), model_text(&m, f->module),
			       model_text(&m, f->file), f->line, (unsigned long long)f->address);
		}
	}
	model_free(&m);
	return 0;
}
EOF
# shellcheck disable=SC2046
"$CC" -std=c11 -D_GNU_SOURCE -Isrc -o "$WORK/dump_stacks" "$WORK/dump_stacks.c" "$LIB" \
	-lsqlite3 -lzstd -llzma -lyajl -lz $(pkg-config --libs cairo 2> /dev/null || echo -lcairo) -lstdc++ -lm \
	-ldl -lpthread 2> "$WORK/cc.err" || fail "cannot build the stack dumper: $(head -5 "$WORK/cc.err")"

# a copy of the fixture with stacks: launches from two call paths that differ only in their
# Python frames (nsys keeps the native ones: one stack), copies from a path whose innermost
# frame was not symbolised, device syncs from Python frames alone (no backtrace in nsys)
t=$WORK/stacks.kgt
cp "$(fixture copies_bad)" "$t" || fail "cannot copy the fixture"
chmod u+w "$t"
python3 - "$t" <<'EOF' || fail "cannot add stacks to the fixture"
import sqlite3, sys

def schema_statements(path):
    """The SQL of kg_schema_sql in src/trace/schema.c, statement by statement."""
    src = open(path).read()
    i = src.index("=", src.index("kg_schema_sql[]")) + 1
    sql = []
    while True:
        while src[i].isspace():
            i += 1
        if src.startswith("/*", i):
            i = src.index("*/", i) + 2
        elif src[i] == '"':
            i += 1
            while src[i] != '"':
                if src[i] == "\\":
                    sql.append({"n": "\n", "t": "\t"}.get(src[i + 1], src[i + 1]))
                    i += 2
                else:
                    sql.append(src[i])
                    i += 1
            i += 1
        else:
            break
    out, buf = {}, ""
    for line in "".join(sql).splitlines(True):
        buf += line
        if sqlite3.complete_statement(buf):
            words = buf.split()
            if words[:2] == ["CREATE", "TABLE"]:
                out[words[2].split("(")[0]] = buf.strip()
            buf = ""
    return out

db = sqlite3.connect(sys.argv[1])
created = schema_statements("src/trace/schema.c")
for table in ("stacks", "stack_frames", "api_stacks"):
    assert table in created, "src/trace/schema.c creates no table " + table
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
        db.execute(created[table])

def sid(text):
    if text is None:
        return None
    row = db.execute("SELECT id FROM strings WHERE text = ?", (text,)).fetchone()
    if row:
        return row[0]
    return db.execute("INSERT INTO strings(id, text) SELECT COALESCE(MAX(id), 0) + 1, ? "
                      "FROM strings", (text,)).lastrowid

CUDART, CUDA, EXE = "/usr/lib/x86_64-linux-gnu/libcudart.so.13", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/work/examples/copies"
NATIVE, PYTHON = 0, 1
#         kind, function, file, line, module, address (innermost first)
launch = [(NATIVE, "cudaLaunchKernel", None, 0, CUDART, 0x5e210),
          (NATIVE, "_Z10launch_allPfi", "copies.cu", 41, EXE, 0x2a40),
          (NATIVE, "main", "copies.cu", 90, EXE, 0x2f18)]
stacks = {
    "launch_a": launch + [(PYTHON, "train_step", "train.py", 12, None, 0)],
    "launch_b": launch + [(PYTHON, "evaluate", "train.py", 30, None, 0)],
    "copy": [(NATIVE, None, None, 0, CUDA, 0x7f3a12345678),
             (NATIVE, "_ZN3app4stepEi", "app.cc", 7, EXE, 0x3100),
             (NATIVE, "main", "copies.cu", 95, EXE, 0x2f80)],
    "sync": [(PYTHON, "train_step", "train.py", 14, None, 0)],
}
base = db.execute("SELECT COALESCE(MAX(id), 0) FROM stacks").fetchone()[0]
ids = {}
calls = {name: db.execute("SELECT a.process, a.correlation FROM api_calls a JOIN strings s "
                          "ON s.id = a.name WHERE s.text = ? AND a.correlation ORDER BY a.id",
                          (name,)).fetchall()
         for name in ("cudaLaunchKernel_v7000", "cudaMemcpy_v3020", "cudaDeviceSynchronize_v3020")}
process = calls["cudaLaunchKernel_v7000"][0][0]
for n, (name, frames) in enumerate(stacks.items()):
    ids[name] = base + 1 + n
    db.execute("INSERT INTO stacks(id, process, flags, depth) VALUES (?, ?, 0, ?)",
               (ids[name], process, len(frames)))
    for depth, (kind, func, file, line, module, address) in enumerate(frames):
        db.execute("INSERT INTO stack_frames VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (ids[name], depth, kind, sid(func), sid(file), line, sid(module), address))
for i, (p, corr) in enumerate(calls["cudaLaunchKernel_v7000"]):
    db.execute("INSERT OR REPLACE INTO api_stacks VALUES (?, ?, ?)",
               (p, corr, ids["launch_a" if i % 2 == 0 else "launch_b"]))
for p, corr in calls["cudaMemcpy_v3020"]:
    db.execute("INSERT OR REPLACE INTO api_stacks VALUES (?, ?, ?)", (p, corr, ids["copy"]))
for p, corr in calls["cudaDeviceSynchronize_v3020"]:
    db.execute("INSERT OR REPLACE INTO api_stacks VALUES (?, ?, ?)", (p, corr, ids["sync"]))
assert len(calls["cudaLaunchKernel_v7000"]) >= 2 and calls["cudaMemcpy_v3020"], calls
db.commit()
EOF

# the calls with a native stack and their frames, from the kgantt trace itself: what the
# export must carry and the reader give back (frames that had no symbol are their
# library's, without a function; mangled names demangled; file, line and address are not in
# nsys exports)
python3 - "$t" > "$WORK/expected" <<'EOF' || fail "cannot list the stacks of the kgantt trace"
import shutil, sqlite3, subprocess, sys
db = sqlite3.connect(sys.argv[1])
text = dict(db.execute("SELECT id, text FROM strings"))
known = {"_Z10launch_allPfi": "launch_all(float*, int)", "_ZN3app4stepEi": "app::step(int)"}
def demangle(name):
    if not name.startswith("_Z") or name in known:
        return known.get(name, name)
    if shutil.which("c++filt"):
        return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
    return name
for p, corr, stack in db.execute("SELECT process, correlation, stack FROM api_stacks "
                                 "WHERE correlation ORDER BY process, correlation").fetchall():
    frames = db.execute("SELECT function, module, address FROM stack_frames WHERE stack = ? "
                        "AND kind = 0 ORDER BY depth", (stack,)).fetchall()
    outer = db.execute("SELECT p.pid, s.text FROM api_calls a JOIN processes p USING(process) "
                       "JOIN strings s ON s.id = a.name WHERE a.process = ? AND a.correlation = ? "
                       "AND a.start IS NOT NULL ORDER BY a.start, a.id LIMIT 1", (p, corr)).fetchone()
    if not frames or not outer:
        continue
    names = [demangle(text[f]) if f else "" if m else "0x%x" % (a & (2**64 - 1))
             for f, m, a in frames]
    mods = [text.get(m, "") if m else "" for f, m, a in frames]
    print("\t".join([str(outer[0]), str(corr), outer[1]] + ["%s@%s" % nm for nm in zip(names, mods)]))
EOF
[ -s "$WORK/expected" ] || fail "no calls with native stacks in the altered trace"

for schema in 3.28 3.16; do
	x=$WORK/stacks-$schema.sqlite
	python3 tests/tools/kgt_to_nsys.py --schema "$schema" "$t" "$x" 2> "$WORK/conv.err" ||
		fail "kgt_to_nsys.py --schema $schema: $(tail -3 "$WORK/conv.err")"
	# the export: one callchain per call with a native stack, the frames' rows in nsys's layout
	python3 - "$x" "$WORK/expected" <<'EOF' || fail "export $schema: CUDA_CALLCHAINS/callchainId"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
cols = [r[1] for r in db.execute("PRAGMA table_info(CUDA_CALLCHAINS)")]
assert cols == ["id", "symbol", "module", "unresolved", "originalIP", "stackDepth"], cols
n = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE callchainId IS NOT NULL").fetchone()[0]
assert n == len(want), (n, len(want))
rows = db.execute("SELECT COUNT(*) FROM CUDA_CALLCHAINS").fetchone()[0]
assert rows == sum(len(w) - 3 for w in want), rows
# every chain counts its depth from 0, innermost first, without gaps
bad = db.execute("SELECT COUNT(*) FROM (SELECT id FROM CUDA_CALLCHAINS GROUP BY id "
                 "HAVING MIN(stackDepth) != 0 OR MAX(stackDepth) != COUNT(*) - 1)").fetchone()[0]
assert bad == 0
# the frame without a symbol is flagged unresolved, the others are not
assert db.execute("SELECT COUNT(*) FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol "
                  "WHERE (c.unresolved IS NOT NULL) != (s.value LIKE '0x%')").fetchone()[0] == 0
EOF
	"$WORK/dump_stacks" "$x" > "$WORK/got" 2> "$WORK/dump.err" ||
		fail "reading the $schema export: $(cat "$WORK/dump.err")"
	python3 - "$WORK/got" "$WORK/expected" <<'EOF' || fail "stacks read from the $schema export"
import sys
want = {(w[0], w[1]): (w[2], w[3:]) for w in
        (l.rstrip("\n").split("\t") for l in open(sys.argv[2]))}
note, nstacks, calls, frames = None, None, {}, {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0] == "note":
        note = f[1]
    elif f[0] == "stacks":
        nstacks = int(f[1])
    elif f[0] == "call":
        calls[(f[1], f[2])] = f[3:]
    else:
        pid, corr, depth, kind, func, module, file, line_, address = f[1:]
        assert (kind, file, line_, address) == ("0", "", "0", "0"), f
        frames.setdefault((pid, corr), []).append((int(depth), "%s@%s" % (func, module)))
assert set(calls) == set(want), "calls with stacks: got %s, expected %s" % (
    sorted(set(calls) ^ set(want))[:5], len(want))
for key, (name, expect) in want.items():
    got_name, stack, flags, same_process = calls[key]
    assert got_name == name, (key, got_name, name)
    assert flags == "0" and same_process == "1", (key, flags, same_process)
    got = [fr for _, fr in sorted(frames[key])]
    assert got == expect, "%s %s: frames\n  %s\nexpected\n  %s" % (key, name, got, expect)
# equal native frames in one process: one stack, whatever kgantt stack they came from
distinct = {tuple(v[1]) for v in want.values()}
assert nstacks == len(distinct), (nstacks, len(distinct))
by_frames = {}
for key, (name, expect) in want.items():
    by_frames.setdefault(tuple(expect), set()).add(calls[key][1])
assert all(len(s) == 1 for s in by_frames.values()), by_frames
assert note == "Nsight Systems CUDA API backtraces (%d calls)" % len(want), note
# the stacks planted above, as the analysis will see them
launch = ["cudaLaunchKernel@/usr/lib/x86_64-linux-gnu/libcudart.so.13",
          "launch_all(float*, int)@/work/examples/copies", "main@/work/examples/copies"]
# a frame nsys could not resolve is its library's, without a function (docs/readers.md)
copy = ["@/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "app::step(int)@/work/examples/copies", "main@/work/examples/copies"]
assert sum(v[1] == launch and v[0].startswith("cudaLaunchKernel") for v in want.values()) >= 2
assert any(v[1] == copy and v[0].startswith("cudaMemcpy") for v in want.values())
assert not any(v[0].startswith("cudaDeviceSynchronize") for v in want.values())
print("%d calls, %d stacks" % (len(want), nstacks))
EOF
	echo "ok: $schema export: $(wc -l < "$WORK/expected") calls with backtraces read as stacks"
	# the commands take such a file as they take any export
	"$K" report --no-progress "$x" > "$WORK/report" 2> "$WORK/report.err" ||
		fail "kgantt report of the $schema export with backtraces: $(cat "$WORK/report.err")"
done

# an export whose callchains nobody kept (no CUDA_CALLCHAINS table) reads without stacks
x=$WORK/stacks-3.28.sqlite
python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("DROP TABLE CUDA_CALLCHAINS"); d.commit()' "$x"
"$WORK/dump_stacks" "$x" > "$WORK/got" || fail "reading an export without CUDA_CALLCHAINS"
if ! grep -q "^stacks	0$" "$WORK/got" || grep -q "^call" "$WORK/got"; then
	fail "stacks from an export without CUDA_CALLCHAINS: $(head -3 "$WORK/got")"
fi
echo "ok: without CUDA_CALLCHAINS, no stacks and no error"
