# What the host did while the steady steps' left-out part ran (issue 24: "steps 1–3:
# warm-up, 2.3 s of XLA compilation on the host"), on H200 recordings with host samples:
#   - a JAX jitted loop (tests/gpu/jax_loop.py): its start-up and its warm-up steps are JIT
#     compilation; recounted without kgantt from the trace's rows (export --format sqlite):
#     the launching thread's samples in the warm-up whose stack runs through JAX's compiler
#     (jax/_src/compiler.py, backend_compile) are most of its samples there;
#   - a PyTorch DataLoader loop (tests/gpu/host_dataloader.py): its start-up is importing
#     Python modules (the import machinery on the stack: importlib._bootstrap), not the
#     "JIT compilation" that importing torch._dynamo's compiler modules looked like.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
H=tests/fixtures/h200/host
for name in jax_loop dataloader; do
	xz -dc "$H/$name.kgt.xz" > "$WORK/$name.kgt" || fail "$name: cannot decompress"
	"$K" report --json --no-progress "$WORK/$name.kgt" > "$WORK/$name.json" || fail "$name: report"
	"$K" report --no-progress "$WORK/$name.kgt" > "$WORK/$name.txt" || fail "$name: report (text)"
done
"$K" export -f sqlite -o "$WORK/jax_rows.sqlite" "$WORK/jax_loop.kgt" || fail "export"
python3 - "$WORK/jax_loop.json" "$WORK/jax_rows.sqlite" "$WORK/dataloader.json" <<'PY' || fail "the left-out part's host side"
import json, sqlite3, sys
jax = json.load(open(sys.argv[1], encoding="utf-8"))
db = sqlite3.connect(sys.argv[2])
dl = json.load(open(sys.argv[3], encoding="utf-8"))
st = jax["steps"]
assert st["applied"] and st["first_steady"] == 3, (st["applied"], st["first_steady"])
assert st["startup_host"]["cause"] == "jit-compile", st["startup_host"]
w = st["warmup_host"]
assert w["cause"] == "jit-compile" and w["ns"] >= 0.5 * st["warmup_ns"], (w, st["warmup_ns"])
# the recount: the launching thread (most calls), its samples in the warm-up steps
b, e = st["steps"][0]["host_start_ns"], st["steps"][st["first_steady"] - 1]["host_start_ns"]
(thread,) = db.execute("SELECT thread FROM api_calls GROUP BY thread ORDER BY COUNT(*) DESC LIMIT 1").fetchone()
compiling = set(r for (r,) in db.execute(
    "SELECT DISTINCT f.stack FROM stack_frames f LEFT JOIN strings fi ON fi.id = f.file "
    "LEFT JOIN strings fn ON fn.id = f.function "
    "WHERE fi.text LIKE '%jax/_src/compiler%' OR fn.text IN ('backend_compile', 'compile_or_get_cached')"))
samples = db.execute("SELECT stack FROM host_samples WHERE thread = ? AND ts >= ? AND ts < ?",
                     (thread, b, e)).fetchall()
share = sum(s in compiling for (s,) in samples) / len(samples)
assert len(samples) > 100 and share >= 0.5, (len(samples), share)
print("ok: jax_loop: warm-up %.2f s, %.2f s of it JIT compilation (kgantt %.0f%%; %d of the thread's "
      "samples there, %.0f%% through JAX's compiler)" % (st["warmup_ns"] / 1e9, w["ns"] / 1e9,
      100 * w["ns"] / st["warmup_ns"], len(samples), 100 * share))
s = dl["steps"]["startup_host"]
assert s and s["cause"] == "import", s
print("ok: dataloader: its start-up is importing modules (%.2f s)" % (s["ns"] / 1e9))
PY
grep -q "^  steps        the findings are of the 198 steady steps; left out: 5.73 s before step 1 (host: 2.78" \
	"$WORK/jax_loop.txt" || fail "jax_loop: the header: $(grep -A3 '^  steps' "$WORK/jax_loop.txt")"
tr -s ' \n' ' ' < "$WORK/jax_loop.txt" | grep -q "1.02 s (host: 995.87 ms of JIT compilation)" ||
	fail "jax_loop: the warm-up's host side: $(grep -A3 '^  steps' "$WORK/jax_loop.txt")"
tr -s ' \n' ' ' < "$WORK/dataloader.txt" | grep -q "before step 1 (host: 5.72 s of importing Python modules)" ||
	fail "dataloader: the header: $(grep -A3 '^  steps' "$WORK/dataloader.txt")"
echo "ok: the headers say it"
