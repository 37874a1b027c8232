/* kgantt view: the analysed model as one self-contained HTML page (render/view.h).
 *
 * The page is the template with one JSON document put in at its marker. Everything the
 * timeline draws is in that document; the page fetches nothing. Large tables (GPU
 * operations, API calls, NVTX ranges) are columns: every value an integer, written as a
 * zigzag LEB128 varint, start times as the difference from the previous row (rows are
 * sorted, so differences are small), the column base64url-encoded into one JSON string.
 * A kernel costs about 15 bytes before base64, against 60 to 100 as JSON objects, and the
 * page decodes a million of them in well under a second. docs/view.md has the layout.
 *
 * Trace strings are untrusted: a kernel may be named "</script><script>alert(1)". They
 * are made valid UTF-8 and written by the JSON writer in its HTML layout (quotes,
 * backslashes, control characters, '/', and '<', '>', '&', U+2028, U+2029 as \uXXXX), so the
 * document can neither end its script element nor break a JavaScript parser. */
#include "render/view.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/host_strip.h"
#include "render/layout.h"
#include "util/api_names.h"
#include "util/idmap.h"
#include "util/timemath.h"
#include "util/utf8.h"

#include "text/json_writer.h"
#include "report/finding_out.h"
#include "report/report.h"

#define DATA_MARKER "@@KGANTT_DATA@@"
#define MAX_DEPTH 15 /* nesting rows of an API or NVTX lane; deeper ones share the last */

/* The page's JSON goes through report/json_writer.h's HTML-safe mode (jw_begin_html). */

/* A time relative to the page's zero; null when unknown. */
static void kv_rel(struct jw *w, const char *k, int64_t t, int64_t zero)
{
	j_key(w, k);
	if (t == KG_NO_TIME)
		j_null(w);
	else
		j_int(w, kg_time_diff(t, zero));
}

/* ---------------------------------------------------------------- varint columns */

struct col {
	unsigned char *b;
	size_t n, cap;
	int nomem;
};

/* Room for n more bytes; 0, or -1 (and c->nomem) when out of memory. */
static int col_room(struct col *c, size_t n)
{
	if (c->nomem)
		return -1;
	if (c->cap - c->n >= n)
		return 0;
	size_t cap = c->cap ? c->cap * 2 : 4096;
	unsigned char *b = realloc(c->b, cap);
	if (!b) {
		c->nomem = 1;
		return -1;
	}
	c->b = b;
	c->cap = cap;
	return 0;
}

/* One already encoded varint (at most 10 bytes). */
static void col_bytes(struct col *c, const unsigned char *b, size_t n)
{
	if (col_room(c, n) == 0) {
		memcpy(c->b + c->n, b, n);
		c->n += n;
	}
}

static void col_u(struct col *c, uint64_t v)
{
	if (col_room(c, 10) < 0)
		return;
	while (v >= 0x80) {
		c->b[c->n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	c->b[c->n++] = (unsigned char)v;
}

/* Signed values zigzag-encoded: 0, -1, 1, -2 ... become 0, 1, 2, 3 ... */
static void col_s(struct col *c, int64_t v)
{
	col_u(c, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* An optional signed value: 0 when unknown, else its zigzag code + 1. */
static void col_opt(struct col *c, int known, int64_t v)
{
	if (!known)
		col_u(c, 0);
	else
		col_u(c, (((uint64_t)v << 1) ^ (uint64_t)(v >> 63)) + 1);
}

static void col_free(struct col *c)
{
	free(c->b);
	memset(c, 0, sizeof(*c));
}

static const char b64abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Bytes as a base64url JSON string, without padding. */
static void j_base64(struct jw *w, const unsigned char *b, size_t n)
{
	unsigned char *out = malloc(n / 3 * 4 + 4);
	if (!out) {
		w->nomem = 1;
		return;
	}
	size_t i, o = 0;
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];
		out[o++] = b64abc[v >> 18];
		out[o++] = b64abc[(v >> 12) & 63];
		out[o++] = b64abc[(v >> 6) & 63];
		out[o++] = b64abc[v & 63];
	}
	if (i < n) { /* one or two bytes left: two or three characters */
		uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0);
		out[o++] = b64abc[v >> 18];
		out[o++] = b64abc[(v >> 12) & 63];
		if (i + 1 < n)
			out[o++] = b64abc[(v >> 6) & 63];
	}
	j_strn(w, (const char *)out, o);
	free(out);
}

/* A column where at most a quarter of the values are not 0 (bytes of copies, flags of
 * kernels) costs less as {"n": count, "i": Δrow of each such value, "v": the values}. */
static int col_sparse(struct jw *w, const struct col *c)
{
	size_t values = 0, nonzero = 0;
	for (size_t i = 0, start = 0; i < c->n; i++)
		if (!(c->b[i] & 0x80)) { /* the last byte of a varint: 0 alone means 0 */
			values++;
			nonzero += i > start || c->b[i];
			start = i + 1;
		}
	if (nonzero * 4 > values)
		return 0;
	struct col idx = {0}, val = {0};
	size_t row = 0, prev = 0;
	for (size_t i = 0, start = 0; i < c->n; i++) {
		if (c->b[i] & 0x80)
			continue;
		if (i > start || c->b[i]) {
			col_u(&idx, row - prev);
			prev = row;
			col_bytes(&val, c->b + start, i + 1 - start);
		}
		row++;
		start = i + 1;
	}
	if (idx.nomem || val.nomem) {
		w->nomem = 1;
	} else {
		j_open(w);
		kv_int(w, "n", (long long)nonzero);
		j_key(w, "i");
		j_base64(w, idx.b, idx.n);
		j_key(w, "v");
		j_base64(w, val.b, val.n);
		j_close(w);
	}
	col_free(&idx);
	col_free(&val);
	return 1;
}

/* "key": the column as base64url; "" when every value is 0 (the page fills zeros), which
 * keeps unused columns (graph ids without graphs) free; sparse when mostly 0. */
static void kv_col(struct jw *w, const char *key, const struct col *c)
{
	j_key(w, key);
	if (c->nomem) {
		w->nomem = 1;
		return;
	}
	size_t i = 0;
	while (i < c->n && !c->b[i])
		i++;
	if (i == c->n)
		j_strn(w, "", 0);
	else if (!col_sparse(w, c))
		j_base64(w, c->b, c->n);
}

/* ---------------------------------------------------------------- the page's tables */

struct page {
	const struct kg_analysis *a;
	const struct kg_model *m;
	const struct kg_view_opts *o;
	int64_t zero;            /* every time is written relative to this (the trace begin) */
	uint32_t *name_map;      /* model string id -> page string id (0 = unused or "") */
	uint32_t *name_order;    /* page string id -> model string id */
	uint32_t n_names;
	uint32_t *api_order;     /* page API row -> model API index (by thread, start) */
	uint32_t *api_rank;      /* model API index -> page row */
	uint32_t *cfg_of_op;     /* model op -> launch configuration + 1, 0 = none */
	struct cfg *cfgs;
	uint32_t n_cfgs;
	/* call stacks: only those of API calls and sites, their frames deduplicated */
	uint32_t *stack_map;     /* model stack -> page stack + 1, 0 = not on the page */
	uint32_t *stack_order;   /* page stack -> model stack */
	int32_t *stack_user;     /* page stack -> offset of the user's frame in it, -1 */
	int32_t *stack_site;     /* page stack -> index into analysis.sites, -1 */
	uint32_t n_pstacks;
	uint32_t *stack_frames;  /* the page stacks' frames, one after the other: frame rows */
	uint64_t n_stack_frames;
	uint32_t *pframe_order;  /* page frame -> a model frame with its content */
	uint32_t n_pframes;
	/* host spans (render/host_strip.h): those of threads with API calls */
	uint8_t *span_cause;     /* per model span (host_span_causes) */
	uint8_t *calls;          /* per model thread: it has API calls, a lane */
	uint32_t *span_row;      /* per model thread (+ 1): its first page span row */
	uint32_t host_cut;       /* spans' stacks left out of the page (HOST_STACK_FRAMES) */
};

/* The frames of the host spans' stacks carried for the strip's hover, at most: about 1 MB
 * of page (a frame row is 2 to 3 bytes, base64 adds a third); the stacks with the most
 * time come first, the rest hover without frames. */
#define HOST_STACK_FRAMES 300000u

/* ------------------------------------ strings: the ones used, most frequent first */

struct weight {
	uint64_t w;
	uint32_t id;
};

static int by_weight(const void *x, const void *y)
{
	const struct weight *a = x, *b = y;
	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Names used by many rows get small ids, so most name cells are one varint byte. */
static int build_names(struct page *p)
{
	const struct kg_model *m = p->m;
	size_t n = m->strings.count + 1;
	struct weight *wt = calloc(n, sizeof(*wt));
	p->name_map = calloc(n, sizeof(*p->name_map));
	p->name_order = calloc(n, sizeof(*p->name_order));
	if (!wt || !p->name_map || !p->name_order) {
		free(wt);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		wt[i].id = (uint32_t)i;
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].name < n)
			wt[m->ops[i].name].w++;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].name < n)
			wt[m->apis[i].name].w++;
	for (uint32_t i = 0; i < m->n_ranges; i++) {
		if (m->ranges[i].name < n)
			wt[m->ranges[i].name].w++;
		if (m->ranges[i].domain < n)
			wt[m->ranges[i].domain].w++;
	}
	for (uint32_t i = 0; i < p->n_pframes; i++) {
		const struct kg_frame *f = &m->frames[p->pframe_order[i]];
		if (f->function < n)
			wt[f->function].w++;
		if (f->file < n)
			wt[f->file].w++;
		if (f->module < n)
			wt[f->module].w++;
	}
	for (uint32_t i = 0; i < p->a->n_sites; i++)
		if (p->a->sites[i].api_name < n)
			wt[p->a->sites[i].api_name].w++;
	wt[0].w = UINT64_MAX; /* "" stays 0 */
	qsort(wt, n, sizeof(*wt), by_weight);
	p->n_names = 0;
	for (size_t i = 0; i < n && wt[i].w; i++) {
		p->name_map[wt[i].id] = p->n_names;
		p->name_order[p->n_names++] = wt[i].id;
	}
	free(wt);
	return 0;
}

