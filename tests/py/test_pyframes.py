"""Checks recorder/pyframes.c from inside a live CPython, through tests/py/pyframes_probe.c.

    python3 tests/py/test_pyframes.py PROBE.so                 every check (3.10 to 3.13)
    python3 tests/py/test_pyframes.py PROBE.so --unsupported   init says no, captures nothing
    python3 tests/py/test_pyframes.py PROBE.so --layout        the probe's table for this version

ctypes.CDLL releases the GIL around each call, as PyTorch does around CUDA calls: the
capture then runs while other threads may run Python, which is the case the recorder
has to get right. Every expected line is marked in this file with a comment "# @NAME".
Written for Python 3.6+ so that the unsupported check runs on old interpreters too.
"""
import ctypes
import dis
import os
import sys
import threading
import traceback

V = sys.version_info[:2]
HAS_QUALNAME = V >= (3, 11)  # 3.10's code objects have co_name only

PROBE = os.path.abspath(sys.argv[1])
lib = ctypes.CDLL(PROBE)
plib = ctypes.PyDLL(PROBE)  # same library: calls through plib keep the GIL
for L in (lib, plib):
    for name in ("probe", "probe_init", "probe_raw", "probe_counts", "probe_layout"):
        getattr(L, name).restype = ctypes.c_char_p
    L.probe_max.restype = ctypes.c_char_p
    L.probe_max.argtypes = [ctypes.c_int]
    L.probe_bench.restype = ctypes.c_double
    L.probe_bench.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    L.probe_layout.argtypes = [ctypes.c_uint]
    L.probe_line.argtypes = [ctypes.c_uint, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_int,
                             ctypes.c_int]

ME = None  # this file's co_filename, set in main()
MARK = {}  # "# @name" -> line number


def read_marks():
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            k = line.rfind("# @")
            if k >= 0 and line[k + 3:].strip().isidentifier():
                MARK[line[k + 3:].strip()] = i


def qn(qualname):
    """The name pyframes reports: co_qualname, or on 3.10 co_name (its last part)."""
    return qualname if HAS_QUALNAME else qualname.rsplit(".", 1)[-1]


def frames(s):
    """'file:line:qual;...' -> [(file, line, qual)], plus whether it was cut."""
    if isinstance(s, bytes):
        s = s.decode("utf-8")
    cut = s.endswith("|cut")
    if cut:
        s = s[:-4]
    out = []
    for part in s.split(";") if s else []:
        f, line, q = part.rsplit(":", 2)
        out.append((f, int(line), q))
    return out, cut


def at(name, qual):
    return (ME, MARK[name], qn(qual))


