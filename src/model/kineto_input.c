/* The input layer of the Kineto reader (kineto_input.h): read(2) and zlib. */
#include "model/kineto_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "trace/uncompress.h"

struct kin_input {
	const char *path;
	int fd;
	int gz, z_live, z_done;     /* gzip; inflate initialised; a member ended */
	z_stream z;
	unsigned char *in;          /* bytes read from the file */
	size_t pending;             /* plain files: bytes of the start in `in` not handed out */
	uint64_t file_pos, file_size;
	int eof;
	const struct kg_load_opts *opts;
};

/* Reads up to cap bytes of the file into buf: bytes read, 0 at its end, or a negative
 * errno code. */
static long file_read(struct kin_input *r, unsigned char *buf, size_t cap, char *msg,
		      size_t msglen)
{
	ssize_t n;
	do
		n = read(r->fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;
		snprintf(msg, msglen, "'%s': read error at byte %llu: %s", r->path,
			 (unsigned long long)r->file_pos, strerror(e));
		return -e;
	}
	r->file_pos += (uint64_t)n;
	r->eof = n == 0;
	if (r->opts && r->opts->progress && r->file_size)
		r->opts->progress((double)r->file_pos / (double)r->file_size,
				  r->opts->progress_arg);
	return (long)n;
}

/* The next productive inflate of up to KIN_CHUNK bytes into buf: their number, 0 at
 * the end, or a negative errno code. */
static long inflate_chunk(struct kin_input *r, unsigned char *buf, char *msg, size_t msglen)
{
	for (;;) {
		if (!r->z.avail_in && !r->eof) {
			long n = file_read(r, r->in, KIN_CHUNK, msg, msglen);
			if (n < 0)
				return n;
			r->z.next_in = r->in;
			r->z.avail_in = (uInt)n;
		}
		if (!r->z.avail_in && r->eof) {
			if (r->z_done)
				return 0;
			snprintf(msg, msglen, "'%s': compressed byte %llu: unexpected end of file "
				 "inside the gzip stream (truncated file?)", r->path,
				 (unsigned long long)r->file_pos);
			return -EINVAL;
		}
		if (r->z_done) { /* another gzip member follows (concatenated .gz files) */
			inflateReset(&r->z);
			r->z_done = 0;
		}
		r->z.next_out = buf;
		r->z.avail_out = KIN_CHUNK;
		int zr = inflate(&r->z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			r->z_done = 1;
		else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			snprintf(msg, msglen, "'%s': compressed byte %llu: corrupt gzip data (%s)",
				 r->path, (unsigned long long)(r->file_pos - r->z.avail_in),
				 r->z.msg ? r->z.msg : zr == Z_MEM_ERROR ? "out of memory" : "?");
			return zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
		}
		if (r->z.avail_out < KIN_CHUNK)
			return (long)(KIN_CHUNK - r->z.avail_out);
	}
}

long kin_input_read(struct kin_input *r, unsigned char *buf, char *msg, size_t msglen)
{
	if (r->gz)
		return inflate_chunk(r, buf, msg, msglen);
	if (r->pending) { /* the start, read to look for the gzip magic */
		long n = (long)r->pending;
		memcpy(buf, r->in, r->pending);
		r->pending = 0;
		return n;
	}
	return r->eof ? 0 : file_read(r, buf, KIN_CHUNK, msg, msglen);
}

int kin_input_open(struct kin_input **out, const char *path, const struct kg_load_opts *opts,
		   char *msg, size_t msglen)
{
	struct stat st;
	struct kin_input *r = calloc(1, sizeof(*r));
	*out = NULL;
	if (!r || !(r->in = malloc(KIN_CHUNK))) {
		free(r);
		snprintf(msg, msglen, "'%s': out of memory", path);
		return -ENOMEM;
	}
	r->path = path;
	r->opts = opts;
	r->fd = uncompress_open(path); /* an xz or zstd file's decompressed copy */
	if (r->fd < 0) {
		int e = errno;
		snprintf(msg, msglen, "'%s': %s", path, strerror(e));
		kin_input_close(r);
		return -e;
	}
	if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode))
		r->file_size = (uint64_t)st.st_size;
	long n = file_read(r, r->in, KIN_CHUNK, msg, msglen);
	int rc = n < 0 ? (int)n : 0;
	if (n == 0) {
		snprintf(msg, msglen, "'%s': empty file, expected a PyTorch profiler JSON trace",
			 path);
		rc = -EINVAL;
	}
	/* gzip by its magic bytes, whatever the file is called */
	r->gz = n >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
	if (rc == 0 && r->gz) {
		if (inflateInit2(&r->z, 16 + MAX_WBITS) != Z_OK) {
			snprintf(msg, msglen, "'%s': out of memory", path);
			rc = -ENOMEM;
		} else {
			r->z_live = 1;
			r->z.next_in = r->in;
			r->z.avail_in = (uInt)n;
		}
	} else if (rc == 0) {
		r->pending = (size_t)n;
	}
	if (rc < 0) {
		kin_input_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void kin_input_close(struct kin_input *r)
{
	if (!r)
		return;
	if (r->z_live)
		inflateEnd(&r->z);
	if (r->fd >= 0)
		close(r->fd);
	free(r->in);
	free(r);
}