static uint32_t page_name(const struct page *p, uint32_t id)
{
	return id <= p->m->strings.count ? p->name_map[id] : 0;
}

/* ------------------------------------ launch configurations, with their occupancy */

struct cfg {
	uint32_t key[12];        /* grid, block, regs, smem static/dynamic/config, device */
	int occ_ok;
	struct kg_occ_result occ;
};

static uint64_t cfg_hash(const uint32_t *key)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < 12; i++)
		h = (h ^ key[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static void cfg_key(const struct kg_launch *l, uint32_t device, uint32_t *key)
{
	memcpy(key, l->grid, 3 * sizeof(uint32_t));
	memcpy(key + 3, l->block, 3 * sizeof(uint32_t));
	key[6] = l->regs;
	key[7] = l->smem_static;
	key[8] = l->smem_dynamic;
	key[9] = l->smem_config;
	key[10] = device;
	key[11] = 0;
}

/* The theoretical occupancy of one configuration, when the trace has what it needs. */
static void cfg_occupancy(const struct kg_model *m, struct cfg *c)
{
	struct kg_occ_device d;
	occ_device_of(&m->devices[c->key[10]], &d);
	/* three uint32 from the file: the product may not fit (the first one does) */
	unsigned long long threads;
	if (__builtin_mul_overflow((unsigned long long)c->key[3] * c->key[4], c->key[5], &threads))
		threads = ULLONG_MAX;
	struct kg_occ_kernel k = {(int)(threads > 1 << 20 ? 0 : threads), (int)c->key[6],
				  (int)c->key[7], (int)c->key[8], (int)c->key[9]};
	c->occ_ok = k.block_threads > 0 && occupancy_compute(&d, &k, &c->occ) == 0;
}

/* Kernels with the same grid, block, registers and shared memory on the same device share
 * one row of the configuration table: a trace has thousands of them, not millions. */
static int build_cfgs(struct page *p)
{
	const struct kg_model *m = p->m;
	size_t nslots = 1024, cap = 0;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	p->cfg_of_op = calloc(m->n_ops ? m->n_ops : 1, sizeof(*p->cfg_of_op));
	if (!slots || !p->cfg_of_op)
		goto nomem;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL)
			continue;
		uint32_t key[12];
		cfg_key(op_launch(m, o), m->streams[o->stream].device, key);
		size_t h = (size_t)cfg_hash(key) & (nslots - 1);
		while (slots[h] && memcmp(p->cfgs[slots[h] - 1].key, key, sizeof(key)))
			h = (h + 1) & (nslots - 1);
		if (!slots[h]) {
			if (p->n_cfgs == cap) {
				size_t nc = cap ? cap * 2 : 256;
				struct cfg *c = realloc(p->cfgs, nc * sizeof(*c));
				if (!c)
					goto nomem;
				p->cfgs = c;
				cap = nc;
			}
			struct cfg *c = &p->cfgs[p->n_cfgs];
			memset(c, 0, sizeof(*c));
			memcpy(c->key, key, sizeof(key));
			cfg_occupancy(m, c);
			slots[h] = ++p->n_cfgs;
			if (p->n_cfgs * 2 > nslots) { /* grow: rehash every entry */
				free(slots);
				nslots *= 4;
				slots = calloc(nslots, sizeof(*slots));
				if (!slots)
					goto nomem;
				for (uint32_t j = 0; j < p->n_cfgs; j++) {
					size_t g = (size_t)cfg_hash(p->cfgs[j].key) & (nslots - 1);
					while (slots[g])
						g = (g + 1) & (nslots - 1);
					slots[g] = j + 1;
				}
				h = (size_t)cfg_hash(key) & (nslots - 1);
				while (slots[h] != p->n_cfgs)
					h = (h + 1) & (nslots - 1);
			}
		}
		p->cfg_of_op[i] = slots[h];
	}
	free(slots);
	return 0;
nomem:
	free(slots);
	return -ENOMEM;
}

/* ------------------------------------ call stacks: the used ones, their frames shared */

