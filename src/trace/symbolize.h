/* Addresses of a finished program → functions, source files and lines, from the files of
 * the modules it had loaded (elfutils' libdwfl: ELF symbol tables, DWARF line tables,
 * separate debug files found by build id). Used by the importer after the program ended,
 * never inside it.
 *
 *   struct kg_symbolizer *s = symbolizer_new();
 *   symbolizer_add_module(s, "/usr/lib/libfoo.so", base, low, high, id, idlen);
 *   symbolizer_lookup(s, addr, &sym);
 *   symbolizer_free(s);
 */
#ifndef KGANTT_SYMBOLIZE_H
#define KGANTT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

/* How much a module's file tells. */
enum kg_symbols {
	KG_SYMBOLS_NONE = 0,      /* no file: addresses only */
	KG_SYMBOLS_MISMATCH,      /* the file is not the one that ran (other build id) */
	KG_SYMBOLS_DYNAMIC,       /* exported functions only (a stripped file) */
	KG_SYMBOLS_FUNCTIONS,     /* a full symbol table, no line numbers */
	KG_SYMBOLS_LINES,         /* functions and source lines (DWARF) */
};
const char *symbols_name(enum kg_symbols s);

struct kg_symbol {
	int module;               /* index of the module (order of adding), -1 none */
	uint64_t offset;          /* address relative to the module's load address */
	const char *function;     /* demangled; NULL unknown. Valid until symbolizer_free */
	const char *file;         /* NULL unknown */
	int line;                 /* 0 unknown */
	int inlined;              /* a call inlined into the next frame (same address) */
};

struct kg_symbolizer;

struct kg_symbolizer *symbolizer_new(void);
void symbolizer_free(struct kg_symbolizer *s);
/* A module loaded at bias `base`, covering runtime addresses [low, high). Returns its
 * index, or -ENOMEM. A file that cannot be read is kept, with no symbols. */
int symbolizer_add_module(struct kg_symbolizer *s, const char *path, uint64_t base, uint64_t low,
			  uint64_t high, const uint8_t *build_id, uint32_t build_id_len);
/* What the module's file offered: 1 and *out set when a lookup needed the file, 0 when no
 * address fell in the module (its file was not opened). */
int symbolizer_module_symbols(struct kg_symbolizer *s, int module, enum kg_symbols *out);
/* The frames of the return address addr (the call before it): the functions inlined
 * there, innermost first, then the function they were inlined into, each with its file
 * and line; at most max, at least one (module -1 when no module covers addr). */
void symbolizer_lookup(struct kg_symbolizer *s, uint64_t addr, struct kg_symbol *out, int max,
		       int *n);

#endif
