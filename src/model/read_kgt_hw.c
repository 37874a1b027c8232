/* The hardware samples of a kgantt trace (tables hw_devices, hw_metrics, hw_samples:
 * `record --hw`) → model hw_devices and hw_samples. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/kgt_reader.h"

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

static int on_device(struct kgt_reader *r, const struct kg_store_rows *st, uint32_t device)
{
	struct kg_hw_device *d = hw_device_of(r->m, device);
	if (!d)
		return kgt_oom(r);
	d->interval_ns = store_int(st, 2);
	d->chip = kgt_text(r, st, 3);
	d->state = kgt_text(r, st, 4);
	d->note = kgt_text(r, st, 5);
	d->lost = (uint64_t)store_int(st, 6);
	return 0;
}

static int on_metric(struct kgt_reader *r, const struct kg_store_rows *st, uint32_t device)
{
	int f = figure_of(store_text(st, 2));
	struct kg_hw_device *d = f < 0 ? NULL : hw_device_of(r->m, device);
	if (f >= 0 && !d)
		return kgt_oom(r);
	if (d)
		d->metric[f] = kgt_text(r, st, 3);
	return 0;
}

static int on_sample(struct kgt_reader *r, const struct kg_store_rows *st, uint32_t device)
{
	int64_t start = store_int(st, 2), end = store_int(st, 3);
	/* a damaged row (end before start, never the recorder's) is left out by model_finish
	 * with the other records whose times cannot be true, and said */
	struct kg_hw_sample *x = model_add_hw_sample(r->m);
	if (!x)
		return kgt_oom(r);
	x->start = start;
	x->end = end;
	x->device = device;
	for (int f = 0; f < KG_HW_N; f++)
		if (!store_null(st, 4 + f)) {
			double v = store_real(st, 4 + f);
			x->v[f] = isfinite(v) && fabs(v) < 1e30 ? (float)v : NAN;
		}
	return 0;
}

int kgt_read_hw(struct kgt_reader *r)
{
	if (!store_has_table(r->s, "hw_devices"))
		return 0;
	int rc = kgt_each_device_row(r, KG_READ_HW_DEVICES, &r->skipped, on_device);
	if (!rc)
		rc = kgt_each_device_row(r, KG_READ_HW_METRICS, &r->skipped, on_metric);
	if (!rc)
		rc = kgt_each_device_row(r, KG_READ_HW_SAMPLES, &r->skipped, on_sample);
	return rc;
}
