/* The host strips of the Gantt chart (render/host_strip.h): under each host thread's API
 * lane, its host spans in the window, a pixel column at a time in the cause with the most
 * time there, lighter where that cause's time was mostly off CPU. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/host_strip.h"
#include "render/plot_internal.h"

/* Per pixel column, per cause: time on CPU, then time off CPU. */
#define COL_SLOTS (2 * KG_HOST_CAUSE_COUNT)

struct rgb host_colour(unsigned cause, int off)
{
	uint32_t h = host_cause_rgb[cause < KG_HOST_CAUSE_COUNT ? cause : KG_HOST_CAUSE_OTHER];
	struct rgb c = RGB(h);
	double k = off ? KG_HOST_OFF_CPU_LIGHT : 0;
	return (struct rgb){c.r + (1 - c.r) * k, c.g + (1 - c.g) * k, c.b + (1 - c.b) * k};
}

/* A thread with CUDA calls in the window: the threads that get an API lane, and a strip. */
static uint8_t *threads_calling(const struct plot *p)
{
	const struct kg_model *m = p->m;
	uint8_t *calls = calloc((size_t)m->n_threads + 1, 1);
	for (uint32_t i = 0; calls && i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		if (a->thread < m->n_threads && a->start < p->o->t1 && a->end >= p->o->t0)
			calls[a->thread] = 1;
	}
	return calls;
}

int host_strips_plan(struct plot *p)
{
	const struct kg_model *m = p->m;
	if (!p->o->host_lanes || !m->n_host_spans)
		return 0; /* no strips: the chart is drawn as it always was */
	uint8_t *calls = threads_calling(p);
	p->hs.cause = host_span_causes(m);
	if (!calls || !p->hs.cause) {
		free(calls);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		if (h->thread < m->n_threads && calls[h->thread] && h->start < p->o->t1 &&
		    h->end > p->o->t0)
			p->hs.present |= 1u << p->hs.cause[i];
	}
	free(calls);
	return 0;
}

int host_strips_alloc(struct plot *p)
{
	if (!p->hs.cause)
		return 0;
	p->hs.col = calloc((size_t)p->ncols * COL_SLOTS, sizeof(double));
	p->hs.counts = calloc((size_t)p->l.n_lanes + 1, sizeof(*p->hs.counts));
	return p->hs.col && p->hs.counts ? 0 : -ENOMEM;
}

void host_strips_free(struct plot *p)
{
	free(p->hs.cause);
	free(p->hs.col);
	free(p->hs.counts);
}

/* Adds [s, e) (clipped to the window) of cause slot k to the columns it covers. */
static void col_add(struct plot *p, int64_t s, int64_t e, int k)
{
	const struct kg_layout *l = &p->l;
	double xa = layout_x(l, s < l->t0 ? l->t0 : s) - l->x0;
	double xb = layout_x(l, e > l->t1 ? l->t1 : e) - l->x0;
	double ns_per_px = layout_ns_per_px(l);
	for (int c = (int)floor(xa); c < p->ncols && c <= (int)floor(xb); c++) {
		double a = c > xa ? c : xa, b = c + 1 < xb ? c + 1 : xb;
		if (c >= 0 && b > a)
			p->hs.col[(size_t)c * COL_SLOTS + k] += (b - a) * ns_per_px;
	}
}

/* The slot of column c with the most time: its cause, off CPU when the cause's time there
 * was mostly off CPU; -1 for a column without spans. */
static int col_best(const struct plot *p, int c)
{
	const double *v = &p->hs.col[(size_t)c * COL_SLOTS];
	int best = -1;
	double most = 0;
	for (int k = 0; k < KG_HOST_CAUSE_COUNT; k++) {
		double t = v[k] + v[KG_HOST_CAUSE_COUNT + k];
		if (t > most) {
			most = t;
			best = k;
		}
	}
	if (best >= 0 && v[KG_HOST_CAUSE_COUNT + best] > v[best])
		best += KG_HOST_CAUSE_COUNT;
	return best;
}

/* Draws the columns as runs of one slot; counts them. */
static void strip_draw(struct plot *p, const struct kg_lane *ln, struct strip_count *n)
{
	double y = ln->y + ln->h - ln->strip_h, h = ln->strip_h - 1;
	int run = -1, from = 0;
	for (int c = 0; c <= p->ncols; c++) {
		int k = c < p->ncols ? col_best(p, c) : -1;
		n->columns += k >= 0;
		if (k == run)
			continue;
		if (run >= 0) {
			fill_rect(p->cr, p->l.x0 + from, y, c - from,
				  h, host_colour((unsigned)run % KG_HOST_CAUSE_COUNT,
						 run >= KG_HOST_CAUSE_COUNT));
			n->runs++;
		}
		run = k;
		from = c;
	}
	memset(p->hs.col, 0, (size_t)p->ncols * COL_SLOTS * sizeof(double));
}

void host_strip(struct plot *p, uint32_t li)
{
	const struct kg_model *m = p->m;
	const struct kg_layout *l = &p->l;
	const struct kg_lane *ln = &l->lanes[li];
	struct strip_count *n = &p->hs.counts[li];
	uint32_t t = ln->thread;
	for (uint32_t i = layout_first_span(m, l, t, l->t0);
	     i < l->span_first[t + 1] && m->host_spans[i].start < l->t1; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		int off = host_state_off_cpu(h->state);
		int64_t s = h->start < l->t0 ? l->t0 : h->start, e = h->end > l->t1 ? l->t1 : h->end;
		col_add(p, h->start, h->end, p->hs.cause[i] + (off ? KG_HOST_CAUSE_COUNT : 0));
		n->spans++;
		n->ns[p->hs.cause[i]] += (double)(e - s);
		n->off_ns += off ? (double)(e - s) : 0;
	}
	strip_draw(p, ln, n);
}
