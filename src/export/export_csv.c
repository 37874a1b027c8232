/* CSV for pandas and spreadsheets (docs/export.md): one row per GPU operation (default),
 * API call, range or sync. RFC 4180 quoting, since kernel names hold commas and quotes
 * ("void f<int, 2>(float*, int)"); an unknown value is an empty field, so pandas reads it
 * as NaN rather than as a misleading 0. Rows end in "\n". Times are integer ns on the
 * trace's own clock, as in the trace. */
#include "export/export.h"
#include "text/json_writer.h" /* jw_i64_text */
#include "util/timemath.h"
#include "util/utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define OUT_BUF (256 * 1024)

struct csv {
	struct kg_export_ops ops; /* first: the walker's callbacks */
	FILE *f;
	enum kg_export_table table;
	char *buf;                /* rows waiting to be written */
	size_t n, cap;
	int io_err, oom;
	char *u8;
	size_t u8cap;
};

static struct csv *self(struct kg_export_ops *x)
{
	return (struct csv *)x;
}

static void flush_out(struct csv *c)
{
	if (c->n && !c->io_err && fwrite(c->buf, 1, c->n, c->f) != c->n)
		c->io_err = errno ? errno : EIO;
	c->n = 0;
}

/* Room for len more bytes in the buffer. */
static char *room(struct csv *c, size_t len)
{
	if (c->n + len > c->cap) {
		size_t cap = c->cap;
		while (c->n + len > cap)
			cap *= 2;
		char *b = realloc(c->buf, cap);
		if (!b) {
			c->oom = 1;
			return NULL;
		}
		c->buf = b;
		c->cap = cap;
	}
	return c->buf + c->n;
}

static void put(struct csv *c, const char *s, size_t len)
{
	char *p = room(c, len);
	if (p) {
		memcpy(p, s, len);
		c->n += len;
	}
}

/* A text field: quoted when it holds a comma, a quote or a line break; quotes doubled. */
static void f_str(struct csv *c, const char *s)
{
	size_t len;
	const char *t = utf8_clean(s ? s : "", &len, &c->u8, &c->u8cap);
	if (!t) {
		c->oom = 1;
		return;
	}
	if (!strpbrk(t, ",\"\r\n")) {
		put(c, t, len);
		put(c, ",", 1);
		return;
	}
	char *p = room(c, 2 * len + 3);
	if (!p)
		return;
	*p++ = '"';
	for (size_t i = 0; i < len; i++) {
		if (t[i] == '"')
			*p++ = '"';
		*p++ = t[i];
	}
	*p++ = '"';
	*p++ = ',';
	c->n = (size_t)(p - c->buf);
}

static void f_num(struct csv *c, int64_t v)
{
	char *p = room(c, 24);
	if (p) {
		size_t len = jw_i64_text(p, v);
		p[len] = ',';
		c->n += len + 1;
	}
}

static void f_empty(struct csv *c)
{
	put(c, ",", 1);
}

/* A value that may be unknown: a time (KG_NO_TIME) or anything with a known flag. */
static void f_opt(struct csv *c, int known, int64_t v)
{
	if (known)
		f_num(c, v);
	else
		f_empty(c);
}

static void f_time(struct csv *c, int64_t t)
{
	f_opt(c, t != KG_NO_TIME, t);
}

/* b - a when both are known. */
static void f_diff(struct csv *c, int64_t a, int64_t b)
{
	if (a != KG_NO_TIME && b != KG_NO_TIME)
		f_num(c, kg_time_diff(b, a)); /* saturated: the times are the file's */
	else
		f_empty(c);
}

/* Ends the row (its last comma becomes the line end) and writes out a full buffer. */
static int end_row(struct csv *c)
{
	if (c->n && c->buf[c->n - 1] == ',')
		c->buf[c->n - 1] = '\n';
	if (c->n >= OUT_BUF)
		flush_out(c);
	return c->oom ? -ENOMEM : c->io_err ? -EIO : 0;
}

static uint32_t pid_of(const struct kg_model *m, uint32_t process)
{
	return process < m->n_processes ? m->processes[process].pid : 0;
}

/* ------------------------------------------------------------------ rows */

static const char *const headers[] = {
	[KG_TABLE_OPS] = "kind,name,process,pid,device,stream,priority,api_start_ns,queued_ns,"
			 "submitted_ns,start_ns,end_ns,launch_latency_ns,queue_wait_ns,duration_ns,"
			 "total_latency_ns,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,"
			 "static_smem,dynamic_smem,bytes,copy_kind,src_kind,dst_kind,correlation,"
			 "graph\n",
	[KG_TABLE_APIS] = ("process,pid,tid,thread_name,name,domain,category,start_ns,end_ns,"
			   "duration_ns,correlation,op_kind,op_name,op_start_ns\n"),
	[KG_TABLE_RANGES] = "process,pid,tid,domain,name,start_ns,end_ns,duration_ns\n",
	[KG_TABLE_SYNCS] = "process,pid,kind,stream,start_ns,end_ns,duration_ns,correlation\n",
};

static int on_begin(struct kg_export_ops *x, const struct kg_model *m)
{
	struct csv *c = self(x);
	put(c, headers[c->table], strlen(headers[c->table]));
	return c->oom ? -ENOMEM : 0;
}

