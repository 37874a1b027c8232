/* The raw per-process spool written by the injected recorder and read by `kgantt record`
 * (and `kgantt import`) to build the SQLite trace.
 *
 * Why a spool and not SQLite in the traced process: the recorder lives inside the user's
 * program, so it must be small, depend on nothing but CUPTI and libc, and survive being
 * killed at any instant. Appending fixed-layout records with write(2) gives all three: what
 * reached the kernel's page cache outlives a SIGKILL, and a torn last record is detected by
 * its length. The conversion to the documented trace format happens afterwards, outside the
 * program. docs/raw-spool.md describes this file; docs/trace-format.md the final trace.
 *
 * Layout: struct kg_raw_file_header, then records. Every record starts with
 * struct kg_raw_hdr; `size` counts the header and is a multiple of 8. Integers are
 * little-endian (the host's: spools never leave the host that wrote them). Strings are
 * interned per spool: a KG_RAW_STRING record defines an id before any record uses it;
 * id 0 means "no string".
 */
#ifndef KGANTT_RAW_FORMAT_H
#define KGANTT_RAW_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "util/kinds.h"

#define KG_RAW_MAGIC "KGSPOOL\0"
#define KG_RAW_VERSION 1

struct kg_raw_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
};

enum kg_raw_type {
	KG_RAW_PROCESS = 1,  /* once, first record */
	KG_RAW_STRING = 2,
	KG_RAW_STATUS = 3,   /* a message from the recorder (why it disabled itself, ...) */
	KG_RAW_DEVICE = 4,
	KG_RAW_CONTEXT = 5,
	KG_RAW_STREAM = 6,
	KG_RAW_KERNEL = 7,
	KG_RAW_MEMCPY = 8,
	KG_RAW_MEMSET = 9,
	KG_RAW_SYNC = 10,
	KG_RAW_API = 11,
	KG_RAW_MARKER = 12,
	KG_RAW_OVERHEAD = 13,
	KG_RAW_DROPPED = 14,
	KG_RAW_CAPTURE = 15, /* capture window switched on or off */
	KG_RAW_END = 16,     /* clean end: absent when the program died */
	KG_RAW_STACK_SETTINGS = 17, /* how call stacks are taken (record --stacks) */
	KG_RAW_MODULE = 18,  /* a loaded executable or shared library */
	KG_RAW_STACK = 19,   /* one distinct call stack */
	KG_RAW_CALLSITES = 20, /* API calls (correlation ids) and their stacks */
	KG_RAW_PYCODE = 21,  /* a Python code object that appears in stacks */
	KG_RAW_HW_DEVICE = 22, /* hardware sampling on one device: settings, or why not */
	KG_RAW_HW_SAMPLES = 23, /* a batch of hardware samples of one device */
	KG_RAW_SM_BLOCKS = 24, /* blocks' SM and times, from a kernel's own log (record --sm) */
	KG_RAW_SM_OWN = 25,  /* a driver call the recorder made itself (record --sm) */
	KG_RAW_HOST_SETTINGS = 26, /* host sampling: its rate and signal, or why not */
	KG_RAW_HOST_THREAD = 27, /* a sampled thread: its ids and name; its end */
	KG_RAW_HOST_SAMPLES = 28, /* a batch of host samples */
	KG_RAW_HOST_COUNTS = 29, /* host sampling's running totals: taken, written, lost by cause */
	KG_RAW_LAUNCH_SETTINGS = 30, /* full mode: launch calls sampled in windows, or all */
	KG_RAW_HOOKED_LAUNCH = 31, /* the stream of a launch call the launch hook saw */
	KG_RAW_TYPE_MAX
};

struct kg_raw_hdr {
	uint16_t type;
	uint16_t flags;
	uint32_t size;
};

/* Record flags (kg_raw_hdr.flags). */
#define KG_RAW_F_INCOMPLETE 0x1 /* CUPTI delivered the record with a missing timestamp */

