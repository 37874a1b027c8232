"""A Python program for tests/py/test_hostsample.py, run under tests/py/host_shim.so.

    python3 host_workload.py threads SHIM.so   the main case (below)
    python3 host_workload.py takeover          installs its own handler on the sampler's signal
    python3 host_workload.py churn             300 short-lived threads
    python3 host_workload.py exit              exits while daemon threads still run
    python3 host_workload.py bench SHIM.so     the handler's cost at 3, 13, 23 and 43 frames
    python3 host_workload.py exec              execve() while threads are sampled
    python3 host_workload.py gc                the garbage collector, then code that makes no garbage

`threads`: the main thread spins in main_spin() then sleeps in main_sleep(); meanwhile four
Python threads (two spin in thread_spin(), one sleeps in thread_sleep(), one waits on a
queue in thread_wait()), a thread that runs native code without the GIL (native_nogil(),
through ctypes), a fork() whose child computes and exits, and the program's own SIGALRM at
100 Hz (signal.setitimer) all the while. It prints one JSON line: the phases' times on the
samples' clock (CLOCK_MONOTONIC_RAW), the alarms counted, how long sleeps took, the child's
exit status. Lines the test looks for are marked "# @NAME".
"""
import ctypes
import gc
import json
import os
import queue
import signal
import sys
import threading
import time


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)


def main_spin(secs):
    t0 = time.perf_counter()
    x = 0
    while time.perf_counter() - t0 < secs:
        x += 1  # @main_spin
    return x


def main_sleep(secs):
    t0 = time.perf_counter()
    time.sleep(secs)  # @main_sleep
    return time.perf_counter() - t0


def thread_spin(secs):
    t0 = time.perf_counter()
    x = 0
    while time.perf_counter() - t0 < secs:
        x += 1  # @thread_spin
    return x


def thread_sleep(secs, out):
    t0 = time.perf_counter()
    time.sleep(secs)  # @thread_sleep
    out["thread_slept"] = time.perf_counter() - t0


def thread_wait(q, secs):
    try:
        q.get(timeout=secs)  # @thread_wait
    except queue.Empty:
        pass


def native_nogil(lib, secs):
    lib.host_shim_spin(secs)  # @native_nogil


def threads(shim):
    lib = ctypes.CDLL(shim)
    lib.host_shim_spin.argtypes = [ctypes.c_double]
    lib.host_shim_spin.restype = ctypes.c_double
    out = {"alarms": 0}

    def on_alarm(sig, frame):
        out["alarms"] += 1

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)
    t_start = now()
    q = queue.Queue()
    ts = [threading.Thread(target=thread_spin, args=(1.2,), name="spin1"),
          threading.Thread(target=thread_spin, args=(1.2,), name="spin2"),
          threading.Thread(target=thread_sleep, args=(1.2, out), name="sleeper"),
          threading.Thread(target=thread_wait, args=(q, 1.2), name="waiter"),
          threading.Thread(target=native_nogil, args=(lib, 1.2), name="nogil")]
    for t in ts:
        t.start()
    out["tids"] = {}
    time.sleep(0.05)
    for t in ts:
        out["tids"][t.name] = t.native_id
    out["main_tid"] = threading.get_native_id()
    out["spin_start"] = now()
    main_spin(0.6)
    out["spin_end"] = now()
    pid = os.fork()
    if pid == 0:
        main_spin(0.2)
        os._exit(7)
    out["sleep_start"] = now()
    out["main_slept"] = main_sleep(0.6)
    out["sleep_end"] = now()
    _, status = os.waitpid(pid, 0)
    out["child_status"] = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    out["child_pid"] = pid
    for t in ts:
        t.join()
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    out["alarm_secs"] = (now() - t_start) / 1e9
    print(json.dumps(out))


def takeover():
    # the sampler's signal: the first of its choices with a handler not installed from Python
    sig = [s for s in [signal.SIGURG, signal.SIGWINCH] + list(range(signal.SIGRTMAX - 3, signal.SIGRTMIN + 3, -1))
           if signal.getsignal(s) is None][0]
    got = [0]
    main_spin(0.3)
    out = {"took": now()}
    signal.signal(sig, lambda s, f: got.__setitem__(0, got[0] + 1))
    main_spin(0.3)
    out["handled"] = got[0]
    print(json.dumps(out))


def churn():
    def short(i):
        main_spin(0.005)

    for _ in range(30):
        ts = [threading.Thread(target=short, args=(i,)) for i in range(10)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    print(json.dumps({"threads": 300}))


def at_exit():
    for i in range(3):
        threading.Thread(target=thread_spin, args=(60,), daemon=True).start()
    main_spin(0.3)
    print(json.dumps({"exit": True}))
    sys.stdout.flush()


def collect_garbage(secs):
    """Collections one after another over a heap the collector must walk each time: nearly
    all of the time inside the collector (gc.collect is a C function: no Python frame of
    its own). Returns the seconds spent inside gc.collect()."""
    heap = [[i] for i in range(300000)]  # tracked containers, walked by every collection
    inside = 0.0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < secs:
        t = time.perf_counter()
        gc.collect()
        inside += time.perf_counter() - t
    del heap
    return inside


def garbage():
    out = {"main_tid": threading.get_native_id(), "gc_start": now()}
    out["gc_s"] = collect_garbage(0.6)
    out["gc_end"] = now()
    gc.disable()  # no automatic collection in the part that must show none
    out["spin_start"] = now()
    main_spin(0.4)
    out["spin_end"] = now()
    print(json.dumps(out))


def bench(shim):
    lib = ctypes.PyDLL(shim)  # the GIL held, as when running Python code
    lib.host_shim_bench.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]

    def deep(n):
        if n:
            return deep(n - 1)
        buf = ctypes.create_string_buffer(64)
        for _ in range(200):  # until the sampler has listed this thread
            if lib.host_shim_bench(2000, buf, 64) == 0:
                return [int(x) for x in buf.value.split()]
            time.sleep(0.005)
        return None

    print(json.dumps({str(d + 3): deep(d) for d in (0, 10, 20, 40)}))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "threads":
        threads(sys.argv[2])
    elif mode == "takeover":
        takeover()
    elif mode == "churn":
        churn()
    elif mode == "exit":
        at_exit()
    elif mode == "bench":
        bench(sys.argv[2])
    elif mode == "gc":
        garbage()
    elif mode == "exec":
        for i in range(2):
            threading.Thread(target=thread_spin, args=(60,), daemon=True).start()
        main_spin(0.2)
        sys.stdout.flush()
        # a signal still pending at execve() meets the new program's default action
        os.execv(sys.executable, [sys.executable, "-c", "print('{\"execed\": true}')"])
