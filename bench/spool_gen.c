/* A recorder spool of a launch loop without a GPU, for timing `kgantt import` (what
 * `record` does after the program ends) and for the size of what it writes
 * (bench/trace_size.sh): one process, one device, one stream; per kernel the three API
 * calls bench/launch_loop makes in full mode on an H200 (cuKernelGetFunction-like driver
 * call, cudaLaunchKernel, cudaGetLastError-like query), their kernel with queued,
 * submitted, start and end, times with the jitter of the launches_bad fixture. Written
 * with the recorder's own spool writer (recorder/spool.c), so `kgantt import` reads it as
 * a recording's. Deterministic for a given N.
 *
 *   build/bench/spool_gen N DIR/run.kgspool          (make bench-pack) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/spool.h"

#define REC(s, type, T) ((T *)spool_reserve((s), (type), sizeof(T)))

static uint64_t seed = 88172645463325252ull;

/* xorshift64: a number in [0, n) */
static uint64_t rnd(uint64_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed % n;
}

/* (strings are written before the record that names them: writing one moves the spool on) */
static void process(struct kg_spool *s, uint64_t t0)
{
	uint32_t host = spool_string(s, "gpu-host"),
		 cmd = spool_string(s, "build/bench/launch_loop");
	uint32_t gpu = spool_string(s, "NVIDIA H200");
	struct kg_raw_process *p = REC(s, KG_RAW_PROCESS, struct kg_raw_process);
	p->pid = 4242, p->ppid = 1, p->host_str = host, p->cmdline_str = cmd;
	p->start_ns = t0, p->start_realtime_ns = t0 + 1700000000000000000ull;
	p->latency_timestamps = 1, p->cupti_api_version = 130001;
	struct kg_raw_device *d = REC(s, KG_RAW_DEVICE, struct kg_raw_device);
	d->name_str = gpu, d->sm_count = 132;
	d->max_warps_per_sm = 64, d->max_blocks_per_sm = 32, d->max_threads_per_block = 1024;
	d->max_regs_per_sm = 65536, d->max_regs_per_block = 65536, d->max_smem_per_sm = 233472;
	d->max_smem_per_block = 49152, d->threads_per_warp = 32, d->cc_major = 9;
	d->global_memory_bytes = 150109880320ull;
	struct kg_raw_context *c = REC(s, KG_RAW_CONTEXT, struct kg_raw_context);
	c->context_id = 1, c->null_stream_id = 7;
	struct kg_raw_stream *st = REC(s, KG_RAW_STREAM, struct kg_raw_stream);
	st->context_id = 1, st->stream_id = 13, st->flags = 2;
}

static void api(struct kg_spool *s, uint64_t start, uint64_t dur, uint32_t domain, uint32_t cbid,
		uint32_t name, uint32_t correlation)
{
	struct kg_raw_api *a = REC(s, KG_RAW_API, struct kg_raw_api);
	a->start = start, a->end = start + dur, a->domain = domain, a->cbid = cbid;
	a->name_str = name, a->tid = 1234567, a->correlation_id = correlation;
}

/* One loop iteration from t: three calls and the kernel; the time after it. */
static uint64_t launch(struct kg_spool *s, uint64_t t, uint32_t i, const uint32_t names[4])
{
	uint32_t corr = 3 * i + 1;
	api(s, t, 150 + rnd(80), 2, 719, names[0], corr);
	uint64_t launch_at = t + 350 + rnd(150);
	uint64_t launch_dur = 6500 + rnd(600);
	api(s, launch_at, launch_dur, 1, 211, names[1], corr + 1);
	struct kg_raw_kernel *k = REC(s, KG_RAW_KERNEL, struct kg_raw_kernel);
	k->name_str = names[3], k->correlation_id = corr + 1, k->stream_id = 13, k->context_id = 1;
	k->queued = launch_at + 3300 + rnd(400);
	k->submitted = k->queued + 3300 + rnd(400);
	k->start = k->submitted + 32 * (16 + rnd(3)); /* the GPU's timer ticks every 32 ns */
	k->end = k->start + 32 * (24 + rnd(2));
	k->grid_id = (int64_t)i + 1, k->local_mem_total = 155713536;
	k->grid[0] = k->grid[1] = k->grid[2] = 1, k->block[0] = 32, k->block[1] = k->block[2] = 1;
	k->regs_per_thread = 16, k->shared_mem_executed = 32768, k->channel_id = 1;
	k->channel_type = 1;
	uint64_t query_at = launch_at + launch_dur + 250 + rnd(100);
	api(s, query_at, 180 + rnd(40), 1, 10, names[2], corr + 2);
	return query_at + 400 + rnd(300);
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : 0;
	if (n <= 0 || n > 100000000) {
		fprintf(stderr, "usage: spool_gen KERNELS OUT.kgspool\n");
		return 2;
	}
	struct kg_spool s;
	if (spool_open(&s, argv[2], 1 << 20) < 0) {
		perror(argv[2]);
		return 1;
	}
	uint64_t t = 35000000000ull;
	process(&s, t);
	const uint32_t names[4] = {
	    spool_string(&s, "cuKernelGetFunction"), spool_string(&s, "cudaLaunchKernel_v7000"),
	    spool_string(&s, "cudaGetLastError_v3020"), spool_string(&s, "_Z5emptyv")};
	for (uint32_t i = 0; i < (uint32_t)n; i++)
		t = launch(&s, t, i, names);
	struct kg_raw_end *e = REC(&s, KG_RAW_END, struct kg_raw_end);
	e->ts = t + 1000, e->records = s.records;
	spool_close(&s);
	return 0;
}
