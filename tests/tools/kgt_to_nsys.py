#!/usr/bin/env python3
"""Writes a kgantt trace as an Nsight Systems SQLite export (`nsys export --type sqlite`).

No nsys export could be made where kgantt is developed, so the tests of the nsys reader
(src/model/read_nsys.c) take real H200 kgantt traces and lay them out as Nsight Systems
does: the same tables, columns, column types and NOT NULL constraints as the schema
reference documents, strings through StringIds, processes and threads packed into
globalPid/globalTid, timestamps in ns from the start of the session, memory kinds in
nsys's own numbering (ENUM_CUDA_MEM_KIND: 0 = pageable, unlike CUPTI's 1), and the ENUM
tables that give the codes their names.

Two layouts: --schema 3.28 (Nsight Systems 2026.4, export schema 3.28.1, the newest the
schema reference documents) and --schema 3.16 (2024.6, export schema 3.16.1: no graphId or
cluster columns in the kernel table, no eventId in NVTX_EVENTS, no copyCount...).

What kgantt records and nsys does not export is dropped: kernels' queued/submitted times,
hardware channels, the async flag of copies (nsys leaves it to the API name).

Call stacks (a trace from `kgantt record --stacks`: tables stacks, stack_frames, api_stacks)
become CUDA API backtraces as `nsys profile --cudabacktrace` exports them: the native frames
of each call's stack, innermost first (stackDepth 0), in CUDA_CALLCHAINS, and the call's
callchainId in CUPTI_ACTIVITY_KIND_RUNTIME (on the outer call of its correlation id). One
callchain per call, so readers must find equal stacks themselves. nsys exports no source
files or lines and no Python frames: those are dropped. A frame without a function is
written unresolved, named by its address.

    kgt_to_nsys.py [--schema 3.28|3.16] [--scale N] [--kgt-copy T.kgt] TRACE.kgt[.xz] OUT.sqlite

--scale N repeats the kernels and the API calls that launched them N times, shifted in
time and correlation id: a large export from real activity, for measuring load speed.
--kgt-copy writes the (decompressed) kgantt trace too, for tests that compare the two.
"""

import argparse
import lzma
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

NOT_NULL = "NOT NULL"

# (column, type, constraint) per table, in the order the schema reference lists them.
COMMON_GPU = [
    ("start", "INTEGER", NOT_NULL), ("end", "INTEGER", NOT_NULL),
    ("deviceId", "INTEGER", NOT_NULL), ("contextId", "INTEGER", NOT_NULL),
    ("greenContextId", "INTEGER", ""), ("streamId", "INTEGER", NOT_NULL),
    ("correlationId", "INTEGER", ""), ("globalPid", "INTEGER", ""),
]

KERNEL_316 = COMMON_GPU + [
    ("demangledName", "INTEGER", NOT_NULL), ("shortName", "INTEGER", NOT_NULL),
    ("mangledName", "INTEGER", ""), ("launchType", "INTEGER", ""),
    ("cacheConfig", "INTEGER", ""), ("registersPerThread", "INTEGER", NOT_NULL),
    ("gridX", "INTEGER", NOT_NULL), ("gridY", "INTEGER", NOT_NULL),
    ("gridZ", "INTEGER", NOT_NULL), ("blockX", "INTEGER", NOT_NULL),
    ("blockY", "INTEGER", NOT_NULL), ("blockZ", "INTEGER", NOT_NULL),
    ("staticSharedMemory", "INTEGER", NOT_NULL), ("dynamicSharedMemory", "INTEGER", NOT_NULL),
    ("localMemoryPerThread", "INTEGER", NOT_NULL), ("localMemoryTotal", "INTEGER", NOT_NULL),
    ("gridId", "INTEGER", NOT_NULL), ("sharedMemoryExecuted", "INTEGER", ""),
    ("graphNodeId", "INTEGER", ""), ("sharedMemoryLimitConfig", "INTEGER", ""),
]
KERNEL_328 = KERNEL_316 + [
    ("qmdBulkReleaseDone", "INTEGER", ""), ("qmdPreexitDone", "INTEGER", ""),
    ("qmdLastCtaDone", "INTEGER", ""), ("graphId", "INTEGER", ""),
    ("clusterX", "INTEGER", ""), ("clusterY", "INTEGER", ""), ("clusterZ", "INTEGER", ""),
    ("clusterSchedulingPolicy", "INTEGER", ""), ("maxPotentialClusterSize", "INTEGER", ""),
    ("maxActiveClusters", "INTEGER", ""), ("sharedMemoryRequestedPercentage", "INTEGER", ""),
    ("tensorSizeMinusOneElements", "TEXT", NOT_NULL),
]

MEMCPY_316 = COMMON_GPU + [
    ("bytes", "INTEGER", NOT_NULL), ("copyKind", "INTEGER", NOT_NULL),
    ("deprecatedSrcId", "INTEGER", ""), ("srcKind", "INTEGER", ""), ("dstKind", "INTEGER", ""),
    ("srcDeviceId", "INTEGER", ""), ("srcContextId", "INTEGER", ""),
    ("dstDeviceId", "INTEGER", ""), ("dstContextId", "INTEGER", ""),
    ("migrationCause", "INTEGER", ""), ("graphNodeId", "INTEGER", ""),
    ("virtualAddress", "INTEGER", ""),
]
MEMCPY_328 = MEMCPY_316 + [("copyCount", "INTEGER", "")]

