#!/usr/bin/env python3
"""Do the sync records made from the API callbacks (full mode's default;
src/recorder/sync_calls.h) say what CUPTI's SYNCHRONIZATION records say?

    tests/gpu/sync_calls.py BOTH.kgt [CUPTI.kgt CALLS.kgt]

BOTH.kgt was recorded with both sources on: each sync then has two records with its call's
correlation id, ours starting exactly at the call's start. Each pair must agree on the kind
and the stream, and CUPTI's must lie within the call. CUPTI.kgt (the kind only) and
CALLS.kgt (the calls only, the kind skipped) of the same program must hold as many syncs
of each kind. Prints one line per check; exits 1 when one fails.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kgt_rows  # noqa: E402

TYPES = {1: "event", 2: "stream-wait-event", 3: "stream", 4: "context"}


def per_thread_variant(name):
    """cuStreamSynchronize_ptsz(NULL), cuStreamWaitEvent_ptsz(NULL): with CUDA 13 and
    driver 580, CUPTI's record of such a call names the legacy default stream, while for
    cuStreamSynchronize(CU_STREAM_PER_THREAD), the same stream, it names the per-thread
    one, as ours does for both. Ours follows the call: counted, not failed."""
    return name.endswith("_ptsz")


def rows(path):
    db = kgt_rows.connect(path)
    calls = {(p, c): (s, e, n) for p, c, s, e, n in db.execute(
        "SELECT process, correlation, start, end, name FROM api WHERE correlation > 0")}
    syncs = db.execute("SELECT process, type, stream, start, end, correlation FROM syncs"
                       ).fetchall()
    return calls, syncs


def check_both(path):
    calls, syncs = rows(path)
    by_corr = collections.defaultdict(list)
    for y in syncs:
        by_corr[y[0], y[5]].append(y)
    bad, pairs, alone, per_thread = [], 0, collections.Counter(), collections.Counter()
    for key, ys in by_corr.items():
        call = calls.get(key)
        ours = [y for y in ys if call and y[3] == call[0]]
        theirs = [y for y in ys if y not in ours]
        if len(ours) != 1 or len(theirs) != 1:
            alone["ours" if ours and not theirs else "cupti's" if theirs and not ours
                  else "other"] += 1
            continue
        pairs += 1
        o, t = ours[0], theirs[0]
        if o[2] != t[2] and o[1] == t[1] and per_thread_variant(call[2]) and o[2] is not None:
            per_thread[call[2]] += 1
            continue
        if o[1] != t[1] or o[2] != t[2] or not (call[0] <= t[3] and t[4] <= call[1] + 1000):
            bad.append((TYPES.get(t[1]), "ours", o[1:5], "cupti's", t[1:5], "call", call))
    kinds = collections.Counter(TYPES.get(y[1], y[1]) for y in syncs)
    print("%s: %d syncs paired; unpaired %s; kinds %s" % (os.path.basename(path), pairs,
                                                          dict(alone), dict(kinds)))
    for name, n in sorted(per_thread.items()):
        print("  %s: %d syncs of the per-thread stream, which CUPTI names as the legacy one"
              % (name, n))
    for b in bad[:10]:
        print("  MISMATCH", b)
    return not bad and pairs > 0 and not alone


def kinds_of(path):
    _, syncs = rows(path)
    return collections.Counter((TYPES.get(y[1], y[1]), y[2] is not None) for y in syncs)


def main(args):
    ok = check_both(args[0])
    if len(args) == 3:
        a, b = kinds_of(args[1]), kinds_of(args[2])
        same = a == b
        print("%s: CUPTI's %s, the calls' %s" % ("same" if same else "DIFFERENT",
                                                 dict(a), dict(b)))
        ok &= same
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
