/* Format detection and dispatch to the readers. The format is decided by the content:
 * SQLite files by their tables, JSON (plain or gzip) by its first bytes. */
#include "model/load.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "trace/trace_db.h"
#include "text/format.h"

const char *format_name(enum kg_format f)
{
	switch (f) {
	case KG_FORMAT_KGANTT: return "kgantt trace";
	case KG_FORMAT_KINETO: return "PyTorch profiler (Kineto) JSON";
	case KG_FORMAT_NSYS: return "Nsight Systems SQLite export";
	default: return "unknown";
	}
}

/* What the tables say the file is; a schema that cannot be read is damage, said as
 * trace_db_open says it, not "neither format". */
static enum kg_format format_by_tables(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	/* a compacted trace (format 5) keeps its kernels as blocks in 'packed' */
	int meta = trace_db_has_table(db, "meta"), kernels = trace_db_has_table(db, "kernels");
	int packed = trace_db_has_table(db, "packed");
	if (meta < 0 || kernels < 0 || packed < 0) {
		snprintf(err, errlen, "'%s' is damaged: %s", path, sqlite3_errmsg(db));
		return KG_FORMAT_UNKNOWN;
	}
	if (meta && (kernels || packed))
		return KG_FORMAT_KGANTT;
	if (trace_db_has_table(db, "StringIds") > 0 ||
	    trace_db_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL") > 0 ||
	    trace_db_has_table(db, "TARGET_INFO_GPU") > 0)
		return KG_FORMAT_NSYS;
	snprintf(err, errlen,
		 "'%s' is an SQLite database but neither a kgantt trace (tables 'meta' and "
		 "'kernels' or 'packed') nor an Nsight Systems export (tables 'StringIds', "
		 "'CUPTI_ACTIVITY_KIND_KERNEL')",
		 path);
	return KG_FORMAT_UNKNOWN;
}

static enum kg_format detect_sqlite(const char *path, char *err, size_t errlen)
{
	/* a copy cut short: found from the header alone, in the words of `kgantt info` */
	if (trace_db_check_truncation(path, err, errlen) < 0)
		return KG_FORMAT_UNKNOWN;
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path, db ? sqlite3_errmsg(db) : "?");
		sqlite3_close(db);
		return KG_FORMAT_UNKNOWN;
	}
	enum kg_format f = format_by_tables(db, path, err, errlen);
	sqlite3_close(db);
	return f;
}

/* First non-blank byte of a (possibly gzip-compressed) file. */
static int first_json_byte(const char *path)
{
	gzFile gz = gzopen(path, "rb"); /* reads plain files too */
	if (!gz)
		return -1;
	int c;
	do
		c = gzgetc(gz);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xEF || c == 0xBB ||
	       c == 0xBF); /* and a UTF-8 byte-order mark */
	gzclose(gz);
	return c;
}

enum kg_format detect_format(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	if (stat(path, &sb) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return KG_FORMAT_UNKNOWN;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is a directory, expected a trace file", path);
		return KG_FORMAT_UNKNOWN;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return KG_FORMAT_UNKNOWN;
	}
	unsigned char head[16] = {0};
	size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n == 0) {
		snprintf(err, errlen, "'%s' is empty", path);
		return KG_FORMAT_UNKNOWN;
	}
	if (n == 16 && memcmp(head, "SQLite format 3", 16) == 0)
		return detect_sqlite(path, err, errlen);
	int c = first_json_byte(path);
	if (c == '{' || c == '[')
		return KG_FORMAT_KINETO;
	snprintf(err, errlen,
		 "'%s' is not a trace kgantt can read: expected a kgantt trace or an Nsight Systems "
		 "export (SQLite), or a PyTorch profiler JSON trace (plain or gzip)",
		 path);
	return KG_FORMAT_UNKNOWN;
}

/* API calls that put work on the GPU, and no GPU operation: the trace was made without
 * its GPU side (a profiler run without CUDA activity, a CUPTI range-profiler trace, an
 * Nsight report without CUDA trace), not by a program that left the GPU idle. */
static void note_gpu_untraced(struct kg_model *m)
{
	char n[32];
	model_note(m, "GPU activity was not traced: %s API call%s launch%s kernels, copies or "
		   "memsets, but the trace holds no kernel, copy or memset",
		   fmt_count(m->gpu_work_calls, n), m->gpu_work_calls == 1 ? "" : "s",
		   m->gpu_work_calls == 1 ? "es" : "");
}

int model_load(const char *path, struct kg_model *m, const struct kg_load_opts *opts,
	       char *err, size_t errlen)
{
	enum kg_format f = detect_format(path, err, errlen);
	static const char *const sources[] = {"", "kgantt", "kineto", "nsys"};
	model_init(m, sources[f], path);
	int rc;
	switch (f) {
	case KG_FORMAT_KGANTT: rc = read_kgt(m, path, opts, err, errlen); break;
	case KG_FORMAT_KINETO: rc = read_kineto(m, path, opts, err, errlen); break;
	case KG_FORMAT_NSYS: rc = read_nsys(m, path, opts, err, errlen); break;
	default: rc = -EINVAL; break;
	}
	if (!rc && opts && opts->keep_untrue_times)
		m->times_checked = 1;
	if (!rc && model_finish(m) < 0) {
		snprintf(err, errlen, "out of memory loading '%s'", path);
		rc = -ENOMEM;
	}
	if (!rc && m->gpu_untraced)
		note_gpu_untraced(m);
	if (rc)
		model_free(m);
	return rc;
}
