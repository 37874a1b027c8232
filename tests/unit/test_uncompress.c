/* Compressed inputs (src/trace/uncompress.c): an SQLite file compressed with xz, zstd and
 * gzip reads as the plain one, through SQLite and through uncompress_open; a file
 * rewritten is decoded again; threads asking for one file at once share one copy; damage
 * is said with the file and the byte. The compressed bytes are made here by the
 * libraries' own encoders, the plain file by SQLite. */
#include <fcntl.h>
#include <lzma.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "harness.h"
#include "trace/uncompress.h"

static char dir[] = "/tmp/kgantt-uncompress-XXXXXX";

static char *path_of(const char *name)
{
	static char p[4][256];
	static int k;
	char *out = p[k++ % 4];
	snprintf(out, 256, "%s/%s", dir, name);
	return out;
}

/* An SQLite file of one table whose one row says `word`; returns its bytes. */
static unsigned char *sqlite_bytes(const char *word, size_t *n)
{
	char *p = path_of("plain.db");
	unlink(p);
	sqlite3 *db;
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	char sql[256];
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE t(w TEXT); INSERT INTO t VALUES('%s'); "
		 "CREATE TABLE pad(x BLOB); INSERT INTO pad VALUES(zeroblob(200000));",
		 word);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	FILE *f = fopen(p, "rb");
	CHECK(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	unsigned char *b = malloc(*n);
	CHECK(fread(b, 1, *n, f) == *n);
	fclose(f);
	return b;
}

enum packer { XZ, ZSTD, GZIP };

static unsigned char *pack(enum packer k, const unsigned char *in, size_t n, size_t *out_n)
{
	size_t cap = n + 65536;
	unsigned char *out = malloc(cap);
	if (k == XZ) {
		size_t pos = 0;
		CHECK(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, n, out, &pos, cap) ==
		      LZMA_OK);
		*out_n = pos;
	} else if (k == ZSTD) { /* with its checksum, as the zstd command writes it */
		ZSTD_CCtx *c = ZSTD_createCCtx();
		CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
		*out_n = ZSTD_compress2(c, out, cap, in, n);
		CHECK(!ZSTD_isError(*out_n));
		ZSTD_freeCCtx(c);
	} else {
		z_stream z = {0};
		CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
		z.next_in = (unsigned char *)in;
		z.avail_in = (uInt)n;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
		*out_n = z.total_out;
		deflateEnd(&z);
	}
	return out;
}

static void write_file(const char *p, const unsigned char *b, size_t n)
{
	FILE *f = fopen(p, "wb");
	CHECK(f && fwrite(b, 1, n, f) == n);
	fclose(f);
}

/* What the file's table says, read through SQLite as every reader opens a trace. */
static const char *word_in(const char *p)
{
	static char w[64];
	sqlite3 *db;
	sqlite3_stmt *st;
	w[0] = '\0';
	CHECK(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT w FROM t", -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	snprintf(w, sizeof(w), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return w;
}

static void setup(void)
{
	CHECK(mkdtemp(dir));
}

TEST(each_compression_reads_as_the_plain_file)
{
	setup();
	size_t n, zn;
	unsigned char *plain = sqlite_bytes("plain", &n);
	static const char *const names[] = {"t.xz", "t.zst", "t.gz"};
	static const char *const kinds[] = {"xz", "zstd", "gzip"};
	for (int k = XZ; k <= GZIP; k++) {
		unsigned char *z = pack(k, plain, n, &zn);
		char *p = path_of(names[k]);
		write_file(p, z, zn);
		char err[512] = "";
		CHECK_EQ_INT(uncompress_input(p, err, sizeof(err)), 0);
		CHECK_EQ_STR(word_in(p), "plain");
		/* open(2) of it gives the plain bytes */
		int fd = uncompress_open(p);
		CHECK(fd >= 0);
		unsigned char *back = malloc(n + 1);
		CHECK_EQ_INT(pread(fd, back, n + 1, 0), n);
		CHECK(!memcmp(back, plain, n));
		close(fd);
		uint64_t packed, unpacked;
		CHECK_EQ_STR(uncompress_kind(p, &packed, &unpacked), kinds[k]);
		CHECK_EQ_INT(packed, zn);
		CHECK_EQ_INT(unpacked, n);
		free(back);
		free(z);
	}
	/* a plain file is left alone */
	write_file(path_of("t.db"), plain, n);
	uint64_t a, b;
	CHECK(uncompress_kind(path_of("t.db"), &a, &b) == NULL);
	free(plain);
}

TEST(a_file_rewritten_is_decoded_again)
{
	setup();
	size_t n, zn;
	char *p = path_of("r.xz"), err[512];
	unsigned char *plain = sqlite_bytes("first", &n), *z = pack(XZ, plain, n, &zn);
	write_file(p, z, zn);
	CHECK_EQ_INT(uncompress_input(p, err, sizeof(err)), 0);
	CHECK_EQ_STR(word_in(p), "first");
	free(plain);
	free(z);
	plain = sqlite_bytes("second", &n);
	z = pack(ZSTD, plain, n, &zn);
	struct timespec ts = {.tv_sec = 1, .tv_nsec = 20000000}; /* a time of its own */
	nanosleep(&ts, NULL);
	write_file(p, z, zn);
	CHECK_EQ_INT(uncompress_input(p, err, sizeof(err)), 0);
	CHECK_EQ_STR(word_in(p), "second");
	uint64_t a, b;
	CHECK_EQ_STR(uncompress_kind(p, &a, &b), "zstd");
	free(plain);
	free(z);
}

static int open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

static void *ask(void *p)
{
	char err[512];
	return (void *)(intptr_t)uncompress_input(p, err, sizeof(err));
}

TEST(threads_asking_at_once_share_a_copy)
{
	setup();
	size_t n, zn;
	char *p = path_of("m.xz");
	unsigned char *plain = sqlite_bytes("shared", &n), *z = pack(XZ, plain, n, &zn);
	write_file(p, z, zn);
	int fds = open_fds();
	pthread_t t[8];
	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&t[i], NULL, ask, p) == 0);
	for (int i = 0; i < 8; i++) {
		void *rc;
		pthread_join(t[i], &rc);
		CHECK_EQ_INT((intptr_t)rc, 0);
	}
	CHECK_EQ_STR(word_in(p), "shared");
	/* a copy another thread made first is closed: one more file open, not eight */
	CHECK_EQ_INT(open_fds(), fds + 1);
	free(plain);
	free(z);
}

TEST(damage_names_the_file_and_the_byte)
{
	setup();
	size_t n, zn;
	unsigned char *plain = sqlite_bytes("x", &n);
	static const char *const names[] = {"d.xz", "d.zst", "d.gz"};
	for (int k = XZ; k <= GZIP; k++) {
		unsigned char *z = pack(k, plain, n, &zn);
		char *p = path_of(names[k]), err[512] = "";
		write_file(p, z, zn / 2); /* cut */
		CHECK(uncompress_input(p, err, sizeof(err)) < 0);
		CHECK(strstr(err, p) && strstr(err, "ends early at compressed byte") &&
		      strstr(err, "(a truncated copy?)"));
		for (size_t i = 40; i < 60 && i < zn; i++) /* corrupt */
			z[i] ^= 0x5a;
		write_file(p, z, zn);
		err[0] = '\0';
		CHECK(uncompress_input(p, err, sizeof(err)) < 0);
		CHECK(strstr(err, p) && strstr(err, "is corrupt at compressed byte"));
		free(z);
	}
	free(plain);
}
