/* Symbolisation with elfutils' libdwfl (see symbolize.h). Each module gets its own Dwfl,
 * opened at its first lookup: a PyTorch process maps hundreds of libraries and its
 * stacks touch a few dozen. Results are cached per address: stacks share most frames.
 *
 * Function names come from a sorted index of each module's function symbols, made once
 * per module and searched by halves: libdwfl's dwfl_module_addrname reads the whole symbol
 * table at every call, which for PyTorch's libraries (hundreds of thousands of symbols)
 * made symbolising one GPT step's 600 call stacks take 6.5 s on the H200. */
#include "trace/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/demangle.h"
#include "util/idmap.h"
#include "util/strtab.h"

/* A symbol of a module's index: code and data, as libdwfl looks them up. */
struct fsym {
	uint64_t addr, size;
	const char *name;         /* in the module's ELF string table, valid while it is open */
	uint32_t index;           /* in the symbol table: the first wins a tie */
	uint32_t shndx;           /* its section */
	uint8_t binding;          /* 3 global, 2 weak, 1 local, 0 other: the higher wins */
};

/* The index of the section pc lies in, SHN_UNDEF when none. */
static uint32_t section_of(Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_Addr a = pc, bias;
	Elf_Scn *scn = dwfl_module_address_section(mod, &a, &bias);
	return scn ? (uint32_t)elf_ndxscn(scn) : SHN_UNDEF;
}

struct module {
	char *path;
	uint64_t base, low, high;
	uint8_t build_id[32];
	uint32_t build_id_len;
	int opened;               /* 1 once the file was looked at */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	enum kg_symbols symbols;
	struct fsym *funcs;       /* its function symbols, by address; built at first lookup */
	uint32_t nfuncs;
	int indexed;
};

/* One frame of an address: its function and line, or of a call inlined there. */
struct cframe {
	uint32_t function, file;  /* ids in names, 0 none */
	int line;
};

/* What an address resolved to: frames[first .. first + n], innermost first (the inlined
 * calls, then the function the code was inlined into). */
struct cached {
	int module;
	uint32_t first, n;
};

struct kg_symbolizer {
	struct module *mods;
	uint32_t n, cap;
	struct kg_strtab names;   /* functions and files, so results stay valid */
	struct kg_idmap by_addr;  /* address → index in cache */
	struct cached *cache;
	uint32_t ncache, capcache;
	struct cframe *frames;
	uint32_t nframes, capframes;
};

static char *debuginfo_path = NULL;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

const char *symbols_name(enum kg_symbols s)
{
	static const char *const names[] = {"none", "mismatch", "dynamic", "functions", "lines"};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "none";
}

struct kg_symbolizer *symbolizer_new(void)
{
	struct kg_symbolizer *s = calloc(1, sizeof(*s));
	if (s)
		strtab_init(&s->names);
	return s;
}

void symbolizer_free(struct kg_symbolizer *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->mods[i].dwfl)
			dwfl_end(s->mods[i].dwfl);
		free(s->mods[i].path);
		free(s->mods[i].funcs);
	}
	free(s->mods);
	strtab_free(&s->names);
	idmap_free(&s->by_addr);
	free(s->cache);
	free(s->frames);
	free(s);
}

int symbolizer_add_module(struct kg_symbolizer *s, const char *path, uint64_t base, uint64_t low,
			  uint64_t high, const uint8_t *build_id, uint32_t build_id_len)
{
	if (array_room((void **)&s->mods, &s->cap, s->n, sizeof(*s->mods), 64) < 0)
		return -ENOMEM;
	struct module *m = &s->mods[s->n];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path ? path : "");
	if (!m->path)
		return -ENOMEM;
	m->base = base;
	m->low = low;
	m->high = high;
	m->build_id_len = build_id_len < sizeof(m->build_id) ? build_id_len : sizeof(m->build_id);
	if (build_id)
		memcpy(m->build_id, build_id, m->build_id_len);
	return (int)s->n++;
}

/* Does the ELF file have a section of this type (a full .symtab)? */
static int has_section(Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return 1;
	}
	return 0;
}

static void open_module(struct module *m)
{
	m->opened = 1;
	m->symbols = KG_SYMBOLS_NONE;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, m->path, m->path, -1, m->base, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod)
		return;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(m->mod, &bits, &vaddr);
	if (m->build_id_len && len > 0 &&
	    ((uint32_t)len != m->build_id_len || memcmp(bits, m->build_id, (size_t)len) != 0)) {
		/* the file was rebuilt or replaced since the program ran: its symbols lie */
		m->symbols = KG_SYMBOLS_MISMATCH;
		m->mod = NULL;
		return;
	}
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	if (dwfl_module_getdwarf(m->mod, &bias))
		m->symbols = KG_SYMBOLS_LINES;
	else if (elf && has_section(elf, SHT_SYMTAB))
		m->symbols = KG_SYMBOLS_FUNCTIONS;
	else
		m->symbols = KG_SYMBOLS_DYNAMIC;
}

