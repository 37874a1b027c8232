#include "trace/stack_import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/hooked_import.h"
#include "trace/pyline.h"
#include "trace/symbolize.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/idmap.h"
#include "util/pathfmt.h"
#include "util/stack_flags.h"

/* Frame kinds and stack flags as stored (model.h's enum kg_frame_kind, kg_stack_flags). */
enum { FRAME_NATIVE = 0, FRAME_PYTHON = 1 };

struct pycode {
	const char *filename, *qualname; /* the importer's strings: live until the end */
	int32_t firstlineno;
	const uint8_t *linetable;        /* inside the mapped spool */
	uint32_t linetable_len;
};

struct kg_stack_import {
	int have_settings;
	struct kg_raw_stack_settings settings;
	char *python;
	struct kg_raw_module *modules;
	char **module_paths;
	uint32_t nmod, capmod;
	struct kg_idmap codes;           /* code id → index in pycodes */
	struct pycode *pycodes;
	uint32_t npy, cappy;
	const struct kg_raw_stack **stacks; /* by record order; ids are the records' own */
	uint32_t nstack, capstack;
	struct kg_raw_callsite *calls;
	size_t ncall, capcall;
};

struct kg_stack_import *stack_import_new(void)
{
	return calloc(1, sizeof(struct kg_stack_import));
}

void stack_import_free(struct kg_stack_import *si)
{
	if (!si)
		return;
	for (uint32_t i = 0; i < si->nmod; i++)
		free(si->module_paths[i]);
	free(si->module_paths);
	free(si->modules);
	free(si->python);
	idmap_free(&si->codes);
	free(si->pycodes);
	free(si->stacks);
	free(si->calls);
	free(si);
}

int stack_import_settings(struct kg_stack_import *si, const struct kg_raw_stack_settings *r,
			  const char *python)
{
	uint32_t known = si->settings.python_version; /* from host samples' settings */
	si->have_settings = 1;
	si->settings = *r;
	if (!si->settings.python_version)
		si->settings.python_version = known;
	free(si->python);
	si->python = python ? strdup(python) : NULL;
	return python && !si->python ? -ENOMEM : 0;
}

int stack_import_python(struct kg_stack_import *si, uint32_t version)
{
	if (!si->settings.python_version)
		si->settings.python_version = version;
	return 0;
}

