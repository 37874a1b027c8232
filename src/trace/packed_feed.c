/* Rows decoded ahead by a second thread (packed_feed.h). */
#include "trace/packed_feed.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows a batch: 1.3 MiB of kg_row, large enough that the two threads meet rarely, small
 * enough to stay in the cache the inserts share. */
#define FEED_ROWS 4096

struct batch {
	struct kg_row row[FEED_ROWS];
	int64_t rowid[FEED_ROWS];
	uint32_t n;
	int full;                /* filled by the thread, not yet given back by the reader */
	int last;                /* the thread's last: rc tells why */
};

struct kg_packed_feed {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch batch[2];
	int stop;                /* the reader is closing */
	int rc;                  /* the thread's end: 0 every row read, < 0 failed (err) */
	char err[512];
	const char *path;
	const struct kg_packed_table *t;
	/* the reader's place */
	int slot;
	uint32_t pos;
	int started;             /* the reader has a batch */
};

/* Waits until batch b is free (or the reader stops). 0, or 1 to stop. */
static int wait_free(struct kg_packed_feed *f, struct batch *b)
{
	pthread_mutex_lock(&f->lock);
	while (b->full && !f->stop)
		pthread_cond_wait(&f->cond, &f->lock);
	int stop = f->stop;
	pthread_mutex_unlock(&f->lock);
	return stop;
}

static void hand_over(struct kg_packed_feed *f, struct batch *b, uint32_t n, int last, int rc)
{
	pthread_mutex_lock(&f->lock);
	b->n = n;
	b->last = last;
	if (last)
		f->rc = rc;
	b->full = 1;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void *feed_run(void *arg)
{
	struct kg_packed_feed *f = arg;
	sqlite3 *db = NULL;
	struct kg_packed_rows *it = NULL;
	int rc = 0;
	if (sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		snprintf(f->err, sizeof(f->err), "cannot open '%s': %s", f->path,
			 db ? sqlite3_errmsg(db) : "out of memory");
		rc = -EIO;
	}
	if (!rc)
		rc = packed_rows_open(db, "main", f->t, &it, f->err, sizeof(f->err));
	for (int s = 0;; s ^= 1) {
		struct batch *b = &f->batch[s];
		if (wait_free(f, b))
			break;
		uint32_t n = 0;
		int got = rc ? rc : 1;
		while (got > 0 && n < FEED_ROWS &&
		       (got = packed_rows_next(it, &b->row[n], &b->rowid[n])) > 0)
			n++;
		hand_over(f, b, n, got <= 0, got < 0 ? got : 0);
		if (got <= 0)
			break;
	}
	packed_rows_close(it);
	sqlite3_close(db);
	return NULL;
}

int packed_feed_open(const char *path, const struct kg_packed_table *t,
		     struct kg_packed_feed **out, char *err, size_t errlen)
{
	struct kg_packed_feed *f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "out of memory reading '%s'", path);
		return -ENOMEM;
	}
	f->path = path;
	f->t = t;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	int e = pthread_create(&f->thread, NULL, feed_run, f);
	if (e) {
		snprintf(err, errlen, "cannot read '%s': no thread to decode it (%s)", path,
			 strerror(e));
		pthread_mutex_destroy(&f->lock);
		pthread_cond_destroy(&f->cond);
		free(f);
		return -EAGAIN;
	}
	*out = f;
	return 0;
}

/* Gives the reader's batch back to the thread and waits for the next one. */
static struct batch *next_batch(struct kg_packed_feed *f)
{
	pthread_mutex_lock(&f->lock);
	if (f->started) {
		f->batch[f->slot].full = 0;
		f->slot ^= 1;
		pthread_cond_broadcast(&f->cond);
	}
	f->started = 1;
	struct batch *b = &f->batch[f->slot];
	while (!b->full)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
	f->pos = 0;
	return b;
}

int packed_feed_next(struct kg_packed_feed *f, const struct kg_row **row, int64_t *rowid,
		     char *err, size_t errlen)
{
	struct batch *b = &f->batch[f->slot];
	if (f->started && ++f->pos < b->n) {
		*row = &b->row[f->pos];
		*rowid = b->rowid[f->pos];
		return 1;
	}
	if (f->started && b->last)
		goto end; /* (f->rc was set before b was handed over) */
	b = next_batch(f);
	if (b->n) {
		*row = &b->row[0];
		*rowid = b->rowid[0];
		return 1;
	}
end:
	if (f->rc < 0)
		snprintf(err, errlen, "%s", f->err);
	return f->rc < 0 ? f->rc : 0;
}

void packed_feed_close(struct kg_packed_feed *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = 1;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f);
}
