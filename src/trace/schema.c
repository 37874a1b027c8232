/* The kgantt trace file: one SQLite database. docs/trace-format.md documents every table
 * and column; keep the two in step (tests/unit/test_schema.c checks that every column
 * named here appears in the document). */
#include "trace/schema.h"
#include "trace/columns.h"
#include "util/hw_figures.h"
#include "util/kinds.h"

#include <stdio.h>
#include <time.h>

/* enum_host_state's rows, from util/kinds.h: (0, 'on CPU'), ... */
#define HOST_STATE_ROW_(id, code, name) \
	"INSERT INTO enum_host_state VALUES(" #code ",'" name "');\n"
const char kg_schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
	"CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT NOT NULL);\n"
	"CREATE TABLE processes(\n"
	"  process INTEGER PRIMARY KEY, pid INTEGER NOT NULL, ppid INTEGER, host TEXT,\n"
	"  exe TEXT, cmdline TEXT, rank TEXT, start_ns INTEGER, end_ns INTEGER,\n"
	"  realtime_offset_ns INTEGER, mode TEXT, latency_timestamps INTEGER,\n"
	"  cupti_api_version INTEGER, complete INTEGER NOT NULL, exit_status TEXT,\n"
	"  dropped_records INTEGER NOT NULL DEFAULT 0,\n"
	"  incomplete_records INTEGER NOT NULL DEFAULT 0, late_buffers INTEGER,\n"
	"  spool_note TEXT);\n"
	"CREATE TABLE messages(process INTEGER, ts INTEGER, level TEXT, text TEXT);\n"
	"CREATE TABLE devices(\n"
	"  process INTEGER, device INTEGER, name TEXT, uuid TEXT, sm_count INTEGER,\n"
	"  max_warps_per_sm INTEGER, max_blocks_per_sm INTEGER,\n"
	"  max_threads_per_block INTEGER, max_regs_per_sm INTEGER,\n"
	"  max_regs_per_block INTEGER, max_smem_per_sm INTEGER,\n"
	"  max_smem_per_block INTEGER, threads_per_warp INTEGER, cc_major INTEGER,\n"
	"  cc_minor INTEGER, core_clock_khz INTEGER, memory_bytes INTEGER,\n"
	"  memory_bandwidth_kbps INTEGER, l2_bytes INTEGER, copy_engines INTEGER,\n"
	"  mig INTEGER, PRIMARY KEY(process, device));\n"
	"CREATE TABLE contexts(process INTEGER, context INTEGER, device INTEGER,\n"
	"  null_stream INTEGER, green INTEGER, PRIMARY KEY(process, context));\n"
	"CREATE TABLE streams(process INTEGER, context INTEGER, stream INTEGER,\n"
	"  priority INTEGER, flags INTEGER, correlation INTEGER,\n"
	"  PRIMARY KEY(process, context, stream));\n"
	"CREATE TABLE memcpys(\n"
	"  id INTEGER PRIMARY KEY, process INTEGER, device INTEGER, dst_device INTEGER,\n"
	"  context INTEGER, stream INTEGER, correlation INTEGER, copy_kind INTEGER,\n"
	"  src_kind INTEGER, dst_kind INTEGER, bytes INTEGER, start INTEGER, end INTEGER,\n"
	"  async INTEGER, channel INTEGER, channel_type INTEGER, graph INTEGER,\n"
	"  graph_node INTEGER, incomplete INTEGER);\n"
	"CREATE TABLE memsets(\n"
	"  id INTEGER PRIMARY KEY, process INTEGER, device INTEGER, context INTEGER,\n"
	"  stream INTEGER, correlation INTEGER, value INTEGER, bytes INTEGER,\n"
	"  memory_kind INTEGER, start INTEGER, end INTEGER, async INTEGER,\n"
	"  channel INTEGER, channel_type INTEGER, graph INTEGER, graph_node INTEGER,\n"
	"  incomplete INTEGER);\n"
	"CREATE TABLE syncs(\n"
	"  id INTEGER PRIMARY KEY, process INTEGER, type INTEGER, context INTEGER,\n"
	"  stream INTEGER, event INTEGER, start INTEGER, end INTEGER,\n"
	"  correlation INTEGER, return_value INTEGER, incomplete INTEGER);\n"
	"CREATE TABLE nvtx(\n"
	"  id INTEGER PRIMARY KEY, process INTEGER, thread INTEGER, domain INTEGER,\n"
	"  name INTEGER, start INTEGER, end INTEGER, end_thread INTEGER);\n"
	"CREATE TABLE overheads(process INTEGER, kind INTEGER, object_kind INTEGER,\n"
	"  object INTEGER, start INTEGER, end INTEGER, correlation INTEGER);\n"
	"CREATE TABLE dropped(process INTEGER, ts INTEGER, context INTEGER,\n"
	"  stream INTEGER, total INTEGER);\n"
	"CREATE TABLE captures(process INTEGER, ts INTEGER, active INTEGER, why TEXT);\n"
	/* Full mode: which kernel launches have an API call (recorder/launches.h). */
	"CREATE TABLE launch_settings(process INTEGER PRIMARY KEY, calls TEXT,\n"
	"  window_on_ms INTEGER, window_period_ms INTEGER, why TEXT);\n"
	/* Call stacks: where the program made its API calls (record --stacks). */
	"CREATE TABLE stack_settings(process INTEGER PRIMARY KEY, mode TEXT,\n"
	"  launch_first INTEGER, launch_every INTEGER, max_depth INTEGER, python TEXT);\n"
	"CREATE TABLE modules(process INTEGER, path TEXT, build_id TEXT, base INTEGER,\n"
	"  low INTEGER, high INTEGER, symbols TEXT);\n"
	"CREATE TABLE stacks(id INTEGER PRIMARY KEY, process INTEGER, flags INTEGER,\n"
	"  depth INTEGER);\n"
	"CREATE TABLE stack_frames(stack INTEGER, depth INTEGER, kind INTEGER,\n"
	"  function INTEGER, file INTEGER, line INTEGER, module INTEGER, address INTEGER,\n"
	"  PRIMARY KEY(stack, depth)) WITHOUT ROWID;\n"
	"CREATE TABLE api_stacks(process INTEGER, correlation INTEGER, stack INTEGER,\n"
	"  PRIMARY KEY(process, correlation)) WITHOUT ROWID;\n"
	/* Hardware samples (record --hw): how they were taken; the samples are in rows_sql. */
	"CREATE TABLE hw_devices(process INTEGER, device INTEGER, interval_ns INTEGER,\n"
	"  chip TEXT, state TEXT, note TEXT, lost_samples INTEGER NOT NULL DEFAULT 0,\n"
	"  PRIMARY KEY(process, device));\n"
	"CREATE TABLE hw_metrics(process INTEGER, device INTEGER, figure TEXT, metric TEXT);\n"
	/* SM placement: which SM ran each block of a kernel, and when (record --sm). */
	"CREATE TABLE sm_blocks(kernel INTEGER, sm INTEGER, block INTEGER, start INTEGER,\n"
	"  end INTEGER);\n"
	"CREATE TABLE sm_settings(process INTEGER, device INTEGER, blocks INTEGER,\n"
	"  kernels INTEGER, dropped INTEGER, unmatched INTEGER, own_records INTEGER,\n"
	"  offset_ns INTEGER, offset_spread_ns INTEGER, offset_mad_ns INTEGER,\n"
	"  PRIMARY KEY(process, device));\n"
	/* Host samples: what the program's threads were doing (record --host-samples); how
	 * each process sampled them, its sampled threads; the samples are in rows_sql. */
	"CREATE TABLE host_settings(process INTEGER PRIMARY KEY, start_ns INTEGER,\n"
	"  hz INTEGER, signal INTEGER, max_native INTEGER, max_python INTEGER, unwind TEXT,\n"
	"  python TEXT, note TEXT, taken INTEGER, written INTEGER, lost_ring INTEGER,\n"
	"  lost_pending INTEGER, lost_threads INTEGER, no_stack INTEGER, stale INTEGER,\n"
	"  overruns INTEGER, python_cut INTEGER, codes_busy INTEGER, native_cut INTEGER,\n"
	"  page_checks INTEGER, handler_ns INTEGER, threads INTEGER, timer_errors INTEGER,\n"
	"  handler_p50_ns INTEGER, handler_p90_ns INTEGER, faulted INTEGER);\n"
	"CREATE TABLE host_threads(process INTEGER, thread INTEGER, number INTEGER,\n"
	"  pthread INTEGER, name TEXT, flags INTEGER, start_ns INTEGER, wall_ns INTEGER,\n"
	"  end_ns INTEGER, PRIMARY KEY(process, number));\n"
	/* Enumerations: the trace explains its own codes to anyone with the sqlite3 shell. */
	"CREATE TABLE enum_copy_kind(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_copy_kind VALUES(0,'unknown'),(1,'HtoD'),(2,'DtoH'),(3,'HtoA'),\n"
	"  (4,'AtoH'),(5,'AtoA'),(6,'AtoD'),(7,'DtoA'),(8,'DtoD'),(9,'HtoH'),(10,'PtoP');\n"
	"CREATE TABLE enum_memory_kind(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_memory_kind VALUES(0,'unknown'),(1,'pageable'),(2,'pinned'),\n"
	"  (3,'device'),(4,'array'),(5,'managed'),(6,'device_static'),(7,'managed_static');\n"
	"CREATE TABLE enum_sync_type(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_sync_type VALUES(0,'unknown'),(1,'event_synchronize'),\n"
	"  (2,'stream_wait_event'),(3,'stream_synchronize'),(4,'context_synchronize');\n"
	"CREATE TABLE enum_channel_type(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_channel_type VALUES(0,'invalid'),(1,'compute'),(2,'async_memcpy'),\n"
	"  (3,'decompress');\n"
	"CREATE TABLE enum_launch_type(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_launch_type VALUES(0,'regular'),(1,'cooperative_single_device'),\n"
	"  (2,'cooperative_multi_device'),(3,'cbl_commandlist');\n"
	"CREATE TABLE enum_api_domain(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_api_domain VALUES(1,'runtime'),(2,'driver');\n"
	"CREATE TABLE enum_frame_kind(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_frame_kind VALUES(0,'native'),(1,'python'),(2,'operator'),\n"
	"  (3,'annotation');\n"
	"CREATE TABLE enum_stack_flags(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_stack_flags VALUES(1,'partial'),(2,'truncated'),(4,'no_python');\n"
	"CREATE TABLE enum_stream_flags(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_stream_flags VALUES(0,'unknown'),(1,'default'),(2,'non_blocking'),\n"
	"  (3,'null');\n"
	"CREATE TABLE enum_host_state(code INTEGER PRIMARY KEY, name TEXT);\n"
	KG_HOST_STATES(HOST_STATE_ROW_)
	"CREATE TABLE enum_host_flags(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_host_flags VALUES(1,'python'),(2,'holds_gil'),(4,'cpu_time'),\n"
	"  (8,'native_cut'),(16,'python_cut');\n"
	"CREATE TABLE enum_host_thread_flags(code INTEGER PRIMARY KEY, name TEXT);\n"
	"INSERT INTO enum_host_thread_flags VALUES(1,'python'),(2,'cuda');\n"
	/* Views with names and phases spelled out, for people at the sqlite3 prompt. */
	"CREATE VIEW copies AS SELECT m.id, m.process, m.device, m.stream, c.name AS kind,\n"
	"  s.name AS src, d.name AS dst, m.bytes, m.start, m.end, m.end - m.start AS duration_ns,\n"
	"  m.async FROM memcpys m LEFT JOIN enum_copy_kind c ON c.code = m.copy_kind\n"
	"  LEFT JOIN enum_memory_kind s ON s.code = m.src_kind\n"
	"  LEFT JOIN enum_memory_kind d ON d.code = m.dst_kind;\n";