MEMSET = COMMON_GPU + [
    ("value", "INTEGER", NOT_NULL), ("bytes", "INTEGER", NOT_NULL),
    ("graphNodeId", "INTEGER", ""), ("memKind", "INTEGER", ""),
]

SYNC_316 = COMMON_GPU + [("syncType", "INTEGER", NOT_NULL), ("eventId", "INTEGER", NOT_NULL)]
SYNC_328 = COMMON_GPU + [
    ("deprecatedSyncType", "INTEGER", ""), ("syncType", "INTEGER", NOT_NULL),
    ("eventId", "INTEGER", NOT_NULL), ("eventSyncId", "INTEGER", ""),
]

RUNTIME = [
    ("start", "INTEGER", NOT_NULL), ("end", "INTEGER", NOT_NULL),
    ("eventClass", "INTEGER", NOT_NULL), ("globalTid", "INTEGER", ""),
    ("correlationId", "INTEGER", ""), ("nameId", "INTEGER", NOT_NULL),
    ("returnValue", "INTEGER", NOT_NULL), ("callchainId", "INTEGER", ""),
]

NVTX_316 = [
    ("start", "INTEGER", NOT_NULL), ("end", "INTEGER", ""), ("eventType", "INTEGER", NOT_NULL),
    ("rangeId", "INTEGER", ""), ("category", "INTEGER", ""), ("color", "INTEGER", ""),
    ("text", "TEXT", ""), ("globalTid", "INTEGER", ""), ("endGlobalTid", "INTEGER", ""),
    ("textId", "INTEGER", ""), ("domainId", "INTEGER", ""), ("uint64Value", "INTEGER", ""),
    ("int64Value", "INTEGER", ""), ("doubleValue", "REAL", ""), ("uint32Value", "INTEGER", ""),
    ("int32Value", "INTEGER", ""), ("floatValue", "REAL", ""), ("jsonTextId", "INTEGER", ""),
    ("jsonText", "TEXT", ""), ("binaryData", "TEXT", ""),
]
NVTX_328 = NVTX_316 + [("eventId", "INTEGER", "NOT NULL   PRIMARY KEY")]

TARGET_INFO_GPU_316 = [
    ("vmId", "INTEGER", NOT_NULL), ("id", "INTEGER", NOT_NULL), ("name", "TEXT", ""),
    ("busLocation", "TEXT", ""), ("isDiscrete", "INTEGER", ""), ("l2CacheSize", "INTEGER", ""),
    ("totalMemory", "INTEGER", ""), ("memoryBandwidth", "INTEGER", ""),
    ("clockRate", "INTEGER", ""), ("smCount", "INTEGER", ""), ("pwGpuId", "INTEGER", ""),
    ("uuid", "TEXT", ""), ("luid", "INTEGER", ""), ("chipName", "TEXT", ""),
    ("cuDevice", "INTEGER", ""), ("ctxswDevPath", "TEXT", ""), ("ctrlDevPath", "TEXT", ""),
    ("revision", "INTEGER", ""), ("nodeMask", "INTEGER", ""), ("constantMemory", "INTEGER", ""),
    ("maxIPC", "INTEGER", ""), ("maxRegistersPerBlock", "INTEGER", ""),
    ("maxShmemPerBlock", "INTEGER", ""), ("maxShmemPerBlockOptin", "INTEGER", ""),
    ("maxShmemPerSm", "INTEGER", ""), ("maxRegistersPerSm", "INTEGER", ""),
    ("threadsPerWarp", "INTEGER", ""), ("asyncEngines", "INTEGER", ""),
    ("maxWarpsPerSm", "INTEGER", ""), ("maxBlocksPerSm", "INTEGER", ""),
    ("maxThreadsPerBlock", "INTEGER", ""), ("maxBlockDimX", "INTEGER", ""),
    ("maxBlockDimY", "INTEGER", ""), ("maxBlockDimZ", "INTEGER", ""),
    ("maxGridDimX", "INTEGER", ""), ("maxGridDimY", "INTEGER", ""),
    ("maxGridDimZ", "INTEGER", ""), ("computeMajor", "INTEGER", ""),
    ("computeMinor", "INTEGER", ""), ("smMajor", "INTEGER", ""), ("smMinor", "INTEGER", ""),
]
TARGET_INFO_GPU_328 = TARGET_INFO_GPU_316 + [("numaNodeId", "INTEGER", "")]

# The frames of CUDA API backtraces (--cudabacktrace); CUPTI_ACTIVITY_KIND_RUNTIME.callchainId
# names one. Both layouts.
CALLCHAINS = [
    ("id", "INTEGER", NOT_NULL), ("symbol", "INTEGER", NOT_NULL), ("module", "INTEGER", NOT_NULL),
    ("unresolved", "INTEGER", ""), ("originalIP", "INTEGER", ""), ("stackDepth", "INTEGER", NOT_NULL),
]
CALLCHAINS_KEY = "PRIMARY KEY (id, stackDepth)"

