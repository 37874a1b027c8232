/* Compressed traces read in place (uncompress.h): liblzma, libzstd and zlib decode; the
 * copies are unlinked files, opened again through /proc/self/fd and mapped for SQLite. */
#include "trace/uncompress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>
#include <sqlite3.h>
#include <zlib.h>
#include <zstd.h>

enum packing { PLAIN, XZ, ZSTD, GZIP };
static const char *const packing_name[] = {NULL, "xz", "zstd", "gzip"};

#define CHUNK (1u << 20)

/* A compressed file and its decompressed copy. Entries are never freed nor moved: the
 * SQLite VFS hands their paths to the files it opens. */
struct copy {
	dev_t dev; /* the compressed file, as it was when decoded: a file rewritten since */
	ino_t ino; /* (another size or time) is another file, decoded again */
	off_t size;
	struct timespec mtime;
	enum packing packing;
	uint64_t plain;
	const unsigned char *map; /* the copy, for SQLite */
	char path[32];		  /* /proc/self/fd/N: the copy's, for open(2) */
};

static struct {
	pthread_mutex_t lock;
	struct copy **v;
	size_t n, cap;
	sqlite3_vfs *real; /* the default VFS the wrapper hands everything else to */
	sqlite3_vfs wrap;
} reg = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct copy *find_locked(const struct stat *sb)
{
	for (size_t i = reg.n; i-- > 0;) { /* the newest copy of a file rewritten */
		const struct copy *c = reg.v[i];
		if (c->dev == sb->st_dev && c->ino == sb->st_ino && c->size == sb->st_size &&
		    c->mtime.tv_sec == sb->st_mtim.tv_sec && c->mtime.tv_nsec == sb->st_mtim.tv_nsec)
			return reg.v[i];
	}
	return NULL;
}

static struct copy *find(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return NULL;
	pthread_mutex_lock(&reg.lock);
	struct copy *c = reg.n ? find_locked(&sb) : NULL;
	pthread_mutex_unlock(&reg.lock);
	return c;
}

/* ------------------------------------------------------------------ SQLite */

/* SQLite reads a compressed file's main database from its copy, mapped: a read-only
 * file of its own, immutable (no locks, no journal looked for). Through the default VFS
 * it could not: that opens with O_NOFOLLOW, and /proc/self/fd/N is a link. */
struct copy_sqlite_file {
	sqlite3_file base;
	const struct copy *copy;
};

static int copy_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	const struct copy *c = ((struct copy_sqlite_file *)f)->copy;
	uint64_t have = off < 0 || (uint64_t)off >= c->plain ? 0 : c->plain - (uint64_t)off;
	if (have > (uint64_t)n)
		have = (uint64_t)n;
	if (have)
		memcpy(buf, c->map + off, have);
	if (have == (uint64_t)n)
		return SQLITE_OK;
	memset((char *)buf + have, 0, (size_t)n - have); /* as SQLite asks of a short read */
	return SQLITE_IOERR_SHORT_READ;
}

static int copy_size(sqlite3_file *f, sqlite3_int64 *size)
{
	*size = (sqlite3_int64)((struct copy_sqlite_file *)f)->copy->plain;
	return SQLITE_OK;
}

static int copy_ok(sqlite3_file *f) { return SQLITE_OK; }
static int copy_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return SQLITE_READONLY; }
static int copy_truncate(sqlite3_file *f, sqlite3_int64 size) { return SQLITE_READONLY; }
static int copy_sync(sqlite3_file *f, int flags) { return SQLITE_OK; }
static int copy_lock(sqlite3_file *f, int level) { return SQLITE_OK; }
static int copy_reserved(sqlite3_file *f, int *out) { *out = 0; return SQLITE_OK; }
static int copy_control(sqlite3_file *f, int op, void *arg) { return SQLITE_NOTFOUND; }
static int copy_sector(sqlite3_file *f) { return 4096; }
static int copy_traits(sqlite3_file *f) { return SQLITE_IOCAP_IMMUTABLE; }

static const sqlite3_io_methods copy_io = {
	.iVersion = 1,
	.xClose = copy_ok,
	.xRead = copy_read,
	.xWrite = copy_write,
	.xTruncate = copy_truncate,
	.xSync = copy_sync,
	.xFileSize = copy_size,
	.xLock = copy_lock,
	.xUnlock = copy_lock,
	.xCheckReservedLock = copy_reserved,
	.xFileControl = copy_control,
	.xSectorSize = copy_sector,
	.xDeviceCharacteristics = copy_traits,
};

