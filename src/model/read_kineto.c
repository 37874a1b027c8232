/* Reader of PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip-compressed.
 *
 * Kineto traces run to gigabytes, so the file is never held whole. Three layers, each
 * in its own file, and this driver between them:
 *   kineto_input.c  the file: read(2), zlib, errors naming the file and the byte;
 *   kineto_json.c   yajl's event parser: keys and nesting → decoded items, in batches;
 *   kineto_model.c  items → the model (kernels, copies, API calls, waits, devices...).
 * The text is parsed a piece at a time and each piece's items applied to the model in
 * file order. With two CPUs, pieces of traceEvents are also parsed ahead on a second
 * thread (kineto_pieces.h says where the text is cut and why that is safe); the model
 * is only ever touched by the calling thread, in file order, so the result is the same
 * byte for byte.
 *
 * The mapping of Kineto fields onto the model is documented in docs/readers.md, section
 * "PyTorch profiler (Kineto) JSON". */
#include "model/kineto_input.h"
#include "model/kineto_json.h"
#include "model/kineto_model.h"
#include "model/kineto_pieces.h"
#include "model/load.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE (2u << 20)        /* text per piece with two threads */
#define WINDOW 4                /* pieces cut ahead of the one being applied: memory is
				 * about WINDOW x (PIECE + its items): 11 MiB measured */

struct reader {
	const char *path;
	size_t piece;                   /* bytes per piece with two threads */
	struct kin_input *in;
	struct kin_json *json;
	struct kin_build *build;
	struct kin_batch batch;
	struct kin_pos pos;             /* where the next text starts */
	char msg[400];
};

/* Text through the document's parser, in the pieces it was read in (reads: the offsets
 * inside it where a read began; see KIN_CHUNK), its items into the model. */
static int parse_text(struct reader *rd, const unsigned char *text, size_t len,
		      const uint64_t *reads, size_t n_reads)
{
	struct kin_pos start = rd->pos;
	kin_batch_clear(&rd->batch);
	int rc = 0;
	for (size_t i = 0, off = 0; i <= n_reads && rc == 0; i++) {
		size_t end = i < n_reads ? (size_t)(reads[i] - start.base) : len;
		rc = kin_json_feed(rd->json, text + off, end - off, &rd->pos, &rd->batch);
		kin_pos_advance(&rd->pos, text + off, end - off);
		off = end;
	}
	if (rc == 0)
		rc = kin_build_apply(rd->build, &rd->batch, text, len, &start);
	return rc;
}

/* The whole file, as it is read, on this thread. */
static int read_sequential(struct reader *rd)
{
	unsigned char *buf = malloc(KIN_CHUNK);
	if (!buf)
		return -ENOMEM;
	int rc = 0;
	for (;;) {
		long n = kin_input_read(rd->in, buf, rd->msg, sizeof(rd->msg));
		if (n <= 0) {
			rc = (int)n;
			break;
		}
		if ((rc = parse_text(rd, buf, (size_t)n, NULL, 0)) < 0)
			break;
	}
	free(buf);
	return rc < 0 ? rc : kin_json_finish(rd->json, &rd->pos);
}

/* ------------------------------------------------------------------ two threads */

enum piece_state {
	S_EMPTY,
	S_FEED,        /* for the document's parser, in its turn */
	S_PARSING,     /* being parsed on its own, ahead */
	S_PARSED,      /* parsed on its own: a list of whole events, its items in batch */
	S_FAILED,      /* could not be parsed on its own: fed to the document's parser */
};

struct slot {
	struct kin_piece piece;
	struct kin_batch batch;
	int state;               /* enum piece_state */
};

/* What the two threads share, under lock. Piece k lives in slots[k % WINDOW] from the
 * time it is cut until the calling thread has applied it. */
struct ahead {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct kin_cutter cutter;
	struct slot slots[WINDOW];
	uint64_t n_cut;          /* pieces cut */
	uint64_t next;           /* the piece the calling thread applies next */
	int cut_last, stop;
	int rc;                  /* -ENOMEM from cutting */
};