int symbolizer_module_symbols(struct kg_symbolizer *s, int module, enum kg_symbols *out)
{
	if (module < 0 || (uint32_t)module >= s->n || !s->mods[module].opened)
		return 0;
	*out = s->mods[module].symbols;
	return 1;
}

static int module_of(const struct kg_symbolizer *s, uint64_t addr)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (addr >= s->mods[i].low && addr < s->mods[i].high)
			return (int)i;
	return -1;
}

static uint32_t name_id(struct kg_symbolizer *s, const char *text)
{
	return text && *text ? strtab_intern(&s->names, text, strlen(text), NULL) : 0;
}

static int add_frame(struct kg_symbolizer *s, uint32_t function, uint32_t file, int line)
{
	if (array_room((void **)&s->frames, &s->capframes, s->nframes, sizeof(*s->frames), 1024) < 0)
		return -ENOMEM;
	s->frames[s->nframes++] = (struct cframe){function, file, line > 0 ? line : 0};
	return 0;
}

/* A symbol name as it should read: without its version ("memcpy@@GLIBC_2.14"),
 * demangled. */
static uint32_t function_id(struct kg_symbolizer *s, const char *sym)
{
	if (!sym || !*sym)
		return 0;
	char plain[1024];
	const char *at = strchr(sym, '@');
	if (at && at != sym && (size_t)(at - sym) < sizeof(plain)) {
		memcpy(plain, sym, (size_t)(at - sym));
		plain[at - sym] = '\0';
		sym = plain;
	}
	char *dem = demangle(sym);
	uint32_t id = name_id(s, dem ? dem : sym);
	free(dem);
	return id;
}

/* The name of a function's DIE: its linkage name (demangled) when it has one, which
 * carries the namespaces and class, else its plain name. */
static uint32_t die_function(struct kg_symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return function_id(s, name);
}

/* The inlined calls at pc, innermost first, as addr2line -i gives them: the innermost
 * frame is the inlined function at pc's own line; each next one is the function it was
 * inlined into, at the line of the inlined call. Returns frames added, 0 when the DWARF
 * has no scopes for pc (then the caller uses the symbol table). */
static int inline_frames(struct kg_symbolizer *s, Dwfl_Module *mod, Dwarf_Addr pc,
			 uint32_t file, int line)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, pc, &bias);
	Dwarf_Die *scopes = NULL;
	int n = cudie ? dwarf_getscopes(cudie, pc - bias, &scopes) : -1;
	if (n <= 0) {
		free(scopes);
		return 0;
	}
	/* dwarf_getscopes follows an inlined function into its abstract definition; the
	 * chain of calls is the physical nesting of the innermost scope's DIE instead */
	Dwarf_Die inner = scopes[0];
	free(scopes);
	scopes = NULL;
	n = dwarf_getscopes_die(&inner, &scopes);
	if (n <= 0) {
		free(scopes);
		return 0;
	}
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
		files = NULL;
	int added = 0;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (add_frame(s, die_function(s, &scopes[i]), file, line) < 0)
			break;
		added++;
		if (tag == DW_TAG_subprogram)
			break; /* the function the code belongs to: the rest are its own scopes */
		/* the caller's frame is at the inlined call's own place */
		Dwarf_Attribute attr;
		Dwarf_Word f = 0, l = 0;
		file = 0;
		line = 0;
		if (dwarf_attr(&scopes[i], DW_AT_call_file, &attr) && dwarf_formudata(&attr, &f) == 0 &&
		    files && f < nfiles)
			file = name_id(s, dwarf_filesrc(files, f, NULL, NULL));
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &attr) && dwarf_formudata(&attr, &l) == 0)
			line = (int)l;
	}
	free(scopes);
	return added;
}

static int by_addr(const void *x, const void *y)
{
	const struct fsym *a = x, *b = y;
	if (a->addr != b->addr)
		return (a->addr > b->addr) - (a->addr < b->addr);
	return (a->index > b->index) - (a->index < b->index);
}

static uint8_t binding_value(int bind)
{
	return bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL ? 1 : 0;
}

/* The module's symbols (its .symtab, else .dynsym; not sections, files, thread-local or
 * absolute ones), sorted by address. Out of memory, the index stays empty: names are then unknown,
 * not wrong. */
