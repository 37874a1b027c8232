/* SM placement from the spool to the trace (sm_import.h). */
#include "trace/sm_import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/idmap.h"

struct block {
	uint64_t grid, start, end;
	uint32_t sm, block;
	uint32_t context, device;
};

/* One device's blocks and what was learned of them. */
struct device_sm {
	uint32_t device;
	uint64_t blocks, kernels, dropped, unmatched;
	int64_t *offsets;       /* per matched kernel: CUPTI start - first block's start */
	uint32_t n_offsets, cap_offsets;
	int64_t offset, spread, mad;
	int aligned;
};

struct kernel {
	int64_t id;
	int64_t start;          /* trace clock, 0 unknown */
	uint64_t grid;
	uint32_t context;
	uint64_t first_block;   /* earliest block start, %globaltimer; UINT64_MAX none */
	uint32_t device;        /* its blocks' device */
};

struct kg_sm_import {
	struct block *blocks;
	uint32_t n_blocks, cap_blocks;
	struct device_sm *devices;
	uint32_t n_devices, cap_devices;
	struct kg_idmap own_api;    /* (correlation, cbid) of the recorder's own driver calls */
	struct kg_idmap own_copy;   /* correlation ids whose copies are the recorder's */
	uint64_t own_left_out;      /* records left out for them */
	uint64_t last_read;         /* CLOCK_MONOTONIC_RAW of the last read */
	struct kernel *kernels;
	uint32_t n_kernels, cap_kernels;
	struct kg_idmap by_grid;    /* (context, grid id) → kernels index */
};

struct kg_sm_import *sm_import_new(void)
{
	return calloc(1, sizeof(struct kg_sm_import));
}

void sm_import_free(struct kg_sm_import *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n_devices; i++)
		free(s->devices[i].offsets);
	free(s->devices);
	free(s->blocks);
	free(s->kernels);
	idmap_free(&s->own_api);
	idmap_free(&s->own_copy);
	idmap_free(&s->by_grid);
	free(s);
}

static struct device_sm *device_of(struct kg_sm_import *s, uint32_t device)
{
	for (uint32_t i = 0; i < s->n_devices; i++)
		if (s->devices[i].device == device)
			return &s->devices[i];
	if (array_room((void **)&s->devices, &s->cap_devices, s->n_devices, sizeof(*s->devices),
		       4) < 0)
		return NULL;
	struct device_sm *d = &s->devices[s->n_devices++];
	memset(d, 0, sizeof(*d));
	d->device = device;
	return d;
}

/* ------------------------------------------------------------------ the records */

int sm_import_blocks(struct kg_sm_import *s, const struct kg_raw_sm_blocks *r, size_t size,
		     char *why, size_t whylen)
{
	if (r->record_size != sizeof(struct kg_raw_sm_block)) {
		snprintf(why, whylen, "SM block record of %u-byte blocks (this kgantt reads %zu-byte "
			 "ones)", r->record_size, sizeof(struct kg_raw_sm_block));
		return -EINVAL;
	}
	size_t room = (size - sizeof(*r)) / sizeof(struct kg_raw_sm_block);
	if (r->count > room) {
		snprintf(why, whylen, "SM block record says %u blocks, its %zu bytes hold %zu",
			 r->count, size, room);
		return -EINVAL;
	}
	struct device_sm *d = device_of(s, r->device_id);
	if (!d)
		return -ENOMEM;
	d->dropped += r->dropped;
	if (r->ts > s->last_read)
		s->last_read = r->ts;
	const struct kg_raw_sm_block *b = (const void *)(r + 1);
	for (uint32_t i = 0; i < r->count; i++) {
		if (array_room((void **)&s->blocks, &s->cap_blocks, s->n_blocks, sizeof(*s->blocks),
			       1024) < 0)
			return -ENOMEM;
		s->blocks[s->n_blocks++] = (struct block){b[i].grid, b[i].start, b[i].end, b[i].sm,
							  b[i].block, r->context_id, r->device_id};
	}
	return 0;
}

static uint64_t own_key(uint32_t correlation, uint32_t cbid)
{
	return (uint64_t)correlation << 32 | cbid;
}

int sm_import_own(struct kg_sm_import *s, const struct kg_raw_sm_own *r)
{
	if (r->cbid >= 0x10000) /* no CUPTI callback id: a damaged record, nothing to leave out */
		return 0;
	uint32_t *slot = idmap_slot(&s->own_api, own_key(r->correlation_id, r->cbid));
	if (!slot)
		return -ENOMEM;
	*slot = r->cbid;
	if (r->flags & KG_SM_OWN_COPY) {
		if (!(slot = idmap_slot(&s->own_copy, r->correlation_id)))
			return -ENOMEM;
		*slot = 1;
	}
	return 0;
}