static uint64_t vs_frame_key(const struct kg_frame *f)
{
	uint64_t h = idmap_mix(f->address ^ (uint64_t)f->kind << 56);
	h = idmap_mix(h ^ ((uint64_t)f->function << 32 | f->file));
	return idmap_mix(h ^ ((uint64_t)f->module << 32 | (uint32_t)f->line)) >> 1;
}

static uint32_t page_stack(const struct page *p, uint32_t stack)
{
	return p->stack_map && stack < p->m->n_stacks ? p->stack_map[stack] : 0;
}

static int by_ns_desc(const void *x, const void *y, void *arg)
{
	const double *ns = arg;
	double a = ns[*(const uint32_t *)x], b = ns[*(const uint32_t *)y];
	return (a < b) - (a > b);
}

/* The host spans' stacks on the page (stack_map), the most time first, up to
 * HOST_STACK_FRAMES frames; those left out are counted in host_cut. 0 or -ENOMEM. */
static int mark_host_stacks(struct page *p)
{
	const struct kg_model *m = p->m;
	if (!p->span_row)
		return 0;
	double *ns = calloc(m->n_stacks, sizeof(*ns));
	uint32_t *order = malloc(m->n_stacks * sizeof(*order)), n = 0;
	if (!ns || !order) {
		free(ns);
		free(order);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		if (h->stack < m->n_stacks && p->calls[h->thread])
			ns[h->stack] += (double)kg_time_span(h->end, h->start) + 1; /* +1: seen, if empty */
	}
	for (uint32_t i = 0; i < m->n_stacks; i++)
		if (ns[i] > 0)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_ns_desc, ns);
	uint64_t frames = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t f = m->stacks[order[k]].n_frames;
		if (p->stack_map[order[k]])
			continue; /* a call's stack too: on the page anyway */
		if (frames + f > HOST_STACK_FRAMES) {
			p->host_cut++;
			continue;
		}
		frames += f;
		p->stack_map[order[k]] = 1;
	}
	free(ns);
	free(order);
	return 0;
}

/* The stacks the page needs (of API calls, of sites), each frame written once: a stack
 * is a list of frame rows. Per stack, its user frame and the site of its calls. */
static int build_stacks(struct page *p)
{
	const struct kg_model *m = p->m;
	const struct kg_analysis *a = p->a;
	struct kg_idmap frames = {0};
	int rc = -ENOMEM;
	if (!m->n_stacks)
		return 0;
	p->stack_map = calloc(m->n_stacks, sizeof(*p->stack_map));
	if (!p->stack_map)
		goto out;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].stack < m->n_stacks)
			p->stack_map[m->apis[i].stack] = 1;
	for (uint32_t i = 0; i < a->n_sites; i++)
		if (a->sites[i].stack < m->n_stacks)
			p->stack_map[a->sites[i].stack] = 1;
	if (mark_host_stacks(p) < 0)
		goto out;
	uint64_t nframes = 0;
	for (uint32_t i = 0; i < m->n_stacks; i++)
		if (p->stack_map[i]) {
			p->n_pstacks++;
			nframes += m->stacks[i].n_frames;
		}
	if (!p->n_pstacks) {
		rc = 0;
		goto out;
	}
	p->stack_order = malloc(p->n_pstacks * sizeof(*p->stack_order));
	p->stack_user = malloc(p->n_pstacks * sizeof(*p->stack_user));
	p->stack_site = malloc(p->n_pstacks * sizeof(*p->stack_site));
	p->stack_frames = malloc((nframes ? nframes : 1) * sizeof(*p->stack_frames));
	p->pframe_order = malloc((nframes ? nframes : 1) * sizeof(*p->pframe_order));
	if (!p->stack_order || !p->stack_user || !p->stack_site || !p->stack_frames ||
	    !p->pframe_order || idmap_reserve(&frames, nframes) < 0)
		goto out;
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->n_stacks; i++) {
		if (!p->stack_map[i])
			continue;
		const struct kg_stack *s = &m->stacks[i];
		p->stack_order[k] = i;
		p->stack_map[i] = k + 1;
		for (uint32_t j = 0; j < s->n_frames; j++) {
			const struct kg_frame *f = &m->frames[s->first_frame + j];
			uint64_t key = vs_frame_key(f);
			uint32_t id = KG_NONE;
			for (int probe = 0; probe < 64 && id == KG_NONE; probe++,
				 key = idmap_mix(key + 1) >> 1) {
				uint32_t *slot = idmap_slot(&frames, key);
				if (!slot)
					goto out;
				if (*slot == KG_IDMAP_NONE) {
					p->pframe_order[p->n_pframes] = s->first_frame + j;
					*slot = id = p->n_pframes++;
				} else if (model_same_frame(&m->frames[p->pframe_order[*slot]], f)) {
					id = *slot;
				}
			}
			if (id == KG_NONE) { /* 64 collisions: a frame of its own, unshared */
				p->pframe_order[p->n_pframes] = s->first_frame + j;
				id = p->n_pframes++;
			}
			p->stack_frames[p->n_stack_frames++] = id;
		}
		uint32_t uf = stack_user_frame(m, s);
		p->stack_user[k] = uf != KG_NONE ? (int32_t)(uf - s->first_frame) : -1;
		p->stack_site[k] = -1;
		k++;
	}
	/* The site of each stack: a site's own stack is its; another, the site of its first
	 * call (a profiler's operator stack serves calls of several API functions: the page
	 * selects a site's calls by stack and API name) */
	for (uint32_t x = 0; x < a->n_sites; x++) {
		uint32_t st = page_stack(p, a->sites[x].stack);
		if (st && p->stack_site[st - 1] < 0)
			p->stack_site[st - 1] = (int32_t)x;
	}
	for (uint32_t i = 0; i < m->n_apis; i++) {
		uint32_t st = page_stack(p, m->apis[i].stack);
		uint32_t x = st && p->stack_site[st - 1] < 0 ? analysis_call_site(a, i) : KG_NONE;
		if (x != KG_NONE)
			p->stack_site[st - 1] = (int32_t)x;
	}
	rc = 0;
out:
	idmap_free(&frames);
	return rc;
}


/* ------------------------------------ API calls by thread, then start */

struct api_sort {
	uint32_t thread;
	int64_t start, end;
	uint32_t idx;
};

static int by_thread_start(const void *x, const void *y)
{
	const struct api_sort *a = x, *b = y;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end) /* the enclosing call first, so nesting depths come out right */
		return a->end > b->end ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* API calls of a thread the model does not know (none should) share a lane per process:
 * their thread key is n_threads + process. */
static uint32_t api_thread_key(const struct kg_model *m, const struct kg_api *a)
{
	return a->thread < m->n_threads ? a->thread : m->n_threads + a->process;
}

