/* The recorder's modules from /proc/self/maps (src/recorder/maps.c), which its threads use
 * instead of dl_iterate_phdr while the program runs (recorder/maps.h says why): the same
 * modules, load biases and build ids as the loader gives, asked here on the only thread. */
#include "harness.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <unistd.h>

#include "recorder/maps.h"

struct counted {
	int n, ordered;
	uintptr_t last_hi;
};

static int count_map(const struct kg_map *m, void *arg)
{
	struct counted *c = arg;
	c->ordered &= m->lo >= c->last_hi && m->hi > m->lo;
	c->last_hi = m->hi;
	c->n++;
	return 0;
}

TEST(every_line_of_the_maps_is_read_in_order)
{
	FILE *f = fopen("/proc/self/maps", "r");
	CHECK(f != NULL);
	int lines = 0, ch;
	while ((ch = fgetc(f)) != EOF)
		lines += ch == '\n';
	fclose(f);
	struct counted c = {.ordered = 1};
	CHECK(maps_each(count_map, &c) == 0);
	CHECK(c.ordered);
	/* the two reads are a moment apart: the sanitizers' mappings may differ by a few */
	CHECK(c.n > 10 && abs(c.n - lines) <= 4);
}

/* What the loader says of the module holding addr. */
struct loader_view {
	uintptr_t addr, bias, lo, hi;
	uint8_t id[32];
	uint32_t id_len;
	int found;
};

static int loader_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loader_view *v = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD) {
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
	}
	if (v->addr < lo || v->addr >= hi)
		return 0;
	v->bias = info->dlpi_addr, v->lo = lo, v->hi = hi, v->found = 1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_type != PT_NOTE)
			continue;
		for (const uint8_t *end = p + ph->p_memsz; p + sizeof(ElfW(Nhdr)) <= end;) {
			const ElfW(Nhdr) *n = (const void *)p;
			const uint8_t *desc = p + sizeof(*n) + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz <= 32) {
				memcpy(v->id, desc, n->n_descsz);
				v->id_len = n->n_descsz;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

static void same_as_the_loader(const void *addr, const char *name_part)
{
	struct loader_view v = {.addr = (uintptr_t)addr};
	dl_iterate_phdr(loader_module, &v);
	CHECK(v.found);
	struct kg_module_map mod;
	char path[4096];
	CHECK(maps_module_at((uintptr_t)addr, &mod, path, sizeof(path)) == 0);
	CHECK(strstr(path, name_part) != NULL);
	CHECK(mod.exec && mod.offset0 != 0);
	CHECK(mod.lo <= (uintptr_t)addr && (uintptr_t)addr < mod.hi);
	/* the same first page; the maps end with the file's last page (the .bss after it is
	 * anonymous: no code there) */
	CHECK(mod.lo == (v.lo & ~(uintptr_t)4095));
	CHECK(mod.hi <= ((v.hi + 4095) & ~(uintptr_t)4095) && mod.hi > (uintptr_t)addr);
	uint64_t bias = 1;
	uint8_t id[32];
	int len = maps_elf_info(path, mod.offset0, &bias, id, sizeof(id));
	CHECK(len >= 0);
	CHECK(bias == v.bias);
	CHECK((uint32_t)len == v.id_len && !memcmp(id, v.id, v.id_len));
}

TEST(modules_have_the_loaders_extent_bias_and_build_id)
{
	same_as_the_loader((const void *)getpid, "libc");
	same_as_the_loader((const void *)dlopen, "lib");
	same_as_the_loader((const void *)same_as_the_loader, "test_maps");
}

TEST(no_module_where_nothing_is_mapped_from_a_file)
{
	struct kg_module_map mod;
	char path[64];
	CHECK(maps_module_at(16, &mod, path, sizeof(path)) == -ENOENT);
	uint64_t bias = 7;
	uint8_t id[32];
	CHECK(maps_elf_info("/lib/x (deleted)", 4096, &bias, id, sizeof(id)) == -ENOENT);
	CHECK(maps_elf_info("[vdso]", 4096, &bias, id, sizeof(id)) == -ENOENT);
	CHECK(maps_elf_info("/proc/self/maps", 4096, &bias, id, sizeof(id)) < 0);
	CHECK(bias == 7);
}