struct kg_raw_process {
	struct kg_raw_hdr h;
	uint32_t pid, ppid;
	uint64_t start_ns;          /* CLOCK_MONOTONIC_RAW at recorder start */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME read next to start_ns: aligns hosts */
	uint32_t cupti_api_version;
	uint32_t mode;              /* enum kg_mode */
	uint32_t host_str, cmdline_str, rank_str, exe_str;
	uint32_t latency_timestamps;
	uint32_t buffer_bytes, buffer_count;
	uint32_t pad;
};

enum kg_mode { KG_MODE_FULL = 0, KG_MODE_KERNELS = 1 };

struct kg_raw_string {
	struct kg_raw_hdr h;
	uint32_t id;
	uint32_t len;   /* bytes of text, without the NUL */
	char text[];    /* NUL-terminated, padded to 8 */
};

enum kg_status_level { KG_STATUS_INFO = 0, KG_STATUS_WARNING = 1, KG_STATUS_ERROR = 2 };

struct kg_raw_status {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint32_t level;
	uint32_t text_str;
};

struct kg_raw_device {
	struct kg_raw_hdr h;
	uint32_t device_id;
	uint32_t name_str;
	uint8_t uuid[16];
	uint64_t global_memory_bytes;
	uint64_t global_memory_bandwidth_kbps; /* KB/s as CUPTI reports it */
	uint32_t sm_count;
	uint32_t max_warps_per_sm;
	uint32_t max_blocks_per_sm;
	uint32_t max_threads_per_block;
	uint32_t max_regs_per_sm;
	uint32_t max_regs_per_block;
	uint32_t max_smem_per_sm;
	uint32_t max_smem_per_block;
	uint32_t threads_per_warp;
	uint32_t cc_major, cc_minor;
	uint32_t core_clock_khz;
	uint32_t l2_bytes;
	uint32_t copy_engines;
	uint32_t mig;
	uint32_t pad;
};

struct kg_raw_context {
	struct kg_raw_hdr h;
	uint32_t context_id;
	uint32_t device_id;
	uint32_t null_stream_id;
	uint32_t is_green;
};

struct kg_raw_stream {
	struct kg_raw_hdr h;
	uint32_t context_id;
	uint32_t stream_id;
	int32_t priority;   /* signed: CUPTI stores -5 as 4294967291 */
	uint32_t flags;     /* CUpti_ActivityStreamFlag: 1 default, 2 non-blocking */
	uint32_t correlation_id;
	uint32_t pad;
};

struct kg_raw_kernel {
	struct kg_raw_hdr h;
	uint64_t queued, submitted, start, end, completed;
	uint64_t graph_node_id;
	int64_t grid_id;
	uint64_t local_mem_total;
	uint32_t device_id, context_id, stream_id, correlation_id;
	uint32_t name_str;
	int32_t grid[3], block[3], cluster[3];
	uint32_t regs_per_thread;
	int32_t static_smem, dynamic_smem;
	uint32_t local_mem_per_thread;
	uint32_t shared_mem_executed;
	uint32_t channel_id, channel_type;
	uint32_t graph_id;
	uint8_t launch_type, cache_config, device_launched, pad8;
	uint32_t pad;
};

struct kg_raw_memcpy {
	struct kg_raw_hdr h;
	uint64_t start, end, bytes;
	uint64_t graph_node_id;
	uint32_t device_id, context_id, stream_id, correlation_id;
	uint32_t channel_id, channel_type, graph_id;
	uint8_t copy_kind, src_kind, dst_kind, async; /* CUPTI memcpy / memory kinds */
	uint32_t dst_device_id; /* peer copies only, else = device_id */
	uint32_t pad;
};

struct kg_raw_memset {
	struct kg_raw_hdr h;
	uint64_t start, end, bytes;
	uint64_t graph_node_id;
	uint32_t device_id, context_id, stream_id, correlation_id;
	uint32_t channel_id, channel_type, graph_id;
	uint32_t value;
	uint16_t memory_kind, async;
	uint32_t pad;
};

struct kg_raw_sync {
	struct kg_raw_hdr h;
	uint64_t start, end;
	uint32_t type; /* CUpti_ActivitySynchronizationType */
	uint32_t context_id, stream_id, event_id;
	uint32_t correlation_id, return_value;
};

