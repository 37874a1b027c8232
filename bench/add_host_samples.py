#!/usr/bin/env python3
"""Adds host samples to a synthetic trace of SQL rows (bench/gen_trace.py), for the
report-speed benchmark of what reading and fitting them costs (src/model/read_kgt_host.c,
src/model/host_fit.c): the launching thread (the one with most API calls) sampled HZ times
a second from its first call to its last, as `kgantt record --host-samples` writes them
(docs/trace-format.md: host_settings, host_threads, host_samples), without stacks.

  bench/add_host_samples.py TRACE [HZ]        # HZ default 100, full mode's default
"""
import sqlite3
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path, hz = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 100
    db = sqlite3.connect(path)
    if db.execute("SELECT count(*) FROM host_samples").fetchone()[0]:
        sys.exit("%s: already has host samples" % path)
    process, thread, first, last = db.execute(
        "SELECT process, thread, min(start), max(\"end\") FROM api_calls GROUP BY process, thread "
        "ORDER BY count(*) DESC LIMIT 1").fetchone()
    period = 10**9 // hz
    rows = [(process, thread, t, None, 0, 0, 0) for t in range(first + period, last, period)]
    db.execute("INSERT INTO host_settings(process, start_ns, hz, taken, written, lost_ring, "
               "threads) VALUES(?,?,?,?,?,0,1)", (process, first, hz, len(rows), len(rows)))
    db.execute("INSERT INTO host_threads(process, thread, number, name, start_ns) "
               "VALUES(?,?,1,'python',?)", (process, thread, first))
    db.executemany("INSERT INTO host_samples(process, thread, ts, stack, state, flags, overrun) "
                   "VALUES(?,?,?,?,?,?,?)", rows)
    db.commit()
    print("%s: %d host samples at %d Hz on thread %d" % (path, len(rows), hz, thread))


if __name__ == "__main__":
    main()
