# Real Nsight Systems exports, recorded by others on A100s (pipit's and Extra-P's test
# data, tests/fixtures/public/README.md): a CloverLeaf hydrodynamics run (nsys 2024.5, CPU
# samples, a cudaDeviceSynchronize after every kernel), an MPI SAXPY (nsys 2022.2, no
# ENUM tables, CUDA API backtraces taken from inside CUPTI, each backtraced call also as a
# backtrace record) and Extra-P's vector example (nsys 2021, whose TARGET_INFO_GPU has no
# id: the GPU's properties are in TARGET_INFO_CUDA_GPU; one-block kernels, the runtime
# linked statically). What kgantt must say of each is recounted from the raw rows without
# kgantt: tests/fixtures/public/nsys/expect.py (the GPU side) and
# tests/tools/expect_nsys_host.py (the host side).
#   - counts, span, busy time, copy overlap and idle gaps exactly; a backtrace record is no
#     call of its own (57 calls, not 95);
#   - the host table (report --host) over the gaps of cause host or sync: the same idle
#     time; time in calls that wait for the GPU (and samples under a static cudart's
#     synchronising frames) is sync-wait, samples in libcupti or nsys's injection are
#     tracing, each within 2 points of the idle time (kgantt fits samples to the calls
#     around them: tests/e2e/t092); each function of 2 % or more within 1.5 points;
#   - SAXPY: host-sync-stall is the synchronous cudaMemcpy's, not the tracer's (nsys's
#     backtraces start inside CUPTI: those frames are not the program's), and keeps its
#     own fix; the pageable copies as counted; the 2-block grid named;
#   - CloverLeaf: nothing above info (88.7 % busy); launch-overhead's gaps as recounted,
#     the thread waiting for the GPU in them named as a cause with its fix; the driver's
#     unnamed frames one node, not one per address;
#   - Extra-P: the A100's 108 SMs read; each one-block kernel under-filled-grid, "1 block",
#     limited by the SM's block count (not shared memory: it uses none), launched at main,
#     not at the static runtime's frame nsys named cudaDeviceSynchronize.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
P=tests/fixtures/public/nsys
for name in saxpy_mpi_a100 cloverleaf_a100 extrap_vector_a100; do
	xz -dc "$P/$name.sqlite.xz" > "$WORK/$name.sqlite" || fail "$name: cannot decompress"
	python3 "$P/expect.py" "$WORK/$name.sqlite" > "$WORK/$name.gpu.json" || fail "$name: expect.py"
	python3 tests/tools/expect_nsys_host.py --host-or-sync "$WORK/$name.sqlite" \
		> "$WORK/$name.host.json" || fail "$name: expect_nsys_host.py"
	"$K" report --json --no-progress "$WORK/$name.sqlite" > "$WORK/$name.json" ||
		fail "$name: report --json"
	"$K" report --json --host --whole --no-progress "$WORK/$name.sqlite" > "$WORK/$name.whole.json" ||
		fail "$name: report --json --host --whole"
	"$K" report --host --no-progress "$WORK/$name.sqlite" > "$WORK/$name.txt" ||
		fail "$name: report --host"
	python3 - "$WORK/$name.gpu.json" "$WORK/$name.host.json" "$WORK/$name.json" \
		"$WORK/$name.whole.json" "$WORK/$name.txt" "$name" <<'PY' || fail "$name: see above"
import json, sys
sys.path.insert(0, "tests/tools")
from host_functions import functions
gpu, host, rep, whole = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:5])
text = open(sys.argv[5], encoding="utf-8").read()
name = sys.argv[6]

t, g = rep["trace"], rep["gpus"][0]
for k in ("kernels", "copies", "memsets", "api_calls", "span_ns", "begin_ns", "end_ns"):
    assert t[k] == gpu[k], (name, k, t[k], gpu[k])
for k in ("busy_ns", "copy_kernel_overlap_ns", "idle_gaps"):
    assert g[k] == gpu[k], (name, k, g[k], gpu[k])
assert sum(g["idle_ns_by_cause"].values()) == gpu["idle_ns"], (name, g["idle_ns_by_cause"], gpu)

