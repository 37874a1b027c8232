/* The program's loaded modules as /proc/self/maps lists them, for the recorder's own
 * threads while the program runs. Not dl_iterate_phdr: glibc (2.39 on the H200's Ubuntu)
 * reads each module's TLS block for it (_dl_tls_get_addr_soft), and on a thread whose TLS
 * vector is behind the loader's (the recorder's threads never touch the program's TLS)
 * it walks the loader's slot lists to a module another thread is still loading and reads
 * through a NULL link: a transformers program died so, on the host sampler's thread, in 4
 * of 15 runs. Reading /proc/self/maps takes no loader lock, no malloc and cannot fault.
 * dl_iterate_phdr stays only for counting loads (maps_loads: the walk stops at the first
 * module, the program itself, whose TLS is always whole). */
#ifndef KGANTT_RECORDER_MAPS_H
#define KGANTT_RECORDER_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* One line of /proc/self/maps. */
struct kg_map {
	uintptr_t lo, hi;   /* [lo, hi) */
	uint64_t offset;    /* in the file */
	int exec;           /* mapped executable */
	const char *path;   /* "" anonymous; "[vdso]" and the like; valid during the call */
};

/* Calls fn for each mapping in address order until it returns nonzero; 0, or -errno when
 * /proc/self/maps cannot be read. */
int maps_each(int (*fn)(const struct kg_map *m, void *arg), void *arg);

/* The loader's count of modules added and removed, as dl_iterate_phdr gives them. */
void maps_loads(unsigned long long *adds, unsigned long long *subs);

/* A file's consecutive mappings: a loaded module (its .bss, anonymous, is not counted). */
struct kg_module_map {
	uintptr_t lo, hi;    /* from its lowest mapping to its highest */
	uintptr_t offset0;   /* where its file offset 0 is mapped, 0 nowhere */
	int exec;            /* one of them is executable */
	const char *path;    /* valid during the call */
};

/* Calls fn for each module mapped from a file (a path starting with '/'), in address
 * order, until it returns nonzero; 0, or -errno when /proc/self/maps cannot be read. */
int maps_modules(int (*fn)(const struct kg_module_map *mod, void *arg), void *arg);

/* The module mapped at addr, its path copied into path (cap bytes; mod->path points
 * there). 0, -ENOENT when no file is mapped there, or -errno. */
int maps_module_at(uintptr_t addr, struct kg_module_map *mod, char *path, size_t cap);

/* A module's load bias (runtime address = file's virtual address + bias) and GNU build id,
 * read from its file: offset0 is where its file offset 0 is mapped. Returns the build id's
 * length (0 none) or -errno; *bias is set whenever the ELF header could be read. */
int maps_elf_info(const char *path, uintptr_t offset0, uint64_t *bias, uint8_t *build_id,
		  uint32_t cap);

#endif
