/* What the parts of the Gantt chart share (plot_internal.h): small drawing helpers, the
 * colours of things, merging runs. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "render/plot_internal.h"
#include "util/strtab.h"
#include "util/timemath.h"

/* ---------------------------------------------------------------- small drawing helpers */

struct rgb darker(struct rgb c, double k)
{
	return (struct rgb){c.r * k, c.g * k, c.b * k};
}

void fill_rect(cairo_t *cr, double x, double y, double w, double h, struct rgb c)
{
	set_rgb(cr, c);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
}

/* A closed circle path: a new sub-path, or cairo would join it to the current point. */
void circle(cairo_t *cr, double x, double y, double r)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, r, 0, 2 * M_PI);
}

void text_at(cairo_t *cr, double x, double y, const char *s, struct rgb c)
{
	text_fit(cr, x, y, HUGE_VAL, s, c);
}

/* ---------------------------------------------------------------- colours of things */

struct rgb name_colour(struct plot *p, uint32_t name)
{
	if (name >= p->m->strings.count + 1 || !p->colour_of_name)
		return compute_palette[0];
	if (!p->colour_of_name[name]) {
		/* by the text, not the id: the same kernel keeps its colour in every trace */
		const char *t = model_text(p->m, name);
		p->colour_of_name[name] = (uint8_t)(1 + strtab_hash(t, strlen(t)) % N_PALETTE);
	}
	return compute_palette[p->colour_of_name[name] - 1];
}

struct rgb op_colour(struct plot *p, const struct kg_op *o)
{
	if (o->kind == KG_OP_MEMSET)
		return c_memset;
	if (o->kind == KG_OP_MEMCPY)
		switch (o->copy_kind) {
		case KG_COPY_HTOD: return c_htod;
		case KG_COPY_DTOH: return c_dtoh;
		case KG_COPY_DTOD: return c_dtod;
		case KG_COPY_PTOP: return c_peer;
		default: return c_copy;
		}
	if (o->flags & KG_OPF_COMM)
		return c_comm;
	return name_colour(p, o->name);
}

/* ---------------------------------------------------------------- merging runs */

void merger_flush(struct merger *g)
{
	if (g->open)
		g->flush(g->p, g, g->arg);
	g->open = 0;
}

void merger_add(struct merger *g, int64_t a, int64_t b)
{
	if (b < a)
		b = a;
	if (g->open && a <= kg_time_add(g->b, g->join)) {
		g->b = b > g->b ? b : g->b;
		g->a = a < g->a ? a : g->a;
		g->count++;
		return;
	}
	merger_flush(g);
	*g = (struct merger){a, b, g->join, 1, 1, g->flush, g->p, g->arg};
}

struct merger merger_new(struct plot *p, double px,
			 void (*flush)(struct plot *, const struct merger *, const void *),
			 const void *arg)
{
	int64_t join = kg_i64_of(px * layout_ns_per_px(&p->l));
	return (struct merger){0, 0, join, 0, 0, flush, p, arg};
}
