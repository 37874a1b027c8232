/* One way to write a file (util/outfile.h): a temporary file beside the target, renamed
 * over it on success, removed on error and on a terminating signal. */
#include "util/outfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/array.h"

/* ---------------------------------------------------------------- the inputs */

struct input {
	dev_t dev;
	ino_t ino;
	char *path, *what;
};

static struct input *inputs;
static uint32_t n_inputs, inputs_cap;

void outfile_protect(const char *path, const char *what)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return;
	if (array_room((void **)&inputs, &inputs_cap, n_inputs, sizeof(*inputs), 8) < 0)
		return; /* out of memory this early: the command will fail on its own */
	struct input *in = &inputs[n_inputs];
	in->path = strdup(path);
	in->what = strdup(what);
	if (!in->path || !in->what) {
		free(in->path);
		free(in->what);
		return;
	}
	in->dev = sb.st_dev;
	in->ino = sb.st_ino;
	n_inputs++;
}

/* The input that the existing file sb is, or NULL. */
static const struct input *input_of(const struct stat *sb)
{
	for (uint32_t i = 0; i < n_inputs; i++)
		if (inputs[i].dev == sb->st_dev && inputs[i].ino == sb->st_ino)
			return &inputs[i];
	return NULL;
}

/* ---------------------------------------------------------------- temporaries and signals */

/* The temporary files that exist now, for the signal handler. A slot's name is written
 * before it is marked used, so the handler never sees half a name; the file is created
 * and its slot taken with the signals blocked, so no signal falls in between. */
#define MAX_TEMPS 8
static struct {
	volatile sig_atomic_t used;
	char path[PATH_MAX];
	char journal[PATH_MAX + 16]; /* SQLite's rollback journal beside it, in case */
} temps[MAX_TEMPS];

static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_CAUGHT (sizeof(caught) / sizeof(caught[0]))
static struct sigaction previous[N_CAUGHT];
static int handlers_installed;

/* Async-signal-safe: unlink, sigaction and raise only. The previous action is put back and
 * the signal raised again, so the process ends as it would have without kgantt's handler
 * (killed by SIGINT: exit status 130 in the shell). */
static void on_signal(int sig)
{
	int saved = errno;
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i].used) {
			unlink(temps[i].path);
			if (temps[i].journal[0])
				unlink(temps[i].journal);
		}
	for (size_t i = 0; i < N_CAUGHT; i++)
		if (caught[i] == sig)
			sigaction(sig, &previous[i], NULL);
	raise(sig); /* blocked until this handler returns, then delivered */
	errno = saved;
}

static void install_handlers(void)
{
	if (handlers_installed)
		return;
	handlers_installed = 1;
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_CAUGHT; i++)
		sigaddset(&sa.sa_mask, caught[i]);
	for (size_t i = 0; i < N_CAUGHT; i++) {
		sigaction(caught[i], NULL, &previous[i]);
		/* an ignored signal stays ignored (nohup, a background job): it will not come */
		if (previous[i].sa_handler != SIG_IGN)
			sigaction(caught[i], &sa, NULL);
	}
}

static void block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < N_CAUGHT; i++)
		sigaddset(&set, caught[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* The slot's number + 1 (0: none, so that a zeroed kg_outfile holds none), or 0 when
 * every slot is taken. */
static int slot_take(const char *path, int sqlite)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (!temps[i].used) {
			snprintf(temps[i].path, sizeof(temps[i].path), "%s", path);
			temps[i].journal[0] = '\0';
			if (sqlite)
				snprintf(temps[i].journal, sizeof(temps[i].journal), "%s-journal", path);
			atomic_signal_fence(memory_order_seq_cst);
			temps[i].used = 1;
			return i + 1;
		}
	return 0;
}

static void slot_free(int slot)
{
	if (slot > 0)
		temps[slot - 1].used = 0;
}

/* ---------------------------------------------------------------- the target */

static const char *what_of(const struct kg_outfile_opts *o)
{
	return o && o->what ? o->what : "the output";
}

/* path with its symlinks followed to the file they name, which need not exist yet (a
 * dangling link is written through, as cp does). 0 or a negative errno. */
static int follow_links(const char *path, char *out, size_t len)
{
	char cur[PATH_MAX], link[PATH_MAX];
	if ((size_t)snprintf(cur, sizeof(cur), "%s", path) >= sizeof(cur))
		return -ENAMETOOLONG;
	for (int hops = 0; hops < 40; hops++) {
		struct stat sb;
		if (lstat(cur, &sb) < 0 || !S_ISLNK(sb.st_mode))
			return (size_t)snprintf(out, len, "%s", cur) < len ? 0 : -ENAMETOOLONG;
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		link[n] = '\0';
		char *slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash) {
			memcpy(cur, link, (size_t)n + 1);
			continue;
		}
		/* relative to the directory that holds the link */
		size_t dir = (size_t)(slash - cur) + 1;
		if (dir + (size_t)n >= sizeof(cur))
			return -ENAMETOOLONG;
		memcpy(cur + dir, link, (size_t)n + 1);
	}
	return -ELOOP;
}