/* Cuts the next piece if the window has room: its number, or -1. Locked. */
static long cut_piece(struct ahead *a)
{
	if (a->cut_last || a->stop || a->rc || a->n_cut - a->next >= WINDOW)
		return -1;
	uint64_t k = a->n_cut;
	struct slot *s = &a->slots[k % WINDOW];
	int rc = kin_cutter_next(&a->cutter, &s->piece);
	if (rc < 0) {
		a->rc = rc;
		return -1;
	}
	a->n_cut++;
	a->cut_last = s->piece.last;
	/* the piece to apply now goes straight to the document's parser */
	s->state = s->piece.cut_before && s->piece.cut_after && k != a->next ? S_PARSING
									      : S_FEED;
	return (long)k;
}

/* Parses piece k, cut by this thread and marked S_PARSING, on its own. Called locked;
 * unlocks while parsing. */
static void parse_ahead(struct ahead *a, uint64_t k, struct kin_json *j)
{
	struct slot *s = &a->slots[k % WINDOW];
	struct kin_pos at = {s->piece.base, 0, 0}; /* lines are counted when applied */
	pthread_mutex_unlock(&a->lock);
	kin_batch_clear(&s->batch);
	int ok = kin_json_events(j, s->piece.text, s->piece.len, &at, &s->batch) == 0;
	pthread_mutex_lock(&a->lock);
	s->state = ok ? S_PARSED : S_FAILED;
	pthread_cond_broadcast(&a->cond);
}

/* The second thread: cuts pieces ahead and parses them, while the window has room. */
static void *ahead_thread(void *arg)
{
	struct ahead *a = arg;
	struct kin_json *j = kin_json_new("");
	pthread_mutex_lock(&a->lock);
	while (j && !a->stop) {
		long k = cut_piece(a);
		if (k >= 0 && a->slots[k % WINDOW].state == S_PARSING)
			parse_ahead(a, (uint64_t)k, j);
		else if (k < 0)
			pthread_cond_wait(&a->cond, &a->lock);
	}
	pthread_cond_broadcast(&a->cond); /* the calling thread may wait on an empty window */
	pthread_mutex_unlock(&a->lock);
	kin_json_free(j);
	return NULL;
}

/* The calling thread's wait for the next piece to apply; meanwhile it cuts and parses
 * pieces ahead itself. The slot, or NULL (a->rc set) when cutting failed. */
