#!/usr/bin/env python3
"""Programs that synchronise every way CUPTI names, for tests/gpu/sync_calls.sh: each
kind of sync (stream, event, context, a stream waiting on an event) through the runtime
API (PyTorch) and through the driver API (ctypes on libcuda), on the legacy default
stream, a created stream and the per-thread default stream.

    python3 tests/gpu/sync_programs.py torch|driver
"""
import ctypes
import sys


def torch_syncs():
    import torch
    x = torch.ones(1 << 16, device="cuda")
    s = torch.cuda.Stream()
    e = torch.cuda.Event()
    for _ in range(20):
        x = x * 1.0001                      # legacy default stream
        e.record()
        s.wait_event(e)                     # cudaStreamWaitEvent on s
        with torch.cuda.stream(s):
            y = x + 1
        e.record(s)
        e.synchronize()                     # cudaEventSynchronize
        s.synchronize()                     # cudaStreamSynchronize(s)
        torch.cuda.current_stream().synchronize()  # ... on the default stream
        torch.cuda.synchronize()            # cudaDeviceSynchronize
    print("torch syncs ok", float(y[0]))


def driver_syncs():
    cu = ctypes.CDLL("libcuda.so.1")
    def ok(r, what):
        if r != 0:
            sys.exit("%s: CUresult %d" % (what, r))
    ok(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    ok(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    ok(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    ok(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    stream, event = ctypes.c_void_p(), ctypes.c_void_p()
    ok(cu.cuStreamCreate(ctypes.byref(stream), 0), "cuStreamCreate")
    ok(cu.cuEventCreate(ctypes.byref(event), 0), "cuEventCreate")
    buf = ctypes.c_uint64()
    ok(cu.cuMemAlloc_v2(ctypes.byref(buf), 1 << 20), "cuMemAlloc")
    for _ in range(20):
        ok(cu.cuMemsetD8Async(buf, 1, 1 << 20, stream), "cuMemsetD8Async")
        ok(cu.cuEventRecord(event, stream), "cuEventRecord")
        ok(cu.cuStreamWaitEvent(None, event, 0), "cuStreamWaitEvent")       # legacy stream
        ok(cu.cuStreamWaitEvent_ptsz(None, event, 0), "cuStreamWaitEvent_ptsz")  # per-thread
        ok(cu.cuEventSynchronize(event), "cuEventSynchronize")
        ok(cu.cuStreamSynchronize(stream), "cuStreamSynchronize")
        ok(cu.cuStreamSynchronize(ctypes.c_void_p(2)), "cuStreamSynchronize(per-thread)")
        ok(cu.cuStreamSynchronize_ptsz(None), "cuStreamSynchronize_ptsz")
        ok(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    print("driver syncs ok")


if __name__ == "__main__":
    {"torch": torch_syncs, "driver": driver_syncs}[sys.argv[1]]()
