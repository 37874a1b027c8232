/* gzip for outfile_open (outfile.h): a stdio stream whose bytes go out gzip-compressed
 * into another, as pigz makes them. The bytes are cut into 1 MiB chunks that worker
 * threads deflate at once (zlib, level 1: the export of a million kernels is a gigabyte
 * of JSON, and level 6 took twice as long for a file a quarter smaller), each primed with
 * the 32 KiB before it and ended on a byte boundary (Z_SYNC_FLUSH), the last with the
 * final block; they are written in order, with the CRC of each combined. The result is
 * one gzip member, the same bytes however the threads ran; its header has no name and
 * no time (gzip -n). */
#include "util/outfile.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK (1 << 20)
#define WINDOW 32768
#define MAX_WORKERS 4

struct chunk {
	unsigned char *in, *out;
	size_t n_in, n_out;
	unsigned char dict[WINDOW]; /* the bytes before it */
	size_t n_dict;
	int last;
	uLong crc;
	uint64_t seq;
	struct chunk *next;         /* in the queue of work */
};

struct gz {
	FILE *out;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t workers[MAX_WORKERS];
	int n_workers;
	struct chunk *cur;          /* being filled */
	struct chunk *queue, **tail;
	int in_flight;              /* chunks handed over and not yet written */
	uint64_t next_seq, written_seq;
	unsigned char window[WINDOW]; /* the last bytes handed over, for the next dictionary */
	size_t n_window;
	uLong crc;
	uint64_t total;
	int err;                    /* errno of the first failure */
	int stop;
};

static void chunk_free(struct chunk *c)
{
	if (c) {
		free(c->in);
		free(c->out);
		free(c);
	}
}

static struct chunk *chunk_new(void)
{
	struct chunk *c = calloc(1, sizeof(*c));
	if (c && !(c->in = malloc(CHUNK))) {
		free(c);
		c = NULL;
	}
	return c;
}

/* Deflates c on its own: raw deflate, primed with its dictionary. 0 or ENOMEM. */
static int deflate_chunk(struct chunk *c)
{
	z_stream z = {0};
	size_t cap = deflateBound(&z, c->n_in) + 64;
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return ENOMEM;
	c->out = malloc(cap);
	int rc = c->out ? 0 : ENOMEM;
	if (!rc && c->n_dict)
		rc = deflateSetDictionary(&z, c->dict, (uInt)c->n_dict) == Z_OK ? 0 : ENOMEM;
	z.next_in = c->in;
	z.avail_in = (uInt)c->n_in;
	z.next_out = c->out;
	z.avail_out = (uInt)cap;
	if (!rc) {
		int st = deflate(&z, c->last ? Z_FINISH : Z_SYNC_FLUSH);
		rc = (c->last ? st == Z_STREAM_END : st == Z_OK) && !z.avail_in ? 0 : ENOMEM;
	}
	c->n_out = cap - z.avail_out;
	c->crc = crc32(0L, c->in, (uInt)c->n_in);
	deflateEnd(&z);
	return rc;
}