static void op_shape(struct csv *c, const struct kg_model *m, const struct kg_op *o)
{
	int k = o->kind == KG_OP_KERNEL;
	const struct kg_launch *l = op_launch(m, o);
	for (int i = 0; i < 3; i++)
		f_opt(c, k, l->grid[i]);
	for (int i = 0; i < 3; i++)
		f_opt(c, k, l->block[i]);
	f_opt(c, k, l->regs);
	f_opt(c, k, l->smem_static);
	f_opt(c, k, l->smem_dynamic);
	f_opt(c, !k, (int64_t)o->bytes);
	if (o->kind == KG_OP_MEMCPY) {
		f_str(c, copy_kind_name(o->copy_kind));
		f_str(c, mem_kind_name(o->src_kind));
	} else {
		f_empty(c);
		f_empty(c);
	}
	if (!k)
		f_str(c, mem_kind_name(o->dst_kind));
	else
		f_empty(c);
}

static int on_op(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct csv *c = self(x);
	const struct kg_op *o = &m->ops[i];
	const struct kg_stream *s = &m->streams[o->stream];
	f_str(c, op_kind_name(o->kind));
	f_str(c, model_text(m, o->name));
	f_num(c, (int64_t)s->process + 1);
	f_num(c, pid_of(m, s->process));
	f_num(c, m->devices[s->device].ordinal);
	f_num(c, s->id);
	f_num(c, s->priority);
	f_time(c, o->api_start);
	f_time(c, o->queued);
	f_time(c, o->submitted);
	f_time(c, o->start);
	f_time(c, o->end);
	f_diff(c, o->api_start, o->queued);
	f_diff(c, o->queued, o->start);
	f_diff(c, o->start, o->end);
	f_diff(c, o->api_start, o->start);
	op_shape(c, m, o);
	f_opt(c, o->correlation != 0, o->correlation);
	f_opt(c, (o->flags & KG_OPF_GRAPH) != 0, o->graph);
	return end_row(c);
}

static int on_api(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct csv *c = self(x);
	const struct kg_api *a = &m->apis[i];
	const struct kg_thread *t = a->thread < m->n_threads ? &m->threads[a->thread] : NULL;
	f_num(c, (int64_t)a->process + 1);
	f_num(c, pid_of(m, a->process));
	f_opt(c, t != NULL, t ? (int64_t)t->tid : 0);
	f_str(c, t ? model_text(m, t->name) : "");
	f_str(c, model_text(m, a->name));
	f_str(c, a->driver ? "driver" : "runtime");
	f_str(c, api_category_name(a->category));
	f_time(c, a->start);
	f_time(c, a->end);
	f_diff(c, a->start, a->end);
	f_opt(c, a->correlation != 0, a->correlation);
	if (a->op < m->n_ops) {
		const struct kg_op *o = &m->ops[a->op];
		f_str(c, op_kind_name(o->kind));
		f_str(c, model_text(m, o->name));
		f_time(c, o->start);
	} else {
		f_empty(c);
		f_empty(c);
		f_empty(c);
	}
	return end_row(c);
}

static int on_range(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct csv *c = self(x);
	const struct kg_range *r = &m->ranges[i];
	const struct kg_thread *t = r->thread < m->n_threads ? &m->threads[r->thread] : NULL;
	f_num(c, (int64_t)r->process + 1);
	f_num(c, pid_of(m, r->process));
	f_opt(c, t != NULL, t ? (int64_t)t->tid : 0);
	f_str(c, model_text(m, r->domain));
	f_str(c, model_text(m, r->name));
	f_time(c, r->start);
	f_time(c, r->end);
	f_diff(c, r->start, r->end);
	return end_row(c);
}

static int on_sync(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct csv *c = self(x);
	const struct kg_sync *y = &m->syncs[i];
	f_num(c, (int64_t)y->process + 1);
	f_num(c, pid_of(m, y->process));
	f_str(c, sync_kind_name(y->kind));
	f_opt(c, y->stream < m->n_streams, y->stream < m->n_streams ? m->streams[y->stream].id : 0);
	f_time(c, y->start);
	f_time(c, y->end);
	f_diff(c, y->start, y->end);
	f_opt(c, y->correlation != 0, y->correlation);
	return end_row(c);
}

static int on_end(struct kg_export_ops *x, const struct kg_model *m)
{
	struct csv *c = self(x);
	flush_out(c);
	return c->io_err ? -EIO : 0;
}

int export_csv(FILE *f, const struct kg_model *m, const struct kg_export_opts *o)
{
	struct csv c = {.ops = {.begin = on_begin, .end = on_end}, .f = f, .table = o->table};
	switch (o->table) {
	case KG_TABLE_OPS: c.ops.op = on_op; break;
	case KG_TABLE_APIS: c.ops.api = on_api; break;
	case KG_TABLE_RANGES: c.ops.range = on_range; break;
	case KG_TABLE_SYNCS: c.ops.sync = on_sync; break;
	}
	c.cap = OUT_BUF + 4096;
	c.buf = malloc(c.cap);
	int rc = c.buf ? export_walk(m, &c.ops) : -ENOMEM;
	if (c.io_err) {
		errno = c.io_err;
		rc = -EIO;
	}
	free(c.buf);
	free(c.u8);
	return rc;
}