/* /dev/stdout, /dev/fd/N, /proc/self/fd/N: an open descriptor of this process (a pipe,
 * a terminal, or a file the shell opened with > or >>), written through as it is. Its
 * links lead nowhere a temporary file could go ("pipe:[1234]"), and a file behind it
 * is the shell's to truncate or append to. */
static int is_descriptor(const char *path)
{
	return !strncmp(path, "/dev/std", 8) || !strncmp(path, "/dev/fd/", 8) ||
	       !strncmp(path, "/proc/", 6);
}

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
		: S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : "not a regular file";
}

/* -1 with a message when the existing file sb is an input of the command. */
static int refuse_input(const char *path, const struct stat *sb, const char *what, char *err,
			size_t errlen)
{
	const struct input *in = input_of(sb);
	if (!in)
		return 0;
	if (!strcmp(in->path, path))
		snprintf(err, errlen, "'%s' is %s; refusing to write %s over it", path, in->what,
			 what);
	else
		snprintf(err, errlen, "'%s' is %s '%s' (the same file); refusing to write %s over it",
			 path, in->what, in->path, what);
	return -1;
}

/* Where and how path is written: target (symlinks followed), *direct for a FIFO or a
 * device, *mode the permissions a replaced file keeps (0: a new file). 0 or a negative
 * errno with a message. */
static int examine(const char *path, const struct kg_outfile_opts *o, char *target,
		   size_t tlen, int *direct, mode_t *mode, char *err, size_t errlen)
{
	unsigned flags = o ? o->flags : 0;
	const char *what = what_of(o);
	*direct = 0;
	*mode = 0;
	if (!strcmp(path, "-")) {
		snprintf(target, tlen, "-");
		*direct = 1;
		if (!(flags & KG_OUT_REGULAR))
			return 0;
		snprintf(err, errlen, "cannot write %s to standard output: it must be a file", what);
		return -EINVAL;
	}
	if (!*path) {
		snprintf(err, errlen, "cannot write %s: the output file name is empty", what);
		return -EINVAL;
	}
	struct stat sb;
	if (!(flags & KG_OUT_REGULAR) && is_descriptor(path) && stat(path, &sb) == 0 &&
	    !S_ISDIR(sb.st_mode)) {
		snprintf(target, tlen, "%s", path);
		*direct = 1;
		return 0;
	}
	int rc = follow_links(path, target, tlen);
	if (!rc && stat(target, &sb) < 0)
		rc = errno == ENOENT ? 1 : -errno; /* 1: a new file */
	if (rc < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (rc == 1)
		return 0;
	if (refuse_input(path, &sb, what, err, errlen) < 0)
		return -EEXIST;
	int stream = S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode);
	if (S_ISREG(sb.st_mode) || (stream && !(flags & KG_OUT_REGULAR))) {
		*direct = stream;
		*mode = sb.st_mode & 0777;
		/* rename would replace a read-only file; refuse, as cp does */
		if (!stream && access(target, W_OK) < 0 && errno == EACCES) {
			snprintf(err, errlen, "cannot write '%s': the file is read-only (kgantt "
				 "replaces a file only when it may write it)", path);
			return -EACCES;
		}
		return 0;
	}
	snprintf(err, errlen, "cannot write %s to '%s': it is %s, expected %s", what, path,
		 kind_of(sb.st_mode),
		 flags & KG_OUT_REGULAR ? "a regular file (SQLite needs one)"
					: "a file, a FIFO or a character device");
	return S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
}

int outfile_check(const char *path, const struct kg_outfile_opts *o, char *err, size_t errlen)
{
	char target[PATH_MAX];
	int direct;
	mode_t mode;
	return examine(path, o, target, sizeof(target), &direct, &mode, err, errlen);
}

int outfile_is_stream(const char *path)
{
	char target[PATH_MAX], err[64];
	int direct = 0;
	mode_t mode;
	return examine(path, NULL, target, sizeof(target), &direct, &mode, err, sizeof(err)) == 0 &&
	       direct;
}

/* ---------------------------------------------------------------- opening */

static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* ---------------------------------------------------------------- writers that died */

