/* Format detection and dispatch to the readers. The format is decided by the content:
 * SQLite files by their tables, JSON (plain or gzip) by its first bytes, each of them
 * compressed or not (trace/uncompress.h). */
#include "model/load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/format.h"
#include "util/timemath.h"
#include "trace/store.h"
#include "trace/uncompress.h"

/* Each format's key (the model's source, the JSON's "source"), its name for people, what
 * recorded it beside CUPTI (whose own work on the program's threads the report names),
 * and how a trace of it gets host samples. */
static const struct {
	const char *key, *name, *recorder, *host_samples;
} formats[] = {
	[KG_FORMAT_UNKNOWN] = {"", "unknown", "the profiler", "kgantt record --host-samples"},
	[KG_FORMAT_KGANTT] = {"kgantt", "kgantt trace", "the kgantt recorder",
			      "kgantt record --host-samples"},
	[KG_FORMAT_KINETO] = {"kineto", "PyTorch profiler (Kineto) JSON", "PyTorch's profiler",
			      "kgantt record --host-samples"},
	[KG_FORMAT_NSYS] = {"nsys", "Nsight Systems SQLite export", "Nsight Systems",
			    "nsys profile --sample=process-tree, with CUDA tracing"},
};

const char *format_name(enum kg_format f)
{
	return formats[f <= KG_FORMAT_NSYS ? f : KG_FORMAT_UNKNOWN].name;
}

/* The format of a source key; KG_FORMAT_UNKNOWN for another. */
static enum kg_format format_of_source(const char *source)
{
	for (size_t f = 1; f < sizeof(formats) / sizeof(formats[0]); f++)
		if (!strcmp(source, formats[f].key))
			return (enum kg_format)f;
	return KG_FORMAT_UNKNOWN;
}

const char *source_name(const char *source)
{
	enum kg_format f = format_of_source(source);
	return f != KG_FORMAT_UNKNOWN ? formats[f].name : source;
}

const char *source_recorder(const char *source)
{
	return formats[format_of_source(source)].recorder;
}

const char *source_host_samples(const char *source)
{
	return formats[format_of_source(source)].host_samples;
}

/* An SQLite file is opened once, by the store, which tells what it is and checks a kgantt
 * trace; the trace is handed on open to its reader (*store, when given). */
static enum kg_format detect_sqlite(const char *path, struct kg_store **store, char *err,
				    size_t errlen)
{
	struct kg_store *s;
	int kind = store_open_sqlite(path, &s, err, errlen);
	if (kind < 0)
		return KG_FORMAT_UNKNOWN;
	if (kind == KG_STORE_NSYS)
		return KG_FORMAT_NSYS;
	if (store)
		*store = s;
	else
		store_close(s);
	return KG_FORMAT_KGANTT;
}

/* First non-blank byte of a (possibly gzip-compressed) file. */
static int first_json_byte(const char *path)
{
	int fd = uncompress_open(path);
	gzFile gz = fd < 0 ? NULL : gzdopen(fd, "rb"); /* reads plain files too */
	if (!gz) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int c;
	do
		c = gzgetc(gz);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xEF || c == 0xBB ||
	       c == 0xBF); /* and a UTF-8 byte-order mark */
	gzclose(gz);
	return c;
}

static enum kg_format detect(const char *path, struct kg_store **store, char *err, size_t errlen)
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
	if (uncompress_input(path, err, errlen) < 0)
		return KG_FORMAT_UNKNOWN;
	int fd = uncompress_open(path);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return KG_FORMAT_UNKNOWN;
	}
	unsigned char head[16] = {0};
	ssize_t n = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (n <= 0) {
		snprintf(err, errlen, "'%s' is empty", path);
		return KG_FORMAT_UNKNOWN;
	}
	if (n == 16 && memcmp(head, "SQLite format 3", 16) == 0)
		return detect_sqlite(path, store, err, errlen);
	int c = first_json_byte(path);
	if (c == '{' || c == '[')
		return KG_FORMAT_KINETO;
	snprintf(err, errlen,
		 "'%s' is not a trace kgantt can read: expected a kgantt trace or an Nsight Systems "
		 "export (SQLite), or a PyTorch profiler JSON trace; plain or compressed (xz, "
		 "zstd, gzip)",
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

enum kg_format detect_format(const char *path, char *err, size_t errlen)
{
	return detect(path, NULL, err, errlen);
}

int model_load(const char *path, struct kg_model *m, const struct kg_load_opts *opts,
	       char *err, size_t errlen)
{
	struct kg_store *store = NULL;
	enum kg_format f = detect(path, &store, err, errlen);
	model_init(m, formats[f].key, path);
	int rc;
	switch (f) {
	case KG_FORMAT_KGANTT: rc = read_kgt_store(m, store, opts, err, errlen); break;
	case KG_FORMAT_KINETO: rc = read_kineto(m, path, opts, err, errlen); break;
	case KG_FORMAT_NSYS: rc = read_nsys(m, path, opts, err, errlen); break;
	default: rc = -EINVAL; break;
	}
	store_close(store);
	uint64_t packed, plain;
	m->compression = uncompress_kind(path, &packed, &plain);
	if (!rc && opts && opts->keep_untrue_times)
		m->times_checked = 1;
	if (!rc && model_finish(m) < 0) {
		snprintf(err, errlen, "out of memory loading '%s'", path);
		rc = -ENOMEM;
	}
	if (!rc && !(opts && (opts->keep_untrue_times || opts->any_span)) && m->begin != KG_NO_TIME &&
	    m->end != KG_NO_TIME && kg_time_diff(m->end, m->begin) > KG_LONGEST_NS) {
		/* what is left after the untrue records went is still not one recording: which
		 * end is true cannot be told, and every figure would be false */
		char span[32];
		fmt_duration(kg_time_diff(m->end, m->begin), span);
		snprintf(err, errlen,
			 "'%s': its records span %s, longer than any recording: their times are not "
			 "on one clock",
			 path, span);
		rc = -ERANGE;
	}
	if (!rc && m->gpu_untraced)
		note_gpu_untraced(m);
	if (rc)
		model_free(m);
	return rc;
}