h = whole["host"]
assert h["idle_ns"] == host["idle_ns"], (name, h["idle_ns"], host["idle_ns"])
causes = {c["cause"]: c["ns"] for c in h["causes"]}
idle = host["idle_ns"]
lo, hi = host["waiting_calls_ns"], host["waiting_calls_ns"] + host["sync_frames_ns"]
sync = causes.get("sync-wait", 0)
assert lo - 0.02 * idle <= sync <= hi + 0.02 * idle, (name, sync, lo, hi)
assert abs(causes.get("tracing", 0) - host["tracer_ns"]) <= 0.02 * idle, (name, causes, host)
got, checked = functions(whole), 0
for f, ns in host["functions"].items():
    if ns >= 0.02 * idle:
        assert abs(got.get(f, 0) - ns) <= 0.015 * idle, (name, f, got.get(f, 0), ns)
        checked += 1
assert checked >= (3 if host["sampled_ns"] > 0.2 * idle else 0), (name, checked)
print("ok: %s: %d kernels, %d calls, busy %.1f%%; sync-wait %.1f%% of the host's idle time "
      "(calls %.1f%%), tracing %.1f%%; %d functions as recounted" % (
          name, t["kernels"], t["api_calls"], 100 * g["busy_ns"] / t["span_ns"], 100 * sync / idle,
          100 * lo / idle, 100 * causes.get("tracing", 0) / idle, checked))

found = {f["rule"]: f for f in rep["findings"]}
def figures(f):  # "copies=279, copy_ms=9.391, ..."
    return {k: float(v) for k, v in (x.split("=") for x in f["figures"].split(", "))}
def cause_shares(f):
    return {c["cause"]: c["share"] for c in (f.get("host") or {}).get("causes", [])}
if name.startswith("saxpy"):
    f = found["host-sync-stall"]
    c = cause_shares(f)
    assert c.get("sync-wait", 0) >= 0.99 and "tracing" not in c, c
    assert f["fix"].startswith("Remove per-step synchronisation"), f["fix"]
    # at the program's main, not at cuda_runtime.h's cudaMalloc<double> template
    assert [s["label"] for s in f["sites"]] == ["main (saxpy-mpi-cuda) → cudaMemcpy"], f["sites"]
    assert "Nsight Systems), which the program" not in text  # no recording line: no tracer time
    cc = figures(found["copy-compute-overlap"])
    assert cc["pageable"] == gpu["pageable_copies"] and cc["copies"] == gpu["copies"], (cc, gpu)
    assert cc["sync_memcpy"] == gpu["blocking_calls"], (cc, gpu)
    u = found["under-filled-grid"]
    assert u["title"].startswith("saxpy launches %d blocks" % gpu["small_grids"]["saxpy"]), u["title"]
    print("ok: saxpy: host-sync-stall is the synchronous cudaMemcpy's (%.0f%%), not the tracer's"
          % (100 * c["sync-wait"]))
elif name.startswith("extrap"):
    assert rep["devices"][0]["sm_count"] == 108, rep["devices"][0]
    small = {f["title"].split(" launches ")[0]: f for f in rep["findings"]
             if f["rule"] == "under-filled-grid"}
    assert set(small) == set(gpu["small_grids"]), (sorted(small), gpu["small_grids"])
    for k, f in small.items():
        assert " launches 1 block on 108 SMs" in f["title"], f["title"]
        assert all(s["label"].startswith("main (") for s in f["sites"]), f["sites"]
    assert "(limited by blocks)" in text and "limited by shared memory" not in text
    print("ok: extrap: %d one-block kernels, each named at main, limited by blocks" % len(small))
else:
    loud = [f["rule"] for f in rep["findings"] if f["severity"] != "info"]
    assert not loud, loud
    f = figures(found["launch-overhead"])
    assert f["tiny_kernels"] == gpu["tiny_gaps"], (f, gpu)
    assert abs(f["idle_ms"] * 1e6 - gpu["tiny_idle_ns"]) < 1000, (f, gpu)
    c = cause_shares(found["launch-overhead"])
    want = gpu["tiny_waiting_ns"] / gpu["tiny_idle_ns"]
    assert want > 0.25 and c.get("sync-wait", 0) >= want - 0.02, (c, want)
    assert "waiting for the GPU in synchronising calls took" in found["launch-overhead"]["fix"]
    assert "libcuda.so.525.105.17 (no symbols)" in text and "0x7f" not in text, \
        [l for l in text.splitlines() if "0x7f" in l][:3]
    print("ok: cloverleaf: nothing above info; launch-overhead's %d gaps as recounted, %.0f%% of "
          "them waiting for the GPU (calls alone: %.0f%%)" % (gpu["tiny_gaps"],
          100 * c["sync-wait"], 100 * want))
PY
done