static struct slot *next_piece(struct ahead *a, struct kin_json **spare, const char *path)
{
	pthread_mutex_lock(&a->lock);
	struct slot *s = NULL;
	while (!a->rc) {
		struct slot *n = &a->slots[a->next % WINDOW];
		if (a->next < a->n_cut && n->state != S_PARSING) {
			s = n;
			break;
		}
		long k = cut_piece(a);
		if (k >= 0 && a->slots[k % WINDOW].state == S_PARSING &&
		    (*spare || (*spare = kin_json_new(path))))
			parse_ahead(a, (uint64_t)k, *spare);
		else if (k >= 0 && a->slots[k % WINDOW].state == S_PARSING)
			a->slots[k % WINDOW].state = S_FAILED; /* no memory for a parser */
		else if (k < 0 && !a->rc)
			pthread_cond_wait(&a->cond, &a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return s;
}

/* Applies a piece in file order: its own items when it was parsed on its own and the
 * document's parser stands between two events where it starts (*between), else through
 * the document's parser. */
static int apply_piece(struct reader *rd, struct slot *s, int *between)
{
	struct kin_piece *p = &s->piece;
	if (s->state == S_PARSED && *between) {
		int rc = kin_build_apply(rd->build, &s->batch, p->text, p->len, &rd->pos);
		kin_pos_advance(&rd->pos, p->text, p->len);
		return rc; /* *between still holds: the piece was whole events */
	}
	int rc = parse_text(rd, p->text, p->len, p->reads, p->n_reads);
	*between = rc == 0 && p->cut_after && kin_json_between_events(rd->json, p->brace_after);
	return rc;
}

static void ahead_free(struct ahead *a)
{
	for (int i = 0; i < WINDOW; i++) {
		kin_piece_free(&a->slots[i].piece);
		kin_batch_free(&a->slots[i].batch);
	}
	kin_cutter_free(&a->cutter);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
}

/* The calling thread applies every piece in turn, cutting and parsing ahead while it
 * waits; a second thread, started once there is more than one piece, does the same. */
static int read_two_threads(struct reader *rd)
{
	struct ahead a = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	struct kin_json *spare = NULL;
	pthread_t worker;
	int started = 0, between = 0, rc = 0, last = 0;
	kin_cutter_init(&a.cutter, rd->in, rd->piece);
	while (!last) {
		struct slot *s = next_piece(&a, &spare, rd->path);
		if (!s) {
			rc = a.rc;
			snprintf(rd->msg, sizeof(rd->msg), "'%s': out of memory", rd->path);
			break;
		}
		last = s->piece.last;
		if (!last && !started)
			started = pthread_create(&worker, NULL, ahead_thread, &a) == 0;
		rc = apply_piece(rd, s, &between);
		if (rc == 0 && last && s->piece.input_rc < 0) {
			rc = s->piece.input_rc;
			snprintf(rd->msg, sizeof(rd->msg), "%s", s->piece.input_msg);
		}
		pthread_mutex_lock(&a.lock);
		s->state = S_EMPTY; /* its buffers serve the piece WINDOW later */
		a.next++;
		a.stop = rc < 0;
		pthread_cond_broadcast(&a.cond);
		pthread_mutex_unlock(&a.lock);
		if (rc < 0)
			break;
	}
	pthread_mutex_lock(&a.lock);
	a.stop = 1;
	pthread_cond_broadcast(&a.cond);
	pthread_mutex_unlock(&a.lock);
	if (started)
		pthread_join(worker, NULL);
	kin_json_free(spare);
	ahead_free(&a);
	return rc < 0 ? rc : kin_json_finish(rd->json, &rd->pos);
}

/* The message of the layer that failed. */
static const char *error_text(const struct reader *rd)
{
	if (rd->msg[0])
		return rd->msg;
	if (rd->json && kin_json_error(rd->json)[0])
		return kin_json_error(rd->json);
	if (rd->build && kin_build_error(rd->build)[0])
		return kin_build_error(rd->build);
	return "";
}

int read_kineto_pieces(struct kg_model *m, const char *path, const struct kg_load_opts *opts,
		       size_t piece, char *err, size_t errlen)
{
	struct reader rd = {.path = path, .piece = piece};
	snprintf(m->source, sizeof(m->source), "kineto");
	int rc = kin_input_open(&rd.in, path, opts, rd.msg, sizeof(rd.msg));
	if (rc == 0 && (!(rd.json = kin_json_new(path)) || !(rd.build = kin_build_new(m, path))))
		rc = -ENOMEM;
	int one = (opts && opts->one_thread) || sysconf(_SC_NPROCESSORS_ONLN) < 2;
	if (rc == 0)
		rc = one ? read_sequential(&rd) : read_two_threads(&rd);
	if (rc == 0)
		rc = kin_build_finish(rd.build);
	if (rc < 0 && err && errlen) {
		const char *text = error_text(&rd);
		if (text[0])
			snprintf(err, errlen, "%s", text);
		else
			snprintf(err, errlen, "'%s': %s", path, strerror(-rc));
	}
	kin_batch_free(&rd.batch);
	kin_build_free(rd.build);
	kin_json_free(rd.json);
	kin_input_close(rd.in);
	return rc;
}

int read_kineto(struct kg_model *m, const char *path, const struct kg_load_opts *opts,
		char *err, size_t errlen)
{
	return read_kineto_pieces(m, path, opts, PIECE, err, errlen);
}