enum kg_api_domain { KG_API_RUNTIME = 1, KG_API_DRIVER = 2 };

struct kg_raw_api {
	struct kg_raw_hdr h;
	uint64_t start, end;
	uint32_t domain, cbid;
	uint32_t name_str;
	uint32_t tid;
	uint32_t correlation_id;
	uint32_t return_value;
};

/* One NVTX event as CUPTI reports it: a range start, a range end or an instant mark. */
enum kg_marker_kind { KG_MARK_INSTANT = 0, KG_MARK_START = 1, KG_MARK_END = 2 };

struct kg_raw_marker {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint32_t id;            /* pairs a start with its end */
	uint32_t kind;          /* enum kg_marker_kind */
	uint32_t name_str, domain_str;
	uint32_t tid;
	uint32_t push_pop;      /* 1 for nvtxRangePush/Pop, 0 for Start/End and marks */
};

struct kg_raw_overhead {
	struct kg_raw_hdr h;
	uint64_t start, end;
	uint32_t kind;          /* CUpti_ActivityOverheadKind */
	uint32_t object_kind;   /* CUpti_ActivityObjectKind */
	uint32_t object_id;     /* thread id or device id */
	uint32_t correlation_id;
};

struct kg_raw_dropped {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint64_t dropped_total; /* running total for this process */
	uint32_t context_id, stream_id;
};

struct kg_raw_capture {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint32_t on;
	uint32_t why_str;
};

struct kg_raw_end {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint64_t dropped_total;
	uint64_t records;
	uint64_t incomplete_records;
	uint64_t late_buffers; /* buffers CUPTI asked for after the pre-allocated pool ran out */
	/* 1: asked for latency timestamps, CUPTI refused them after the process record said
	 * they were on (the process record comes first; CUPTI is set up after it) */
	uint32_t latency_refused;
	uint32_t pad;
};

/* ------------------------------------------------------------------ call stacks
 * Stacks are taken in the program (recorder/stacks.c) as raw instruction addresses and
 * Python (code, instruction offset) pairs, deduplicated there, and symbolised by the
 * importer from the module records and the files they name, after the program ended. */

enum kg_stack_mode { KG_STACKS_OFF = 0, KG_STACKS_WAITS = 1, KG_STACKS_ALL = 2 };

struct kg_raw_stack_settings {
	struct kg_raw_hdr h;
	uint32_t mode;          /* enum kg_stack_mode */
	uint32_t launch_first;  /* waits mode: the first N launches of each place get a stack */
	uint32_t launch_every;  /* ... then one launch in this many */
	uint32_t max_depth;     /* native frames kept, innermost first */
	uint32_t python_str;    /* what the Python frame reader found ("CPython 3.12.3", why not) */
	int32_t python;         /* 1 Python frames read, 0 not a Python program, -1 unreadable */
	uint32_t python_version; /* major << 8 | minor, 0 none */
	uint32_t pad;
};

struct kg_raw_module {
	struct kg_raw_hdr h;
	uint64_t base;          /* load bias: file address = runtime address - base */
	uint64_t low, high;     /* runtime addresses covered by its loaded segments */
	uint32_t path_str;
	uint32_t build_id_len;  /* bytes of build_id used (GNU build id), 0 none */
	uint8_t build_id[32];
};

struct kg_raw_pyframe {
	uint32_t code;          /* KG_RAW_PYCODE id, 0 unreadable */
	int32_t lasti;          /* byte offset of the instruction in progress, -1 unknown */
};

/* Followed by n_native uint64_t return addresses (innermost first; the first is the
 * calling instruction itself) and n_python struct kg_raw_pyframe (innermost first). */
struct kg_raw_stack {
	struct kg_raw_hdr h;
	uint32_t id;            /* 1, 2, ... per process */
	uint32_t flags;         /* enum kg_stack_flags (util/stack_flags.h) */
	uint16_t n_native, n_python;
	uint32_t pad;
};

struct kg_raw_callsite {
	uint32_t correlation;   /* the API call (CUPTI correlation id) */
	uint32_t stack;         /* KG_RAW_STACK id */
};