/* Whether name is one of target's temporaries: ".BASE." and mkstemp's six letters. */
static int temp_of(const char *name, const char *base, size_t blen)
{
	if (name[0] != '.' || strncmp(name + 1, base, blen) || name[1 + blen] != '.')
		return 0;
	const char *x = name + 2 + blen;
	for (int i = 0; i < 6; i++)
		if (!isalnum((unsigned char)x[i]))
			return 0;
	return x[6] == '\0';
}

/* Removes the temporaries of target whose writers are dead (SIGKILL, a crash, a power
 * cut: no handler ran). A writer holds a lock on its temporary (flock, create_temp) for
 * as long as it lives, and the kernel lets go of it when the process ends however it
 * ends: a temporary whose lock can be taken has no writer. That needs no pid (reused,
 * and meaningless on another host of an NFS mount) and no age. Left alone: a locked one
 * (a writer at work, here or, through NFS's locks, on another host), one whose lock
 * cannot be asked for (a file system without locks), anything but a regular file. */
static void remove_dead_temps(const char *target)
{
	const char *slash = strrchr(target, '/');
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - target) + (slash == target) : 1,
		 slash ? target : ".");
	const char *base = slash ? slash + 1 : target;
	size_t blen = strlen(base);
	DIR *d = opendir(dir);
	if (!d)
		return; /* creating the temporary will say why */
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!temp_of(e->d_name, base, blen))
			continue;
		/* read-write: NFS grants flock's exclusive lock (a write lock there) only so */
		int fd = openat(dirfd(d), e->d_name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat sb, now;
		if (fd < 0)
			continue;
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    fstatat(dirfd(d), e->d_name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == sb.st_dev && now.st_ino == sb.st_ino) { /* still that file */
			char journal[NAME_MAX + 16];
			snprintf(journal, sizeof(journal), "%s-journal", e->d_name);
			unlinkat(dirfd(d), journal, 0); /* an SQLite writer's, if any */
			unlinkat(dirfd(d), e->d_name, 0);
		}
		close(fd);
	}
	closedir(d);
}

/* Creates ".NAME.XXXXXX" beside of->target, registered for the signal handler and locked
 * for as long as the writer lives (of->lock; see remove_dead_temps, which runs first); its
 * fd or a negative errno. */
