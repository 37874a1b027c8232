#!/usr/bin/env python3
"""Check a trace recorded from one example against what the example says it did.

usage: validate.py TRACE EXPECT_LOG [--allow-incomplete]

EXPECT_LOG is the example's stdout: its `kgantt-expect ...` lines say how many times each
kernel ran, how many copies, memsets and NVTX ranges it made. The checks:
  - every launched kernel is recorded exactly once (count per kernel name);
  - copies, memsets, NVTX ranges: counts match;
  - for every kernel: api_start <= queued <= submitted <= start <= end, where api_start is
    the start of the API call with the kernel's correlation id (graph kernels have no
    queued/submitted: api_start <= start <= end);
  - every process finished cleanly (unless --allow-incomplete) and no record was dropped.
Prints one line per check and `N passed, N failed`; exits 1 if any check failed.
Needs only Python's sqlite3 module (and kgantt for a compacted trace: kgt_rows.py), so it
runs on the GPU machine and in CI alike.
"""
import re
import sys

import kgt_rows


def base_identifier(demangled):
    """'void ns::foo<int>(float*, int)' -> 'foo'."""
    if demangled is None:
        return None
    s = demangled
    # cut the parameter list: the first '(' that is not inside template brackets
    depth = 0
    for i, ch in enumerate(s):
        if ch == '<':
            depth += 1
        elif ch == '>':
            depth -= 1
        elif ch == '(' and depth == 0:
            s = s[:i]
            break
    # drop trailing template arguments
    while s.endswith('>'):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == '>':
                depth += 1
            elif s[i] == '<':
                depth -= 1
                if depth == 0:
                    s = s[:i]
                    break
        else:
            break
    s = s.split(' ')[-1]
    return s.split('::')[-1]