static void *work(void *arg)
{
	struct gz *g = arg;
	pthread_mutex_lock(&g->lock);
	for (;;) {
		while (!g->queue && !g->stop)
			pthread_cond_wait(&g->changed, &g->lock);
		if (!g->queue)
			break;
		struct chunk *c = g->queue;
		if (!(g->queue = c->next))
			g->tail = &g->queue;
		pthread_mutex_unlock(&g->lock);
		int rc = deflate_chunk(c);
		pthread_mutex_lock(&g->lock);
		while (g->written_seq != c->seq) /* in order */
			pthread_cond_wait(&g->changed, &g->lock);
		if (rc && !g->err)
			g->err = rc;
		if (!g->err && c->n_out && fwrite(c->out, 1, c->n_out, g->out) != c->n_out)
			g->err = errno ? errno : EIO;
		g->crc = crc32_combine(g->crc, c->crc, (z_off_t)c->n_in);
		g->total += c->n_in;
		g->written_seq++;
		g->in_flight--;
		pthread_cond_broadcast(&g->changed);
		chunk_free(c);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* Hands the current chunk to the workers (waiting while two per worker are in hand) and
 * keeps its last 32 KiB for the next one's dictionary. 0 or -1 (errno set). */
static int hand_over(struct gz *g, int last)
{
	struct chunk *c = g->cur;
	g->cur = NULL;
	memcpy(c->dict, g->window, g->n_window);
	c->n_dict = g->n_window;
	if (c->n_in >= WINDOW) {
		memcpy(g->window, c->in + c->n_in - WINDOW, WINDOW);
		g->n_window = WINDOW;
	} else { /* only the last chunk can be short, but keep it right */
		size_t keep = g->n_window + c->n_in > WINDOW ? WINDOW - c->n_in : g->n_window;
		memmove(g->window, g->window + g->n_window - keep, keep);
		memcpy(g->window + keep, c->in, c->n_in);
		g->n_window = keep + c->n_in;
	}
	c->last = last;
	pthread_mutex_lock(&g->lock);
	while (g->in_flight >= 2 * g->n_workers && !g->err)
		pthread_cond_wait(&g->changed, &g->lock);
	int err = g->err;
	if (!err) {
		c->seq = g->next_seq++;
		c->next = NULL;
		*g->tail = c;
		g->tail = &c->next;
		g->in_flight++;
		pthread_cond_broadcast(&g->changed);
	}
	pthread_mutex_unlock(&g->lock);
	if (err) {
		chunk_free(c);
		errno = err;
		return -1;
	}
	return 0;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t size)
{
	struct gz *g = cookie;
	size_t done = 0;
	while (done < size) {
		if (!g->cur && !(g->cur = chunk_new())) {
			errno = ENOMEM;
			return -1;
		}
		size_t n = size - done < CHUNK - g->cur->n_in ? size - done : CHUNK - g->cur->n_in;
		memcpy(g->cur->in + g->cur->n_in, buf + done, n);
		g->cur->n_in += n;
		done += n;
		if (g->cur->n_in == CHUNK && hand_over(g, 0) < 0)
			return -1;
	}
	return (ssize_t)size;
}

/* The last chunk (empty if need be: it carries the final block), the workers ended, the
 * trailer. 0 or -1 with errno. */
static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int rc = 0;
	if (!g->cur && !(g->cur = chunk_new()))
		rc = ENOMEM;
	if (!rc && hand_over(g, 1) < 0)
		rc = errno;
	pthread_mutex_lock(&g->lock);
	g->stop = 1;
	pthread_cond_broadcast(&g->changed);
	pthread_mutex_unlock(&g->lock);
	for (int i = 0; i < g->n_workers; i++)
		pthread_join(g->workers[i], NULL);
	if (!rc)
		rc = g->err;
	unsigned char trailer[8];
	for (int i = 0; i < 4; i++) {
		trailer[i] = (unsigned char)(g->crc >> (8 * i));
		trailer[4 + i] = (unsigned char)(g->total >> (8 * i)); /* the size mod 2^32 */
	}
	if (!rc && fwrite(trailer, 1, 8, g->out) != 8)
		rc = errno ? errno : EIO;
	while (g->queue) { /* left by a failure */
		struct chunk *c = g->queue;
		g->queue = c->next;
		chunk_free(c);
	}
	chunk_free(g->cur);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->changed);
	free(g);
	if (rc)
		errno = rc;
	return rc ? -1 : 0;
}

FILE *outfile_gzip_stream(FILE *out)
{
	static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	struct gz *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->out = out;
	g->tail = &g->queue;
	g->crc = crc32(0L, Z_NULL, 0);
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->changed, NULL);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cpus < 1 ? 1 : cpus > MAX_WORKERS ? MAX_WORKERS : (int)cpus;
	for (int i = 0; i < want; i++)
		if (pthread_create(&g->workers[g->n_workers], NULL, work, g) == 0)
			g->n_workers++;
	FILE *f = NULL;
	if (g->n_workers && fwrite(header, 1, sizeof(header), out) == sizeof(header))
		f = fopencookie(g, "w", (cookie_io_functions_t){.write = gz_write, .close = gz_close});
	if (!f) {
		int e = errno ? errno : ENOMEM;
		g->err = e;
		gz_close(g);
		errno = e;
	}
	return f;
}
