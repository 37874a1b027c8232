/* Every file kgantt writes goes through here, as git's lockfile.c does for git:
 *
 *   struct kg_outfile of;
 *   struct kg_outfile_opts o = {.what = "the chart"};
 *   FILE *f = outfile_open(&of, "run.png", &o);     NULL: of.err says why
 *   ... write to f ...
 *   if (outfile_commit(&of) < 0) ... of.err ...    or outfile_abort(&of) on an error
 *
 * A regular file (or a name not taken yet) is written as a temporary file beside it,
 * ".NAME.XXXXXX", and renamed over it on commit: a reader never sees half a file, and an
 * error, Ctrl-C (SIGINT), SIGTERM, SIGHUP or SIGQUIT leaves the old file as it was and
 * no temporary behind (a signal handler removes the temporaries, then the signal kills
 * the process as it would have, so the exit status says so). What no handler sees
 * (SIGKILL, a crash, a power cut) leaves the temporary, which the next write of NAME, by
 * any command, removes: a writer holds a lock on its temporary for as long as it lives,
 * so one whose lock can be taken has no writer left (outfile.c, remove_dead_temps).
 * A symlink is followed: its
 * target is replaced and the link stays a link. A FIFO, a character device (/dev/null),
 * "-" (standard output) and a descriptor path (/dev/stdout, /dev/fd/N: appended to, so
 * that the shell's >> holds) are written directly: they cannot be renamed over, and a
 * reader of a FIFO wants the bytes as they come.
 *
 * The overwrite rule, the same for every command (README, "Outputs"): an output named on
 * the command line is replaced when it exists, as cp, sort -o, gcc -o and git do, since
 * scripts re-run commands; never an input of the same command (outfile_protect), compared
 * by device and inode so that a symlink or a hard link to the input is caught too.
 *
 * SQLite writers use outfile_open_path: SQLite opens the temporary file by its name. */
#ifndef KGANTT_OUTFILE_H
#define KGANTT_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum {
	/* fsync the file before the rename and its directory after: for traces, which cannot
	 * be made again; a chart or an export can, so they skip the cost */
	KG_OUT_DURABLE = 1 << 0,
	/* a regular file only: SQLite cannot write a database into a FIFO or a device */
	KG_OUT_REGULAR = 1 << 1,
};

struct kg_outfile_opts {
	const char *what;   /* what is written, for messages: "the chart", "the trace" */
	unsigned flags;     /* KG_OUT_* */
};

struct kg_outfile {
	char path[PATH_MAX];    /* as named on the command line: the messages use it */
	char target[PATH_MAX];  /* the file written: path with its symlinks followed */
	char tmp[PATH_MAX];     /* the temporary file beside target; "" when written directly */
	FILE *f;                /* the stream of outfile_open until commit or abort */
	FILE *raw;              /* under f when f compresses (NAME.gz); else NULL */
	const char *what;
	int direct;             /* FIFO, character device or "-": no temporary file */
	int slot;               /* in the signal handler's list of temporaries, + 1; 0 none */
	int lock;               /* the fd that locks the temporary, + 1; 0 none */
	unsigned flags;
	char err[PATH_MAX + 512];
};

/* Records an input of the command (a trace, a spool) that no output may be written over:
 * outfile_check and outfile_open refuse it with "'OUT' is WHAT; refusing to write <what>
 * over it" (the command names itself before it). A path that does not exist is ignored
 * (reading it will fail). */
void outfile_protect(const char *path, const char *what);

/* Whether path may be written as o says (its type, the inputs, a read-only file), without
 * creating anything: a command checks before a long load. 0, or a negative errno with a
 * message in err naming the file. */
int outfile_check(const char *path, const struct kg_outfile_opts *o, char *err, size_t errlen);

/* 1 when path is "-", a FIFO or a character device (after following symlinks): written
 * directly, so no file name or extension says anything about its content. */
int outfile_is_stream(const char *path);

/* Opens path for writing (see above). A path that ends in ".gz" is written
 * gzip-compressed (outfile_gzip_stream), whatever writes it: `export -o run.json.gz`, which
 * ui.perfetto.dev and chrome://tracing open as it is. NULL with a message in of->err on
 * failure; of may be passed to outfile_abort either way. */
FILE *outfile_open(struct kg_outfile *of, const char *path, const struct kg_outfile_opts *o);

/* A stream whose bytes go gzip-compressed into out (one gzip member, compressed by
 * worker threads, outfile_gz.c); closing it ends the gzip stream, not out. NULL with
 * errno on failure. */
FILE *outfile_gzip_stream(FILE *out);

/* For a writer that needs a file name (SQLite): the name of the temporary file, created
 * empty, to build the output in; NULL with of->err on failure. Implies KG_OUT_REGULAR.
 * The writer closes its handle before outfile_commit. */
const char *outfile_open_path(struct kg_outfile *of, const char *path,
			      const struct kg_outfile_opts *o);

/* Closes the stream (if any), checks that every byte was written, and renames the
 * temporary file over the target. 0, or a negative errno with of->err; on failure the
 * temporary file is removed and the target left as it was. */
int outfile_commit(struct kg_outfile *of);

/* Closes and removes the temporary file; the target stays as it was. Safe to call twice,
 * after a failed open or a commit, and on a zeroed kg_outfile. */
void outfile_abort(struct kg_outfile *of);

#endif