static int build_api_order(struct page *p)
{
	const struct kg_model *m = p->m;
	size_t n = m->n_apis ? m->n_apis : 1;
	struct api_sort *s = malloc(n * sizeof(*s));
	p->api_order = malloc(n * sizeof(*p->api_order));
	p->api_rank = malloc(n * sizeof(*p->api_rank));
	if (!s || !p->api_order || !p->api_rank) {
		free(s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->n_apis; i++)
		s[i] = (struct api_sort){api_thread_key(m, &m->apis[i]), m->apis[i].start,
					 m->apis[i].end, i};
	qsort(s, m->n_apis, sizeof(*s), by_thread_start);
	for (uint32_t i = 0; i < m->n_apis; i++) {
		p->api_order[i] = s[i].idx;
		p->api_rank[s[i].idx] = i;
	}
	free(s);
	return 0;
}

/* Nesting depth of an interval in a lane sorted by start (enclosing ones first): how
 * many earlier intervals are still open at its start. stack/depth persist along a lane. */
static int nest_depth(int64_t *stack, int *top, int64_t start, int64_t end)
{
	while (*top > 0 && stack[*top - 1] <= start)
		(*top)--;
	int d = *top;
	if (*top < MAX_DEPTH)
		stack[(*top)++] = end;
	return d < MAX_DEPTH ? d : MAX_DEPTH - 1;
}

/* ---------------------------------------------------------------- sections */

static void write_meta(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	const struct kg_view_opts *o = p->o;
	char buf[32];
	kv_int(w, "v", KG_VIEW_DATA_VERSION);
	kv_str(w, "tool", o->tool_version ? o->tool_version : "kgantt");
	kv_str(w, "trace", o->trace_path ? o->trace_path : m->path);
	kv_str(w, "source", m->source);
	j_key(w, "command");
	j_str(w, m->command ? model_text(m, m->command) : NULL);
	/* the absolute zero as text: ns since boot can pass 2^53, where JSON numbers stop
	 * being exact in JavaScript */
	snprintf(buf, sizeof(buf), "%lld", (long long)p->zero);
	kv_str(w, "zero", buf);
	kv_rel(w, "begin", m->begin, p->zero);
	kv_rel(w, "end", m->end, p->zero);
	kv_int(w, "dropped", (long long)m->dropped);
	j_key(w, "notes");
	j_aopen(w);
	for (int i = 0; i < m->n_notes; i++)
		j_str(w, m->notes[i]);
	j_aclose(w);
	j_key(w, "window");
	if (!o->windowed) {
		j_null(w);
	} else {
		j_open(w);
		kv_rel(w, "from", o->window_begin, o->trace_begin);
		kv_rel(w, "to", o->window_end, o->trace_begin);
		kv_rel(w, "trace_span", o->trace_end, o->trace_begin);
		j_key(w, "nvtx");
		j_str(w, o->window_nvtx);
		j_close(w);
	}
}

static void write_config(struct jw *w, const struct kg_config *c)
{
	j_key(w, "config");
	j_open(w);
	kv_int(w, "queue_wait_mark_ns", c->queue_wait_mark_ns);
	kv_num(w, "low_occupancy", c->low_occupancy);
	kv_int(w, "long_kernel_ns", c->long_kernel_ns);
	kv_int(w, "high_launch_latency_ns", c->high_launch_latency_ns);
	j_close(w);
}

static void write_processes(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	j_key(w, "processes");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_processes; i++) {
		const struct kg_process *pr = &m->processes[i];
		j_open(w);
		kv_int(w, "pid", pr->pid);
		kv_int(w, "ppid", pr->ppid);
		kv_str(w, "host", model_text(m, pr->host));
		kv_str(w, "cmd", model_text(m, pr->cmdline));
		kv_str(w, "rank", model_text(m, pr->rank));
		kv_str(w, "exit", model_text(m, pr->exit_status));
		kv_int(w, "complete", pr->complete);
		j_close(w);
	}
	j_aclose(w);
}

static void write_devices(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	j_key(w, "devices");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_devices; i++) {
		const struct kg_device *d = &m->devices[i];
		j_open(w);
		kv_int(w, "p", d->process);
		kv_int(w, "ord", d->ordinal);
		kv_str(w, "name", model_text(m, d->name));
		kv_str(w, "uuid", model_text(m, d->uuid));
		kv_int(w, "sms", d->sm_count);
		/* the file's ints: their "cc" may not fit an int */
		kv_int(w, "cc", (long long)d->cc_major * 10 + d->cc_minor);
		kv_int(w, "mem", d->memory_bytes);
		kv_int(w, "gpu", d->gpu == KG_NONE ? -1 : (long long)d->gpu);
		j_close(w);
	}
	j_aclose(w);
}

static void write_streams(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	j_key(w, "streams");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_streams; i++) {
		const struct kg_stream *s = &m->streams[i];
		const char *kind = stream_kind_name(s->kind);
		j_open(w);
		kv_int(w, "p", s->process);
		kv_int(w, "dev", s->device);
		kv_int(w, "ctx", s->context);
		kv_int(w, "id", s->id);
		kv_int(w, "prio", s->priority);
		kv_int(w, "ch", s->channel);
		kv_str(w, "kind", kind ? kind : "");
		kv_int(w, "first", s->nops ? s->first_op : 0);
		kv_int(w, "n", s->nops);
		j_close(w);
	}
	j_aclose(w);
}

/* The launch configurations: [gx, gy, gz, bx, by, bz, regs, smem static, dynamic,
 * config, device, occupancy or null, blocks per SM, limiting resource]. */
static void write_cfgs(struct jw *w, const struct page *p)
{
	j_key(w, "cfgs");
	j_aopen(w);
	for (uint32_t i = 0; i < p->n_cfgs; i++) {
		const struct cfg *c = &p->cfgs[i];
		j_aopen(w);
		for (int k = 0; k < 11; k++)
			j_int(w, c->key[k]);
		if (c->occ_ok) {
			j_num(w, c->occ.occupancy);
			j_int(w, c->occ.blocks_per_sm);
			j_str(w, occupancy_limit_name(c->occ.limiter));
		} else {
			j_null(w);
			j_null(w);
			j_null(w);
		}
		j_aclose(w);
	}
	j_aclose(w);
}

static void write_strings(struct jw *w, const struct page *p)
{
	j_key(w, "strings");
	j_aopen(w);
	for (uint32_t i = 0; i < p->n_names; i++)
		j_str(w, model_text(p->m, p->name_order[i]));
	j_aclose(w);
}

/* The kind, copy direction, memory kinds and flags of an op in one small integer. */
static uint64_t op_bits(const struct kg_op *o)
{
	return (uint64_t)(o->kind & 3) | (uint64_t)(o->copy_kind & 15) << 2 |
	       (uint64_t)(o->src_kind & 7) << 6 | (uint64_t)(o->dst_kind & 7) << 9 |
	       (uint64_t)o->flags << 12;
}

/* The GPU operations, in the model's order (by stream, then start): a stream's rows
 * are streams[s].first .. +n. Columns (varints; "Δ" = difference from the row above):
 *   t Δstart   d end-start   q start-queued (opt)   s start-submitted (opt)
 *   a Δ(API row + 1, 0 = none)   n name   k op_bits
 *   c correlation - the launch call's (without one: - the row above's)
 *   g configuration + 1   b bytes   G graph id */
