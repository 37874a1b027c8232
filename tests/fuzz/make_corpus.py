#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the committed fixtures (tests/fixtures).

    tests/fuzz/make_corpus.py [--kgantt build/kgantt]

Seeds are small on purpose: libFuzzer mutates small inputs faster and the corpus lives in
git. What each target gets:

  fuzz_kineto, fuzz_analysis   PyTorch profiler traces cut down to a few kernels with their
                               launches, flows, enclosing operators and metadata (plain JSON;
                               fuzz_kineto also one gzip file): the first kernels of each
                               fixture for one, later ones for the other
  fuzz_kineto_pieces           fuzz_kineto's plain JSON seeds
  fuzz_kgt                     SQL that fills an empty kgantt trace with a fixture's rows (a
                               few of each table), and a small fixture as an SQLite file with
                               512-byte pages; with --kgantt, a compacted copy too ('kgantt
                               pack': format 5). copies_bad_packed.kgt, the same with format
                               2-4's blocks beside the rows, was written by an older kgantt
                               and is kept as it is.
  fuzz_nsys                    SQL that creates and fills an Nsight Systems export made from a
                               fixture by tests/tools/kgt_to_nsys.py, both schema layouts;
                               with --kgantt, one with CPU samples (host/syncs_fp); and
                               the first rows of the real exports of public/nsys
  fuzz_job, fuzz_diff,         two or three traces in one input, cut at FUZZ_NEXT
  fuzz_merge                   (fuzz_traces.h): a small job made here (job_sql: ranks on
                               two hosts, steps, all-reduces, a late rank and a slow one)
                               as SQL, fixtures as SQL (copies_bad against copies_fixed,
                               torchrun_2ranks), and the Kineto seeds

fuzz_spool's seeds come from the recorder's own spool writer: make fuzz-spool-seeds;
fuzz_job_wire's from the job wire itself: make fuzz-job-seeds.
"""

import argparse
import gzip
import json
import lzma
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
H200 = os.path.join(ROOT, "tests/fixtures/h200")
TORCH = os.path.join(ROOT, "tests/fixtures/torch")
CORPUS = os.path.join(HERE, "corpus")

# ------------------------------------------------------------------ Kineto JSON

# Operator arguments that only make the seeds longer.
BULKY_ARGS = ("Input Strides", "Input Dims", "Concrete Inputs", "Input type", "Ev Idx")


def encloses(outer, inner):
    return outer["ts"] <= inner["ts"] and inner["ts"] + inner.get("dur", 0) <= outer["ts"] + outer.get("dur", 0)


def cut_kineto(doc, first, kernels):
    """The document with kernels first .. first + kernels (by start), what launched them,
    the host events around the launches, a few copies, memsets and GPU annotations, and
    the metadata of the processes and threads that remain."""
    ev = doc["traceEvents"]
    gpu = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])[first:first + kernels]
    corr = {e["args"].get("correlation") for e in gpu}
    launches = [e for e in ev if e.get("cat") == "cuda_runtime" and e.get("args", {}).get("correlation") in corr]
    if not launches:
        return None
    flows = [e for e in ev if e.get("cat") == "ac2g" and e.get("id") in corr]
    host = [e for e in ev if e.get("cat") in ("cpu_op", "user_annotation", "python_function")
            and any(encloses(e, l) for l in launches)][-6:]
    lo = min(e["ts"] for e in launches)
    near = lambda cat, n: sorted((e for e in ev if e.get("cat") == cat), key=lambda e: abs(e["ts"] - lo))[:n]
    other = near("gpu_memcpy", 2) + near("gpu_memset", 1) + near("gpu_user_annotation", 2) + \
        near("cuda_driver", 2) + [e for e in ev if e.get("cat") in ("Trace", "overhead")][:1]
    kept = gpu + launches + flows + host + other
    pids = {e.get("pid") for e in kept}
    tids = {(e.get("pid"), e.get("tid")) for e in kept}
    meta = [e for e in ev if e.get("ph") == "M" and e.get("pid") in pids
            and (e.get("name") in ("process_name", "process_labels", "process_sort_index")
                 or (e.get("pid"), e.get("tid")) in tids)]
    for e in kept:
        for k in BULKY_ARGS:
            e.get("args", {}).pop(k, None)
    out = {k: v for k, v in doc.items() if k not in ("traceEvents", "trace_id", "traceName")}
    out["traceEvents"] = meta + sorted(kept, key=lambda e: e["ts"])
    return out


def kineto_seeds():
    seeds = {}
    for name in sorted(os.listdir(TORCH)):
        with gzip.open(os.path.join(TORCH, name), "rt") as f:
            doc = json.load(f)
        base = name.split(".")[0]
        for first, n in ((0, 3), (40, 5)):
            cut = cut_kineto(doc, first, n)
            if cut:
                seeds[f"{base}_{first}.json"] = json.dumps(cut, separators=(",", ":")).encode()
    return seeds


# ------------------------------------------------------------------ kgantt traces

def xz_copy(name, out):
    with lzma.open(os.path.join(H200, name + ".kgt.xz")) as f, open(out, "wb") as g:
        shutil.copyfileobj(f, g)


def quoted_rows(db, table, where="", limit=None):
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    sql = f"SELECT {','.join('quote(%s)' % c for c in cols)} FROM {table} {where}"
    if limit:
        sql += f" LIMIT {limit}"
    return [f"INSERT INTO {table} VALUES({','.join(r)});" for r in db.execute(sql)]


def kgt_sql(path, per_table=6):
    """INSERTs that put a few rows of each table of a trace into the empty trace that
    fuzz_kgt starts from (its schema and meta rows are already there)."""
    db = sqlite3.connect(path)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = []
    for t in ("processes", "devices", "contexts", "stack_settings"):
        if t in tables:
            out += quoted_rows(db, t)
    out += quoted_rows(db, "streams", "WHERE stream IN (SELECT stream FROM kernels ORDER BY rowid "
                       "LIMIT %d) OR rowid <= 3" % per_table)
    for t in ("kernels", "memcpys", "memsets", "syncs", "nvtx", "messages"):
        if t in tables:
            out += quoted_rows(db, t, "ORDER BY rowid", per_table)
    # the launches of those kernels and copies, and a few other calls
    out += quoted_rows(db, "api_calls",
                       "WHERE correlation IN (SELECT correlation FROM kernels ORDER BY rowid LIMIT %d) "
                       "OR correlation IN (SELECT correlation FROM memcpys ORDER BY rowid LIMIT %d) "
                       "OR rowid <= 4" % (per_table, per_table))
    if "api_stacks" in tables:
        out += quoted_rows(db, "api_stacks", "", per_table)
        out += quoted_rows(db, "stacks", "WHERE id IN (SELECT stack FROM api_stacks LIMIT %d)" % per_table)
        out += quoted_rows(db, "stack_frames",
                           "WHERE stack IN (SELECT stack FROM api_stacks LIMIT %d) AND depth < 6" % per_table)
    out += quoted_rows(db, "strings", "ORDER BY id", 60)
    db.close()
    return ("\n".join(out) + "\n").encode()


def small_copy(src, out):
    shutil.copy(src, out)
    db = sqlite3.connect(out)
    db.execute("PRAGMA page_size=512")
    db.execute("VACUUM")
    db.close()


def kgt_seeds(tmp, kgantt):
    seeds = {}
    for name in ("launches_fixed", "copies_bad", "nvtx_bad", "multigpu_bad", "syncs_bad",
                 "torch_two_streams", "capture_range"):
        path = os.path.join(tmp, name + ".kgt")
        xz_copy(name, path)
        seeds[f"{name}.sql"] = kgt_sql(path)
    for name in ("copies_bad",):
        out = os.path.join(tmp, name + ".small.kgt")
        small_copy(os.path.join(tmp, name + ".kgt"), out)
        with open(out, "rb") as f:
            seeds[f"{name}.kgt"] = f.read()
    if kgantt:
        # the trace compacted: its kernels and API calls as blocks only
        path = os.path.join(tmp, "packed.kgt")
        shutil.copy(os.path.join(tmp, "copies_bad.small.kgt"), path)
        subprocess.run([kgantt, "pack", path], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        small_copy(path, path + ".small")
        with open(path + ".small", "rb") as f:
            seeds["copies_bad_compact.kgt"] = f.read()
    return seeds


# ------------------------------------------------------------------ Nsight exports

# Rows a seed keeps of a table: the first few samples' frames whole.
SEED_ROWS = {"SAMPLING_CALLCHAINS": 120, "COMPOSITE_EVENTS": 24}


def nsys_sql(path, per_table=8):
    """CREATE TABLEs of an export and a few rows of each: fuzz_nsys starts empty."""
    db = sqlite3.connect(path)
    out = []
    for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"):
        out.append(sql + ";")
        if name.startswith("ENUM_") or name == "StringIds":
            continue
        out += quoted_rows(db, name, "ORDER BY rowid", SEED_ROWS.get(name, per_table))
    # the strings the rows kept name; the enums whole (small)
    for name in [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'ENUM_%'")]:
        out += quoted_rows(db, name)
    out += quoted_rows(db, "StringIds", "ORDER BY id", 80)
    db.close()
    return ("\n".join(out) + "\n").encode()


def nsys_seeds(tmp, kgantt=None):
    """Exports of fixtures; with kgantt (which makes a compacted trace rows for the
    converter) also one with CPU samples (COMPOSITE_EVENTS, SAMPLING_CALLCHAINS)."""
    seeds = {}
    conv = os.path.join(ROOT, "tests/tools/kgt_to_nsys.py")
    traces = [("copies_bad", "3.28"), ("nvtx_bad", "3.16"), ("syncs_bad", "3.28")]
    if kgantt:
        traces.append(("host/syncs_fp", "3.28"))
    for name, schema in traces:
        out = os.path.join(tmp, f"{os.path.basename(name)}-{schema}.sqlite")
        subprocess.run([sys.executable, conv, "--schema", schema,
                        os.path.join(H200, name + ".kgt.xz"), out], check=True,
                       env=dict(os.environ, KGANTT=kgantt or ""))
        seeds[f"{os.path.basename(name)}_{schema}.sql"] = nsys_sql(out)
    # real exports (tests/fixtures/public/nsys): nsys 2022.2 without ENUM tables, its
    # backtrace records and CUPTI's frames atop each backtrace; 2024.5 with CPU samples;
    # 2021's TARGET_INFO_CUDA_GPU
    for name in ("saxpy_mpi_a100", "cloverleaf_a100", "extrap_vector_a100"):
        out = os.path.join(tmp, name + ".sqlite")
        with lzma.open(os.path.join(ROOT, "tests/fixtures/public/nsys", name + ".sqlite.xz")) as f, \
                open(out, "wb") as o:
            shutil.copyfileobj(f, o)
        seeds[f"{name}.sql"] = nsys_lean_sql(out)
    return seeds


# The tables read_nsys.c reads (the rest of a real export, ~90 tables and their ENUMs,
# would make a seed of 200 KB).
NSYS_READ = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
             "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
             "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "CUDA_CALLCHAINS",
             "COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS", "TARGET_INFO_GPU",
             "TARGET_INFO_CUDA_DEVICE", "TARGET_INFO_CUDA_GPU", "TARGET_INFO_CUDA_CONTEXT_INFO",
             "TARGET_INFO_CUDA_STREAM", "ThreadNames", "PROCESSES", "ENUM_NSYS_EVENT_CLASS",
             "ENUM_CUDA_MEM_KIND", "ENUM_SAMPLING_THREAD_STATE", "META_DATA_EXPORT",
             "EXPORT_META_DATA")


def nsys_lean_sql(path, per_table=16):
    """A real export cut to the tables kgantt reads, their first rows (a runtime table's
    rows around its first backtrace record, and a callchain whole) and the strings those
    rows name."""
    db = sqlite3.connect(path)
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out, rows = [], []
    for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"):
        if name in NSYS_READ or name == "StringIds":  # without nsys's column comments
            out.append(re.sub(r"\s*--[^\n]*", "", sql) + ";")
    for name in NSYS_READ:
        if name not in have:
            continue
        where = "ORDER BY rowid"
        if name == "CUPTI_ACTIVITY_KIND_RUNTIME" and db.execute(
                "SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 67").fetchone():
            where = ("WHERE rowid >= (SELECT MIN(rowid) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                     "WHERE eventClass = 67) - 4 ORDER BY rowid")
        kept = quoted_rows(db, name, where, SEED_ROWS.get(name, per_table))
        out += kept
        rows += kept
    used = {int(x) for r in rows for x in re.findall(r"(?<![\w.'])(\d+)(?![\w.'])", r)}
    out += [r for r in quoted_rows(db, "StringIds", "ORDER BY id")
            if int(re.match(r"INSERT INTO StringIds VALUES\((\d+)", r).group(1)) in used]
    db.close()
    return ("\n".join(out) + "\n").encode()


# ------------------------------------------------------------------ several traces

NEXT = b"\n#kgantt-fuzz-next-trace\n"  # fuzz_traces.h: FUZZ_NEXT


def job_sql(ranks=3, steps=3, late=(1, 2), slow=2):
    """SQL of a small data-parallel job, one trace per rank (as bench/gen_job.py, cut to
    the bone): steps (NVTX ranges 'step') of three compute kernels and an all-reduce on its
    own stream, ranks on two hosts with their own clocks and realtime offsets; rank late[0]
    starts step late[1]'s collective 3 ms late, rank slow's kernels take 1.3x as long."""
    names = ["gemm_bf16_tn", "layer_norm_fwd", "gelu_fwd",
             "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "cudaLaunchKernel", "step"]
    ready = {}
    for r in range(ranks):
        t = 1_000_000
        for s in range(steps):
            t += 50_000
            for k in range(3):
                t += int(200_000 * (1.3 if r == slow else 1)) + 5_000
            ready[r, s] = t + (3_000_000 if (r, s) == late else 0)
            t = ready[r, s] + 400_000
    ends = {s: max(ready[r, s] for r in range(ranks)) + 250_000 for s in range(steps)}
    out = []
    for r in range(ranks):
        host = r % 2
        clock = host * 7_000_000_000_000  # each host's CLOCK_MONOTONIC_RAW
        rows = ["INSERT INTO strings VALUES" + ",".join(
            "(%d,'%s')" % (i + 1, n) for i, n in enumerate(names)) + ";",
            "INSERT INTO processes(process, pid, host, rank, start_ns, end_ns, "
            "realtime_offset_ns, complete) VALUES(1, %d, 'node%d', '%d', %d, %d, %d, 1);"
            % (1000 + r, host, r, clock, clock + 20_000_000,
               1_796_000_000_000_000_000 - clock + 150_000 * host),
            "INSERT INTO devices(process, device, name, sm_count, max_warps_per_sm, "
            "max_blocks_per_sm, max_threads_per_block, cc_major, cc_minor) "
            "VALUES(1, %d, 'NVIDIA H200', 132, 64, 32, 1024, 9, 0);" % host,
            "INSERT INTO contexts(process, context, device, null_stream, green) "
            "VALUES(1, 1, %d, 7, 0);" % host,
            "INSERT INTO streams(process, context, stream, priority, flags, correlation) "
            "VALUES(1, 1, 7, 0, 3, 0), (1, 1, 13, -1, 2, 0);"]
        corr, t = 0, 1_000_000
        for s in range(steps):
            t += 50_000
            step_start = t
            for k in range(4):
                corr += 1
                if k < 3:
                    start, stream, name = t, 7, k + 1
                    t += int(200_000 * (1.3 if r == slow else 1))
                    end = t
                    t += 5_000
                else:
                    start, end, stream, name = ready[r, s], ends[s], 13, 4
                rows.append("INSERT INTO api_calls(process, thread, domain, cbid, name, start, end, "
                            "correlation, return_value) VALUES(1, 1, 1, 211, 5, %d, %d, %d, 0);"
                            % (clock + start - 3000, clock + start - 1000, corr))
                rows.append("INSERT INTO kernels(process, device, context, stream, correlation, "
                            "name, demangled, queued, submitted, start, end, grid_x, grid_y, "
                            "grid_z, block_x, block_y, block_z) VALUES(1, %d, 1, %d, %d, %d, %d, "
                            "%d, %d, %d, %d, 132, 1, 1, 256, 1, 1);"
                            % (host, stream, corr, name, name, clock + start - 900,
                               clock + start - 400, clock + start, clock + end))
            t = ready[r, s] + 400_000
            rows.append("INSERT INTO nvtx(process, thread, domain, name, start, end, end_thread) "
                        "VALUES(1, 1, 0, 6, %d, %d, 1);" % (clock + step_start, clock + t))
        out.append(("\n".join(rows) + "\n").encode())
    return out


def several_seeds(tmp, kineto):
    """fuzz_job, fuzz_diff and fuzz_merge: two or three traces in one input."""
    job = job_sql()
    two = {"job_3ranks.sql": NEXT.join(job), "job_2ranks.sql": NEXT.join(job[:2])}
    kin = [kineto[n] for n in ("torch_two_streams_0.json", "torch_tiny_ops_0.json")]
    fixtures = {}
    for name in ("copies_bad", "copies_fixed", "torchrun_2ranks"):
        path = os.path.join(tmp, name + ".kgt")
        xz_copy(name, path)
        fixtures[name] = kgt_sql(path)
    job_seeds = dict(two)
    job_seeds["kineto_2traces.json"] = NEXT.join(kin)
    job_seeds["torchrun_2ranks.sql"] = fixtures["torchrun_2ranks"]
    job_seeds["mixed.sql"] = NEXT.join([job[0], kin[0]])
    diff_seeds = {"copies_bad_fixed.sql": NEXT.join([fixtures["copies_bad"], fixtures["copies_fixed"]]),
                  "kineto_2traces.json": NEXT.join(kin), "job_2ranks.sql": two["job_2ranks.sql"]}
    merge_seeds = {"job_2ranks.sql": two["job_2ranks.sql"],
                   "copies_bad_fixed.sql": diff_seeds["copies_bad_fixed.sql"],
                   "torchrun_job.sql": NEXT.join([fixtures["torchrun_2ranks"], job[2]])}
    return job_seeds, diff_seeds, merge_seeds


def write(target, seeds):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    total = sum(len(v) for v in seeds.values())
    print(f"{target}: {len(seeds)} seeds, {total // 1024} KB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kgantt", help="a built kgantt, for the packed seed")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # each cut once: the reader's target gets the first kernels of each trace, the
        # analysis target later ones (the two share what they find through the same code)
        k = kineto_seeds()
        reader = {n: v for n, v in k.items() if n.endswith("_0.json")}
        first = sorted(reader)[0]
        reader[first + ".gz"] = gzip.compress(reader[first], mtime=0)
        write("fuzz_kineto", reader)
        write("fuzz_kineto_pieces", {n: v for n, v in reader.items() if n.endswith(".json")})
        write("fuzz_analysis", {n: v for n, v in k.items() if not n.endswith("_0.json")})
        write("fuzz_kgt", kgt_seeds(tmp, a.kgantt))
        write("fuzz_nsys", nsys_seeds(tmp, a.kgantt))
        job, diff, merge = several_seeds(tmp, k)
        write("fuzz_job", job)
        write("fuzz_diff", diff)
        write("fuzz_merge", merge)


if __name__ == "__main__":
    main()