/* Followed by count struct kg_raw_callsite. */
struct kg_raw_callsites {
	struct kg_raw_hdr h;
	uint32_t count;
	uint32_t pad;
};

/* Followed by linetable_len bytes of the code object's co_linetable (padded to 8). */
struct kg_raw_pycode {
	struct kg_raw_hdr h;
	uint32_t id;
	uint32_t filename_str, qualname_str;
	int32_t firstlineno;
	uint32_t linetable_len;
	uint32_t pad;
};

/* ------------------------------------------------------------------ hardware samples
 * `record --hw`: CUPTI PM sampling of GPU-wide counters (recorder/hwsample.c). The
 * figures are util/hw_figures.h's, converted in the recorder from the CUPTI metrics the
 * GPU could count in one pass; times are on the trace's clock. */

/* One per device and figure taken (metric_str names the CUPTI metric), plus one with
 * figure = UINT32_MAX carrying the device's state: `state` 0 sampling, else why not in
 * note_str (counters not permitted, another profiler holds them, unsupported GPU). */
struct kg_raw_hw_device {
	struct kg_raw_hdr h;
	uint64_t interval_ns;   /* the sampling interval asked of the GPU */
	int32_t device;         /* CUDA device ordinal in this process */
	uint32_t figure;        /* enum kg_hw_figure, or UINT32_MAX: the device's state */
	uint32_t metric_str;    /* the CUPTI metric behind the figure */
	uint32_t note_str;      /* the state's explanation, 0 none */
	int32_t state;          /* 0 sampling, 1 refused, 2 failed later (samples stop) */
	uint32_t pad;
};

/* Followed by count samples of 8 + 8 + 4 * n_figures bytes (padded to 8): int64 start and
 * end, then n_figures floats in enum kg_hw_figure order, NaN where not taken. */
struct kg_raw_hw_samples {
	struct kg_raw_hdr h;
	int32_t device;
	uint32_t count;
	uint32_t n_figures;     /* KG_HW_N of the recorder that wrote it */
	uint32_t lost;          /* samples the GPU's buffer or the decoder lost before these */
};

/* Bytes of one sample of a KG_RAW_HW_SAMPLES record: start, end, the figures, padded. */
static inline size_t kg_raw_hw_sample_bytes(uint32_t n_figures)
{
	return (16 + 4 * (size_t)n_figures + 7) & ~(size_t)7;
}

/* ------------------------------------------------------------------ SM placement
 * `record --sm`: kernels built with include/kgantt/sm.h log, per block, the SM it ran on
 * and when (%globaltimer, the GPU's own clock) into a buffer of their module; the recorder
 * (recorder/smlog.c) copies the buffers out when the device is idle. Times stay raw here:
 * the importer puts them on the trace's clock from the kernels they belong to. */

/* One block, as the device wrote it (struct kgantt_sm_record of include/kgantt/sm.h). */
struct kg_raw_sm_block {
	uint64_t grid;          /* %gridid: the kernel's CUPTI grid id */
	uint64_t start, end;    /* %globaltimer, ns */
	uint32_t sm;            /* %smid */
	uint32_t block;         /* linear block index */
};

enum kg_sm_read_why { KG_SM_AT_SYNC = 1, KG_SM_AT_CONTEXT_END = 2, KG_SM_AT_EXIT = 3 };

/* Followed by count struct kg_raw_sm_block (record_size bytes each). A read of a buffer
 * that held more blocks than one record takes writes several; `dropped` is on the first. */
struct kg_raw_sm_blocks {
	struct kg_raw_hdr h;
	uint64_t ts;            /* CLOCK_MONOTONIC_RAW when the buffer was read */
	uint64_t dropped;       /* blocks the buffer had no room for since the last read */
	uint32_t context_id, device_id;
	uint32_t count;
	uint32_t record_size;   /* sizeof(struct kg_raw_sm_block) */
	uint32_t why;           /* enum kg_sm_read_why */
	uint32_t pad;
};

/* Written before the recorder makes a driver call of its own (reading a buffer, finding
 * one): the importer leaves out the driver API record with this correlation id and cbid,
 * and, when KG_SM_OWN_COPY is set, the copies and memsets with this correlation id, so the
 * trace shows the program's calls only. */