static int write_ops(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	struct col c[11] = {{0}};
	static const char *const keys[11] = {"t", "d", "q", "s", "a", "n", "c", "k", "g", "b", "G"};
	int64_t prev_start = p->zero, prev_api = 0, prev_corr = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		int64_t st = o->start != KG_NO_TIME ? o->start
			     : o->end != KG_NO_TIME ? o->end : prev_start;
		int64_t en = o->end != KG_NO_TIME ? o->end : st;
		int64_t api = o->api < m->n_apis ? (int64_t)p->api_rank[o->api] + 1 : 0;
		/* never st - KG_NO_TIME, even when col_opt would not use it; and the times are
		 * the file's: their differences saturate (util/timemath.h) */
		col_s(&c[0], kg_time_diff(st, prev_start));
		col_s(&c[1], kg_time_diff(en, st));
		col_opt(&c[2], o->queued != KG_NO_TIME,
			o->queued != KG_NO_TIME ? kg_time_diff(st, o->queued) : 0);
		col_opt(&c[3], o->submitted != KG_NO_TIME,
			o->submitted != KG_NO_TIME ? kg_time_diff(st, o->submitted) : 0);
		col_s(&c[4], api - prev_api);
		col_u(&c[5], page_name(p, o->name));
		/* the launch call has the same correlation id: then the column is all 0 */
		int64_t base = o->api < m->n_apis ? (int64_t)m->apis[o->api].correlation : prev_corr;
		col_s(&c[6], (int64_t)o->correlation - base);
		col_u(&c[7], op_bits(o));
		col_u(&c[8], p->cfg_of_op[i]);
		col_u(&c[9], o->bytes);
		col_u(&c[10], o->graph);
		prev_start = st;
		prev_api = api;
		prev_corr = o->correlation;
	}
	j_key(w, "ops");
	j_open(w);
	kv_int(w, "rows", m->n_ops);
	for (int k = 0; k < 11; k++) {
		kv_col(w, keys[k], &c[k]);
		col_free(&c[k]);
	}
	j_close(w);
	return 0;
}

/* One host thread lane: its API calls are rows first .. +n of the API table. */
static void write_thread_lane(struct jw *w, const struct page *p, uint32_t key, uint32_t first,
			      uint32_t n, int depth)
{
	const struct kg_model *m = p->m;
	char label[160];
	j_open(w);
	if (key < m->n_threads) {
		const struct kg_thread *t = &m->threads[key];
		kv_int(w, "p", t->process);
		kv_int(w, "tid", (long long)t->tid);
		kv_str(w, "name", model_text(m, t->name));
		kv_str(w, "label", model_thread_label(m, t, label, sizeof(label)));
	} else {
		kv_int(w, "p", key - m->n_threads);
		kv_int(w, "tid", -1);
		kv_str(w, "name", "unknown thread");
		kv_str(w, "label", "unknown thread");
	}
	kv_int(w, "first", first);
	kv_int(w, "n", n);
	kv_int(w, "depth", depth + 1);
	if (p->span_row && key < m->n_threads && p->span_row[key + 1] > p->span_row[key]) {
		kv_int(w, "h0", p->span_row[key]);
		kv_int(w, "hn", p->span_row[key + 1] - p->span_row[key]);
	}
	j_close(w);
}

/* The API calls, by thread then start. Columns: t Δstart, d duration, n name,
 * c Δcorrelation, k category | driver << 3, l nesting depth, S stack + 1 (0: none; sparse
 * where stacks are sampled). Then the thread lanes. */
static void write_apis(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	struct col c[7] = {{0}};
	static const char *const keys[7] = {"t", "d", "n", "c", "k", "l", "S"};
	int64_t prev_start = p->zero, prev_corr = 0, stack[MAX_DEPTH];
	int top = 0, max_depth = 0;
	uint32_t lane_first = 0;
	j_key(w, "threads");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[p->api_order[i]];
		uint32_t key = api_thread_key(m, a);
		if (i > 0 && key != api_thread_key(m, &m->apis[p->api_order[i - 1]])) {
			write_thread_lane(w, p, api_thread_key(m, &m->apis[p->api_order[i - 1]]),
					  lane_first, i - lane_first, max_depth);
			lane_first = i;
			top = max_depth = 0;
		}
		int64_t start = a->start != KG_NO_TIME ? a->start : prev_start;
		int64_t end = a->end != KG_NO_TIME && a->end >= start ? a->end : start;
		int d = nest_depth(stack, &top, start, end);
		max_depth = d > max_depth ? d : max_depth;
		col_s(&c[0], kg_time_diff(start, prev_start));
		col_s(&c[1], kg_time_diff(end, start));
		col_u(&c[2], page_name(p, a->name));
		col_s(&c[3], (int64_t)a->correlation - prev_corr);
		col_u(&c[4], (uint64_t)(a->category & 7) | (uint64_t)(a->driver ? 8 : 0));
		col_u(&c[5], (uint64_t)d);
		col_u(&c[6], page_stack(p, a->stack));
		prev_start = start;
		prev_corr = a->correlation;
	}
	if (m->n_apis)
		write_thread_lane(w, p, api_thread_key(m, &m->apis[p->api_order[m->n_apis - 1]]),
				  lane_first, m->n_apis - lane_first, max_depth);
	j_aclose(w);
	j_key(w, "apis");
	j_open(w);
	kv_int(w, "rows", m->n_apis);
	for (int k = 0; k < 7; k++) {
		kv_col(w, keys[k], &c[k]);
		col_free(&c[k]);
	}
	j_close(w);
}

/* ------------------------------------ host spans */

/* The threads' spans on the page: those of threads with API calls (the lanes the strips
 * go under), their causes, and each thread's first row. 0 or -ENOMEM; nothing without
 * spans. */
static int build_host(struct page *p)
{
	const struct kg_model *m = p->m;
	if (!m->n_host_spans)
		return 0;
	p->calls = calloc((size_t)m->n_threads + 1, 1);
	p->span_row = calloc((size_t)m->n_threads + 2, sizeof(*p->span_row));
	p->span_cause = host_span_causes(m);
	if (!p->calls || !p->span_row || !p->span_cause)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].thread < m->n_threads)
			p->calls[m->apis[i].thread] = 1;
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		uint32_t t = m->host_spans[i].thread;
		if (t < m->n_threads && p->calls[t])
			p->span_row[t + 1]++;
	}
	for (uint32_t t = 0; t < m->n_threads; t++)
		p->span_row[t + 1] += p->span_row[t];
	return 0;
}

/* The host spans (render/host_strip.h), by thread then start, the thread lanes naming
 * theirs (h0, hn). Columns: t Δstart, d duration, c cause | 16 when off CPU, S stack + 1
 * (0: none, or left out: stacks_cut says how many). causes: id, what and colour of each
 * cause, by number. */