int stack_import_module(struct kg_stack_import *si, const struct kg_raw_module *r,
			const char *path)
{
	if (array_room((void **)&si->modules, &si->capmod, si->nmod, sizeof(*si->modules), 64) < 0)
		return -ENOMEM;
	uint32_t cap = si->capmod;
	char **paths = realloc(si->module_paths, cap * sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	si->module_paths = paths;
	paths[si->nmod] = strdup(path ? path : "");
	if (!paths[si->nmod])
		return -ENOMEM;
	si->modules[si->nmod++] = *r;
	return 0;
}

int stack_import_pycode(struct kg_stack_import *si, const struct kg_raw_pycode *r, size_t size,
			const char *filename, const char *qualname, char *err, size_t errlen)
{
	if (sizeof(*r) + (size_t)r->linetable_len > size) {
		snprintf(err, errlen, "Python code record: line table of %u bytes does not fit",
			 r->linetable_len);
		return -EINVAL;
	}
	if (array_room((void **)&si->pycodes, &si->cappy, si->npy, sizeof(*si->pycodes), 64) < 0)
		return -ENOMEM;
	uint32_t *slot = idmap_slot(&si->codes, r->id);
	if (!slot)
		return -ENOMEM;
	*slot = si->npy;
	struct pycode *c = &si->pycodes[si->npy++];
	c->filename = filename;
	c->qualname = qualname;
	c->firstlineno = r->firstlineno;
	c->linetable = (const uint8_t *)(r + 1);
	c->linetable_len = r->linetable_len;
	return 0;
}

int stack_import_stack(struct kg_stack_import *si, const struct kg_raw_stack *r, size_t size,
		       char *err, size_t errlen)
{
	size_t need = sizeof(*r) + ((size_t)r->n_native + r->n_python) * sizeof(uint64_t);
	if (need > size) {
		snprintf(err, errlen, "stack record: %u native and %u Python frames do not fit %zu bytes",
			 r->n_native, r->n_python, size);
		return -EINVAL;
	}
	if (array_room((void **)&si->stacks, &si->capstack, si->nstack, sizeof(*si->stacks), 64) < 0)
		return -ENOMEM;
	si->stacks[si->nstack++] = r;
	return 0;
}

int stack_import_callsites(struct kg_stack_import *si, const struct kg_raw_callsites *r,
			   size_t size, char *err, size_t errlen)
{
	if (sizeof(*r) + (size_t)r->count * sizeof(struct kg_raw_callsite) > size) {
		snprintf(err, errlen, "call-site record: %u entries do not fit %zu bytes", r->count,
			 size);
		return -EINVAL;
	}
	if (!r->count) /* nothing to keep; and no arithmetic on a table not yet made */
		return 0;
	if (si->ncall + r->count > si->capcall) {
		size_t cap = si->capcall ? si->capcall : 4096;
		while (cap < si->ncall + r->count)
			cap *= 2;
		struct kg_raw_callsite *c = realloc(si->calls, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		si->calls = c;
		si->capcall = cap;
	}
	memcpy(si->calls + si->ncall, r + 1, r->count * sizeof(*si->calls));
	si->ncall += r->count;
	return 0;
}

/* ------------------------------------------------------------------ writing */

struct writer {
	struct kg_import *im;
	struct kg_stack_import *si;
	int64_t process;
	struct kg_symbolizer *sym;
	sqlite3_stmt *stack_st, *frame_st, *call_st;
	int *interp;       /* by module: 1 when it is the Python interpreter */
};

static int sql_error(struct writer *w, const char *what)
{
	snprintf(w->im->err, sizeof(w->im->err), "cannot write '%s' (%s): %s", w->im->path,
		 what, sqlite3_errmsg(w->im->db));
	return -EIO;
}

static int run(struct writer *w, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_error(w, what);
}

static void bind_string(struct writer *w, sqlite3_stmt *st, int col, const char *text)
{
	int64_t id = text && *text ? import_string(w->im, text) : 0;
	if (id > 0)
		sqlite3_bind_int64(st, col, id);
	else
		sqlite3_bind_null(st, col);
}

static int write_settings(struct writer *w)
{
	static const char *const modes[] = {"off", "waits", "all"};
	const struct kg_raw_stack_settings *s = &w->si->settings;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(w->im->db, "INSERT OR REPLACE INTO stack_settings VALUES(?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_error(w, "stack_settings");
	sqlite3_bind_int64(st, 1, w->process);
	sqlite3_bind_text(st, 2, s->mode < 3 ? modes[s->mode] : "?", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, s->launch_first);
	sqlite3_bind_int64(st, 4, s->launch_every);
	sqlite3_bind_int64(st, 5, s->max_depth);
	if (w->si->python)
		sqlite3_bind_text(st, 6, w->si->python, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(w, "stack_settings");
}

static int is_interpreter(const char *path)
{
	const char *base = path_base(path);
	return !strncmp(base, "libpython", 9) || !strncmp(base, "python", 6);
}

static int write_modules(struct writer *w)
{
	struct kg_stack_import *si = w->si;
	sqlite3_stmt *st;
	w->interp = calloc((size_t)si->nmod + 1, sizeof(*w->interp));
	if (!w->interp)
		return -ENOMEM;
	for (uint32_t i = 0; i < si->nmod; i++) {
		const struct kg_raw_module *m = &si->modules[i];
		if (symbolizer_add_module(w->sym, si->module_paths[i], m->base, m->low, m->high,
					  m->build_id, m->build_id_len) < 0)
			return -ENOMEM;
		w->interp[i] = is_interpreter(si->module_paths[i]);
	}
	if (sqlite3_prepare_v2(w->im->db, "INSERT INTO modules VALUES(?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_error(w, "modules");
	int rc = 0;
	for (uint32_t i = 0; !rc && i < si->nmod; i++) {
		const struct kg_raw_module *m = &si->modules[i];
		char id[2 * sizeof(m->build_id) + 1] = "";
		for (uint32_t k = 0; k < m->build_id_len && k < sizeof(m->build_id); k++)
			snprintf(id + 2 * k, 3, "%02x", m->build_id[k]);
		sqlite3_bind_int64(st, 1, w->process);
		sqlite3_bind_text(st, 2, si->module_paths[i], -1, SQLITE_STATIC);
		if (id[0])
			sqlite3_bind_text(st, 3, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 4, (int64_t)m->base);
		sqlite3_bind_int64(st, 5, (int64_t)m->low);
		sqlite3_bind_int64(st, 6, (int64_t)m->high);
		/* what the file offers is only known once a stack needed it */
		rc = run(w, st, "modules");
	}
	sqlite3_finalize(st);
	return rc;
}

static int write_frame(struct writer *w, int64_t stack, int depth, int kind, const char *function,
		       const char *file, int line, const char *module, int64_t address)
{
	sqlite3_stmt *st = w->frame_st;
	sqlite3_bind_int64(st, 1, stack);
	sqlite3_bind_int64(st, 2, depth);
	sqlite3_bind_int64(st, 3, kind);
	bind_string(w, st, 4, function);
	bind_string(w, st, 5, file);
	if (line > 0)
		sqlite3_bind_int64(st, 6, line);
	bind_string(w, st, 7, module);
	if (address >= 0)
		sqlite3_bind_int64(st, 8, address);
	return run(w, st, "stack_frames");
}

static int write_python_frames(struct writer *w, int64_t stack, int *depth,
			       const struct kg_raw_pyframe *py, uint32_t n)
{
	unsigned version = w->si->settings.python_version;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = idmap_get(&w->si->codes, py[i].code);
		const struct pycode *c = k != KG_IDMAP_NONE ? &w->si->pycodes[k] : NULL;
		int line = c ? pyline_line(version, c->linetable, c->linetable_len, c->firstlineno,
					   py[i].lasti)
			     : 0;
		int rc = write_frame(w, stack, (*depth)++, FRAME_PYTHON,
				     c ? c->qualname : "<unreadable Python frame>",
				     c ? c->filename : NULL, line, NULL, -1);
		if (rc)
			return rc;
	}
	return 0;
}

static int stack_module_is_interpreter(struct writer *w, uint64_t ip)
{
	struct kg_symbol s;
	int k = 0;
	symbolizer_lookup(w->sym, ip, &s, 1, &k);
	return s.module >= 0 && w->interp[s.module];
}

/* Did the unwinder reach the thread's first frame? libgcc's unwinder also stops quietly
 * where code has no unwind tables, so a stack that ends anywhere else is partial: the
 * outermost frames are in the C library (__libc_start_main, then _start of the
 * executable; clone3 for other threads) or named so. */
static int at_thread_start(struct writer *w, const uint64_t *ips, uint32_t n)
{
	static const char *const roots[] = {"_start", "__libc_start_main", "__libc_start_call_main",
					    "clone", "clone3", "__clone", "__clone3", "start_thread"};
	for (uint32_t i = n > 2 ? n - 2 : 0; i < n; i++) {
		struct kg_symbol s;
		int k = 0;
		symbolizer_lookup(w->sym, ips[i], &s, 1, &k);
		if (s.module >= 0) {
			const char *path = w->si->module_paths[s.module];
			const char *base = path_base(path);
			if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5))
				return 1;
		}
		for (size_t r = 0; s.function && r < sizeof(roots) / sizeof(roots[0]); r++)
			if (!strcmp(s.function, roots[r]))
				return 1;
	}
	return 0;
}

/* The Python frames, after the garbage collector's frame when the sample says it ran
 * (KG_RAW_IP_PYTHON_GC): the collector is what those frames were running. */
static int write_python_part(struct writer *w, int64_t stack, int *depth, int gc,
			     const struct kg_raw_pyframe *py, uint32_t n)
{
	if (gc) {
		int rc = write_frame(w, stack, (*depth)++, FRAME_NATIVE, "<gc>", NULL, 0, NULL, -1);
		if (rc)
			return rc;
	}
	return write_python_frames(w, stack, depth, py, n);
}

/* One stack: native frames innermost first, the Python frames placed where the
 * interpreter's own frames begin (what ran them), then the rest. */
static int write_stack(struct writer *w, const struct kg_raw_stack *r, int64_t id)
{
	const uint64_t *ips = (const uint64_t *)(r + 1);
	const struct kg_raw_pyframe *py = (const struct kg_raw_pyframe *)(ips + r->n_native);
	int gc = r->n_native && ips[r->n_native - 1] == KG_RAW_IP_PYTHON_GC;
	uint32_t n_native = r->n_native - (uint32_t)gc;
	int depth = 0, rc = 0, python_done = r->n_python == 0 && !gc;
	for (uint32_t i = 0; !rc && i < n_native; i++) {
		struct kg_symbol s[16];
		int n = 0;
		symbolizer_lookup(w->sym, ips[i], s, 16, &n);
		if (!python_done && s[0].module >= 0 && w->interp[s[0].module]) {
			rc = write_python_part(w, id, &depth, gc, py, r->n_python);
			python_done = 1;
		}
		for (int k = 0; !rc && k < n; k++)
			rc = write_frame(w, id, depth++, FRAME_NATIVE, s[k].function, s[k].file,
					 s[k].line,
					 s[k].module >= 0 ? w->si->module_paths[s[k].module] : NULL,
					 (int64_t)s[k].offset);
	}
	if (!rc && !python_done)
		rc = write_python_part(w, id, &depth, gc, py, r->n_python);
	if (rc)
		return rc;
	uint32_t flags = r->flags & ~(uint32_t)KG_STACK_PARTIAL; /* decided here, below */
	/* a stack with Python frames ends, by design, at the interpreter's first frame (or
	 * at the collector's, which stands for the interpreter) */
	int at_python = gc || (r->n_python && n_native &&
				stack_module_is_interpreter(w, ips[n_native - 1]));
	if (!(flags & KG_STACK_TRUNCATED) && n_native && !at_python &&
	    !at_thread_start(w, ips, n_native))
		flags |= KG_STACK_PARTIAL;
	sqlite3_bind_int64(w->stack_st, 1, id);
	sqlite3_bind_int64(w->stack_st, 2, w->process);
	sqlite3_bind_int64(w->stack_st, 3, flags);
	sqlite3_bind_int64(w->stack_st, 4, depth);
	return run(w, w->stack_st, "stacks");
}

static int write_symbols(struct writer *w)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(w->im->db, "UPDATE modules SET symbols = ? WHERE process = ? AND "
					  "path = ? AND base = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_error(w, "modules");
	int rc = 0;
	for (uint32_t i = 0; !rc && i < w->si->nmod; i++) {
		enum kg_symbols s;
		if (!symbolizer_module_symbols(w->sym, (int)i, &s))
			continue; /* no stack reached into it: its file was not read */
		w->im->stack_modules++;
		sqlite3_bind_text(st, 1, symbols_name(s), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, w->process);
		sqlite3_bind_text(st, 3, w->si->module_paths[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (int64_t)w->si->modules[i].base);
		rc = run(w, st, "modules");
	}
	sqlite3_finalize(st);
	return rc;
}

void stack_import_recorrelate(struct kg_stack_import *si, const struct kg_hooked_import *h)
{
	for (size_t i = 0; si && i < si->ncall; i++)
		si->calls[i].correlation = hooked_import_correlation(h, si->calls[i].correlation);
}

int stack_import_write(struct kg_stack_import *si, struct kg_import *im, int64_t process)
{
	if (!si || (!si->have_settings && !si->nstack))
		return 0;
	uint64_t t0 = now_raw_ns();
	struct writer w = {.im = im, .si = si, .process = process, .sym = symbolizer_new()};
	int rc = w.sym ? 0 : -ENOMEM;
	if (!rc && si->have_settings)
		rc = write_settings(&w);
	if (!rc)
		rc = write_modules(&w);
	if (!rc &&
	    (sqlite3_prepare_v2(im->db, "INSERT OR REPLACE INTO stacks VALUES(?,?,?,?)", -1,
				&w.stack_st, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(im->db, "INSERT OR REPLACE INTO stack_frames VALUES(?,?,?,?,?,?,?,?)",
				-1, &w.frame_st, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(im->db, "INSERT OR REPLACE INTO api_stacks VALUES(?,?,?)", -1,
				&w.call_st, NULL) != SQLITE_OK))
		rc = sql_error(&w, "stacks");
	/* the spool's ids are per process; the trace's go on from the processes before */
	int64_t base = im->stacks_written;
	uint32_t max_id = 0;
	for (uint32_t i = 0; !rc && i < si->nstack; i++) {
		rc = write_stack(&w, si->stacks[i], base + si->stacks[i]->id);
		if (si->stacks[i]->id > max_id)
			max_id = si->stacks[i]->id;
	}
	for (size_t i = 0; !rc && i < si->ncall; i++) {
		sqlite3_bind_int64(w.call_st, 1, process);
		sqlite3_bind_int64(w.call_st, 2, si->calls[i].correlation);
		sqlite3_bind_int64(w.call_st, 3, base + si->calls[i].stack);
		rc = run(&w, w.call_st, "api_stacks");
	}
	if (!rc)
		rc = write_symbols(&w);
	im->stacks_written = base + max_id;
	if (rc == -ENOMEM && !im->err[0])
		snprintf(im->err, sizeof(im->err), "out of memory writing the stacks of '%s'",
			 im->path);
	sqlite3_finalize(w.stack_st);
	sqlite3_finalize(w.frame_st);
	sqlite3_finalize(w.call_st);
	symbolizer_free(w.sym);
	free(w.interp);
	im->stacks_ns += now_raw_ns() - t0;
	return rc;
}