/* The compressed file's main database is its copy; everything else (other files, the
 * journal SQLite may look for beside one) is the default VFS's as it was. */
static int wrap_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags,
		     int *out_flags)
{
	(void)vfs;
	struct copy *c = name && (flags & SQLITE_OPEN_MAIN_DB) ? find(name) : NULL;
	if (!c)
		return reg.real->xOpen(reg.real, name, f, flags, out_flags);
	((struct copy_sqlite_file *)f)->copy = c;
	f->pMethods = &copy_io;
	if (out_flags)
		*out_flags = SQLITE_OPEN_READONLY;
	return SQLITE_OK;
}

/* Once, before the first copy is used: the wrapper becomes the default VFS. */
static int install_vfs_locked(void)
{
	if (reg.real)
		return 0;
	sqlite3_vfs *real = sqlite3_vfs_find(NULL);
	if (!real)
		return -1;
	reg.wrap = *real; /* the same methods and pAppData: they serve the copies too */
	reg.wrap.zName = "kgantt-uncompress";
	reg.wrap.pNext = NULL;
	reg.wrap.xOpen = wrap_open;
	if (reg.wrap.szOsFile < (int)sizeof(struct copy_sqlite_file))
		reg.wrap.szOsFile = (int)sizeof(struct copy_sqlite_file);
	if (sqlite3_vfs_register(&reg.wrap, 1) != SQLITE_OK)
		return -1;
	reg.real = real;
	return 0;
}

/* ------------------------------------------------------------------ decoding */

struct job {
	const char *path; /* the user's, for messages */
	int in, out;
	uint64_t packed_pos, plain;
	char *err;
	size_t errlen;
};

static int read_some(struct job *j, unsigned char *buf, size_t cap, size_t *got)
{
	ssize_t n;
	do
		n = read(j->in, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;
		snprintf(j->err, j->errlen, "'%s': read error at byte %llu: %s", j->path,
			 (unsigned long long)j->packed_pos, strerror(e));
		return -e;
	}
	*got = (size_t)n;
	return 0;
}

