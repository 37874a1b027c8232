# The README's overhead figures are the latest measured ones: its "Low overhead" bullet
# gives, in order, the ratios of docs/results/overhead-h200.md (the table bench/overhead.sh
# wrote on the H200), and the number of runs that table took.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
python3 - README.md docs/results/overhead-h200.md <<'PY' || fail "README and docs/results/overhead-h200.md disagree"
import re, sys
readme, table = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
ratio = {}
for line in table.splitlines():
    c = [x.strip() for x in line.strip("|").split("|")]
    if len(c) >= 4 and re.fullmatch(r"[0-9.]+×", c[3]):
        ratio[c[0], c[1]] = c[3]
runs = re.search(r"runs per configuration: (\d+)", table).group(1)
bullet = readme[readme.index("- **Low overhead**"):]
bullet = bullet[:bullet.index("Part by part")]
want = [ratio[k] for k in (
    ("torch_gpt", "kgantt-kernels"), ("torch_gpt", "cupti-raw"), ("torch_gpt", "kgantt-full"),
    ("torch_gpt", "torch-profiler"), ("torch_tiny", "kgantt-kernels"),
    ("torch_tiny", "kgantt-full"), ("torch_tiny", "cupti-raw"),
    ("torch_tiny", "torch-profiler"), ("launch_loop", "kgantt-kernels"),
    ("launch_loop", "kgantt-full"), ("launch_loop", "cupti-raw"))]
got = re.findall(r"[0-9]+\.[0-9]+×", bullet)
assert got == want, "README %s, measured %s" % (got, want)
assert "medians of %s interleaved runs" % runs in bullet, "runs: the table took %s" % runs
print("ok: the README's %d overhead ratios and its run count are the table's" % len(got))
PY