# CPU samples (--sample) and their frames (SAMPLING_CALLCHAINS.id is the sample's id), as
# the schema reference documents them (3.16.1 and later alike).
COMPOSITE = [
    ("id", "INTEGER", "NOT NULL   PRIMARY KEY"), ("start", "INTEGER", NOT_NULL),
    ("cpu", "INTEGER", ""), ("threadState", "INTEGER", ""), ("globalTid", "INTEGER", ""),
    ("cpuCycles", "INTEGER", NOT_NULL),
]
SAMPLING_CALLCHAINS = [
    ("id", "INTEGER", NOT_NULL), ("symbol", "INTEGER", NOT_NULL), ("module", "INTEGER", NOT_NULL),
    ("kernelMode", "INTEGER", ""), ("thumbCode", "INTEGER", ""), ("unresolved", "INTEGER", ""),
    ("specialEntry", "INTEGER", ""), ("originalIP", "INTEGER", ""), ("unwindMethod", "INTEGER", ""),
    ("stackDepth", "INTEGER", NOT_NULL),
]
# kgantt's enum_host_state → ENUM_SAMPLING_THREAD_STATE
RUNNING, INTERRUPTIBLE = 1, 2
NSYS_STATE = {0: RUNNING, 1: RUNNING, 2: INTERRUPTIBLE, 3: INTERRUPTIBLE, 4: INTERRUPTIBLE}

CUDA_DEVICE = [
    ("gpuId", "INTEGER", ""), ("cudaId", "INTEGER", NOT_NULL), ("pid", "INTEGER", NOT_NULL),
    ("uuid", "TEXT", ""), ("numMultiprocessors", "INTEGER", ""),
]

CONTEXT_INFO_316 = [
    ("nullStreamId", "INTEGER", NOT_NULL), ("hwId", "INTEGER", NOT_NULL),
    ("vmId", "INTEGER", NOT_NULL), ("processId", "INTEGER", NOT_NULL),
    ("deviceId", "INTEGER", NOT_NULL), ("contextId", "INTEGER", NOT_NULL),
    ("parentContextId", "INTEGER", ""), ("isGreenContext", "INTEGER", ""),
]
CONTEXT_INFO_328 = CONTEXT_INFO_316 + [
    ("numMultiprocessors", "INTEGER", ""), ("numTpcs", "INTEGER", ""), ("tpcMask", "TEXT", ""),
    ("workqueueResourceId", "INTEGER", ""), ("workqueueConcurrencyLimit", "INTEGER", ""),
    ("workqueueSharingScope", "INTEGER", ""), ("workqueueChannelCount", "INTEGER", ""),
    ("workqueueChannelIds", "TEXT", ""),
]

CUDA_STREAM = [
    ("streamId", "INTEGER", NOT_NULL), ("hwId", "INTEGER", NOT_NULL),
    ("vmId", "INTEGER", NOT_NULL), ("processId", "INTEGER", NOT_NULL),
    ("contextId", "INTEGER", NOT_NULL), ("priority", "INTEGER", NOT_NULL),
    ("flag", "INTEGER", NOT_NULL),
]

SMALL_TABLES = {
    "StringIds": [("id", "INTEGER", "NOT NULL   PRIMARY KEY"), ("value", "TEXT", NOT_NULL)],
    "ThreadNames": [("nameId", "INTEGER", NOT_NULL), ("priority", "INTEGER", ""),
                    ("globalTid", "INTEGER", "")],
    "PROCESSES": [("globalPid", "INTEGER", ""), ("pid", "INTEGER", ""), ("name", "TEXT", "")],
    "ANALYSIS_DETAILS": [("globalVid", "INTEGER", NOT_NULL), ("duration", "INTEGER", NOT_NULL),
                         ("startTime", "INTEGER", NOT_NULL), ("stopTime", "INTEGER", NOT_NULL)],
    "TARGET_INFO_SYSTEM_ENV": [("globalVid", "INTEGER", ""), ("devStateName", "TEXT", NOT_NULL),
                               ("name", "TEXT", NOT_NULL), ("nameEnum", "INTEGER", NOT_NULL),
                               ("value", "TEXT", NOT_NULL)],
    "META_DATA_EXPORT": [("name", "TEXT", NOT_NULL), ("value", "TEXT", "")],
    "TARGET_INFO_CUDA_DEVICE": CUDA_DEVICE,
    "TARGET_INFO_CUDA_STREAM": CUDA_STREAM,
    "CUPTI_ACTIVITY_KIND_MEMSET": MEMSET,
    "CUPTI_ACTIVITY_KIND_RUNTIME": RUNTIME,
}

LAYOUTS = {
    "3.28": dict(version="3.28.1", kernel=KERNEL_328, memcpy=MEMCPY_328, sync=SYNC_328,
                 nvtx=NVTX_328, gpu=TARGET_INFO_GPU_328, context=CONTEXT_INFO_328),
    "3.16": dict(version="3.16.1", kernel=KERNEL_316, memcpy=MEMCPY_316, sync=SYNC_316,
                 nvtx=NVTX_316, gpu=TARGET_INFO_GPU_316, context=CONTEXT_INFO_316),
}