static void write_host(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	if (!p->span_row)
		return;
	struct col c[4] = {{0}};
	static const char *const keys[4] = {"t", "d", "c", "S"};
	int64_t prev = p->zero;
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		if (h->thread >= m->n_threads || !p->calls[h->thread])
			continue;
		col_s(&c[0], kg_time_diff(h->start, prev));
		col_s(&c[1], kg_time_diff(h->end, h->start));
		col_u(&c[2], p->span_cause[i] | (host_state_off_cpu(h->state) ? 16u : 0u));
		col_u(&c[3], page_stack(p, h->stack));
		prev = h->start;
	}
	j_key(w, "host");
	j_open(w);
	kv_int(w, "rows", p->span_row[m->n_threads]);
	kv_int(w, "stacks_cut", p->host_cut);
	kv_num(w, "strip_px", KG_HOST_STRIP_H);
	kv_num(w, "off_light", KG_HOST_OFF_CPU_LIGHT);
	j_key(w, "causes");
	j_aopen(w);
	for (unsigned k = 0; k < KG_HOST_CAUSE_COUNT; k++) {
		char rgb[8];
		snprintf(rgb, sizeof(rgb), "#%06x", (unsigned)host_cause_rgb[k]);
		j_open(w);
		kv_str(w, "id", host_cause_id(k));
		kv_str(w, "what", host_cause_what(k));
		kv_str(w, "rgb", rgb);
		j_close(w);
	}
	j_aclose(w);
	for (int k = 0; k < 4; k++) {
		kv_col(w, keys[k], &c[k]);
		col_free(&c[k]);
	}
	j_close(w);
}

/* Each GPU's start-up, wind-down and graph-capture idle (kg_gap_place): [gpu, start, end,
 * "start-up" / "wind-down" / "graph capture"], times relative to zero, for the band over
 * its stream lanes. */
static void write_edges(struct jw *w, const struct page *p)
{
	j_key(w, "edges");
	j_aopen(w);
	for (uint32_t g = 0; g < p->a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &p->a->gpus[g];
		for (uint32_t i = 0; i < gm->n_gaps; i++) {
			const struct kg_gap *gap = &gm->gaps[i];
			if (gap->place == KG_GAP_STEADY)
				continue;
			j_aopen(w);
			j_int(w, gm->gpu);
			j_int(w, kg_time_diff(gap->start, p->zero));
			j_int(w, kg_time_diff(gap->end, p->zero));
			j_str(w, gap_place_name(gap->place));
			j_aclose(w);
		}
	}
	j_aclose(w);
}

/* The program's steps (analysis/steps.h) that overlap the page's span (those between the
 * first and the last that do), for the step row of the time axis: rows: how many; first:
 * the first's number (1-based, as report numbers them; the others follow); columns
 * t Δstart (the first: after zero), d end-start, w 1 for a warm-up step. tick_px,
 * line_px: how close their starts may lie to be drawn (render/layout.h, as plot draws
 * them). */
static void write_steps(struct jw *w, const struct page *p)
{
	const struct kg_steps *st = &p->a->steps;
	const struct kg_model *m = p->m;
	struct col c[3] = {{0}};
	static const char *const keys[3] = {"t", "d", "w"};
	uint32_t first = 0, end = 0; /* v[first .. end) */
	for (uint32_t i = 0; m->begin != KG_NO_TIME && i < st->n; i++)
		if (st->v[i].end > m->begin && st->v[i].start < m->end) {
			first = end ? first : i;
			end = i + 1;
		}
	int64_t prev_start = p->zero;
	for (uint32_t i = first; i < end; i++) {
		const struct kg_step *s = &st->v[i];
		col_s(&c[0], kg_time_diff(s->start, prev_start));
		col_s(&c[1], kg_time_diff(s->end, s->start));
		col_u(&c[2], s->warmup);
		prev_start = s->start;
	}
	j_key(w, "steps");
	j_open(w);
	kv_int(w, "rows", end - first);
	kv_int(w, "first", end ? first + 1 : 0);
	kv_num(w, "tick_px", KG_STEP_TICK_PX);
	kv_num(w, "line_px", KG_STEP_LINE_PX);
	for (int k = 0; k < 3; k++) {
		kv_col(w, keys[k], &c[k]);
		col_free(&c[k]);
	}
	j_close(w);
}

/* Host waits the trace attributes to a stream or event: API row + 1, kind, stream + 1. */
static void write_syncs(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	j_key(w, "syncs");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_syncs; i++) {
		const struct kg_sync *s = &m->syncs[i];
		if (s->api >= m->n_apis)
			continue;
		j_aopen(w);
		j_int(w, p->api_rank[s->api]);
		j_int(w, s->kind);
		j_int(w, s->stream < m->n_streams ? (long long)s->stream : -1);
		j_aclose(w);
	}
	j_aclose(w);
}

struct range_sort {
	uint32_t process, thread;
	int64_t start, end;
	uint32_t idx;
};

static int by_lane_start(const void *x, const void *y)
{
	const struct range_sort *a = x, *b = y;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void write_nvtx_lane(struct jw *w, const struct page *p, const struct range_sort *r,
			    uint32_t first, uint32_t n, int depth)
{
	const struct kg_model *m = p->m;
	char label[160];
	j_open(w);
	kv_int(w, "p", r->process);
	if (r->thread < m->n_threads) {
		const struct kg_thread *t = &m->threads[r->thread];
		kv_int(w, "tid", (long long)t->tid);
		kv_str(w, "name", model_text(m, t->name));
		kv_str(w, "label", model_thread_label(m, t, label, sizeof(label)));
	} else {
		kv_int(w, "tid", -1);
		kv_str(w, "name", "");
		kv_str(w, "label", "thread ?");
	}
	kv_int(w, "first", first);
	kv_int(w, "n", n);
	kv_int(w, "depth", depth + 1);
	j_close(w);
}

/* NVTX and annotation ranges, by process, thread, start. Columns: t Δstart,
 * d end-start (opt: never closed), n name, o domain, l nesting depth. Then the lanes. */
static int write_ranges(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	size_t n = m->n_ranges;
	struct range_sort *s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_range *r = &m->ranges[i];
		s[i] = (struct range_sort){r->process, r->thread, r->start,
					   r->end == KG_NO_TIME ? INT64_MAX : r->end, i};
	}
	qsort(s, n, sizeof(*s), by_lane_start);
	struct col c[5] = {{0}};
	static const char *const keys[5] = {"t", "d", "n", "o", "l"};
	int64_t prev_start = p->zero, stack[MAX_DEPTH];
	int top = 0, max_depth = 0;
	uint32_t lane_first = 0;
	j_key(w, "nvtx_lanes");
	j_aopen(w);
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_range *r = &m->ranges[s[i].idx];
		if (i > 0 && (s[i].process != s[i - 1].process || s[i].thread != s[i - 1].thread)) {
			write_nvtx_lane(w, p, &s[i - 1], lane_first, i - lane_first, max_depth);
			lane_first = i;
			top = max_depth = 0;
		}
		int64_t start = r->start != KG_NO_TIME ? r->start : prev_start;
		int d = nest_depth(stack, &top, start, s[i].end);
		max_depth = d > max_depth ? d : max_depth;
		col_s(&c[0], kg_time_diff(start, prev_start));
		col_opt(&c[1], r->end != KG_NO_TIME,
			r->end != KG_NO_TIME ? kg_time_diff(r->end, start) : 0);
		col_u(&c[2], page_name(p, r->name));
		col_u(&c[3], page_name(p, r->domain));
		col_u(&c[4], (uint64_t)d);
		prev_start = start;
	}
	if (n)
		write_nvtx_lane(w, p, &s[n - 1], lane_first, (uint32_t)n - lane_first, max_depth);
	j_aclose(w);
	free(s);
	j_key(w, "ranges");
	j_open(w);
	kv_int(w, "rows", (long long)n);
	for (int k = 0; k < 5; k++) {
		kv_col(w, keys[k], &c[k]);
		col_free(&c[k]);
	}
	j_close(w);
	return 0;
}