static int write_all(struct job *j, const unsigned char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(j->out, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			const char *dir = getenv("TMPDIR");
			snprintf(j->err, j->errlen,
				 "'%s': cannot write its decompressed copy (%llu bytes so far) into "
				 "%s: %s",
				 j->path, (unsigned long long)j->plain, dir && *dir ? dir : "/tmp",
				 strerror(e));
			return -e;
		}
		j->plain += (uint64_t)w;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What went wrong in the compressed data, where: "ends early" (a truncated copy) or "is
 * corrupt" with the decoder's detail. */
static int corrupt(struct job *j, const char *what, int truncated, const char *detail)
{
	snprintf(j->err, j->errlen, "'%s': %s data %s at compressed byte %llu%s%s%s", j->path,
		 what, truncated ? "ends early" : "is corrupt", (unsigned long long)j->packed_pos,
		 truncated ? " (a truncated copy?)" : detail ? " (" : "",
		 !truncated && detail ? detail : "", !truncated && detail ? ")" : "");
	return -EINVAL;
}

static int decode_xz(struct job *j, unsigned char *in, unsigned char *out)
{
	lzma_stream s = LZMA_STREAM_INIT;
	/* a file of several blocks (what xz -T writes, and xz 5.6's default) is decoded on
	 * every core; one block, on one, as before */
	uint32_t cores = lzma_cputhreads();
	lzma_mt mt = {.flags = LZMA_CONCATENATED, .threads = cores ? cores : 1,
		      .memlimit_threading = lzma_physmem() / 4, .memlimit_stop = UINT64_MAX};
	if (lzma_stream_decoder_mt(&s, &mt) != LZMA_OK &&
	    lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
		snprintf(j->err, j->errlen, "'%s': out of memory", j->path);
		return -ENOMEM;
	}
	int rc = 0, eof = 0;
	s.next_out = out;
	s.avail_out = CHUNK;
	for (;;) {
		if (s.avail_in == 0 && !eof) {
			size_t got = 0;
			if ((rc = read_some(j, in, CHUNK, &got)) < 0)
				break;
			eof = got == 0;
			s.next_in = in;
			s.avail_in = got;
		}
		lzma_ret r = lzma_code(&s, eof ? LZMA_FINISH : LZMA_RUN);
		j->packed_pos = s.total_in;
		if ((s.avail_out == 0 || r == LZMA_STREAM_END) &&
		    (rc = write_all(j, out, CHUNK - s.avail_out)) < 0)
			break;
		if (s.avail_out == 0) {
			s.next_out = out;
			s.avail_out = CHUNK;
		}
		if (r == LZMA_STREAM_END)
			break;
		if (r == LZMA_OK)
			continue;
		rc = corrupt(j, "xz", r == LZMA_BUF_ERROR,
			     r == LZMA_MEM_ERROR       ? "more memory needed than there is"
			     : r == LZMA_OPTIONS_ERROR ? "options liblzma does not know"
			     : r == LZMA_FORMAT_ERROR  ? "not the xz format"
						       : NULL);
		break;
	}
	lzma_end(&s);
	return rc;
}

static int decode_zstd(struct job *j, unsigned char *in, unsigned char *out)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	if (!ds) {
		snprintf(j->err, j->errlen, "'%s': out of memory", j->path);
		return -ENOMEM;
	}
	int rc = 0;
	size_t left = 0; /* 0 between frames: where the data may end */
	for (;;) {
		size_t got = 0;
		if ((rc = read_some(j, in, CHUNK, &got)) < 0)
			break;
		if (got == 0) {
			if (left)
				rc = corrupt(j, "zstd", 1, NULL);
			break;
		}
		/* handed over 4 KiB at a time: an error does not say where it is in what it
		 * was given, so the step bounds where it is said to be */
		ZSTD_inBuffer ib = {in, 0, 0};
		int full = 0; /* the last call filled the output: it may hold more to give */
		while ((ib.pos < got || full) && rc == 0) {
			if (ib.pos == ib.size)
				ib.size = got - ib.pos < 4096 ? got : ib.pos + 4096;
			size_t at = ib.pos;
			ZSTD_outBuffer ob = {out, CHUNK, 0};
			left = ZSTD_decompressStream(ds, &ob, &ib);
			if (ZSTD_isError(left)) {
				j->packed_pos += at;
				rc = corrupt(j, "zstd", 0, ZSTD_getErrorName(left));
				break;
			}
			full = ob.pos == ob.size;
			rc = write_all(j, out, ob.pos);
		}
		if (rc)
			break;
		j->packed_pos += got;
	}
	ZSTD_freeDStream(ds);
	return rc;
}

/* zlib's gz functions: concatenated members, and the message of what went wrong. */
static int decode_gzip(struct job *j, unsigned char *out)
{
	int fd = dup(j->in);
	gzFile gz = fd < 0 ? NULL : gzdopen(fd, "rb");
	if (!gz) {
		if (fd >= 0)
			close(fd);
		snprintf(j->err, j->errlen, "'%s': out of memory", j->path);
		return -ENOMEM;
	}
	int rc = 0;
	for (;;) {
		int n = gzread(gz, out, CHUNK);
		j->packed_pos = (uint64_t)gzoffset(gz);
		int zerr;
		const char *why = gzerror(gz, &zerr);
		if (why && !strncmp(why, "<fd:", 4) && strstr(why, ": ")) /* zlib names the fd */
			why = strstr(why, ": ") + 2;
		if (n < 0 || (n == 0 && zerr != Z_OK)) { /* data cut short is Z_BUF_ERROR, and no -1 */
			rc = corrupt(j, "gzip", zerr == Z_BUF_ERROR, why);
			break;
		}
		if (n == 0)
			break;
		if ((rc = write_all(j, out, (size_t)n)) < 0)
			break;
	}
	gzclose(gz);
	return rc;
}