int sm_import_own_api(struct kg_sm_import *s, uint32_t domain, uint32_t cbid,
		      uint32_t correlation)
{
	if (!s || domain != KG_API_DRIVER || !s->own_api.count || cbid >= 0x10000 ||
	    idmap_get(&s->own_api, own_key(correlation, cbid)) == KG_IDMAP_NONE)
		return 0;
	s->own_left_out++;
	return 1;
}

int sm_import_own_copy(struct kg_sm_import *s, uint32_t correlation)
{
	if (!s || !s->own_copy.count || idmap_get(&s->own_copy, correlation) == KG_IDMAP_NONE)
		return 0;
	s->own_left_out++;
	return 1;
}

/* ------------------------------------------------------------------ matching */

static uint64_t grid_key(uint32_t context, uint64_t grid)
{
	return idmap_mix(grid ^ ((uint64_t)context << 48) ^ ((uint64_t)context >> 16)) >> 1;
}

/* The kernel of (context, grid), KG_IDMAP_NONE when none; with add, the slot for it. */
static uint32_t *grid_slot(struct kg_sm_import *s, uint32_t context, uint64_t grid, int add)
{
	uint64_t k = grid_key(context, grid);
	for (int probe = 0; probe < 64; probe++, k = idmap_mix(k + 1) >> 1) {
		uint32_t *slot = add ? idmap_slot(&s->by_grid, k) : idmap_find(&s->by_grid, k);
		if (!slot || *slot == KG_IDMAP_NONE)
			return slot;
		const struct kernel *x = &s->kernels[*slot];
		if (x->context == context && x->grid == grid)
			return slot;
	}
	return NULL;
}

int sm_import_needs_kernels(const struct kg_sm_import *s)
{
	return s && (s->n_devices || s->own_left_out);
}

