#include "recorder/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALIGN8(n) (((n) + 7u) & ~7u)

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int spool_open(struct kg_spool *s, const char *path, size_t stage_bytes)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	strtab_init(&s->strings);
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->buf = malloc(stage_bytes);
	if (!s->buf)
		return -ENOMEM;
	s->cap = stage_bytes;
	s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (s->fd < 0) {
		int err = -errno;
		free(s->buf);
		s->buf = NULL;
		return err;
	}
	struct kg_raw_file_header fh;
	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, KG_RAW_MAGIC, sizeof(fh.magic));
	fh.version = KG_RAW_VERSION;
	fh.header_size = sizeof(fh);
	memcpy(s->buf, &fh, sizeof(fh));
	s->len = sizeof(fh);
	return 0;
}

void spool_close(struct kg_spool *s)
{
	if (s->fd >= 0) {
		spool_flush(s);
		close(s->fd);
	}
	s->fd = -1;
	free(s->buf);
	s->buf = NULL;
	strtab_free(&s->strings);
}

void spool_flush(struct kg_spool *s)
{
	if (s->failed || s->fd < 0 || s->len == 0)
		return;
	int err = write_all(s->fd, s->buf, s->len);
	if (err < 0) {
		s->failed = 1;
		fprintf(stderr, "kgantt: cannot write '%s': %s; recording stopped\n", s->path,
			strerror(-err));
	}
	s->len = 0;
}

void *spool_reserve(struct kg_spool *s, uint16_t type, uint32_t size)
{
	if (s->failed || !s->buf)
		return NULL;
	size = ALIGN8(size);
	if (s->len + size > s->cap) {
		spool_flush(s);
		if (size > s->cap) {
			/* Only a huge string gets here; the staging buffer grows to hold it. */
			char *nb = realloc(s->buf, size);
			if (!nb)
				return NULL;
			s->buf = nb;
			s->cap = size;
		}
	}
	struct kg_raw_hdr *h = (struct kg_raw_hdr *)(s->buf + s->len);
	memset(h, 0, size);
	h->type = type;
	h->size = size;
	s->len += size;
	s->records++;
	return h;
}

uint32_t spool_string(struct kg_spool *s, const char *text)
{
	if (!text)
		return 0;
	size_t len = strlen(text);
	int added = 0;
	uint32_t id = strtab_intern(&s->strings, text, len, &added);
	if (id && added) {
		struct kg_raw_string *r =
			spool_reserve(s, KG_RAW_STRING, (uint32_t)(sizeof(*r) + len + 1));
		if (r) {
			r->id = id;
			r->len = (uint32_t)len;
			memcpy(r->text, text, len + 1);
		}
	}
	return id;
}