class Failed(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failed(what)


def expect_top(got, want, what):
    expect(got[:len(want)] == want, "%s:\n  got  %s\n  want %s" % (what, got[:len(want) + 1], want))


# ------------------------------------------------------------------ the cases

def plain_inner():
    st = traceback.extract_stack(); r = lib.probe()  # @plain_inner
    return st, r


def plain_outer():
    return plain_inner()  # @plain_outer


def test_plain():
    st, r = plain_outer()  # @test_plain
    got, cut = frames(r)
    expect(not cut, "cut")
    expect_top(got, [at("plain_inner", "plain_inner"), at("plain_outer", "plain_outer"),
                     at("test_plain", "test_plain")], "plain")
    # the whole stack, down to <module>, is the one Python itself reports
    want = [(f.filename, f.lineno, f.name) for f in reversed(st)]
    mine = [(f, line, q.rsplit(".", 1)[-1]) for f, line, q in got]
    expect(mine == want, "whole stack:\n  got  %s\n  want %s" % (mine, want))


class Model:
    def forward(self):
        return lib.probe()  # @method

    @staticmethod
    def static():
        return lib.probe()  # @static

    @classmethod
    def klass(cls):
        return lib.probe()  # @klass

    class Inner:
        def deep(self):
            return lib.probe()  # @nested_class


def test_method():
    got, _ = frames(Model().forward())  # @test_method
    expect_top(got, [at("method", "Model.forward"), at("test_method", "test_method")], "method")
    got, _ = frames(Model.static())  # @test_static
    expect_top(got, [at("static", "Model.static"), at("test_static", "test_method")], "static")
    got, _ = frames(Model.klass())  # @test_klass
    expect_top(got, [at("klass", "Model.klass"), at("test_klass", "test_method")], "classmethod")
    got, _ = frames(Model.Inner().deep())  # @test_nested_class
    expect_top(got, [at("nested_class", "Model.Inner.deep"),
                     at("test_nested_class", "test_method")], "nested class")


def gen():
    yield lib.probe()  # @gen


def gen_outer():
    yield from gen()  # @gen_outer


def test_generator():
    got, _ = frames(next(gen()))  # @test_gen
    expect_top(got, [at("gen", "gen"), at("test_gen", "test_generator")], "generator")
    for r in gen_outer():  # @test_gen_outer
        got, _ = frames(r)
    expect_top(got, [at("gen", "gen"), at("gen_outer", "gen_outer"),
                     at("test_gen_outer", "test_generator")], "yield from")


async def coro_inner():
    return lib.probe()  # @coro_inner


async def coro():
    return await coro_inner()  # @coro


def run_coro(c):
    try:
        c.send(None)  # @run_coro
    except StopIteration as e:
        return e.value


def test_coroutine():
    got, _ = frames(run_coro(coro()))  # @test_coro
    expect_top(got, [at("coro_inner", "coro_inner"), at("coro", "coro"),
                     at("run_coro", "run_coro"), at("test_coro", "test_coroutine")], "coroutine")


def test_lambda_comprehension():
    f = lambda: lib.probe()  # @lambda
    got, _ = frames(f())  # @lambda_call
    expect_top(got, [at("lambda", "test_lambda_comprehension.<locals>.<lambda>"),
                     at("lambda_call", "test_lambda_comprehension")], "lambda")
    got, _ = frames([lib.probe() for _ in range(1)][0])  # @listcomp
    if V >= (3, 12):  # PEP 709: list comprehensions run in their function's frame
        want = [at("listcomp", "test_lambda_comprehension")]
    else:
        want = [at("listcomp", "test_lambda_comprehension.<locals>.<listcomp>"),
                at("listcomp", "test_lambda_comprehension")]
    expect_top(got, want, "list comprehension")
    got, _ = frames(next(lib.probe() for _ in range(1)))  # @genexpr
    expect_top(got, [at("genexpr", "test_lambda_comprehension.<locals>.<genexpr>"),
                     at("genexpr", "test_lambda_comprehension")], "generator expression")
    got, _ = frames({k: lib.probe() for k in range(1)}[0])  # @dictcomp
    if V >= (3, 12):
        want = [at("dictcomp", "test_lambda_comprehension")]
    else:
        want = [at("dictcomp", "test_lambda_comprehension.<locals>.<dictcomp>"),
                at("dictcomp", "test_lambda_comprehension")]
    expect_top(got, want, "dict comprehension")


def test_unicode():
    """Names in every str form CPython has: ASCII, latin-1, UCS-2, UCS-4, and a file name
    with a lone surrogate (os.fsdecode of a non-UTF-8 byte), which becomes U+FFFD."""
    cases = [("d\u00e4tei_\u00e9.py", "f\u00fcnf"),           # latin-1 (1 byte a char)
             ("\u0444\u0430\u0439\u043b.py", "\u0444\u0443\u043d\u043a"),  # UCS-2
             ("\U0001f4c1\U0001f600.py", "g\u00e9n\u00e9rateur"),  # UCS-4 file
             ("bad\udcff.py", "plain")]                    # surrogateescape
    for fname, name in cases:
        ns = {"probe": lib.probe}
        exec(compile("def %s():\n    return probe()\n" % name, fname, "exec"), ns)
        got, _ = frames(ns[name]())  # @unicode
        want = fname.replace("\udcff", "\ufffd")
        expect_top(got, [(want, 2, name), at("unicode", "test_unicode")], "unicode %r" % fname)
    long_name = "x" * 3000 + ".py"  # cut at 1023 bytes
    ns = {"probe": lib.probe}
    exec(compile("def f():\n    return probe()\n", long_name, "exec"), ns)
    got, _ = frames(ns["f"]())
    expect(got[0] == (long_name[:1023], 2, "f"), "long file name: %s" % (got[0][:1],))


def test_gil_held():
    def held():
        return plib.probe()  # @held
    got, _ = frames(held())  # @test_held
    expect_top(got, [at("held", "test_gil_held.<locals>.held"), at("test_held", "test_gil_held")],
               "GIL held (PyDLL)")


def lasti_here():
    c1 = sys._getframe(1).f_lasti; c2 = sys._getframe(2).f_lasti; raw = lib.probe_raw()  # @lasti
    return [c1, c2], raw


def lasti_caller():
    return lasti_here()


def test_lasti():
    """lasti is what CPython's own frame.f_lasti says; the innermost one is the CALL."""
    callers, raw = lasti_caller()
    got = [tuple(int(x) for x in p.split(":")) for p in raw.decode().split(";")]
    expect([l for _, l in got[1:3]] == callers,
           "callers' lasti %s, f_lasti says %s" % ([l for _, l in got[1:3]], callers))
    ins = {i.offset: i for i in dis.get_instructions(lasti_here)}
    call = ins.get(got[0][1])
    expect(call is not None and call.opname.startswith("CALL"),
           "innermost lasti %d is at %s, not a call" % (got[0][1], call and call.opname))
    expect(got[0][0] != 0 and got[1][0] != 0 and got[0][0] != got[1][0], "code ids %s" % got)


def test_max_and_cut():
    def rec(n):
        return rec(n - 1) if n else lib.probe_max(3)  # @rec_cut
    got, cut = frames(rec(10))
    expect(cut and len(got) == 3, "max 3: %s cut=%s" % (got, cut))
    expect(got[0] == at("rec_cut", "test_max_and_cut.<locals>.rec"), "max 3: %s" % got)
    expect(lib.probe_cthread() == 0, "a thread without Python saw frames")
    n = lib.probe_cthread_tstate()
    expect(n == 0, "a thread with a thread state but no Python code saw %d frames" % n)


def thread_worker_source(k):
    # a distinct function per thread, so that each thread's stack is its own
    return ("def worker_%d(probe, rec, depth, n, out):\n"
            "    for _ in range(n):\n"
            "        out.append(rec(depth, probe))\n" % k)


def rec_call(n, probe):
    return rec_call(n - 1, probe) if n else probe()  # @rec_probe


def test_threads():
    n = 1500
    results, threads, errors = {}, [], []
    for k in range(4):
        ns = {}
        exec(compile(thread_worker_source(k), "<worker_%d>" % k, "exec"), ns)
        out = []
        results[k] = out
        t = threading.Thread(target=ns["worker_%d" % k], args=(lib.probe, rec_call, k + 1, n, out))
        threads.append(t)

    def churn():  # new code objects while the others capture
        try:
            for i in range(300):
                ns = {}
                exec(compile("def f():\n    return probe()\n", "<churn_t_%d>" % i, "exec"),
                     {"probe": lib.probe}, ns)
                got, _ = frames(ns["f"]())
                expect(got[0] == ("<churn_t_%d>" % i, 2, "f"), "churn thread: %s" % got[:1])
        except Exception as e:
            errors.append(e)
    threads.append(threading.Thread(target=churn))
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        expect(not t.is_alive(), "a capturing thread hangs")
    if errors:
        raise errors[0]
    for k in range(4):
        expect(len(results[k]) == n, "thread %d did %d captures" % (k, len(results[k])))
        first, cut = frames(results[k][0])
        want = ([(ME, MARK["rec_probe"], "rec_call")] +
                [(ME, MARK["rec_probe"] - 0, "rec_call")] * (k + 1) +
                [("<worker_%d>" % k, 3, "worker_%d" % k)])
        expect_top(first, want, "thread %d" % k)
        expect(all(r == results[k][0] for r in results[k]), "thread %d: stacks differ" % k)


def test_churn():
    """10,000 captures from fresh code objects, created and freed: freed addresses are
    reused (for the code objects and often their strings and line tables), and no
    capture may show an earlier code's file, name or line."""
    addrs, n = set(), 5000
    for i in range(n):  # distinct files and names
        name, fname = "fn_%d" % i, "gen_%d.py" % i
        src = "\n" * (i % 5) + "def %s():\n    return probe()\n" % name
        ns = {"probe": lib.probe}
        exec(compile(src, fname, "exec"), ns)
        got, _ = frames(ns[name]())  # @churn_a
        want = [(fname, i % 5 + 2, name), at("churn_a", "test_churn")]
        expect_top(got, want, "churn %d" % i)
        addrs.add(id(ns[name].__code__))
    reused_a = n - len(addrs)
    addrs = set()
    for i in range(n):  # one file and name; only the line (and the line table) differs
        src = "def fn():\n" + "\n" * (i % 2) + "    return probe()\n"
        ns = {"probe": lib.probe}
        exec(compile(src, "<churn>", "exec"), ns)
        got, _ = frames(ns["fn"]())  # @churn_b
        want = [("<churn>", i % 2 + 2, "fn"), at("churn_b", "test_churn")]
        expect_top(got, want, "churn same-name %d" % i)
        addrs.add(id(ns["fn"].__code__))
    reused_b = n - len(addrs)
    print("     churn: %d and %d of %d code objects were at a reused address" %
          (reused_a, reused_b, n))
    expect(reused_a > 0 and reused_b > 0, "no address was reused: the check proves nothing")


def test_linetable():
    """pyline_line against CPython's own co_lines() for every code unit of many codes."""
    import json, threading as th_mod, traceback as tb_mod, ctypes as ct_mod
    codes, seen = [], set()

    def walk(co):
        if id(co) in seen:
            return
        seen.add(id(co))
        codes.append(co)
        for c in co.co_consts:
            if hasattr(c, "co_code"):
                walk(c)
    for mod in (json.decoder, json.encoder, th_mod, tb_mod, ct_mod, os, dis, sys.modules[__name__]):
        path = mod.__file__
        with open(path) as f:
            walk(compile(f.read(), path, "exec"))
    ver = V[0] << 8 | V[1]
    checked = 0
    for co in codes:
        lt = co.co_linetable
        ranges = list(co.co_lines())
        for off in range(0, len(co.co_code), 2):
            want = 0
            for s, e, line in ranges:
                if s <= off < e:
                    want = line or 0
                    break
            got = lib.probe_line(ver, lt, len(lt), co.co_firstlineno, off)
            expect(got == want, "%s:%s offset %d: line %d, co_lines says %d" %
                   (co.co_filename, co.co_qualname if HAS_QUALNAME else co.co_name, off, got, want))
            checked += 1
    print("     linetable: %d offsets of %d code objects agree with co_lines()" %
          (checked, len(codes)))


def test_fork():
    """A forked child (DataLoader workers are) reads its own frames; new codes still go in."""
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            ns = {"probe": lib.probe}
            exec(compile("def h():\n    return probe()\n", "<forked>", "exec"), ns)
            got, _ = frames(ns["h"]())  # @fork
            ok = got[:2] == [("<forked>", 2, "h"), at("fork", "test_fork")]
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    expect(status == 0, "the forked child saw wrong frames (status %d)" % status)


def bench_rec(n):
    if n:
        return bench_rec(n - 1)
    depth = ctypes.c_int(0)
    ns = lib.probe_bench(20000, ctypes.byref(depth))
    return ns, depth.value


def test_bench():
    base = len(traceback.extract_stack())
    ns, depth = bench_rec(max(0, 20 - base - 1))
    print("     capture: %d frames, median %.0f ns per pyframes_capture" % (depth, ns))
    expect(depth >= 20, "bench stack has %d frames" % depth)


def test_table_full():
    """Last: fill the code table. New codes get id 0 ('?'), known ones still resolve."""
    for i in range(20000):
        ns = {"probe": lib.probe}
        exec(compile("def g():\n    return probe()\n", "<full_%d>" % i, "exec"), ns)
        got, _ = frames(ns["g"]())  # @full
        if got[0] == ("?", 0, "?"):
            break
    expect(got[0] == ("?", 0, "?") and got[1] == at("full", "test_table_full"),
           "table never full: %s" % got[:2])
    dropped = int(lib.probe_counts().split()[0])
    expect(dropped > 0, "no code counted as dropped")
    print("     table full after %d more codes; %d dropped so far" % (i, dropped))


CASES = [test_plain, test_method, test_generator, test_coroutine, test_lambda_comprehension,
         test_unicode, test_gil_held, test_lasti, test_max_and_cut, test_threads, test_churn,
         test_linetable, test_fork, test_bench, test_table_full]


def main():
    global ME
    ME = main.__code__.co_filename
    read_marks()
    if "--layout" in sys.argv:
        sys.stdout.write(lib.probe_layout(V[0] << 8 | V[1]).decode())
        return 0
    init = lib.probe_init().decode()
    print("init: %s (python %s)" % (init, sys.version.split()[0]))
    if "--unsupported" in sys.argv:
        ok = (init.startswith("-1 ") and "not supported" in init and lib.probe_count() == 0 and
              lib.probe() == b"" and lib.probe_cthread() == 0)
        print("unsupported: %d passed, %d failed" % (ok, not ok))
        return 0 if ok else 1
    if not init.startswith("1 "):
        print("pyframes: 0 passed, 1 failed")
        return 1
    passed = failed = 0
    for case in CASES:
        try:
            case()
            print("ok   %s" % case.__name__)
            passed += 1
        except Exception as e:
            print("FAIL %s: %s" % (case.__name__, e))
            if not isinstance(e, Failed):
                traceback.print_exc()
            failed += 1
    print("counts (dropped unreadable): %s" % lib.probe_counts().decode())
    print("pyframes: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())  # @main
