/* kgantt/sm.h — which SM ran each block of a kernel, and when (the seed's sm_id).
 *
 * No CUDA API reports where a block ran; only the block itself can read %smid. Put the two
 * macros in a kernel and `kgantt record` draws one lane per SM (`kgantt plot --sm`):
 *
 *     #include <kgantt/sm.h>
 *     __global__ void scale(float *x, int n) {
 *         KGANTT_SM_BLOCK_BEGIN();
 *         ... the kernel's work ...
 *         KGANTT_SM_BLOCK_END();   // every thread of the block must reach this line
 *     }
 *
 * Each block's thread 0 writes one 32-byte record (grid id, SM id, block index, start and
 * end on %globaltimer) into a buffer in this module's own device memory; the recorder finds
 * the buffer by name when the module's kernels are launched, reads it when the device is
 * idle (after cudaDeviceSynchronize and when the context ends), matches records to kernels by
 * grid id (%gridid is CUPTI's gridId) and converts the times onto the trace's clock.
 * Without kgantt the macros still run and cost the same; nothing reads the buffer.
 *
 * Cost per block: two %globaltimer reads, one __syncthreads, one 64-bit atomic and one
 * 32-byte store (measured in docs/results/hw-h200.md). The buffer holds
 * KGANTT_SM_CAPACITY records (define it before the include; default 65536 = 2 MiB); blocks
 * beyond it between two reads are counted and dropped, and the trace says how many.
 *
 * One buffer per translation unit (it is static): with relocatable device code (-rdc) only
 * the kernels of one unit per linked module are found. C++ only (CUDA).
 */
#ifndef KGANTT_SM_H
#define KGANTT_SM_H

#ifndef KGANTT_SM_CAPACITY
#define KGANTT_SM_CAPACITY 65536u
#endif

#define KGANTT_SM_MAGIC 0x31474f4c4d53474bull /* "KGSMLOG1", little-endian */

/* One block. Layout shared with the recorder (src/recorder/smlog.c): change both or neither. */
struct kgantt_sm_record {
	unsigned long long grid;  /* %gridid: CUPTI's gridId of the kernel */
	unsigned long long start; /* %globaltimer when thread 0 passed KGANTT_SM_BLOCK_BEGIN */
	unsigned long long end;   /* %globaltimer when the last thread reached KGANTT_SM_BLOCK_END */
	unsigned int smid;        /* %smid */
	unsigned int block;       /* linear block index: x + y*gridDim.x + z*gridDim.x*gridDim.y */
};

struct kgantt_sm_log {
	unsigned long long magic;     /* KGANTT_SM_MAGIC: lets the recorder check what it found */
	unsigned int capacity;        /* records in rec[] */
	unsigned int record_size;     /* sizeof(struct kgantt_sm_record) */
	unsigned long long count;     /* blocks that wrote since the last read (> capacity: dropped) */
	unsigned long long reserved;
	struct kgantt_sm_record rec[KGANTT_SM_CAPACITY];
};

#ifdef __CUDACC__
static __device__ struct kgantt_sm_log kgantt_sm_log = {KGANTT_SM_MAGIC, KGANTT_SM_CAPACITY,
	(unsigned int)sizeof(struct kgantt_sm_record), 0, 0, {}};

static __device__ __forceinline__ unsigned long long kgantt_sm_globaltimer_(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __device__ __forceinline__ void kgantt_sm_write_(unsigned long long start)
{
	unsigned long long end = kgantt_sm_globaltimer_(), grid;
	unsigned int smid;
	asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
	asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
	unsigned long long i = atomicAdd(&kgantt_sm_log.count, 1ull);
	if (i < KGANTT_SM_CAPACITY) {
		struct kgantt_sm_record *r = &kgantt_sm_log.rec[i];
		r->grid = grid;
		r->start = start;
		r->end = end;
		r->smid = smid;
		r->block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
	}
}

#define KGANTT_SM_BLOCK_BEGIN()                                                                  \
	unsigned long long kgantt_sm_start_ =                                                        \
		(threadIdx.x | threadIdx.y | threadIdx.z) == 0 ? kgantt_sm_globaltimer_() : 0ull

#define KGANTT_SM_BLOCK_END()                                                                    \
	do {                                                                                         \
		__syncthreads();                                                                         \
		if ((threadIdx.x | threadIdx.y | threadIdx.z) == 0) kgantt_sm_write_(kgantt_sm_start_); \
	} while (0)
#endif /* __CUDACC__ */

#endif
