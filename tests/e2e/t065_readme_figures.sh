# The README's figures are the latest measured ones: its "Low overhead" bullet (and
# docs/record.md's) names a table bench/overhead.sh wrote (docs/results/overhead-*.md), the
# newest by its date, and gives, in order, that table's ratios and the number of runs it
# took; its speed figures, and docs/speed.md's, are in the results files they name.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
for doc in README.md docs/record.md; do
python3 - "$doc" <<'PY' || fail "$doc: its overhead figures are not the newest table's"
import glob, re, sys
readme = open(sys.argv[1], encoding="utf-8").read()
bullet = readme[readme.index("- **Low overhead**"):]
bullet = bullet[:bullet.index("Part by part")]
named = re.search(r"\((?:docs/)?results/(overhead-[^)/]+\.md)\)", bullet).group(1)
dates = {}
for path in glob.glob("docs/results/overhead-*.md"):
    d = re.search(r"^- date: (\S+ \S+)", open(path, encoding="utf-8").read(), re.M)
    if d:
        dates[path.split("/")[-1]] = d.group(1)
assert dates.get(named) == max(dates.values()), "names %s of %s; the newest: %s" % (
    named, dates.get(named), max(dates, key=dates.get))
table = open("docs/results/" + named, encoding="utf-8").read()
ratio = {}
for line in table.splitlines():
    c = [x.strip() for x in line.strip("|").split("|")]
    if len(c) >= 4 and re.fullmatch(r"[0-9.]+×", c[3]):
        ratio[c[0], c[1]] = c[3]
runs = re.search(r"runs per configuration: (\d+)", table).group(1)
want = [ratio[k] for k in (
    ("torch_gpt", "kgantt-kernels"), ("torch_gpt", "cupti-raw"), ("torch_gpt", "kgantt-full"),
    ("torch_gpt", "torch-profiler"), ("torch_tiny", "kgantt-kernels"),
    ("torch_tiny", "kgantt-full"), ("torch_tiny", "cupti-raw"),
    ("torch_tiny", "torch-profiler"), ("launch_loop", "kgantt-kernels"),
    ("launch_loop", "kgantt-full"), ("launch_loop", "cupti-raw"))]
got = re.findall(r"[0-9]+\.[0-9]+×", bullet)
assert got == want, "README %s, measured %s" % (got, want)
assert "medians of %s interleaved runs" % runs in bullet, "runs: the table took %s" % runs
print("ok: %s: its %d overhead ratios and its run count are those of %s, the newest table" % (sys.argv[1], len(got), named))
PY
done

# speed: each figure beside the results file it comes from
python3 - <<'PY' || fail "a speed figure is not its results file's"
import re
report = open("docs/results/report-speed.md", encoding="utf-8").read()
readme = open("README.md", encoding="utf-8").read()
latest = open("docs/results/report-speed-2026-12-04.md", encoding="utf-8").read()
assert "in 0.45 s" in readme and "86 bytes per event" in readme, "README's speed line"
assert "report` on the 1M trace: 0.45 s wall" in latest and "86 bytes per event" in latest, "report-speed-2026-12-04.md"
assert "(0.35 s then)" in readme and "report` on the 1M trace: 0.35 s wall" in report, "report-speed.md"
assert "takes\n  0.65 s beside it" in readme and "| 0.653 |" in latest, "the 2026-12-01 build beside it"
speed = open("docs/speed.md", encoding="utf-8").read()
for row in re.findall(r"^\| (.*?) \| (.*?) \| \[.*?\]\((.*?)(?:#.*?)?\) \|$", speed, re.M):
    what, figure, source = row
    text = open("docs/" + source, encoding="utf-8").read()
    for x in re.findall(r"[0-9][0-9.,]*(?:–[0-9.]+)? (?:s|MiB|GiB|bytes)", figure):
        num = x.split()[0]
        assert num in text, "docs/speed.md: '%s' (%s) is not in docs/%s" % (x, what, source)
print("ok: every figure of docs/speed.md is in the results file it names")
PY