static void index_functions(struct module *m)
{
	m->indexed = 1;
	int n = dwfl_module_getsymtab(m->mod);
	if (n <= 1 || !(m->funcs = malloc((size_t)n * sizeof(*m->funcs))))
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		/* (absolute symbols, such as version names, stand for no code) */
		if (name && *name && shndx != SHN_UNDEF && shndx < SHN_LORESERVE &&
		    type != STT_SECTION && type != STT_FILE && type != STT_TLS)
			m->funcs[m->nfuncs++] = (struct fsym){addr, sym.st_size, name, (uint32_t)i,
							      shndx, binding_value(GELF_ST_BIND(sym.st_info))};
	}
	qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), by_addr);
}

#define FUNCS_LOOKED_BACK 64 /* symbols below pc looked at */

/* Whether a is a better name for an address both cover than b, as libdwfl chooses: a
 * global or weak symbol over a local one, then the nearer start, the stronger binding,
 * the smaller size, the first in the table. */
static int better(const struct fsym *a, const struct fsym *b)
{
	if ((a->binding > 1) != (b->binding > 1))
		return a->binding > 1;
	if (a->addr != b->addr)
		return a->addr > b->addr;
	if (a->binding != b->binding)
		return a->binding > b->binding;
	if (a->size != b->size)
		return a->size < b->size;
	return a->index < b->index;
}

/* The symbol pc falls in: the best of those below pc whose size covers it; else, when
 * none does, the nearest below it without a size (an assembly routine) in pc's section
 * that no sized symbol ends above; NULL when none, as dwfl_module_addrname says. */
static const char *function_at(struct module *m, uint64_t pc)
{
	if (!m->indexed)
		index_functions(m);
	uint32_t lo = 0, hi = m->nfuncs;
	while (lo < hi) { /* the first symbol above pc */
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->funcs[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct fsym *best = NULL, *sizeless = NULL;
	uint64_t ended = 0; /* the highest end of a symbol below pc */
	for (uint32_t k = lo, seen = 0; k-- > 0 && seen < FUNCS_LOOKED_BACK; seen++) {
		const struct fsym *f = &m->funcs[k];
		if (f->size && pc - f->addr < f->size) {
			if (!best || better(f, best))
				best = f;
		} else if (!f->size && (!sizeless || (f->addr == sizeless->addr &&
						     f->binding > sizeless->binding))) {
			sizeless = f;
		}
		if (f->addr + f->size > ended)
			ended = f->addr + f->size;
	}
	if (best)
		return best->name;
	return sizeless && sizeless->addr >= ended && sizeless->shndx == section_of(m->mod, pc)
		       ? sizeless->name
		       : NULL;
}

static void resolve(struct kg_symbolizer *s, uint64_t addr, struct cached *c)
{
	memset(c, 0, sizeof(*c));
	c->first = s->nframes;
	c->module = module_of(s, addr);
	if (c->module < 0)
		return;
	struct module *m = &s->mods[c->module];
	if (!m->opened)
		open_module(m);
	if (!m->mod) {
		c->n = add_frame(s, 0, 0, 0) == 0;
		return;
	}
	/* addr is a return address: the call is the instruction before it */
	Dwarf_Addr pc = addr - 1;
	uint32_t file = 0;
	int line = 0;
	Dwfl_Line *dl = dwfl_module_getsrc(m->mod, pc);
	if (dl) {
		const char *f = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
		file = name_id(s, f);
	}
	int n = m->symbols == KG_SYMBOLS_LINES ? inline_frames(s, m->mod, pc, file, line) : 0;
	if (n > 0) {
		c->n = (uint32_t)n;
		return;
	}
	c->n = add_frame(s, function_id(s, function_at(m, pc)), file, line) == 0;
}

void symbolizer_lookup(struct kg_symbolizer *s, uint64_t addr, struct kg_symbol *out, int max,
		       int *n)
{
	struct cached local, *c = &local;
	uint32_t *slot = idmap_slot(&s->by_addr, addr);
	if (slot && *slot != KG_IDMAP_NONE) {
		c = &s->cache[*slot];
	} else {
		resolve(s, addr, &local);
		if (slot && array_room((void **)&s->cache, &s->capcache, s->ncache, sizeof(*s->cache),
				       1024) == 0) {
			s->cache[s->ncache] = local;
			*slot = s->ncache++;
		}
	}
	int k = 0;
	for (uint32_t i = 0; i < c->n && k < max; i++, k++) {
		const struct cframe *f = &s->frames[c->first + i];
		out[k].module = c->module;
		out[k].offset = c->module >= 0 ? addr - s->mods[c->module].base : addr;
		out[k].function = f->function ? strtab_get(&s->names, f->function) : NULL;
		out[k].file = f->file ? strtab_get(&s->names, f->file) : NULL;
		out[k].line = f->line;
		out[k].inlined = i + 1 < c->n;
	}
	if (k == 0 && max > 0) { /* no module covers addr */
		out[0] = (struct kg_symbol){.module = c->module, .offset = addr};
		k = 1;
	}
	*n = k;
}
