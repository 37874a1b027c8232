#include "trace/hw_import.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hw_figures.h"

enum { HW_ST_DEVICE, HW_ST_METRIC, HW_ST_SAMPLE, HW_ST_LOST, HW_ST_COUNT };

static const char *const hw_sql[HW_ST_COUNT] = {
	[HW_ST_DEVICE] = "INSERT INTO hw_devices(process, device, interval_ns, chip, state, note) "
			 "VALUES(?1,?2,?3,?4,?5,?6) ON CONFLICT(process, device) DO UPDATE SET "
			 "state = excluded.state, note = COALESCE(excluded.note, note), "
			 "chip = COALESCE(chip, excluded.chip)",
	[HW_ST_METRIC] = "INSERT INTO hw_metrics VALUES(?,?,?,?)",
	/* the figure columns come from util/hw_figures.h: (process, device, start, end, ...) */
	[HW_ST_SAMPLE] = NULL,
	[HW_ST_LOST] = "UPDATE hw_devices SET lost_samples = lost_samples + ?3 "
		       "WHERE process = ?1 AND device = ?2",
};

struct kg_hw_import {
	struct kg_import *im;
	sqlite3_stmt *st[HW_ST_COUNT];
};

static int sql_error(struct kg_hw_import *h, const char *what)
{
	snprintf(h->im->err, sizeof(h->im->err), "%s: writing %s: %s", h->im->path, what,
		 sqlite3_errmsg(h->im->db));
	return -EIO;
}

/* Into the caller's buffer: no static state in code that may run on several threads. */
static const char *sample_insert_sql(char *sql, size_t len)
{
	int n = snprintf(sql, len, "INSERT INTO hw_samples VALUES(?,?,?,?");
	for (int f = 0; f < KG_HW_N; f++)
		n += snprintf(sql + n, len - (size_t)n, ",?");
	snprintf(sql + n, len - (size_t)n, ")");
	return sql;
}

struct kg_hw_import *hw_import_new(struct kg_import *im)
{
	struct kg_hw_import *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->im = im;
	char insert[1024];
	for (int i = 0; i < HW_ST_COUNT; i++) {
		const char *sql = i == HW_ST_SAMPLE ? sample_insert_sql(insert, sizeof(insert))
						    : hw_sql[i];
		if (sqlite3_prepare_v2(im->db, sql, -1, &h->st[i], NULL) != SQLITE_OK) {
			sql_error(h, "hardware-sample statements");
			hw_import_free(h);
			return NULL;
		}
	}
	return h;
}

void hw_import_free(struct kg_hw_import *h)
{
	if (!h)
		return;
	for (int i = 0; i < HW_ST_COUNT; i++)
		sqlite3_finalize(h->st[i]);
	free(h);
}

static int run(struct kg_hw_import *h, int which, const char *what)
{
	sqlite3_stmt *st = h->st[which];
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_error(h, what);
}

static const char *state_name(int32_t state)
{
	return state == 0 ? "sampled" : state == 1 ? "refused" : "stopped";
}

int hw_import_device(struct kg_hw_import *h, int64_t process, const struct kg_raw_hw_device *x,
		     const char *metric, const char *note)
{
	if (x->figure == UINT32_MAX) {
		sqlite3_stmt *st = h->st[HW_ST_DEVICE];
		sqlite3_bind_int64(st, 1, process);
		sqlite3_bind_int64(st, 2, x->device);
		sqlite3_bind_int64(st, 3, (int64_t)(x->interval_ns > INT64_MAX ? INT64_MAX
										  : x->interval_ns));
		if (metric) /* the state record names the chip where the metric would be */
			sqlite3_bind_text(st, 4, metric, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, state_name(x->state), -1, SQLITE_STATIC);
		if (note)
			sqlite3_bind_text(st, 6, note, -1, SQLITE_TRANSIENT);
		return run(h, HW_ST_DEVICE, "hw_devices");
	}
	if (x->figure >= KG_HW_N)
		return 0; /* a newer recorder's figure: not a column of this trace */
	sqlite3_stmt *st = h->st[HW_ST_METRIC];
	sqlite3_bind_int64(st, 1, process);
	sqlite3_bind_int64(st, 2, x->device);
	sqlite3_bind_text(st, 3, kg_hw_figure_info[x->figure].column, -1, SQLITE_STATIC);
	if (metric)
		sqlite3_bind_text(st, 4, metric, -1, SQLITE_TRANSIENT);
	return run(h, HW_ST_METRIC, "hw_metrics");
}

int hw_import_samples(struct kg_hw_import *h, int64_t process, const struct kg_raw_hw_samples *x,
		      size_t size, char *why, size_t why_size)
{
	if (x->n_figures == 0 || x->n_figures > 4096) {
		snprintf(why, why_size, "hardware samples with %u figures each", x->n_figures);
		return -EINVAL;
	}
	size_t per = kg_raw_hw_sample_bytes(x->n_figures);
	if ((size - sizeof(*x)) / per < x->count) {
		snprintf(why, why_size, "%u hardware samples of %zu bytes do not fit a %zu-byte record",
			 x->count, per, size);
		return -EINVAL;
	}
	uint32_t n_fig = x->n_figures < KG_HW_N ? x->n_figures : KG_HW_N;
	const uint8_t *p = (const uint8_t *)(x + 1);
	sqlite3_stmt *st = h->st[HW_ST_SAMPLE];
	for (uint32_t i = 0; i < x->count; i++, p += per) {
		int64_t start, end;
		memcpy(&start, p, 8);
		memcpy(&end, p + 8, 8);
		if (end < start) {
			snprintf(why, why_size, "hardware sample %u ends before it starts", i);
			return -EINVAL;
		}
		sqlite3_bind_int64(st, 1, process);
		sqlite3_bind_int64(st, 2, x->device);
		sqlite3_bind_int64(st, 3, start);
		sqlite3_bind_int64(st, 4, end);
		for (uint32_t f = 0; f < n_fig; f++) {
			float v;
			memcpy(&v, p + 16 + 4 * (size_t)f, 4);
			if (isfinite(v))
				sqlite3_bind_double(st, 5 + (int)f, v);
		}
		int rc = run(h, HW_ST_SAMPLE, "hw_samples");
		if (rc)
			return rc;
	}
	if (!x->lost)
		return 0;
	sqlite3_stmt *lost = h->st[HW_ST_LOST];
	sqlite3_bind_int64(lost, 1, process);
	sqlite3_bind_int64(lost, 2, x->device);
	sqlite3_bind_int64(lost, 3, x->lost);
	return run(h, HW_ST_LOST, "hw_devices");
}