#define KG_SM_OWN_COPY 0x1
struct kg_raw_sm_own {
	struct kg_raw_hdr h;
	uint32_t correlation_id;
	uint32_t cbid;          /* CUPTI driver API callback id */
	uint32_t flags;         /* KG_SM_OWN_COPY */
	uint32_t pad;
};

/* ------------------------------------------------------------------ host samples
 * KGANTT_HOST_HZ: what the program's threads are doing, sampled on wall-clock time from a
 * per-thread timer's signal (recorder/hostsample.c; docs/host-samples.md). Each sample is
 * a time, a thread, a state and a stack id: the stacks are KG_RAW_STACK records shared with
 * the call stacks, written before the samples that use them. */

enum kg_host_unwind { KG_HOST_UNWIND_FP = 1 }; /* native frames by frame pointers */

/* Once, when sampling starts or is refused (hz 0, why in note_str). */
struct kg_raw_host_settings {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint32_t hz;            /* samples a second per thread, 0: not sampling (note says why) */
	int32_t signal;         /* the signal the sampler and the timers send */
	uint32_t max_native, max_python; /* frames kept per sample */
	uint32_t unwind;        /* enum kg_host_unwind */
	int32_t python;         /* 1 Python frames read, 0 not a Python program, -1 unreadable */
	uint32_t python_version; /* major << 8 | minor, 0 none */
	uint32_t python_str;    /* what the Python frame reader found */
	uint32_t note_str;      /* why sampling is off or limited, 0 none */
	uint32_t pad;
};

enum kg_host_thread_event {
	KG_HOST_THREAD_START = 1, /* first sampled (on its CPU time unless it runs Python or CUDA) */
	KG_HOST_THREAD_WALL = 2,  /* from here sampled on wall-clock time, off CPU too */
	KG_HOST_THREAD_END = 3,   /* gone (found missing from /proc/self/task at ts) */
};

#define KG_HOST_THREAD_PYTHON 0x1 /* has a Python thread state */
#define KG_HOST_THREAD_CUDA 0x2   /* CUPTI recorded a CUDA call on it */

struct kg_raw_host_thread {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint64_t pthread;       /* its pthread_self(), 0 unknown (CUPTI's default thread id is its
				 * low 32 bits; with host samples on, CUPTI records `tid`) */
	uint32_t thread;        /* the number its samples carry (1, 2, ...; never reused) */
	uint32_t tid;           /* the kernel's thread id (gettid) */
	uint32_t event;         /* enum kg_host_thread_event */
	uint32_t flags;         /* KG_HOST_THREAD_* */
	uint32_t name_str;      /* /proc/self/task/TID/comm when first seen */
	uint32_t pad;
};

/* Where the sampled thread was (kg_raw_host_sample.state, bits 0-2). A thread on
 * wall-clock time that has not run since its last sample is not woken: its sample
 * repeats the last one's stack, with that one's state when it was asleep (BLOCKED,
 * GIL_WAIT), else IDLE. */
/* enum kg_host_state: util/kinds.h (one list for the recorder, the model and the report) */
#define KG_HOST_STATE_MASK 0x07
#define KG_HOST_S_PYTHON 0x08   /* the thread has a Python thread state */
#define KG_HOST_S_GIL 0x10      /* ... and holds the GIL */
#define KG_HOST_S_CPU_TIMER 0x20 /* taken on the thread's CPU time, not on wall-clock time */
#define KG_HOST_S_NATIVE_CUT 0x40 /* the native walk stopped at a frame it could not check */
#define KG_HOST_S_PYTHON_CUT 0x80 /* the Python frames were cut (too deep, or unreadable) */

/* A native frame of a host sample that stands for CPython's garbage collector, running on
 * the sampled thread (its interpreter's flag says so, and the thread holds the GIL): the
 * outermost native frame, where the Python frames go. The collector's own frames are the
 * interpreter's, where the native walk stops, and a stripped interpreter names none. The
 * importer writes it as the function "<gc>". No return address is 1: page zero is never
 * code. */
#define KG_RAW_IP_PYTHON_GC 1