static int create_temp(struct kg_outfile *of, mode_t mode, int sqlite)
{
	const char *slash = strrchr(of->target, '/');
	int dir = slash ? (int)(slash - of->target) + 1 : 0;
	if ((size_t)snprintf(of->tmp, sizeof(of->tmp), "%.*s.%s.XXXXXX", dir, of->target,
			     of->target + dir) >= sizeof(of->tmp) - 16) {
		of->tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	remove_dead_temps(of->target);
	install_handlers();
	sigset_t old;
	block_signals(&old);
	int fd = mkstemp(of->tmp);
	int e = errno;
	if (fd >= 0 && !(of->slot = slot_take(of->tmp, sqlite))) {
		close(fd);
		unlink(of->tmp);
		fd = -1;
		e = EMFILE;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		of->tmp[0] = '\0';
		return -e;
	}
	/* The lock is held by an fd of its own, which stays open until the temporary is
	 * renamed or removed: the writer's stream is closed before the rename, and SQLite
	 * opens the file by its name. Without locks (the file system has none) the temporary
	 * just cannot be told from a dead writer's, and is never removed by another. */
	int lock = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* not held by a program the writer starts */
	if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
		of->lock = lock + 1;
	else if (lock >= 0)
		close(lock);
	/* mkstemp's 0600 is for secrets; a replaced file keeps its permissions, a new one
	 * gets what the umask allows */
	if (fchmod(fd, mode ? mode : new_file_mode()) < 0) {
		e = errno;
		close(fd);
		outfile_abort(of);
		return -e;
	}
	return fd;
}

/* The common part of the two opens: of set up, the target examined, the temporary file
 * created unless the target is written directly. An fd (-2: written directly) or -1. */
static int begin(struct kg_outfile *of, const char *path, const struct kg_outfile_opts *o,
		 int sqlite)
{
	memset(of, 0, sizeof(*of));
	of->what = what_of(o);
	of->flags = (o ? o->flags : 0) | (sqlite ? KG_OUT_REGULAR : 0);
	snprintf(of->path, sizeof(of->path), "%s", path);
	struct kg_outfile_opts eff = {of->what, of->flags};
	mode_t mode;
	if (examine(path, &eff, of->target, sizeof(of->target), &of->direct, &mode, of->err,
		    sizeof(of->err)) < 0)
		return -1;
	if (of->direct)
		return -2;
	int fd = create_temp(of, mode, sqlite);
	if (fd < 0) {
		int denied = fd == -EACCES || fd == -EROFS || fd == -EPERM;
		snprintf(of->err, sizeof(of->err), "cannot create '%s': %s%s", path, strerror(-fd),
			 denied ? " (kgantt writes a temporary file in its directory and renames it)"
				: "");
		return -1;
	}
	return fd;
}

static int is_gz(const char *path)
{
	size_t n = strlen(path);
	return n > 3 && !strcmp(path + n - 3, ".gz");
}

FILE *outfile_open(struct kg_outfile *of, const char *path, const struct kg_outfile_opts *o)
{
	int fd = begin(of, path, o, 0);
	if (fd == -1)
		return NULL;
	/* "a" for a descriptor: "w" would truncate a file the shell opened with >> */
	if (fd == -2)
		of->f = !strcmp(of->target, "-") ? stdout
			: fopen(of->target, is_descriptor(of->target) ? "a" : "w");
	else if (!(of->f = fdopen(fd, "w")))
		close(fd);
	if (of->f && is_gz(path) && strcmp(path, "-")) {
		of->raw = of->f;
		of->f = outfile_gzip_stream(of->raw);
	}
	if (!of->f) {
		snprintf(of->err, sizeof(of->err), "cannot write '%s': %s", path, strerror(errno));
		outfile_abort(of);
	}
	return of->f;
}

const char *outfile_open_path(struct kg_outfile *of, const char *path,
			      const struct kg_outfile_opts *o)
{
	int fd = begin(of, path, o, 1);
	if (fd < 0)
		return NULL;
	close(fd); /* SQLite opens it by name; an empty file is an empty database (of->lock
		    * holds the lock) */
	return of->tmp;
}

/* ---------------------------------------------------------------- commit and abort */

/* Flushes and closes the stream (and ends the gzip stream first, when it is one); 0 or a
 * negative errno of the first failed write. */
static int close_stream(struct kg_outfile *of)
{
	FILE *f = of->f;
	of->f = NULL;
	int rc = 0;
	if (of->raw) {
		if (fclose(f) != 0)
			rc = -(errno ? errno : EIO);
		f = of->raw;
		of->raw = NULL;
	}
	if (fflush(f) != 0 || ferror(f))
		rc = -(errno ? errno : EIO);
	if (!rc && (of->flags & KG_OUT_DURABLE) && !of->direct && fsync(fileno(f)) < 0)
		rc = -errno;
	if (f != stdout && fclose(f) != 0 && !rc)
		rc = -(errno ? errno : EIO);
	return rc;
}

static int fsync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 && errno != EINVAL ? -errno : 0; /* EINVAL: cannot be synced */
	close(fd);
	return rc;
}

/* The directory of the target, so that the rename itself survives a crash. */
static void fsync_dir(const char *target)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(target, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - target) + (slash == target), target);
	fsync_path(dir, O_RDONLY | O_DIRECTORY);
}

/* Lets go of the temporary's lock: once it is renamed or removed. */
static void unlock(struct kg_outfile *of)
{
	if (of->lock > 0)
		close(of->lock - 1);
	of->lock = 0;
}

int outfile_commit(struct kg_outfile *of)
{
	errno = 0;
	int rc = of->f ? close_stream(of) : 0;
	if (!of->direct) {
		if (!rc && !of->tmp[0])
			rc = -EINVAL; /* committed twice, or never opened */
		if (!rc && (of->flags & KG_OUT_DURABLE))
			rc = fsync_path(of->tmp, O_RDONLY);
		if (!rc && rename(of->tmp, of->target) < 0)
			rc = -errno;
		if (!rc) {
			slot_free(of->slot);
			of->slot = 0;
			of->tmp[0] = '\0';
			unlock(of);
			if (of->flags & KG_OUT_DURABLE)
				fsync_dir(of->target);
		}
	}
	if (rc) {
		if (!strcmp(of->target, "-"))
			snprintf(of->err, sizeof(of->err), "cannot write to standard output: %s",
				 strerror(-rc));
		else
			snprintf(of->err, sizeof(of->err), "cannot write '%s': %s", of->path,
				 strerror(-rc));
		outfile_abort(of);
	}
	return rc;
}

void outfile_abort(struct kg_outfile *of)
{
	if (of->raw && of->f)
		fclose(of->f); /* the gzip stream, into the raw one */
	if (of->raw)
		of->f = of->raw;
	if (of->f && of->f != stdout)
		fclose(of->f);
	of->f = of->raw = NULL;
	if (of->tmp[0]) {
		unlink(of->tmp);
		if (of->slot > 0 && temps[of->slot - 1].journal[0])
			unlink(temps[of->slot - 1].journal);
	}
	unlock(of);
	slot_free(of->slot);
	of->slot = 0;
	of->tmp[0] = '\0';
}
