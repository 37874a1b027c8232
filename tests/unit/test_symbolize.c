/* trace/symbolize.c names a function from its own sorted index of each module's symbols;
 * libdwfl's dwfl_module_addrname, which it replaced (it reads the whole symbol table at
 * every call: seconds for PyTorch's libraries), is the reference: the same name for every
 * address of the code, aliases, assembly routines without a size and addresses in no
 * function included, in this test binary without its DWARF (a full .symtab: objcopy
 * --strip-debug of it) and in libc (its exported symbols, unless a debug package gives
 * it DWARF, when the names are the DWARF's and are not compared). */
#include "harness.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <link.h>

#include "trace/symbolize.h"
#include "util/demangle.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The executable part of a loaded module: its first PT_LOAD with PF_X. */
struct found {
	const char *want; /* a path suffix, or "" for the executable */
	char path[4096];
	uint64_t base, lo, hi;
};

static int find(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct found *f = arg;
	const char *name = info->dlpi_name;
	size_t n = strlen(name), w = strlen(f->want);
	if (f->path[0] || (w ? n < w || strcmp(name + n - w, f->want) : n != 0))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			f->base = info->dlpi_addr;
			f->lo = info->dlpi_addr + ph->p_vaddr;
			f->hi = f->lo + ph->p_memsz;
			if (!w && readlink("/proc/self/exe", f->path, sizeof(f->path) - 1) < 0)
				return 0;
			if (w)
				snprintf(f->path, sizeof(f->path), "%s", name);
			return 1;
		}
	}
	return 0;
}

/* Every name the index gives for n addresses of the loaded module `want` equals libdwfl's,
 * both reading the file `file` (the module's own when NULL). */
static void same_names(const char *want, const char *file, int n)
{
	struct found f = {.want = want};
	dl_iterate_phdr(find, &f);
	CHECK(f.path[0]);
	if (file)
		snprintf(f.path, sizeof(f.path), "%s", file);
	struct kg_symbolizer *s = symbolizer_new();
	CHECK(symbolizer_add_module(s, f.path, f.base, f.lo, f.hi, NULL, 0) == 0);
	Dwfl *dwfl = dwfl_begin(&callbacks);
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, f.path, f.path, -1, f.base, false);
	dwfl_report_end(dwfl, NULL, NULL);
	CHECK(mod != NULL);
	int named = 0, compared = 0;
	enum kg_symbols kind = KG_SYMBOLS_NONE;
	for (int k = 0; k < n; k++) {
		uint64_t addr = f.lo + 1 + (uint64_t)((double)(f.hi - f.lo - 1) * k / n);
		struct kg_symbol sym[16];
		int got;
		symbolizer_lookup(s, addr, sym, 16, &got);
		CHECK(got >= 1);
		CHECK(symbolizer_module_symbols(s, 0, &kind));
		if (kind == KG_SYMBOLS_LINES)
			continue; /* named from DWARF: not the index's */
		compared++;
		const char *ours = sym[0].function;
		const char *ref = dwfl_module_addrname(mod, addr - 1);
		char *dem = ref ? demangle(ref) : NULL;
		const char *want_name = dem ? dem : ref;
		{
			if (!want_name || !ours) {
				if (want_name != ours)
					fprintf(stderr, "    %#lx: ours %s, libdwfl %s\n", (unsigned long)addr,
						ours ? ours : "none", want_name ? want_name : "none");
				CHECK(!want_name == !ours);
			} else {
				size_t len = strcspn(want_name, "@"); /* without a version */
				if (strncmp(ours, want_name, len) != 0)
					fprintf(stderr, "    %#lx: ours %s, libdwfl %s\n", (unsigned long)addr,
						ours, want_name);
				CHECK(strncmp(ours, want_name, len) == 0);
				named++;
			}
		}
		free(dem);
	}
	if (kind == KG_SYMBOLS_LINES)
		fprintf(stderr, "    %s has DWARF (a debug package): its names are not compared\n",
			f.path);
	else
		CHECK(compared == n && named > n / 4);
	dwfl_end(dwfl);
	symbolizer_free(s);
}

/* The loaded module `want` compared through a copy of its file with objcopy's `how`. */
static void same_names_in_copy(const char *want, const char *how)
{
	struct found f = {.want = want};
	dl_iterate_phdr(find, &f);
	CHECK(f.path[0]);
	char dir[] = "/tmp/kgantt-sym-XXXXXX", copy[4200], cmd[8600];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	snprintf(cmd, sizeof(cmd), "objcopy %s '%s' '%s'", how, f.path, copy);
	CHECK(system(cmd) == 0);
	same_names(want, copy, 3000);
	unlink(copy);
	rmdir(dir);
}

TEST(functions_are_named_as_libdwfl_names_them_in_this_binary_without_dwarf)
{
	same_names_in_copy("", "--strip-debug");
}

/* libc's exported symbols: aliases at one address, assembly routines; its build id and
 * debug link removed so that no debug package gives it DWARF */
TEST(functions_are_named_as_libdwfl_names_them_in_libc)
{
	same_names_in_copy("libc.so.6", "--strip-debug --remove-section=.note.gnu.build-id "
					"--remove-section=.gnu_debuglink");
}