/* One sample: 12 bytes. It stands for 1 + overrun periods of its timer: of wall-clock
 * time, or of the thread's CPU time with KG_HOST_S_CPU_TIMER (CPU-time timers fire on the
 * kernel's tick, so at 1 kHz on a 250 Hz kernel a sample stands for about 4 periods). */
struct kg_raw_host_sample {
	uint32_t dt;            /* ns after the record's base_ts */
	uint32_t stack;         /* KG_RAW_STACK id, 0: none (the stack tables were full) */
	uint16_t thread;        /* kg_raw_host_thread.thread */
	uint8_t state;          /* enum kg_host_state | KG_HOST_S_* */
	uint8_t overrun;        /* timer expirations merged into this one, at most 255 */
};

/* Followed by count struct kg_raw_host_sample, in the order they were taken. */
struct kg_raw_host_samples {
	struct kg_raw_hdr h;
	uint64_t base_ts;       /* CLOCK_MONOTONIC_RAW */
	uint32_t count;
	uint32_t pad;
};

/* Running totals since sampling started; the last record written holds the final ones. */
struct kg_raw_host_counts {
	struct kg_raw_hdr h;
	uint64_t ts;
	uint64_t taken;         /* signals handled into a sample */
	uint64_t written;       /* samples in KG_RAW_HOST_SAMPLES records */
	uint64_t lost_ring;     /* taken while the handler's buffer was full */
	uint64_t lost_pending;  /* taken but the buffer to the spool was full */
	uint64_t lost_threads;  /* listings of a thread that found no room: 1,024 sampled at
				 * once, 65,535 in a process (a thread missed at 10 listings: 10) */
	uint64_t no_stack;      /* written with stack 0: the stack tables were full */
	uint64_t stale;         /* signals of a timer already deleted, or not ours: ignored */
	uint64_t overruns;      /* timer expirations merged into one signal (thread not running) */
	uint64_t python_cut;    /* Python frames cut at an unreadable object */
	uint64_t codes_busy;    /* Python frames without code (table busy in the handler) */
	uint64_t native_cut;    /* native walks stopped at a frame that failed a check */
	uint64_t page_checks;   /* system calls made to check memory before reading it */
	uint64_t handler_ns;    /* time spent in the signal handler */
	uint64_t threads;       /* threads sampled so far */
	uint64_t timer_errors;  /* threads that could not be given a timer */
	uint64_t handler_p50_ns, handler_p90_ns; /* the handler's duration: median, 9 in 10 (250 ns steps) */
	uint64_t faulted;       /* samples dropped: a read of the thread's memory faulted (a
				 * page unmapped since it was checked) and the handler caught it */
};

/* Full mode: which kernel launches have an API record (recorder/launches.h). Absent in
 * kernels mode, and in traces recorded before it existed (every launch then). */
struct kg_raw_launch_settings {
	struct kg_raw_hdr h;
	uint32_t sampled;       /* 1: in windows; 0: every launch */
	uint32_t window_on_ms, window_period_ms; /* sampled: on this long in every period */
	uint32_t why_str;       /* every launch: why ("record --all-launches"); sampled: how */
};

/* Launch calls seen by the launch hook (src/preload/launch_hook.h) have no CUPTI
 * correlation id: their KG_RAW_API record and call-site entry carry one of their own, from
 * KG_RAW_HOOKED_CORRELATION up, and this record (right after the API record) says the
 * launch's stream. The import gives such a call the correlation id of the kernel on that
 * stream whose queued time lies inside the call (src/trace/hooked_import.h). */
#define KG_RAW_HOOKED_CORRELATION 0xF0000000u
#define KG_RAW_STREAM_UNKNOWN     0xFFFFFFFFu

struct kg_raw_hooked_launch {
	struct kg_raw_hdr h;
	uint32_t correlation_id; /* the API record's own id */
	uint32_t stream_id;      /* CUPTI's id of the launch's stream, or KG_RAW_STREAM_UNKNOWN */
	uint32_t device_id;      /* the device of the current context, or KG_RAW_STREAM_UNKNOWN */
	uint32_t reserved;
};

#endif