/* Created after the bulk insert: building an index once is far cheaper than keeping it
 * up to date row by row. */
const char kg_index_sql[] =
	"CREATE INDEX memcpys_by_time ON memcpys(process, device, stream, start);\n"
	"CREATE INDEX sm_blocks_by_kernel ON sm_blocks(kernel);\n";

/* The packed tables' rows (trace/packed.h: kernels, api_calls, hw_samples, host_samples), with their
 * indexes and the views that read them, in schema %1$s ("main.", "temp."...): kgantt keeps
 * these rows only as blocks in the traces it writes, and makes them SQL tables where they
 * are needed (the importer's scratch rows, a reader's temp tables, an export). Columns as
 * in docs/trace-format.md. IF NOT EXISTS: readers make the rows of one table, then another. */
static const char rows_sql[] =
	/* columns as trace/columns.h declares them */
	"CREATE TABLE IF NOT EXISTS %1$skernels(id INTEGER PRIMARY KEY"
	KG_KERNEL_COLUMNS(KG_SQL_COLUMN_) ");\n"
	"CREATE TABLE IF NOT EXISTS %1$sapi_calls(id INTEGER PRIMARY KEY"
	KG_API_COLUMNS(KG_SQL_COLUMN_) ");\n"
	"CREATE TABLE IF NOT EXISTS %1$shost_samples(id INTEGER PRIMARY KEY"
	KG_HOST_SAMPLE_COLUMNS(KG_SQL_COLUMN_) ");\n"
	/* Hardware samples: the GPU's own counters over time (record --hw); one REAL column
	 * per figure of util/hw_figures.h, NULL where the GPU did not count it. */
	"CREATE TABLE IF NOT EXISTS %1$shw_samples(process INTEGER, device INTEGER,\n"
	"  start INTEGER, end INTEGER" KG_HW_SQL_COLUMNS ");\n"
	/* Views with names and phases spelled out, for people at the sqlite3 prompt. */
	"CREATE VIEW IF NOT EXISTS %1$skernel_phases AS SELECT k.id, k.process, k.device,\n"
	"  k.stream, COALESCE(d.text, n.text) AS name, a.start AS api_start, k.queued,\n"
	"  k.submitted, k.start, k.end, k.queued - a.start AS launch_latency_ns,\n"
	"  k.start - k.queued AS queue_wait_ns, k.end - k.start AS duration_ns,\n"
	"  k.grid_x*k.grid_y*k.grid_z AS blocks, k.block_x*k.block_y*k.block_z AS threads,\n"
	"  k.registers_per_thread, k.static_smem + k.dynamic_smem AS smem, k.graph\n"
	"  FROM kernels k LEFT JOIN strings n ON n.id = k.name\n"
	"  LEFT JOIN strings d ON d.id = k.demangled\n"
	"  LEFT JOIN api_calls a ON a.process = k.process AND a.correlation = k.correlation;\n"
	"CREATE VIEW IF NOT EXISTS %1$sapi AS SELECT a.id, a.process, a.thread,\n"
	"  e.name AS domain, s.text AS name, a.start, a.end, a.end - a.start AS duration_ns,\n"
	"  a.correlation, a.return_value FROM api_calls a LEFT JOIN strings s ON s.id = a.name\n"
	"  LEFT JOIN enum_api_domain e ON e.code = a.domain;\n"
	"CREATE VIEW IF NOT EXISTS %1$scall_stacks AS SELECT a.id AS api_id, a.process,\n"
	"  n.text AS api, a.start, f.depth, k.name AS kind, fn.text AS function,\n"
	"  fl.text AS file, f.line, md.text AS module FROM api_calls a\n"
	"  JOIN api_stacks x ON x.process = a.process AND x.correlation = a.correlation\n"
	"  JOIN stack_frames f ON f.stack = x.stack\n"
	"  LEFT JOIN strings n ON n.id = a.name LEFT JOIN enum_frame_kind k ON k.code = f.kind\n"
	"  LEFT JOIN strings fn ON fn.id = f.function LEFT JOIN strings fl ON fl.id = f.file\n"
	"  LEFT JOIN strings md ON md.id = f.module;\n";