/* The findings as kgantt report --json writes them (finding_json), times after the
 * page's zero, sites by number (the page holds them once). */
static void write_findings(struct jw *w, const struct page *p)
{
	struct kg_finding_place fp = {.a = p->a, .zero = p->zero, .site_refs = 1};
	j_key(w, "findings");
	j_aopen(w);
	for (uint32_t i = 0; i < p->a->findings.n; i++)
		finding_json(w, &fp, &p->a->findings.v[i], i + 1);
	j_aclose(w);
}

/* The call stacks. frames: columns k kind, f function, F file, m module (string ids),
 * l line, a address (module-relative, for frames without symbols). stacks: columns
 * n frame count, x the frames (sum of n rows, innermost first), p process, f flags,
 * u user frame offset + 1 (0: none), s site + 1 (0: no site). */
static void write_stacks(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	struct col c[6] = {{0}};
	static const char *const fkeys[6] = {"k", "f", "F", "m", "l", "a"};
	kv_int(w, "has_stacks", p->a->has_stacks);
	kv_str(w, "stack_note", m->stack_note);
	for (uint32_t i = 0; i < p->n_pframes; i++) {
		const struct kg_frame *f = &m->frames[p->pframe_order[i]];
		col_u(&c[0], f->kind);
		col_u(&c[1], page_name(p, f->function));
		col_u(&c[2], page_name(p, f->file));
		col_u(&c[3], page_name(p, f->module));
		col_u(&c[4], f->line > 0 ? (uint64_t)f->line : 0);
		col_u(&c[5], f->address);
	}
	j_key(w, "frames");
	j_open(w);
	kv_int(w, "rows", p->n_pframes);
	for (int k = 0; k < 6; k++) {
		kv_col(w, fkeys[k], &c[k]);
		col_free(&c[k]);
	}
	j_close(w);
	struct col s[6] = {{0}};
	static const char *const skeys[6] = {"n", "x", "p", "f", "u", "s"};
	for (uint32_t i = 0; i < p->n_pstacks; i++) {
		const struct kg_stack *st = &m->stacks[p->stack_order[i]];
		col_u(&s[0], st->n_frames);
		col_u(&s[2], st->process);
		col_u(&s[3], st->flags);
		col_u(&s[4], (uint64_t)(p->stack_user[i] + 1));
		col_u(&s[5], (uint64_t)(p->stack_site[i] + 1));
	}
	for (uint64_t i = 0; i < p->n_stack_frames; i++)
		col_u(&s[1], p->stack_frames[i]);
	j_key(w, "stacks");
	j_open(w);
	kv_int(w, "rows", p->n_pstacks);
	kv_int(w, "frame_rows", (long long)p->n_stack_frames);
	for (int k = 0; k < 6; k++) {
		kv_col(w, skeys[k], &s[k]);
		col_free(&s[k]);
	}
	j_close(w);
}

/* The call sites of the analysis, by gain (kgantt report --sites): label, API name,
 * operator, the user's frame (a frame row, -1) and a stack of theirs (a stack row). */
static void write_sites(struct jw *w, const struct page *p)
{
	const struct kg_analysis *a = p->a;
	const struct kg_model *m = p->m;
	char api[96];
	j_key(w, "sites");
	j_aopen(w);
	for (uint32_t i = 0; i < a->n_sites; i++) {
		const struct kg_site *x = &a->sites[i];
		uint32_t st = page_stack(p, x->stack);
		j_open(w);
		kv_str(w, "label", x->label);
		kv_str(w, "api", api_display_name(model_text(m, x->api_name), api, sizeof(api)));
		kv_int(w, "name", page_name(p, x->api_name)); /* the API function, as in apis.n */
		kv_str(w, "op", x->op);
		kv_int(w, "stack", (long long)st - 1);
		/* the user's frame, as a row of the frame table: its offset in that stack */
		kv_int(w, "user", st && x->user_frame != KG_NONE
					  ? (long long)x->user_frame - m->stacks[x->stack].first_frame : -1);
		kv_num(w, "ns", x->ns);
		kv_num(w, "pct", a->span > 0 ? 100.0 * x->ns / (double)a->span : 0);
		kv_int(w, "findings", x->findings);
		j_close(w);
	}
	j_aclose(w);
}

/* ---------------------------------------------------------------- hardware samples */

/* A figure's value as an integer of the column: % in tenths, bytes per second in MB/s,
 * hertz in MHz. The page multiplies by q to get it back. */
static double hw_quantum(int f)
{
	return kg_hw_figure_info[f].unit == KG_HW_PCT ? 0.1 : 1e6;
}

static const char *hw_unit(int f)
{
	static const char *const units[] = {[KG_HW_PCT] = "%", [KG_HW_BPS] = "B/s",
					    [KG_HW_HZ] = "Hz"};
	unsigned u = kg_hw_figure_info[f].unit;
	return u <= KG_HW_HZ ? units[u] : "";
}

/* Figure f of samples x[0 .. n) as an optional column; nothing when none was counted. */
static void write_hw_figure(struct jw *w, const struct kg_hw_sample *x, uint32_t n, int f)
{
	uint32_t counted = 0;
	for (uint32_t i = 0; i < n; i++)
		counted += isfinite(x[i].v[f]) != 0;
	if (!counted)
		return;
	struct col c = {0};
	double q = hw_quantum(f);
	for (uint32_t i = 0; i < n; i++) {
		double v = x[i].v[f] / q;
		v = v > 1e15 ? 1e15 : v < -1e15 ? -1e15 : v; /* inside int64, whatever was read */
		col_opt(&c, isfinite(v), isfinite(v) ? llround(v) : 0);
	}
	j_open(w);
	kv_str(w, "f", kg_hw_figure_info[f].column);
	kv_str(w, "label", kg_hw_figure_info[f].label);
	kv_str(w, "unit", hw_unit(f));
	kv_num(w, "q", q);
	kv_col(w, "v", &c);
	j_close(w);
	col_free(&c);
}

/* One device's sampling and its samples (sorted by start): t Δstart, d duration, and a
 * column per figure counted. */