/* An unlinked file in $TMPDIR (or /tmp) for the copy. */
static int copy_file(const char *path, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) { /* a file system without O_TMPFILE */
		char tmpl[4096];
		snprintf(tmpl, sizeof(tmpl), "%s/kgantt-uncompress-XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	if (fd < 0)
		snprintf(err, errlen, "'%s': cannot make its decompressed copy in %s: %s", path,
			 dir, strerror(errno));
	return fd;
}

static enum packing sniff(int fd)
{
	unsigned char h[6] = {0};
	ssize_t n = pread(fd, h, sizeof(h), 0);
	if (n >= 6 && !memcmp(h, "\xFD" "7zXZ\0", 6))
		return XZ;
	if (n >= 4 && !memcmp(h, "\x28\xB5\x2F\xFD", 4))
		return ZSTD;
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return GZIP;
	return PLAIN;
}

/* A gzip file is decompressed here only when it holds SQLite (JSON is streamed), or
 * when its start is damaged: decoding it says where. */
static int gzip_to_decode(int fd)
{
	int d = dup(fd);
	gzFile gz = d < 0 ? NULL : gzdopen(d, "rb");
	if (!gz) {
		if (d >= 0)
			close(d);
		return 0;
	}
	char h[16];
	int n = gzread(gz, h, sizeof(h)), zerr;
	gzerror(gz, &zerr);
	gzclose(gz);
	return zerr != Z_OK || (n == (int)sizeof(h) && !memcmp(h, "SQLite format 3", 16));
}

static int decode(struct job *j, enum packing p)
{
	unsigned char *in = malloc(CHUNK), *out = malloc(CHUNK);
	int rc = -ENOMEM;
	if (lseek(j->in, 0, SEEK_SET) < 0) { /* the look at a gzip file's start moved it */
		rc = -errno;
		snprintf(j->err, j->errlen, "'%s': %s", j->path, strerror(errno));
	} else if (!in || !out)
		snprintf(j->err, j->errlen, "'%s': out of memory", j->path);
	else if (p == XZ)
		rc = decode_xz(j, in, out);
	else if (p == ZSTD)
		rc = decode_zstd(j, in, out);
	else
		rc = decode_gzip(j, out);
	free(in);
	free(out);
	return rc;
}

/* The copy j made of the file sb describes, found by later opens from now on. */
static int register_locked(const struct stat *sb, enum packing p, const struct job *j)
{
	if (install_vfs_locked() < 0)
		return -ENOMEM;
	if (reg.n == reg.cap) {
		size_t cap = reg.cap ? 2 * reg.cap : 8;
		struct copy **v = realloc(reg.v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		reg.v = v;
		reg.cap = cap;
	}
	struct copy *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct copy){.dev = sb->st_dev, .ino = sb->st_ino, .size = sb->st_size,
			   .mtime = sb->st_mtim, .packing = p, .plain = j->plain};
	if (c->plain) {
		void *map = mmap(NULL, c->plain, PROT_READ, MAP_SHARED, j->out, 0);
		if (map == MAP_FAILED) {
			free(c);
			return -ENOMEM;
		}
		c->map = map;
	}
	snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", j->out);
	reg.v[reg.n++] = c;
	return 0;
}

int uncompress_input(const char *path, char *err, size_t errlen)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (in < 0)
		return 0;
	if (fstat(in, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(in);
		return 0;
	}
	/* decoded outside the lock (a job's ranks load on threads of their own); a file two
	 * threads decoded at once keeps the first copy registered */
	pthread_mutex_lock(&reg.lock);
	int known = find_locked(&sb) != NULL;
	pthread_mutex_unlock(&reg.lock);
	enum packing p = known ? PLAIN : sniff(in);
	if (p == GZIP && !gzip_to_decode(in))
		p = PLAIN;
	int rc = 0;
	if (p != PLAIN) {
		struct job j = {.path = path, .in = in, .err = err, .errlen = errlen};
		j.out = copy_file(path, err, errlen);
		rc = j.out < 0 ? -EIO : decode(&j, p);
		pthread_mutex_lock(&reg.lock);
		int added = 0;
		if (!rc && !find_locked(&sb)) {
			if ((rc = register_locked(&sb, p, &j)) < 0)
				snprintf(err, errlen, "'%s': out of memory", path);
			added = !rc;
		}
		pthread_mutex_unlock(&reg.lock);
		if (!added && j.out >= 0)
			close(j.out);
	}
	close(in);
	return rc;
}

int uncompress_open(const char *path)
{
	struct copy *c = find(path);
	return open(c ? c->path : path, O_RDONLY | O_CLOEXEC);
}

const char *uncompress_kind(const char *path, uint64_t *packed, uint64_t *plain)
{
	struct copy *c = find(path);
	if (c) {
		*packed = (uint64_t)c->size;
		*plain = c->plain;
		return packing_name[c->packing];
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	enum packing p = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? sniff(fd) : PLAIN;
	if (fd >= 0)
		close(fd);
	if (p != GZIP) /* only gzip is read without a copy */
		return NULL;
	*packed = (uint64_t)sb.st_size;
	*plain = 0;
	return packing_name[p];
}