/* No kernels(process, device, stream, start): no view, reader or documented query looks
 * kernels up by stream and time (kgantt reads them in id order), and keeping it took a
 * third of an export's SQLite time (its streams interleave: no appends). */
static const char rows_index_sql[] =
	"CREATE INDEX IF NOT EXISTS %1$skernels_by_correlation\n"
	"  ON kernels(process, correlation);\n"
	"CREATE INDEX IF NOT EXISTS %1$sapi_by_correlation ON api_calls(process, correlation);\n"
	"CREATE INDEX IF NOT EXISTS %1$sapi_by_thread ON api_calls(process, thread, start);\n"
	"CREATE INDEX IF NOT EXISTS %1$shost_samples_by_thread\n"
	"  ON host_samples(process, thread, ts);\n";

const char *const kg_rows_views[] = {"kernel_phases", "api", "call_stacks", NULL};

/* One of the texts above for schema, run. */
static int exec_in(sqlite3 *db, const char *format, const char *schema)
{
	char prefix[64], sql[sizeof(rows_sql) + 1024];
	if (snprintf(prefix, sizeof(prefix), "%s.", schema) >= (int)sizeof(prefix))
		return SQLITE_MISUSE;
	snprintf(sql, sizeof(sql), format, prefix);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int trace_create_rows(sqlite3 *db, const char *schema)
{
	return exec_in(db, rows_sql, schema);
}

int trace_index_rows(sqlite3 *db, const char *schema)
{
	return exec_in(db, rows_index_sql, schema);
}

int trace_put_meta(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES(?, ?)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int trace_write_meta(sqlite3 *db, const char *clock, const char *source, const char *command)
{
	char version[16], min_reader[16], when[64];
	time_t now = time(NULL);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(version, sizeof(version), "%d", KG_TRACE_VERSION);
	snprintf(min_reader, sizeof(min_reader), "%d", KG_TRACE_MIN_READER);
	const char *rows[][2] = {
		{"format", KG_TRACE_FORMAT}, {"version", version}, {"min_reader_version", min_reader},
		{"clock", clock}, {"time_unit", "ns"}, {"source", source},
		{"created_by", "kgantt " KGANTT_VERSION}, {"created_at", when}, {"command", command},
	};
	int rc = SQLITE_OK;
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i][1])
			rc = trace_put_meta(db, rows[i][0], rows[i][1]);
	return rc;
}