static void write_hw_device(struct jw *w, const struct page *p, const struct kg_hw_device *h)
{
	const struct kg_model *m = p->m;
	uint32_t first, end;
	model_hw_sample_range(m, h->device, &first, &end);
	uint32_t n = end - first;
	/* A device listed with no samples: hw_samples may be NULL, and NULL + 0 is undefined. */
	const struct kg_hw_sample *x = n ? m->hw_samples + first : NULL;
	struct col t = {0}, d = {0};
	int64_t prev = p->zero;
	for (uint32_t i = 0; i < n; i++) {
		col_s(&t, kg_time_diff(x[i].start, prev));
		col_s(&d, kg_time_diff(x[i].end, x[i].start));
		prev = x[i].start;
	}
	j_open(w);
	kv_int(w, "dev", h->device);
	kv_int(w, "interval", h->interval_ns);
	kv_num(w, "ctxsw_mark", KG_HW_CTXSW_MARK_PCT); /* samples marked as context switches */
	kv_str(w, "chip", model_text(m, h->chip));
	kv_str(w, "state", model_text(m, h->state));
	kv_str(w, "note", model_text(m, h->note));
	kv_int(w, "lost", (long long)h->lost);
	kv_int(w, "rows", n);
	kv_col(w, "t", &t);
	kv_col(w, "d", &d);
	j_key(w, "figs");
	j_aopen(w);
	for (int f = 0; f < KG_HW_N; f++)
		write_hw_figure(w, x, n, f);
	j_aclose(w);
	j_close(w);
	col_free(&t);
	col_free(&d);
}

/* "hw": the hardware samples of each device that sampled (record --hw) or says why not. */
static void write_hw(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	j_key(w, "hw");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_hw_devices; i++)
		if (m->hw_devices[i].device < m->n_devices)
			write_hw_device(w, p, &m->hw_devices[i]);
	j_aclose(w);
}

/* ---------------------------------------------------------------- SM placement */

/* One device's blocks, sorted by (SM, start): t Δstart, d duration, s ΔSM, o Δop index (the
 * ops' rows), b block index; sms = the lanes to draw (the device's SMs, or more when a
 * block names a higher id). */
static void write_sm_device(struct jw *w, const struct page *p, uint32_t first, uint32_t n)
{
	const struct kg_model *m = p->m;
	const struct kg_sm_block *b = m->sm_blocks + first;
	uint32_t dev = m->streams[m->ops[b->op].stream].device, max_sm = 0;
	struct col t = {0}, d = {0}, s = {0}, o = {0}, k = {0};
	int64_t prev = p->zero, prev_op = 0;
	uint32_t prev_sm = 0;
	for (uint32_t i = 0; i < n; i++) {
		col_s(&t, kg_time_diff(b[i].start, prev));
		col_u(&d, (uint64_t)kg_time_span(b[i].end, b[i].start));
		col_u(&s, b[i].sm - prev_sm);
		col_s(&o, (int64_t)b[i].op - prev_op);
		col_u(&k, b[i].block);
		prev = b[i].start;
		prev_sm = b[i].sm;
		prev_op = b[i].op;
		max_sm = b[i].sm > max_sm ? b[i].sm : max_sm;
	}
	int sms = m->devices[dev].sm_count;
	const struct kg_sm_info *x = NULL;
	for (uint32_t i = 0; i < m->n_sm_infos && !x; i++)
		if (m->sm_infos[i].device == dev)
			x = &m->sm_infos[i];
	j_open(w);
	kv_int(w, "dev", dev);
	kv_int(w, "sms", sms > 0 && (uint32_t)sms > max_sm ? sms : (long long)max_sm + 1);
	kv_int(w, "rows", n);
	if (x && x->offset_mad != KG_NO_TIME)
		kv_int(w, "mad", x->offset_mad);
	kv_int(w, "dropped", x ? (long long)x->dropped : 0);
	kv_col(w, "t", &t);
	kv_col(w, "d", &d);
	kv_col(w, "s", &s);
	kv_col(w, "o", &o);
	kv_col(w, "b", &k);
	j_close(w);
	col_free(&t);
	col_free(&d);
	col_free(&s);
	col_free(&o);
	col_free(&k);
}

/* "sm": where the blocks of the kernels that logged them ran (record --sm), per device.
 * An SM id past 1023 is a damaged trace's: such blocks are left out. */
static void write_sm(struct jw *w, const struct page *p)
{
	const struct kg_model *m = p->m;
	j_key(w, "sm");
	j_aopen(w);
	for (uint32_t i = 0, n = 0; i < m->n_sm_blocks; i += n) {
		uint32_t dev = m->streams[m->ops[m->sm_blocks[i].op].stream].device;
		n = 0;
		while (i + n < m->n_sm_blocks && m->sm_blocks[i + n].sm < 1024 &&
		       m->streams[m->ops[m->sm_blocks[i + n].op].stream].device == dev)
			n++;
		if (n)
			write_sm_device(w, p, i, n);
		else
			n = 1; /* a block of a damaged SM id: skipped */
	}
	j_aclose(w);
}

/* The page's zero: the trace begin, or the first API call when no GPU work was seen. */
static int64_t page_zero(const struct kg_model *m)
{
	if (m->begin != KG_NO_TIME)
		return m->begin;
	int64_t z = KG_NO_TIME;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (z == KG_NO_TIME || m->apis[i].start < z)
			z = m->apis[i].start;
	return z == KG_NO_TIME ? 0 : z;
}

static int write_document(struct jw *w, struct page *p)
{
	int rc = build_host(p);
	if (!rc)
		rc = build_stacks(p);
	if (!rc)
		rc = build_names(p);
	if (!rc)
		rc = build_cfgs(p);
	if (!rc)
		rc = build_api_order(p);
	if (rc)
		return rc;
	j_open(w);
	write_meta(w, p);
	write_config(w, &p->a->cfg);
	write_processes(w, p);
	write_devices(w, p);
	write_streams(w, p);
	write_strings(w, p);
	write_cfgs(w, p);
	write_findings(w, p);
	write_stacks(w, p);
	write_sites(w, p);
	write_hw(w, p);
	write_sm(w, p);
	write_ops(w, p);
	write_apis(w, p);
	write_host(w, p);
	write_syncs(w, p);
	write_edges(w, p);
	write_steps(w, p);
	rc = write_ranges(w, p);
	j_close(w);
	return rc;
}

int view_html(FILE *f, const struct kg_analysis *a, const struct kg_view_opts *o)
{
	const char *tpl = (const char *)kg_view_template;
	const char *mark = memmem(tpl, kg_view_template_len, DATA_MARKER, strlen(DATA_MARKER));
	if (!mark)
		return -EINVAL;
	struct jw w;
	struct page p = {.a = a, .m = a->m, .o = o, .zero = page_zero(a->m)};
	if (fwrite(tpl, 1, (size_t)(mark - tpl), f) != (size_t)(mark - tpl))
		return -EIO;
	if (jw_begin_html(&w, f) < 0)
		return -ENOMEM;
	int rc = write_document(&w, &p);
	int nomem = w.nomem, failed = jw_end_html(&w) < 0;
	const char *rest = mark + strlen(DATA_MARKER);
	size_t tail = kg_view_template_len - (size_t)(rest - tpl);
	if (fwrite(rest, 1, tail, f) != tail)
		failed = 1;
	free(p.name_map);
	free(p.name_order);
	free(p.api_order);
	free(p.api_rank);
	free(p.cfg_of_op);
	free(p.cfgs);
	free(p.stack_map);
	free(p.stack_order);
	free(p.stack_user);
	free(p.stack_site);
	free(p.stack_frames);
	free(p.pframe_order);
	free(p.span_cause);
	free(p.calls);
	free(p.span_row);
	if (rc)
		return rc;
	if (nomem)
		return -ENOMEM;
	return failed || ferror(f) ? -EIO : 0;
}