int sm_import_kernel(struct kg_sm_import *s, int64_t id, uint32_t context, uint64_t grid,
		     int64_t start)
{
	if (array_room((void **)&s->kernels, &s->cap_kernels, s->n_kernels, sizeof(*s->kernels),
		       256) < 0)
		return -ENOMEM;
	struct kernel *k = &s->kernels[s->n_kernels];
	k->id = id;
	k->context = context;
	k->grid = grid;
	k->start = start;
	k->first_block = UINT64_MAX;
	uint32_t *slot = grid_slot(s, k->context, k->grid, 1);
	if (!slot)
		return -ENOMEM;
	if (*slot == KG_IDMAP_NONE) /* a grid id seen twice: the first stands */
		*slot = s->n_kernels++;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t median_of(int64_t *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The device's offset to the trace clock: the median of its kernels' estimates. */
static int align(struct device_sm *d)
{
	if (!d->n_offsets)
		return 0;
	d->offset = median_of(d->offsets, d->n_offsets);
	d->spread = d->offsets[d->n_offsets - 1] - d->offsets[0];
	for (uint32_t i = 0; i < d->n_offsets; i++)
		d->offsets[i] = llabs(d->offsets[i] - d->offset);
	d->mad = median_of(d->offsets, d->n_offsets);
	d->aligned = 1;
	return 0;
}

/* 1 for a block its kernel's log could have written: end not before start. */
static int plausible(const struct block *b)
{
	return b->start > 0 && b->end >= b->start;
}

/* Each kernel's first block, each device's offset estimates. */
static int match(struct kg_sm_import *s)
{
	for (uint32_t i = 0; i < s->n_blocks; i++) {
		const struct block *b = &s->blocks[i];
		uint32_t *slot = plausible(b) ? grid_slot(s, b->context, b->grid, 0) : NULL;
		if (!slot || *slot == KG_IDMAP_NONE)
			continue;
		struct kernel *k = &s->kernels[*slot];
		if (b->start < k->first_block)
			k->first_block = b->start;
		k->device = b->device;
	}
	for (uint32_t i = 0; i < s->n_kernels; i++) {
		const struct kernel *k = &s->kernels[i];
		if (k->first_block == UINT64_MAX)
			continue;
		struct device_sm *d = device_of(s, k->device); /* known: a block named it */
		if (!d)
			return -ENOMEM;
		d->kernels++;
		if (k->start <= 0) /* no CUPTI start (an incomplete record): no estimate */
			continue;
		if (array_room((void **)&d->offsets, &d->cap_offsets, d->n_offsets,
			       sizeof(*d->offsets), 64) < 0)
			return -ENOMEM;
		d->offsets[d->n_offsets++] = k->start - (int64_t)k->first_block;
	}
	for (uint32_t i = 0; i < s->n_devices; i++)
		align(&s->devices[i]);
	return 0;
}

/* ------------------------------------------------------------------ writing */

static int write_blocks(struct kg_sm_import *s, struct kg_import *im)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(im->db, "INSERT INTO sm_blocks VALUES(?,?,?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -EIO;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < s->n_blocks; i++) {
		const struct block *b = &s->blocks[i];
		struct device_sm *d = device_of(s, b->device);
		uint32_t *slot = plausible(b) ? grid_slot(s, b->context, b->grid, 0) : NULL;
		if (!d)
			return -ENOMEM;
		if (!slot || *slot == KG_IDMAP_NONE || !d->aligned) {
			d->unmatched++;
			continue;
		}
		sqlite3_bind_int64(st, 1, s->kernels[*slot].id);
		sqlite3_bind_int64(st, 2, b->sm);
		sqlite3_bind_int64(st, 3, b->block);
		sqlite3_bind_int64(st, 4, (int64_t)b->start + d->offset);
		sqlite3_bind_int64(st, 5, (int64_t)b->end + d->offset);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
		sqlite3_reset(st);
		d->blocks++;
	}
	sqlite3_finalize(st);
	return rc;
}

static int write_settings(struct kg_sm_import *s, struct kg_import *im, int64_t process)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(im->db, "INSERT INTO sm_settings VALUES(?,?,?,?,?,?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK)
		return -EIO;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < s->n_devices; i++) {
		const struct device_sm *d = &s->devices[i];
		const int64_t v[] = {process,	  d->device,	     (int64_t)d->blocks,
				     (int64_t)d->kernels, (int64_t)d->dropped, (int64_t)d->unmatched,
				     (int64_t)s->own_left_out};
		for (int c = 0; c < 7; c++)
			sqlite3_bind_int64(st, c + 1, v[c]);
		for (int c = 0; c < 3; c++)
			if (d->aligned)
				sqlite3_bind_int64(st, 8 + c, c == 0 ? d->offset : c == 1 ? d->spread : d->mad);
			else
				sqlite3_bind_null(st, 8 + c);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* A warning row in messages: `kgantt info` and the report's readers see it. */
static int warn(struct kg_import *im, int64_t process, uint64_t ts, const char *text)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(im->db, "INSERT INTO messages VALUES(?, ?, 'warning', ?)", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, process);
	sqlite3_bind_int64(st, 2, (int64_t)ts);
	sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

static int report_losses(struct kg_sm_import *s, struct kg_import *im, int64_t process)
{
	int rc = 0;
	char text[400];
	for (uint32_t i = 0; !rc && i < s->n_devices; i++) {
		const struct device_sm *d = &s->devices[i];
		if (d->unmatched) {
			snprintf(text, sizeof(text),
				 "SM placement: %llu blocks of device %u match no kernel of the trace "
				 "(their grid id is not a recorded kernel's: launched outside the "
				 "capture window, or the log was read while kernels ran) and are not "
				 "stored",
				 (unsigned long long)d->unmatched, d->device);
			rc = warn(im, process, s->last_read, text);
		}
		if (!rc && d->dropped) {
			snprintf(text, sizeof(text),
				 "SM placement: %llu blocks of device %u did not fit their kernel's "
				 "log between two reads and are missing (define KGANTT_SM_CAPACITY "
				 "larger, or synchronise more often)",
				 (unsigned long long)d->dropped, d->device);
			rc = warn(im, process, s->last_read, text);
		}
	}
	return rc;
}

int sm_import_write(struct kg_sm_import *s, struct kg_import *im, int64_t process)
{
	if (!sm_import_needs_kernels(s))
		return 0;
	int rc = match(s);
	if (!rc)
		rc = write_blocks(s, im);
	if (!rc && !s->n_devices && s->own_left_out) /* own calls, no block: one row says so */
		rc = device_of(s, 0) ? 0 : -ENOMEM;
	if (!rc)
		rc = write_settings(s, im, process);
	if (!rc)
		rc = report_losses(s, im, process);
	if (rc == -EIO)
		snprintf(im->err, sizeof(im->err), "cannot write '%s' (SM placement): %s",
			 im->path, sqlite3_errmsg(im->db));
	else if (rc == -ENOMEM)
		snprintf(im->err, sizeof(im->err), "out of memory importing SM placement");
	return rc;
}