def parse_expectations(path):
    exp = {'kernel': {}, 'memcpy': None, 'memset': None, 'nvtx': {}, 'skip': None}
    with open(path, errors='replace') as f:
        for line in f:
            line = line.strip()
            if line.startswith('kgantt-skip'):
                exp['skip'] = line
            if not line.startswith('kgantt-expect '):
                continue
            fields = dict(kv.split('=', 1) for kv in line.split()[1:] if '=' in kv)
            words = line.split()[1:]
            count = int(fields['count'])
            if 'kernel' in fields:
                name = fields['kernel']
                exp['kernel'][name] = exp['kernel'].get(name, 0) + count
            elif 'nvtx' in fields:
                name = fields['nvtx']
                exp['nvtx'][name] = exp['nvtx'].get(name, 0) + count
            elif words[0] == 'memcpy':
                exp['memcpy'] = (exp['memcpy'] or 0) + count
            elif words[0] == 'memset':
                exp['memset'] = (exp['memset'] or 0) + count
    return exp


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        print(('ok    ' if ok else 'FAIL  ') + what)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    allow_incomplete = '--allow-incomplete' in sys.argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    trace, log = args
    exp = parse_expectations(log)
    c = Checker()
    if exp['skip']:
        print('skip  ' + exp['skip'])
        print('0 passed, 0 failed, 1 skipped')
        return 0
    db = kgt_rows.connect(trace)
    q = db.execute

    fmt = q("SELECT value FROM meta WHERE key='format'").fetchone()
    c.check(fmt is not None and fmt[0] == 'kgantt-trace', 'trace format is kgantt-trace')

    counts = {}
    for (name,) in q('SELECT s.text FROM kernels k JOIN strings s ON s.id = k.demangled'):
        b = base_identifier(name)
        counts[b] = counts.get(b, 0) + 1
    for name, n in sorted(exp['kernel'].items()):
        got = counts.get(name, 0)
        c.check(got == n, 'kernel %s: expected %d records, found %d' % (name, n, got))
    unexpected = {k: v for k, v in counts.items() if k not in exp['kernel']}
    c.check(not unexpected, 'no unexpected kernels%s' % (': %s' % unexpected if unexpected else ''))
    mode = q('SELECT MIN(mode) FROM processes').fetchone()[0]
    if mode == 'kernels':  # kernels-only mode records nothing else, by design
        exp['memcpy'] = exp['memset'] = None
        exp['nvtx'] = {}
    if exp['memcpy'] is not None:
        got = q('SELECT COUNT(*) FROM memcpys').fetchone()[0]
        c.check(got == exp['memcpy'], 'memcpy: expected %d, found %d' % (exp['memcpy'], got))
    if exp['memset'] is not None:
        got = q('SELECT COUNT(*) FROM memsets').fetchone()[0]
        c.check(got == exp['memset'], 'memset: expected %d, found %d' % (exp['memset'], got))
    for name, n in sorted(exp['nvtx'].items()):
        got = q('SELECT COUNT(*) FROM nvtx v JOIN strings s ON s.id = v.name '
                'WHERE s.text = ? AND v.end IS NOT NULL', (name,)).fetchone()[0]
        c.check(got == n, 'nvtx range %s: expected %d closed ranges, found %d' % (name, n, got))

    # Phase order of every kernel. A kernel's launch is the API call with its correlation id.
    rows = q('SELECT k.id, a.start, k.queued, k.submitted, k.start, k.end, k.graph '
             'FROM kernels k LEFT JOIN api_calls a '
             'ON a.process = k.process AND a.correlation = k.correlation').fetchall()
    bad = []
    no_api = 0
    no_queue = 0
    for kid, api, queued, submitted, start, end, graph in rows:
        if api is None:
            no_api += 1
        if queued is None and graph is None:
            no_queue += 1
        seq = [t for t in (api, queued, submitted, start, end) if t is not None]
        if start is None or end is None or any(a > b for a, b in zip(seq, seq[1:])):
            bad.append((kid, api, queued, submitted, start, end))
    c.check(len(rows) > 0, 'trace has kernels (%d)' % len(rows))
    c.check(not bad, 'api_start <= queued <= submitted <= start <= end for all %d kernels%s' % (
        len(rows), '' if not bad else '; %d violate it, e.g. %s' % (len(bad), bad[:3])))
    has_settings = q("SELECT COUNT(*) FROM sqlite_master WHERE name = 'launch_settings'").fetchone()[0]
    sampled = has_settings and q("SELECT COUNT(*) FROM launch_settings WHERE calls = 'sampled'").fetchone()[0]
    if mode == 'full' and not sampled:
        c.check(no_api == 0, 'every kernel has its launch API call (%d without)' % no_api)
    if mode == 'full':
        c.check(no_queue == 0, 'every non-graph kernel has queued/submitted (%d without)' % no_queue)
    if mode == 'full' and sampled:
        # launch calls sampled in windows (src/recorder/launches.h): every kernel is dated
        # by its launch call or its queued time; graph kernels keep their cudaGraphLaunch
        names = q('SELECT k.name, COUNT(*), COUNT(a.start) FROM kernels k LEFT JOIN api_calls a '
                  'ON a.process = k.process AND a.correlation = k.correlation '
                  'GROUP BY k.name').fetchall()
        with_call = sum(1 for _, _, called in names if called)
        graph_without = q('SELECT COUNT(*) FROM kernels k LEFT JOIN api_calls a ON a.process = '
                          'k.process AND a.correlation = k.correlation WHERE k.graph IS NOT NULL '
                          'AND a.start IS NULL').fetchone()[0]
        c.check(graph_without == 0, 'every graph kernel has its cudaGraphLaunch (%d without)' % graph_without)
        print('INFO launch calls sampled: %d of %d kernels have theirs; %d of %d kernel names '
              'have at least one' % (len(rows) - no_api, len(rows), with_call, len(names)))

    procs = q('SELECT pid, complete, dropped_records, exit_status FROM processes').fetchall()
    c.check(len(procs) >= 1, '%d process(es) recorded' % len(procs))
    if not allow_incomplete:
        c.check(all(p[1] == 1 for p in procs), 'every process complete: %s' % procs)
    c.check(all(p[2] == 0 for p in procs), 'no dropped records: %s' % [p[2] for p in procs])
    print('%d passed, %d failed' % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main())
