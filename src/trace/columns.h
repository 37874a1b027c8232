/* The columns of kernels, api_calls and host_samples, the tables kgantt keeps packed
 * (trace/packed.h) with ids, each written once, here. From these lists come:
 *   - the tables' SQL, in this order (trace/schema.c; docs/trace-format.md lists them so,
 *     tests/unit/test_schema.c checks that it names every one);
 *   - the packed blocks' layout and what each column's values are packed against
 *     (trace/packed.c);
 *   - a row's positions as SQL gives it (KG_KS_*, KG_AS_*, KG_HS_*: the importer fills rows
 *     so, trace/spool_import.c) and in a block (KG_KB_*, KG_AB_*, KG_HB_*: the model loader
 *     reads them so, model/kgt_reader.h).
 *
 * X(name, block, base, prev), every column but id (SQL's first, INTEGER PRIMARY KEY; its
 * block index is KG_KERNEL_ID_BLOCK / KG_API_ID_BLOCK, packed against its previous value):
 *   block  the column's index in a block. The model loader's columns come first (it reads
 *          a block's first KG_KERNEL_MODEL_COLUMNS / KG_API_MODEL_COLUMNS columns, or
 *          selects them by name from rows);
 *   base   the column whose value in the same row is subtracted before packing, or NONE;
 *   prev   the column whose last non-NULL value before this row is subtracted, or NONE.
 * A base comes before its column in a block, a prev is the column itself or a later one
 * (the reader decodes a block's columns in order). What is subtracted was measured on
 * real traces (docs/results/trace-size.md): a time from the same row's start (end, queued,
 * submitted), a start from the previous row's end (the gap, not the gap plus the duration
 * again), counters and ids from their previous value; small codes and string ids stay as
 * they are, which zstd's matches repeat best. Every column is an INTEGER. */
#ifndef KGANTT_COLUMNS_H
#define KGANTT_COLUMNS_H

#define KG_KERNEL_COLUMNS(X)                                                                \
	X(process, 0, NONE, process)                                                        \
	X(device, 1, NONE, device)                                                          \
	X(context, 2, NONE, context)                                                        \
	X(stream, 3, NONE, stream)                                                          \
	X(correlation, 4, NONE, correlation)                                                \
	X(name, 25, NONE, NONE)                                                             \
	X(demangled, 9, NONE, NONE)                                                         \
	X(queued, 10, start, NONE)                                                          \
	X(submitted, 11, start, NONE)                                                       \
	X(start, 6, NONE, end)                                                              \
	X(end, 7, start, NONE)                                                              \
	X(grid_x, 12, NONE, NONE)                                                           \
	X(grid_y, 13, NONE, NONE)                                                           \
	X(grid_z, 14, NONE, NONE)                                                           \
	X(block_x, 15, NONE, NONE)                                                          \
	X(block_y, 16, NONE, NONE)                                                          \
	X(block_z, 17, NONE, NONE)                                                          \
	X(cluster_x, 26, NONE, NONE)                                                        \
	X(cluster_y, 27, NONE, NONE)                                                        \
	X(cluster_z, 28, NONE, NONE)                                                        \
	X(registers_per_thread, 18, NONE, NONE)                                             \
	X(static_smem, 19, NONE, NONE)                                                      \
	X(dynamic_smem, 20, NONE, NONE)                                                     \
	X(local_mem_per_thread, 29, NONE, NONE)                                             \
	X(local_mem_total, 30, NONE, NONE)                                                  \
	X(shared_mem_executed, 21, NONE, NONE)                                              \
	X(channel, 8, NONE, NONE)                                                           \
	X(channel_type, 31, NONE, NONE)                                                     \
	X(launch_type, 32, NONE, NONE)                                                      \
	X(graph, 22, NONE, NONE)                                                            \
	X(graph_node, 33, NONE, NONE)                                                       \
	X(grid_id, 34, NONE, grid_id)                                                       \
	X(device_launched, 23, NONE, NONE)                                                  \
	X(incomplete, 5, NONE, NONE)
#define KG_KERNEL_ID_BLOCK 24
#define KG_KERNEL_MODEL_COLUMNS 24

#define KG_API_COLUMNS(X)                                                                   \
	X(process, 0, NONE, process)                                                        \
	X(thread, 1, NONE, NONE)                                                            \
	X(domain, 2, NONE, NONE)                                                            \
	X(cbid, 8, NONE, NONE)                                                              \
	X(name, 3, NONE, NONE)                                                              \
	X(start, 4, NONE, end)                                                              \
	X(end, 5, start, NONE)                                                              \
	X(correlation, 6, NONE, correlation)                                                \
	X(return_value, 9, NONE, NONE)                                                      \
	X(incomplete, 10, NONE, NONE)
#define KG_API_ID_BLOCK 7
#define KG_API_MODEL_COLUMNS 7

/* Host samples (record --host-samples): a thread's time before ts, sampled. Measured on a
 * 1 kHz run (docs/results/trace-size.md): the thread and stack repeat, best left as they
 * are for zstd; the time is the step from the row before (rows come in the order taken,
 * threads interleaved: steps of a fraction of the period). */
#define KG_HOST_SAMPLE_COLUMNS(X)                                                           \
	X(process, 0, NONE, process)                                                        \
	X(thread, 1, NONE, NONE)                                                            \
	X(ts, 2, NONE, ts)                                                                  \
	X(stack, 3, NONE, NONE)                                                             \
	X(state, 4, NONE, NONE)                                                             \
	X(flags, 5, NONE, NONE)                                                             \
	X(overrun, 6, NONE, NONE)
#define KG_HOST_SAMPLE_ID_BLOCK 7

/* Block indexes (KG_KB_NONE: no column) and SQL positions (0: id) by name. */
#define KG_KB_(name, block, base, prev) KG_KB_##name = block,
#define KG_AB_(name, block, base, prev) KG_AB_##name = block,
#define KG_HB_(name, block, base, prev) KG_HB_##name = block,
#define KG_KS_(name, block, base, prev) KG_KS_##name,
#define KG_AS_(name, block, base, prev) KG_AS_##name,
#define KG_HS_(name, block, base, prev) KG_HS_##name,
enum { KG_KB_NONE = -1, KG_KB_id = KG_KERNEL_ID_BLOCK, KG_KERNEL_COLUMNS(KG_KB_) };
enum { KG_AB_NONE = -1, KG_AB_id = KG_API_ID_BLOCK, KG_API_COLUMNS(KG_AB_) };
enum { KG_HB_NONE = -1, KG_HB_id = KG_HOST_SAMPLE_ID_BLOCK, KG_HOST_SAMPLE_COLUMNS(KG_HB_) };
enum { KG_KS_id, KG_KERNEL_COLUMNS(KG_KS_) KG_KERNEL_NCOLUMNS };
enum { KG_AS_id, KG_API_COLUMNS(KG_AS_) KG_API_NCOLUMNS };
enum { KG_HS_id, KG_HOST_SAMPLE_COLUMNS(KG_HS_) KG_HOST_SAMPLE_NCOLUMNS };

/* The columns after id in a CREATE TABLE, one a line: ",\n  process INTEGER..." */
#define KG_SQL_COLUMN_(name, block, base, prev) ",\n  " #name " INTEGER"

#endif