ENUM_COLUMNS = [("id", "INTEGER", "NOT NULL   PRIMARY KEY"), ("name", "TEXT", ""), ("label", "TEXT", "")]
ENUMS = {
    "ENUM_CUDA_MEMCPY_OPER": [
        (0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"), (1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"),
        (2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"), (3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"),
        (4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"), (5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"),
        (6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"), (7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"),
        (8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"), (9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"),
        (10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"),
        (11, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"),
        (12, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"),
        (13, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"),
    ],
    "ENUM_CUDA_MEM_KIND": [
        (0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"),
        (1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"),
        (2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"),
        (3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"),
        (4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"),
        (5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"),
        (6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"),
        (7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"),
    ],
    "ENUM_CUPTI_SYNC_TYPE": [
        (0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"),
        (1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"),
        (2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync"),
        (3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"),
        (4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"),
    ],
    "ENUM_CUPTI_STREAM_TYPE": [
        (0, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN", "Unknown"),
        (1, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT", "Default"),
        (2, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING", "Non-blocking"),
        (3, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL", "Null"),
    ],
    "ENUM_NSYS_EVENT_TYPE": [
        (33, "NvtxCategory", "NvtxCategory"), (34, "NvtxMark", "NvtxMark"),
        (39, "NvtxThread", "NvtxThread"), (59, "NvtxPushPopRange", "NvtxPushPopRange"),
        (60, "NvtxStartEndRange", "NvtxStartEndRange"), (75, "NvtxDomainCreate", "NvtxDomainCreate"),
        (76, "NvtxDomainDestroy", "NvtxDomainDestroy"),
    ],
    "ENUM_SAMPLING_THREAD_STATE": [
        (0, "Unknown", "Unknown"), (1, "Running", "Running"),
        (2, "Interruptible", "Interruptible"), (3, "Uninterruptible", "Uninterruptible"),
        (4, "Stopped", "Stopped"), (5, "Terminated", "Terminated"),
        (6, "Unscheduled", "Unscheduled"), (7, "Waiting", "Waiting"),
        (8, "OSRuntime", "OS runtime"), (9, "Initialized", "Initialized"),
        (10, "Transition", "Transition"),
    ],
    "ENUM_NSYS_EVENT_CLASS": [
        (0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"),
        (1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"),
    ],
}

EV_MARK, EV_PUSHPOP, EV_STARTEND, EV_DOMAIN = 34, 59, 60, 75
INVALID = 0xFFFFFFFF  # CUPTI's "no stream/event" in synchronization records


def create(db, table, columns, key=None):
    body = ",\n".join(f"    {c:<27} {t:<9} {k}".rstrip() for c, t, k in columns)
    if key:
        body += f",\n\n    {key}"
    db.execute(f"CREATE TABLE {table} (\n{body}\n)")


def insert(db, table, columns, rows):
    marks = ", ".join("?" * len(columns))
    db.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def insert_lazily(db, table, columns, rows, key=None):
    """Creates the table with its first row: nsys creates tables lazily, so an export
    without copies has no CUPTI_ACTIVITY_KIND_MEMCPY at all."""
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return
    create(db, table, columns, key)
    insert(db, table, columns, [first])
    insert(db, table, columns, rows)


def nsys_mem_kind(cupti):
    """CUPTI's CUpti_ActivityMemoryKind (1 = pageable) → ENUM_CUDA_MEM_KIND (0 = pageable)."""
    return 7 if not cupti or cupti > 7 else cupti - 1


def short_name(demangled):
    """nsys's shortName: the base function name, without scope, templates or parameters."""
    depth, cut = 0, len(demangled)
    for i, ch in enumerate(demangled):  # the parameter list: the first '(' outside <...>
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "(" and depth == 0:
            cut = i
            break
    s = demangled[:cut]
    while s.endswith(">"):  # template arguments of the function itself
        depth, i = 0, len(s) - 1
        while i >= 0:
            depth += {">": 1, "<": -1}.get(s[i], 0)
            if depth == 0:
                break
            i -= 1
        s = s[:max(i, 0)]
    words = s.split()
    return (words[-1].split("::")[-1] if words else "") or demangled


class Strings:
    def __init__(self):
        self.ids = {}

    def __call__(self, text):
        if text is None:
            return None
        if text not in self.ids:
            self.ids[text] = len(self.ids)  # nsys numbers its strings from 0
        return self.ids[text]


def has_table(db, name):
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                      (name,)).fetchone() is not None


def rows_of(path):
    """A copy of a compacted trace with its packed blocks made rows again (kgantt pack
    --drop): the tables this script reads."""
    kgantt = os.environ.get("KGANTT") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "kgantt")
    if not os.access(kgantt, os.X_OK):
        sys.exit(f"kgt_to_nsys.py: '{path}' is compacted (packed blocks): {kgantt} is needed "
                 "to make it rows (build kgantt or set KGANTT)")
    subprocess.run([kgantt, "pack", "--drop", path], check=True)


def open_trace(path):
    """The trace as an in-memory database (an .xz fixture is decompressed first, a
    compacted one made rows)."""
    src = sqlite3.connect(":memory:")
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "trace.kgt")
        if path.endswith(".xz"):
            with lzma.open(path) as f, open(copy, "wb") as out:
                out.write(f.read())
        else:
            shutil.copyfile(path, copy)
        disk = sqlite3.connect(copy)
        packed = has_table(disk, "packed") and not has_table(disk, "api_calls")
        disk.close()
        if packed:
            rows_of(copy)
        disk = sqlite3.connect(copy)
        disk.backup(src)
        disk.close()
    return src


class Converter:
    def __init__(self, src, out, layout, scale):
        self.src, self.db, self.layout, self.scale = src, out, LAYOUTS[layout], scale
        self.sid = Strings()
        self.text = dict(src.execute("SELECT id, text FROM strings"))
        self.proc = {}   # process number → (pid, globalPid)
        self.tids = {}   # (process, kgantt thread) → OS-like tid
        self.ctx_dev = dict(((p, c), d) for p, c, d in
                            src.execute("SELECT process, context, device FROM contexts"))
        times = [r[0] for r in src.execute(
            "SELECT MIN(start_ns) FROM processes UNION ALL SELECT MIN(start) FROM kernels "
            "UNION ALL SELECT MIN(start) FROM api_calls UNION ALL SELECT MIN(start) FROM nvtx "
            "UNION ALL SELECT MIN(start) FROM memcpys UNION ALL SELECT MIN(start) FROM syncs" +
            (" UNION ALL SELECT MIN(ts) FROM host_samples" if has_table(src, "host_samples") else ""))
            if r[0] is not None]
        self.t0 = min(times) - 1000  # nsys times count from the session start
        ends = [r[0] for r in src.execute(
            "SELECT MAX(end_ns) FROM processes UNION ALL SELECT MAX(end) FROM kernels "
            "UNION ALL SELECT MAX(end) FROM api_calls") if r[0] is not None]
        self.span = max(ends) - self.t0 + 1000

    def t(self, v):
        return None if v is None else v - self.t0

    def name(self, sid):
        return self.text.get(sid) if sid else None

    def gtid(self, process, thread):
        pid, gpid = self.proc[process]
        key = (process, thread)
        if key not in self.tids:
            # a Linux tid: the first thread seen is the main thread (tid = pid)
            self.tids[key] = pid + sum(1 for k in self.tids if k[0] == process)
        return gpid | (self.tids[key] & 0xFFFFFF)

    def run(self):
        L = self.layout
        for table, cols in SMALL_TABLES.items():
            if not table.startswith("CUPTI_ACTIVITY_KIND"):
                create(self.db, table, cols)
        for table, cols in (("TARGET_INFO_GPU", L["gpu"]),
                            ("TARGET_INFO_CUDA_CONTEXT_INFO", L["context"])):
            create(self.db, table, cols)
        for table, rows in ENUMS.items():
            create(self.db, table, ENUM_COLUMNS)
            insert(self.db, table, ENUM_COLUMNS, rows)
        self.processes()
        self.devices()
        self.streams()
        self.kernels()
        self.memcpys()
        self.memsets()
        self.read_stacks()
        self.apis()
        self.callchains()
        self.samples()
        self.syncs()
        self.nvtx()
        self.meta()
        insert(self.db, "StringIds", SMALL_TABLES["StringIds"],
               ((i, s) for s, i in self.sid.ids.items()))

    def processes(self):
        host = None
        for num, pid, host, exe in self.src.execute(
                "SELECT process, pid, host, exe FROM processes ORDER BY process"):
            gpid = (pid & 0xFFFFFF) << 24  # hardware and VM ids 0: one local machine
            self.proc[num] = (pid, gpid)
            comm = os.path.basename(exe or "")[:15]  # Linux's thread name of a main thread
            insert(self.db, "PROCESSES", SMALL_TABLES["PROCESSES"], [(gpid, pid, comm)])
            insert(self.db, "ThreadNames", SMALL_TABLES["ThreadNames"],
                   [(self.sid(comm), 0, gpid | (pid & 0xFFFFFF))])
        if host:
            insert(self.db, "TARGET_INFO_SYSTEM_ENV", SMALL_TABLES["TARGET_INFO_SYSTEM_ENV"],
                   [(0, "", "Hostname", 0, host)])

    def devices(self):
        gpu_ids = {}
        rows = self.src.execute(
            "SELECT process, device, name, uuid, sm_count, max_warps_per_sm, max_blocks_per_sm, "
            "max_threads_per_block, max_regs_per_sm, max_regs_per_block, max_smem_per_sm, "
            "max_smem_per_block, threads_per_warp, cc_major, cc_minor, core_clock_khz, "
            "memory_bytes, memory_bandwidth_kbps, l2_bytes, copy_engines FROM devices "
            "ORDER BY process, device").fetchall()
        cols = self.layout["gpu"]
        for (proc, dev, name, uuid, sms, warps, blocks, threads, regs_sm, regs_block, smem_sm,
             smem_block, warp, major, minor, clock, mem, bw, l2, engines) in rows:
            if uuid not in gpu_ids:  # one row per physical GPU
                gpu_ids[uuid] = dev
                v = dict(vmId=0, id=dev, name=name, busLocation="", isDiscrete=1, l2CacheSize=l2,
                         totalMemory=mem, memoryBandwidth=bw * 1000 if bw else None,
                         clockRate=clock * 1000 if clock else None, smCount=sms, uuid=uuid,
                         cuDevice=dev, maxRegistersPerBlock=regs_block, maxShmemPerBlock=smem_block,
                         maxShmemPerSm=smem_sm, maxRegistersPerSm=regs_sm, threadsPerWarp=warp,
                         asyncEngines=engines, maxWarpsPerSm=warps, maxBlocksPerSm=blocks,
                         maxThreadsPerBlock=threads, computeMajor=major, computeMinor=minor,
                         smMajor=major, smMinor=minor)
                insert(self.db, "TARGET_INFO_GPU", cols, [tuple(v.get(c[0]) for c in cols)])
            insert(self.db, "TARGET_INFO_CUDA_DEVICE", CUDA_DEVICE,
                   [(gpu_ids[uuid], dev, self.proc[proc][0], uuid, sms)])

    def streams(self):
        cols = self.layout["context"]
        for proc, ctx, dev, null_stream, green in self.src.execute(
                "SELECT process, context, device, null_stream, green FROM contexts"):
            v = dict(nullStreamId=null_stream, hwId=0, vmId=0, processId=self.proc[proc][0],
                     deviceId=dev, contextId=ctx, isGreenContext=green or 0)
            insert(self.db, "TARGET_INFO_CUDA_CONTEXT_INFO", cols, [tuple(v.get(c[0]) for c in cols)])
        insert(self.db, "TARGET_INFO_CUDA_STREAM", CUDA_STREAM,
               [(stream, 0, 0, self.proc[proc][0], ctx, prio or 0, flags or 0)
                for proc, ctx, stream, prio, flags in self.src.execute(
                    "SELECT process, context, stream, priority, flags FROM streams")])

    def kernels(self):
        cols = self.layout["kernel"]
        rows = self.src.execute(
            "SELECT process, device, context, stream, correlation, name, demangled, start, end, "
            "grid_x, grid_y, grid_z, block_x, block_y, block_z, cluster_x, cluster_y, cluster_z, "
            "registers_per_thread, static_smem, dynamic_smem, local_mem_per_thread, "
            "local_mem_total, shared_mem_executed, launch_type, graph, graph_node, grid_id "
            "FROM kernels WHERE start IS NOT NULL AND end IS NOT NULL ORDER BY id").fetchall()
        self.kernel_corr = {(r[0], r[4]) for r in rows}
        self.max_corr = max([r[4] or 0 for r in rows] + [0])

        def gen():
            for rep in range(self.scale):
                dt, dc = rep * self.span, rep * (self.max_corr + 1)
                for (proc, dev, ctx, stream, corr, mangled, demangled, start, end, gx, gy, gz, bx,
                     by, bz, cx, cy, cz, regs, ssmem, dsmem, lmem, lmem_total, smem_exec, launch,
                     graph, node, grid) in rows:
                    dem = self.name(demangled) or self.name(mangled) or ""
                    v = dict(start=self.t(start) + dt, end=self.t(end) + dt, deviceId=dev,
                             contextId=ctx, streamId=stream,
                             correlationId=corr + dc if corr is not None else None,
                             globalPid=self.proc[proc][1], demangledName=self.sid(dem),
                             shortName=self.sid(short_name(dem)),
                             mangledName=self.sid(self.name(mangled)), launchType=launch or 0,
                             cacheConfig=0, registersPerThread=regs, gridX=gx, gridY=gy,
                             gridZ=gz, blockX=bx, blockY=by, blockZ=bz, staticSharedMemory=ssmem,
                             dynamicSharedMemory=dsmem, localMemoryPerThread=lmem,
                             localMemoryTotal=lmem_total, gridId=(grid or 0) + dc,
                             sharedMemoryExecuted=smem_exec, graphNodeId=node, graphId=graph,
                             clusterX=cx, clusterY=cy, clusterZ=cz, tensorSizeMinusOneElements="")
                    yield tuple(v.get(c[0]) for c in cols)
        insert_lazily(self.db, "CUPTI_ACTIVITY_KIND_KERNEL", cols, gen())

    def memcpys(self):
        cols = self.layout["memcpy"]
        out = []
        for (proc, dev, dst_dev, ctx, stream, corr, kind, src_kind, dst_kind, nbytes, start, end,
             node) in self.src.execute(
                "SELECT process, device, dst_device, context, stream, correlation, copy_kind, "
                "src_kind, dst_kind, bytes, start, end, graph_node FROM memcpys "
                "WHERE start IS NOT NULL AND end IS NOT NULL ORDER BY id"):
            v = dict(start=self.t(start), end=self.t(end), deviceId=dev, contextId=ctx,
                     streamId=stream, correlationId=corr, globalPid=self.proc[proc][1],
                     bytes=nbytes, copyKind=kind or 0, srcKind=nsys_mem_kind(src_kind),
                     dstKind=nsys_mem_kind(dst_kind), srcDeviceId=dev, srcContextId=ctx,
                     dstDeviceId=dst_dev if dst_dev is not None else dev, dstContextId=ctx,
                     graphNodeId=node, copyCount=1)
            out.append(tuple(v.get(c[0]) for c in cols))
        insert_lazily(self.db, "CUPTI_ACTIVITY_KIND_MEMCPY", cols, out)

    def memsets(self):
        out = []
        for proc, dev, ctx, stream, corr, value, nbytes, kind, start, end, node in self.src.execute(
                "SELECT process, device, context, stream, correlation, value, bytes, memory_kind, "
                "start, end, graph_node FROM memsets WHERE start IS NOT NULL AND end IS NOT NULL "
                "ORDER BY id"):
            out.append((self.t(start), self.t(end), dev, ctx, None, stream, corr,
                        self.proc[proc][1], value or 0, nbytes, node, nsys_mem_kind(kind)))
        insert_lazily(self.db, "CUPTI_ACTIVITY_KIND_MEMSET", MEMSET, out)

    def read_stacks(self):
        """The native frames of each stack and the stack of each call, from a trace with
        call stacks (none from older traces)."""
        self.stack_frames, self.call_stack = {}, {}
        self.chain_rows, self.chain_of = [], {}
        if not all(has_table(self.src, t) for t in ("stacks", "stack_frames", "api_stacks")):
            return
        for stack, func, module, address in self.src.execute(
                "SELECT stack, function, module, address FROM stack_frames WHERE kind = 0 "
                "ORDER BY stack, depth"):
            self.stack_frames.setdefault(stack, []).append((func, module, address))
        self.call_stack = {(p, c): s for p, c, s in self.src.execute(
            "SELECT process, correlation, stack FROM api_stacks WHERE correlation")
            if s in self.stack_frames}

    def chain(self, proc, corr):
        """The callchain id of the call (proc, corr), its rows written on first use."""
        key = (proc, corr)
        if key not in self.chain_of:
            chain = len(self.chain_of) + 1
            self.chain_of[key] = chain
            for depth, (func, module, address) in enumerate(
                    self.stack_frames[self.call_stack[key]]):
                name = self.name(func)
                self.chain_rows.append((
                    chain, self.sid(name or "0x%x" % ((address or 0) & 0xFFFFFFFFFFFFFFFF)),
                    self.sid(self.name(module) or ""), None if name else 1, address, depth))
        return self.chain_of[key]

    def apis(self):
        rows = self.src.execute(
            "SELECT id, process, thread, domain, name, start, end, correlation, return_value "
            "FROM api_calls WHERE start IS NOT NULL ORDER BY id").fetchall()
        # the backtrace goes on the outer call of a correlation id (the runtime call around
        # the driver call it makes): the first to start
        outer = {}
        for rid, proc, _, _, _, start, _, corr, _ in rows:
            key = (proc, corr)
            if key in self.call_stack and (key not in outer or (start, rid) < outer[key][0]):
                outer[key] = ((start, rid), rid)
        outer = {rid for _, rid in outer.values()}

        def gen():
            for rep in range(self.scale):
                dt, dc = rep * self.span, rep * (self.max_corr + 1)
                for rid, proc, thread, domain, name, start, end, corr, ret in rows:
                    if rep and (proc, corr) not in self.kernel_corr:
                        continue  # --scale repeats kernel launches only
                    chain = self.chain(proc, corr) if rid in outer else None
                    yield (self.t(start) + dt, self.t(end if end is not None else start) + dt,
                           1 if domain == 2 else 0, self.gtid(proc, thread),
                           corr + dc if corr is not None else None, self.sid(self.name(name)),
                           ret or 0, chain)
        insert_lazily(self.db, "CUPTI_ACTIVITY_KIND_RUNTIME", RUNTIME, gen())

    def callchains(self):
        insert_lazily(self.db, "CUDA_CALLCHAINS", CALLCHAINS, self.chain_rows, CALLCHAINS_KEY)

    def samples(self):
        """Each host sample as a CPU sample: COMPOSITE_EVENTS, and the native frames of its
        stack in SAMPLING_CALLCHAINS; sampled threads named in ThreadNames."""
        if not has_table(self.src, "host_samples"):
            return
        native = {}
        for stack, func, module, address in self.src.execute(
                "SELECT stack, function, module, address FROM stack_frames WHERE kind = 0 "
                "ORDER BY stack, depth"):
            name = self.name(func)
            native.setdefault(stack, []).append((
                self.sid(name or "0x%x" % ((address or 0) & 0xFFFFFFFFFFFFFFFF)),
                self.sid(self.name(module) or ""), None if name else 1, address))
        events, chains = [], []
        for sid_, proc, thread, ts, stack, state in self.src.execute(
                "SELECT id, process, thread, ts, stack, state FROM host_samples "
                "WHERE ts IS NOT NULL AND thread IS NOT NULL ORDER BY id"):
            if proc not in self.proc:
                continue
            events.append((sid_, self.t(ts), None, NSYS_STATE.get(state, 0),
                           self.gtid(proc, thread), 0))
            for depth, (sym, mod, unresolved, address) in enumerate(native.get(stack, ())):
                chains.append((sid_, sym, mod, 0, 0, unresolved, 0, address, None, depth))
        insert_lazily(self.db, "COMPOSITE_EVENTS", COMPOSITE, events)
        insert_lazily(self.db, "SAMPLING_CALLCHAINS", SAMPLING_CALLCHAINS, chains,
                      "PRIMARY KEY (id, stackDepth)")
        named = set()
        for proc, thread, name in self.src.execute(
                "SELECT process, thread, name FROM host_threads WHERE name IS NOT NULL"):
            key = (proc, thread)
            if proc in self.proc and key in self.tids and key not in named and \
                    self.tids[key] != self.proc[proc][0]:  # the main thread is named already
                named.add(key)
                insert(self.db, "ThreadNames", SMALL_TABLES["ThreadNames"],
                       [(self.sid(name), 0, self.gtid(proc, thread))])

    def syncs(self):
        cols = self.layout["sync"]
        out = []
        for proc, kind, ctx, stream, event, start, end, corr in self.src.execute(
                "SELECT process, type, context, stream, event, start, end, correlation FROM syncs "
                "WHERE start IS NOT NULL AND end IS NOT NULL ORDER BY id"):
            v = dict(start=self.t(start), end=self.t(end), deviceId=self.ctx_dev.get((proc, ctx), 0),
                     contextId=ctx, streamId=INVALID if stream is None else stream,
                     correlationId=corr, globalPid=self.proc[proc][1], syncType=kind or 0,
                     eventId=INVALID if event is None else event)
            out.append(tuple(v.get(c[0]) for c in cols))
        insert_lazily(self.db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", cols, out)

    def nvtx(self):
        cols = self.layout["nvtx"]
        out, domains, range_id = [], {}, 0
        for proc, thread, domain, name, start, end, end_thread in self.src.execute(
                "SELECT process, thread, domain, name, start, end, end_thread FROM nvtx "
                "ORDER BY start, id"):
            tid = self.gtid(proc, thread)
            dom = 0
            if domain:
                if (proc, domain) not in domains:  # nvtxDomainCreate comes before its events
                    domains[(proc, domain)] = len([k for k in domains if k[0] == proc]) + 1
                    v = dict(start=self.t(start), eventType=EV_DOMAIN, text=self.name(domain),
                             globalTid=tid, domainId=domains[(proc, domain)])
                    out.append(v)
                dom = domains[(proc, domain)]
            v = dict(start=self.t(start), text=self.name(name), globalTid=tid, domainId=dom)
            if end is not None and end == start:
                v["eventType"] = EV_MARK
            elif end_thread is not None and end_thread != thread:
                range_id += 1
                v.update(eventType=EV_STARTEND, end=self.t(end), rangeId=range_id,
                         endGlobalTid=self.gtid(proc, end_thread))
            else:
                v.update(eventType=EV_PUSHPOP, end=self.t(end), endGlobalTid=tid)
            out.append(v)
        for i, v in enumerate(out):
            v["eventId"] = i + 1
        insert_lazily(self.db, "NVTX_EVENTS", cols,
                      (tuple(v.get(c[0]) for c in cols) for v in out))

    def meta(self):
        insert(self.db, "META_DATA_EXPORT", SMALL_TABLES["META_DATA_EXPORT"], [
            ("EXPORT_SCHEMA_VERSION", self.layout["version"]),
            ("EXPORT_PRODUCT_NAME", "kgantt tests/tools/kgt_to_nsys.py: a kgantt trace in the "
                                    "Nsight Systems export layout"),
        ])
        span = self.span * self.scale
        insert(self.db, "ANALYSIS_DETAILS", SMALL_TABLES["ANALYSIS_DETAILS"], [(0, span, 0, span)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schema", choices=sorted(LAYOUTS), default="3.28")
    ap.add_argument("--scale", type=int, default=1, help="repeat kernels and their launches N times")
    ap.add_argument("--kgt-copy", metavar="PATH", help="also write the kgantt trace, decompressed")
    ap.add_argument("trace", help="kgantt trace (.kgt or .kgt.xz)")
    ap.add_argument("out", help="the SQLite file to write")
    args = ap.parse_args()
    if args.scale < 1:
        ap.error("--scale must be at least 1")
    src = open_trace(args.trace)
    if args.kgt_copy:
        copy = sqlite3.connect(args.kgt_copy + ".tmp")
        src.backup(copy)
        copy.close()
        os.replace(args.kgt_copy + ".tmp", args.kgt_copy)
    tmp = args.out + ".tmp"  # written aside and renamed: a reader never sees half a file
    if os.path.exists(tmp):
        os.unlink(tmp)
    out = sqlite3.connect(tmp)
    out.execute("PRAGMA journal_mode=OFF")
    out.execute("PRAGMA synchronous=OFF")
    Converter(src, out, args.schema, args.scale).run()
    out.commit()
    out.close()
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
