# Issue 25: communication kernels on real traces (tests/fixtures/public/hta/).
#   - the SM rules (under-filled-grid, low-occupancy, stream-serialization) never name an
#     NCCL kernel nor a stream that runs only communication kernels: an NCCL kernel's grid
#     is its channel count, its time is spent waiting for its peers;
. tests/e2e/lib.sh
PUB=tests/fixtures/public/hta
for t in "$PUB"/*.json.gz; do
	n=$(basename "$t" .json.gz)
	"$K" report --json --no-progress "$t" > "$WORK/$n.json" || fail "$n: report"
	python3 - "$t" "$WORK/$n.json" <<'PY' || fail "$n: an SM rule judges a communication kernel"
import collections, gzip, json, re, sys
raw = json.load(gzip.open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
comm = re.compile(r"nccl|NCCL|rccl|nvshmem")
kinds = collections.defaultdict(set)  # stream -> {is communication}
for e in raw["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
        kinds[e.get("args", {}).get("stream")].add(bool(comm.search(e["name"])))
comm_streams = {s for s, k in kinds.items() if k == {True}}
for f in got["findings"]:
    if f["rule"] in ("under-filled-grid", "low-occupancy"):
        assert not comm.search(f["title"]), f["title"]
    if f["rule"] == "stream-serialization":
        s = int(re.search(r"on stream (\d+)", f["title"]).group(1))
        assert s not in comm_streams, f["title"]
print(sys.argv[1], "no SM finding on", len(comm_streams), "communication streams")
PY
done
echo "ok: t103_comm_overlap"
