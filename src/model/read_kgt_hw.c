/* The hardware samples of a kgantt trace (tables hw_devices, hw_metrics, hw_samples:
 * `record --hw`) → model hw_devices and hw_samples. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/kgt_reader.h"
#include "trace/trace_db.h"

static uint32_t text_of(struct kgt_reader *r, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? model_string(r->m, (const char *)t) : 0;
}

static struct kg_hw_device *hw_device_of(struct kg_model *m, uint32_t device)
{
	for (uint32_t i = 0; i < m->n_hw_devices; i++)
		if (m->hw_devices[i].device == device)
			return &m->hw_devices[i];
	struct kg_hw_device *d = model_add_hw_device(m);
	if (d)
		d->device = device;
	return d;
}

static int figure_of(const char *column)
{
	for (int f = 0; column && f < KG_HW_N; f++)
		if (strcmp(kg_hw_figure_info[f].column, column) == 0)
			return f;
	return -1;
}

static int on_device(struct kgt_reader *r, sqlite3_stmt *st, uint32_t device)
{
	struct kg_hw_device *d = hw_device_of(r->m, device);
	if (!d)
		return kgt_oom(r);
	d->interval_ns = sqlite3_column_int64(st, 2);
	d->chip = text_of(r, st, 3);
	d->state = text_of(r, st, 4);
	d->note = text_of(r, st, 5);
	d->lost = (uint64_t)sqlite3_column_int64(st, 6);
	return 0;
}

static int on_metric(struct kgt_reader *r, sqlite3_stmt *st, uint32_t device)
{
	int f = figure_of((const char *)sqlite3_column_text(st, 2));
	struct kg_hw_device *d = f < 0 ? NULL : hw_device_of(r->m, device);
	if (f >= 0 && !d)
		return kgt_oom(r);
	if (d)
		d->metric[f] = text_of(r, st, 3);
	return 0;
}

static int on_sample(struct kgt_reader *r, sqlite3_stmt *st, uint32_t device)
{
	int64_t start = sqlite3_column_int64(st, 2), end = sqlite3_column_int64(st, 3);
	if (end < start)
		return 0; /* the recorder never writes these: a damaged row */
	struct kg_hw_sample *x = model_add_hw_sample(r->m);
	if (!x)
		return kgt_oom(r);
	x->start = start;
	x->end = end;
	x->device = device;
	for (int f = 0; f < KG_HW_N; f++)
		if (sqlite3_column_type(st, 4 + f) != SQLITE_NULL) {
			double v = sqlite3_column_double(st, 4 + f);
			x->v[f] = isfinite(v) && fabs(v) < 1e30 ? (float)v : NAN;
		}
	return 0;
}

/* The samples' SELECT, into buf: the reader runs on several threads at once (a job's
 * traces), so no static buffer. */
static const char *sample_select(char *buf, size_t len)
{
	int n = snprintf(buf, len, "SELECT process, device, start, end");
#define KG_HW_SELECT_(id, column, unit, label) \
	n += snprintf(buf + n, len - (size_t)n, ", " #column);
	KG_HW_FIGURES(KG_HW_SELECT_)
#undef KG_HW_SELECT_
	snprintf(buf + n, len - (size_t)n, " FROM hw_samples ORDER BY process, device, start");
	return buf;
}

/* A compacted trace (format 5) keeps the samples as blocks: made a temp table first
 * (trace/packed.h). */
static int sample_rows(struct kgt_reader *r)
{
	char why[256];
	int rc = packed_expand(r->db, "main", "temp", "hw_samples", why, sizeof(why));
	if (rc)
		snprintf(r->err, r->errlen, "cannot read '%s': %s", r->path, why);
	return rc;
}

int kgt_read_hw(struct kgt_reader *r)
{
	if (!trace_db_has_table(r->db, "hw_devices"))
		return 0;
	int rc = kgt_each_device_row(r, "SELECT process, device, interval_ns, chip, state, note, "
					 "lost_samples FROM hw_devices", "hw_devices", &r->skipped,
					 on_device);
	if (!rc)
		rc = kgt_each_device_row(r, "SELECT process, device, figure, metric FROM hw_metrics",
					 "hw_metrics", &r->skipped, on_metric);
	if (!rc)
		rc = sample_rows(r);
	char sql[1024];
	if (!rc)
		rc = kgt_each_device_row(r, sample_select(sql, sizeof(sql)), "hw_samples",
					 &r->skipped, on_sample);
	return rc;
}
