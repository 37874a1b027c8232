/* The program's modules from /proc/self/maps and their files (recorder/maps.h says why not
 * dl_iterate_phdr). */
#include "recorder/maps.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAPS_LINE 4352 /* a line: addresses, flags and a path of up to PATH_MAX */
#define MAPS_PAGE 4096ull

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* A hex number at *p, *p moved past it. */
static uint64_t take_hex(const char **p)
{
	uint64_t v = 0;
	int d;
	while ((d = hexval((unsigned char)**p)) >= 0)
		v = v << 4 | (uint64_t)d, (*p)++;
	return v;
}

static const char *skip_field(const char *p)
{
	while (*p && *p != ' ')
		p++;
	while (*p == ' ')
		p++;
	return p;
}

/* "lo-hi perms offset dev inode   path": 0 when the line is not of that shape. */
static int parse_line(const char *p, struct kg_map *m)
{
	m->lo = (uintptr_t)take_hex(&p);
	if (*p++ != '-')
		return 0;
	m->hi = (uintptr_t)take_hex(&p);
	if (*p++ != ' ' || strlen(p) < 4)
		return 0;
	m->exec = p[2] == 'x';
	p = skip_field(p);
	m->offset = take_hex(&p);
	p = skip_field(skip_field(skip_field(p))); /* the spaces, the device, the inode */
	m->path = p;
	return m->hi > m->lo;
}

int maps_each(int (*fn)(const struct kg_map *m, void *arg), void *arg)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char buf[2 * MAPS_LINE];
	size_t have = 0;
	int rc = 0, stop = 0;
	while (!stop) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		have += (size_t)r;
		buf[have] = 0;
		char *line = buf, *nl;
		while (!stop && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			*nl = 0;
			struct kg_map m;
			if (parse_line(line, &m))
				stop = fn(&m, arg);
			line = nl + 1;
		}
		size_t rest = have - (size_t)(line - buf);
		if (r == 0 || rest == sizeof(buf) - 1) /* the end, or a line longer than any */
			break;
		memmove(buf, line, rest);
		have = rest;
	}
	close(fd);
	return rc;
}

static int first_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	unsigned long long *c = arg;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1; /* the program itself: never a module being loaded */
}

void maps_loads(unsigned long long *adds, unsigned long long *subs)
{
	unsigned long long c[2] = {0, 0};
	dl_iterate_phdr(first_module, c);
	*adds = c[0];
	*subs = c[1];
}

struct runs {
	struct kg_module_map run; /* the module being gathered */
	char path[MAPS_LINE];
	int open, stop;
	int (*fn)(const struct kg_module_map *mod, void *arg);
	void *arg;
};

static void end_run(struct runs *r)
{
	if (r->open && !r->stop && r->path[0] == '/')
		r->stop = r->fn(&r->run, r->arg);
	r->open = 0;
}

/* A module's mappings are consecutive lines of one path (its .bss, anonymous, ends it). */
static int gather(const struct kg_map *m, void *arg)
{
	struct runs *r = arg;
	if (!r->open || strcmp(m->path, r->path) || m->lo > r->run.hi + MAPS_PAGE * 512) {
		end_run(r);
		snprintf(r->path, sizeof(r->path), "%s", m->path);
		r->run = (struct kg_module_map){.lo = m->lo, .path = r->path};
		r->open = 1;
	}
	r->run.hi = m->hi;
	if (m->offset == 0 && !r->run.offset0)
		r->run.offset0 = m->lo;
	r->run.exec |= m->exec;
	return r->stop;
}

int maps_modules(int (*fn)(const struct kg_module_map *mod, void *arg), void *arg)
{
	struct runs r = {.fn = fn, .arg = arg};
	int rc = maps_each(gather, &r);
	end_run(&r);
	return rc;
}

struct module_at {
	uintptr_t addr;
	struct kg_module_map found;
	char *path;
	size_t cap;
};

static int is_at(const struct kg_module_map *mod, void *arg)
{
	struct module_at *s = arg;
	if (s->addr < mod->lo || s->addr >= mod->hi)
		return 0;
	s->found = *mod;
	if (s->path && s->cap)
		snprintf(s->path, s->cap, "%s", mod->path);
	return 1;
}

int maps_module_at(uintptr_t addr, struct kg_module_map *mod, char *path, size_t cap)
{
	struct module_at s = {.addr = addr, .path = path, .cap = cap};
	int rc = maps_modules(is_at, &s);
	if (rc < 0)
		return rc;
	if (!s.found.hi)
		return -ENOENT;
	*mod = s.found;
	mod->path = path;
	return 0;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -EIO;
}

static int build_id_of(int fd, const ElfW(Phdr) *ph, uint8_t *out, uint32_t cap)
{
	uint8_t notes[4096];
	size_t n = ph->p_filesz < sizeof(notes) ? ph->p_filesz : sizeof(notes);
	if (read_at(fd, notes, n, ph->p_offset) < 0)
		return 0;
	const uint8_t *p = notes, *end = notes + n;
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *nh = (const void *)p;
		const uint8_t *name = p + sizeof(*nh);
		const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
		const uint8_t *next = desc + ((nh->n_descsz + 3) & ~3u);
		if (next > end || next <= p)
			break;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
			uint32_t len = nh->n_descsz < cap ? nh->n_descsz : cap;
			memcpy(out, desc, len);
			return (int)len;
		}
		p = next;
	}
	return 0;
}

int maps_elf_info(const char *path, uintptr_t offset0, uint64_t *bias, uint8_t *build_id,
		  uint32_t cap)
{
	size_t len = strlen(path);
	if (path[0] != '/' || (len > 10 && !strcmp(path + len - 10, " (deleted)")))
		return -ENOENT; /* no file to read: the one mapped is gone */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph[64];
	const unsigned char class = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
	size_t nph = 0;
	int rc = read_at(fd, &eh, sizeof(eh), 0);
	if (!rc && (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != class ||
		    eh.e_phentsize != sizeof(ElfW(Phdr))))
		rc = -ENOEXEC;
	if (!rc) {
		nph = eh.e_phnum < 64 ? eh.e_phnum : 64;
		rc = read_at(fd, ph, nph * sizeof(*ph), eh.e_phoff);
	}
	int got_bias = 0, id = 0;
	for (size_t i = 0; !rc && i < nph; i++) {
		/* the segment mapping file offset 0 was mapped at offset0 */
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset < MAPS_PAGE && !got_bias && offset0) {
			*bias = (uint64_t)offset0 - (ph[i].p_vaddr & ~(MAPS_PAGE - 1));
			got_bias = 1;
		}
		if (ph[i].p_type == PT_NOTE && !id)
			id = build_id_of(fd, &ph[i], build_id, cap);
	}
	close(fd);
	if (!rc && !got_bias)
		rc = -ENOEXEC;
	return rc < 0 ? rc : id;
}
