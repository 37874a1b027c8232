# Third-party programs recorded by full mode on an H100 on 2026-12-06 (no H200 could be
# started): a timm ResNet-18 trained on batches made on the CPU each step
# (tests/gpu/timm_train.py, torch.randn), and a transformers Llama decoder generating at
# batch 1 (tests/gpu/hf_decode.py), whose attention cuDNN compiles at run time
# (tests/fixtures/h100/thirdparty/). What each program spends its host time on is counted
# here from the raw samples, and the report must name the same: the timm loop's GPU waits
# on its CPU random numbers, the decoder's on NVRTC; and no finding puts idle time in the
# recorder's exit handler (src/model/host_fit.c).
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
tp() { FIXTURES=tests/fixtures/h100 fixture "thirdparty/$1"; }
timm=$(tp timm_train) dec=$(tp hf_decode)
"$K" report --json --no-progress "$timm" > "$WORK/timm.json" || fail "report timm_train"
"$K" report --json --no-progress "$dec" > "$WORK/dec.json" || fail "report hf_decode"
python3 - "$timm" "$WORK/timm.json" "$dec" "$WORK/dec.json" <<'PY' || fail "third-party programs"
import json, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows


def launching_samples(path, where):
    """The launching thread's samples in the GPU's span (its first process thread with API
    calls: the program's main thread), and how many of them have a frame `where` picks."""
    db = kgt_rows.connect(path)
    (thread,) = db.execute("SELECT min(thread) FROM api_calls").fetchone()
    k0, k1 = db.execute("SELECT min(start), max(\"end\") FROM kernels").fetchone()
    picked = set(r for (r,) in db.execute(
        "SELECT DISTINCT f.stack FROM stack_frames f LEFT JOIN strings fn ON fn.id = f.function "
        "LEFT JOIN strings mo ON mo.id = f.module WHERE " + where))
    s = [st for st, ts in db.execute("SELECT stack, ts FROM host_samples WHERE thread = ?",
                                     (thread,)) if k0 <= ts <= k1]
    return len(s), sum(st in picked for st in s)


def first(report):
    f = json.load(open(report, encoding="utf-8"))["findings"]
    for x in f:
        for a in (x.get("host") or {}).get("activities", []):
            assert "at_exit" not in a["label"], (report, x["rule"], a["label"][-80:])
    return f[0]


# the timm loop: its batches come from torch.randn on the CPU (by construction)
n, rng = launching_samples(sys.argv[1], "fn.text LIKE '%CPUGeneratorImpl%' OR "
                           "fn.text LIKE '%normal_kernel%' OR fn.text LIKE '%normal_impl_%'")
assert n > 100 and rng >= 0.1 * n, (n, rng)
f = first(sys.argv[2])
top = f["host"]["activities"][0]
assert f["rule"] == "host-bound", f["rule"]
assert "CPUGeneratorImpl" in top["label"] or "normal_impl_" in top["label"], top["label"]
print("ok: timm_train: %d of the main thread's %d samples in the CPU's random numbers; host-bound "
      "(%.0f ms) puts its largest share, %.0f %%, there" % (rng, n, f["gain_ns"] / 1e6, 100 * top["share"]))
# the decoder: cuDNN's attention compiled through NVRTC
n, jit = launching_samples(sys.argv[3], "mo.text LIKE '%libnvrtc%'")
assert n > 100 and jit >= 0.5 * n, (n, jit)
f = first(sys.argv[4])
assert f["rule"] == "host-bound" and f["host"]["cause"] == "jit-compile", (f["rule"], f["host"]["cause"])
share = [c["share"] for c in f["host"]["causes"] if c["cause"] == "jit-compile"][0]
assert share >= 0.5, share
print("ok: hf_decode: %d of the launching thread's %d samples in NVRTC; host-bound's cause is JIT "
      "compilation (%.0f %%)" % (jit, n, 100 * share))
# the longest gap's evidence names what came next, even when its launch call was not sampled
# (it said "next launch by ?")
names = {r for (r,) in kgt_rows.connect(sys.argv[3]).execute(
    "SELECT s.text FROM kernels k JOIN strings s ON s.id = k.name")}
ev = [e["text"] for x in json.load(open(sys.argv[4], encoding="utf-8"))["findings"]
      for e in x.get("evidence") or [] if "longest gap" in e["text"]]
assert ev and not any("?" in t for t in ev), ev
unsampled = [t for t in ev if "(its launch call not sampled)" in t]
assert all(t.split("next: ")[1].split(" (its launch")[0] in names for t in unsampled), unsampled
print("ok: hf_decode: the longest gap's evidence: %s" % ev[0].split(", ", 1)[1][:90])
PY
