/* util/outfile: the one way kgantt writes a file. A temporary file beside the target,
 * renamed on commit, removed on abort and on SIGINT/SIGTERM (after which the process
 * still dies of the signal); symlinks followed, FIFOs and devices written directly; the
 * command's inputs never written over. */
#include "harness.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>

#include "trace/spool_import.h"
#include "util/outfile.h"

static char dir[256];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/kgantt-outfile-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
}

static void remove_dir(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static const char *in_dir(const char *name)
{
	static char paths[4][300];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, 300, "%s/%s", dir, name);
	return p;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f);
	fputs(text, f);
	CHECK(fclose(f) == 0);
}

static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	if (!f)
		return "(missing)";
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The number of entries in dir: a temporary file left behind shows as one too many. */
static int entries(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	CHECK(p);
	int n = -1;
	CHECK(fscanf(p, "%d", &n) == 1);
	pclose(p);
	return n;
}

static int write_through(const char *path, const char *text, unsigned flags)
{
	struct kg_outfile of;
	struct kg_outfile_opts o = {.what = "the test output", .flags = flags};
	FILE *f = outfile_open(&of, path, &o);
	if (!f) {
		fprintf(stderr, "    %s\n", of.err);
		return -1;
	}
	fputs(text, f);
	return outfile_commit(&of);
}

TEST(new_file_committed_with_umask_permissions)
{
	make_dir();
	mode_t mask = umask(022);
	CHECK_EQ_INT(write_through(in_dir("a.svg"), "hello", 0), 0);
	CHECK_EQ_STR(get(in_dir("a.svg")), "hello");
	struct stat sb;
	CHECK(stat(in_dir("a.svg"), &sb) == 0);
	CHECK_EQ_INT(sb.st_mode & 0777, 0644);
	CHECK_EQ_INT(entries(), 1);
	umask(mask);
	remove_dir();
}

TEST(replaced_file_keeps_its_permissions)
{
	make_dir();
	put(in_dir("a.csv"), "old");
	CHECK(chmod(in_dir("a.csv"), 0640) == 0);
	CHECK_EQ_INT(write_through(in_dir("a.csv"), "new", KG_OUT_DURABLE), 0);
	CHECK_EQ_STR(get(in_dir("a.csv")), "new");
	struct stat sb;
	CHECK(stat(in_dir("a.csv"), &sb) == 0);
	CHECK_EQ_INT(sb.st_mode & 0777, 0640);
	CHECK_EQ_INT(entries(), 1);
	remove_dir();
}

TEST(temporary_file_is_hidden_beside_the_target_until_commit)
{
	make_dir();
	put(in_dir("a.json"), "old");
	struct kg_outfile of;
	struct kg_outfile_opts o = {.what = "x"};
	FILE *f = outfile_open(&of, in_dir("a.json"), &o);
	CHECK(f);
	CHECK(strncmp(of.tmp, in_dir(".a.json."), strlen(in_dir(".a.json."))) == 0);
	fputs("new", f);
	CHECK_EQ_STR(get(in_dir("a.json")), "old"); /* a reader sees the old file whole */
	CHECK_EQ_INT(entries(), 2);
	CHECK_EQ_INT(outfile_commit(&of), 0);
	CHECK_EQ_STR(get(in_dir("a.json")), "new");
	CHECK_EQ_INT(entries(), 1);
	outfile_abort(&of); /* after a commit: nothing to do */
	CHECK_EQ_STR(get(in_dir("a.json")), "new");
	remove_dir();
}

TEST(abort_leaves_the_old_file_and_no_temporary)
{
	make_dir();
	put(in_dir("a.png"), "old");
	struct kg_outfile of;
	FILE *f = outfile_open(&of, in_dir("a.png"), NULL);
	CHECK(f);
	fputs("half", f);
	outfile_abort(&of);
	outfile_abort(&of);
	CHECK_EQ_STR(get(in_dir("a.png")), "old");
	CHECK_EQ_INT(entries(), 1);
	struct kg_outfile zeroed = {0};
	outfile_abort(&zeroed); /* a writer that failed before opening */
	remove_dir();
}

TEST(symlink_followed_and_kept)
{
	make_dir();
	CHECK(mkdir(in_dir("sub"), 0755) == 0);
	put(in_dir("sub/real.svg"), "old");
	CHECK(symlink("sub/real.svg", in_dir("link.svg")) == 0);  /* relative to its directory */
	CHECK(symlink("link.svg", in_dir("link2.svg")) == 0);     /* a chain */
	CHECK_EQ_INT(write_through(in_dir("link2.svg"), "new", 0), 0);
	struct stat sb;
	CHECK(lstat(in_dir("link.svg"), &sb) == 0 && S_ISLNK(sb.st_mode));
	CHECK(lstat(in_dir("link2.svg"), &sb) == 0 && S_ISLNK(sb.st_mode));
	CHECK_EQ_STR(get(in_dir("sub/real.svg")), "new");
	CHECK_EQ_INT(entries(), 3);
	/* a dangling link: its target is created, as cp does */
	CHECK(symlink("sub/new.svg", in_dir("dangling.svg")) == 0);
	CHECK_EQ_INT(write_through(in_dir("dangling.svg"), "made", 0), 0);
	CHECK_EQ_STR(get(in_dir("sub/new.svg")), "made");
	CHECK(lstat(in_dir("dangling.svg"), &sb) == 0 && S_ISLNK(sb.st_mode));
	/* a loop is an error, not a hang */
	CHECK(symlink("loop2", in_dir("loop1")) == 0);
	CHECK(symlink("loop1", in_dir("loop2")) == 0);
	char err[600];
	CHECK(outfile_check(in_dir("loop1"), NULL, err, sizeof(err)) == -ELOOP);
	remove_dir();
}

TEST(fifo_written_directly)
{
	make_dir();
	CHECK(mkfifo(in_dir("pipe"), 0600) == 0);
	CHECK(outfile_is_stream(in_dir("pipe")));
	pid_t reader = fork();
	if (reader == 0) {
		char buf[64] = {0};
		FILE *f = fopen(in_dir("pipe"), "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		_exit(n == 5 && !strcmp(buf, "bytes") ? 0 : 1);
	}
	CHECK_EQ_INT(write_through(in_dir("pipe"), "bytes", 0), 0);
	int status;
	CHECK(waitpid(reader, &status, 0) == reader);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	struct stat sb;
	CHECK(lstat(in_dir("pipe"), &sb) == 0 && S_ISFIFO(sb.st_mode)); /* still a FIFO */
	CHECK_EQ_INT(entries(), 1);
	remove_dir();
}

TEST(devices_and_stdout_written_directly)
{
	CHECK_EQ_INT(write_through("/dev/null", "gone", 0), 0);
	CHECK(outfile_is_stream("/dev/null"));
	CHECK(outfile_is_stream("-"));
	CHECK(!outfile_is_stream("/tmp/no-such-dir/x.png"));
	struct kg_outfile of;
	CHECK(outfile_open(&of, "-", NULL) == stdout);
	CHECK_EQ_INT(outfile_commit(&of), 0);
	/* a full device: the failed write is an error, not a silent loss */
	if (access("/dev/full", W_OK) == 0) {
		CHECK(write_through("/dev/full", "x", 0) == -ENOSPC);
		struct stat sb;
		CHECK(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode));
	}
}

TEST(sqlite_outputs_need_a_regular_file)
{
	char err[600];
	struct kg_outfile_opts o = {.what = "the trace", .flags = KG_OUT_REGULAR};
	CHECK(outfile_check("/dev/null", &o, err, sizeof(err)) < 0);
	CHECK(strstr(err, "'/dev/null'") && strstr(err, "regular file"));
	CHECK(outfile_check("-", &o, err, sizeof(err)) < 0);
	struct kg_outfile of;
	CHECK(outfile_open_path(&of, "/dev/null", NULL) == NULL);
	CHECK(strstr(of.err, "/dev/null"));
}

TEST(directories_and_bad_names_refused)
{
	make_dir();
	char err[600];
	CHECK(outfile_check(dir, NULL, err, sizeof(err)) == -EISDIR);
	CHECK(strstr(err, dir) && strstr(err, "directory"));
	CHECK(outfile_check("", NULL, err, sizeof(err)) < 0);
	struct kg_outfile of;
	CHECK(outfile_open(&of, in_dir("no/such/dir/x.png"), NULL) == NULL);
	CHECK(strstr(of.err, "no/such/dir/x.png") && strstr(of.err, "No such file"));
	CHECK_EQ_INT(entries(), 0);
	remove_dir();
}

TEST(inputs_never_written_over)
{
	make_dir();
	put(in_dir("run.kgt"), "trace");
	CHECK(symlink("run.kgt", in_dir("link.png")) == 0);
	CHECK(link(in_dir("run.kgt"), in_dir("hard.svg")) == 0);
	outfile_protect(in_dir("run.kgt"), "the input trace");
	outfile_protect(in_dir("missing.kgt"), "the input trace"); /* ignored */
	char err[900], want[600];
	struct kg_outfile_opts o = {.what = "the chart"};
	CHECK(outfile_check(in_dir("run.kgt"), &o, err, sizeof(err)) == -EEXIST);
	snprintf(want, sizeof(want),
		 "'%s' is the input trace; refusing to write the chart over it",
		 in_dir("run.kgt"));
	CHECK_EQ_STR(err, want);
	CHECK(outfile_check(in_dir("link.png"), &o, err, sizeof(err)) == -EEXIST);
	CHECK(strstr(err, "(the same file)"));
	CHECK(outfile_check(in_dir("hard.svg"), &o, err, sizeof(err)) == -EEXIST);
	struct kg_outfile of;
	CHECK(outfile_open(&of, in_dir("link.png"), &o) == NULL);
	CHECK(outfile_open_path(&of, in_dir("run.kgt"), &o) == NULL);
	CHECK_EQ_STR(get(in_dir("run.kgt")), "trace");
	CHECK_EQ_INT(entries(), 3);
	CHECK_EQ_INT(outfile_check(in_dir("other.png"), &o, err, sizeof(err)), 0);
	remove_dir();
}

/* Runs fn in a child and returns its wait status. */
static int in_child(void (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		fn();
		_exit(0);
	}
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	return status;
}

static void interrupted_stream(void)
{
	signal(SIGINT, SIG_DFL);
	struct kg_outfile of;
	FILE *f = outfile_open(&of, in_dir("a.json"), NULL);
	if (!f)
		_exit(3);
	fputs("half of it", f);
	fflush(f);
	raise(SIGINT);
	_exit(4); /* not reached: the handler re-raises SIGINT with its default action */
}

TEST(sigint_removes_the_temporary_and_still_kills)
{
	make_dir();
	put(in_dir("a.json"), "old");
	int status = in_child(interrupted_stream);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	CHECK_EQ_STR(get(in_dir("a.json")), "old");
	CHECK_EQ_INT(entries(), 1);
	remove_dir();
}

static void interrupted_import(void)
{
	signal(SIGTERM, SIG_DFL);
	struct kg_import im;
	if (import_begin(&im, in_dir("run.kgt"), "test") != 0)
		_exit(3);
	raise(SIGTERM);
	_exit(4);
}

TEST(sigterm_during_an_import_leaves_the_old_trace)
{
	make_dir();
	put(in_dir("run.kgt"), "the old trace");
	int status = in_child(interrupted_import);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	CHECK_EQ_STR(get(in_dir("run.kgt")), "the old trace");
	CHECK_EQ_INT(entries(), 1); /* neither the temporary trace nor a journal */
	remove_dir();
}

static void ignored_signal(void)
{
	signal(SIGINT, SIG_IGN); /* nohup, a background job: the signal is not for us */
	struct kg_outfile of;
	FILE *f = outfile_open(&of, in_dir("a.svg"), NULL);
	if (!f)
		_exit(3);
	raise(SIGINT);
	fputs("done", f);
	_exit(outfile_commit(&of) == 0 ? 0 : 5);
}

TEST(ignored_signal_stays_ignored)
{
	make_dir();
	int status = in_child(ignored_signal);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_STR(get(in_dir("a.svg")), "done");
	remove_dir();
}

TEST(several_outputs_at_once)
{
	make_dir();
	struct kg_outfile of[8];
	char name[32];
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		CHECK(outfile_open(&of[i], in_dir(name), NULL));
	}
	struct kg_outfile ninth;
	CHECK(outfile_open(&ninth, in_dir("f8"), NULL) == NULL); /* the handler's list is full */
	for (int i = 0; i < 8; i++)
		CHECK_EQ_INT(outfile_commit(&of[i]), 0);
	CHECK_EQ_INT(entries(), 8);
	CHECK(outfile_open(&ninth, in_dir("f8"), NULL)); /* the slots were given back */
	outfile_abort(&ninth);
	CHECK_EQ_INT(entries(), 8);
	remove_dir();
}

/* ---------------------------------------------------------------- writers that died */

/* A child that starts writing name (through outfile_open, or outfile_open_path as the
 * SQLite writers do), says so on a pipe, and waits to be killed. Its pid. */
static pid_t start_writer(const char *name, int sqlite)
{
	int p[2];
	CHECK(pipe(p) == 0);
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct kg_outfile of;
		if (sqlite) {
			const char *tmp = outfile_open_path(&of, in_dir(name), NULL);
			if (!tmp)
				_exit(3);
			put(tmp, "half a database");
		} else {
			FILE *f = outfile_open(&of, in_dir(name), NULL);
			if (!f)
				_exit(3);
			for (int i = 0; i < 10000; i++)
				fputs("half of a large export ", f);
			fflush(f);
		}
		if (write(p[1], "w", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	CHECK(read(p[0], &c, 1) == 1);
	close(p[0]);
	return pid;
}

static void kill_writer(pid_t pid)
{
	int status;
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

TEST(sigkill_leftover_removed_by_the_next_write)
{
	make_dir();
	for (int sqlite = 0; sqlite < 2; sqlite++) {
		kill_writer(start_writer("a.json", sqlite));
		CHECK_EQ_INT(entries(), 1 + sqlite); /* .a.json.XXXXXX, and a.json after a pass */
		CHECK_EQ_INT(write_through(in_dir("a.json"), "new", 0), 0);
		CHECK_EQ_STR(get(in_dir("a.json")), "new");
		CHECK_EQ_INT(entries(), 1);
	}
	remove_dir();
}

TEST(live_writer_temporary_kept)
{
	make_dir();
	pid_t a = start_writer("a.json", 0), b = start_writer("a.json", 1);
	CHECK_EQ_INT(entries(), 2);
	CHECK_EQ_INT(write_through(in_dir("a.json"), "new", 0), 0); /* two writers still at it */
	CHECK_EQ_INT(entries(), 3);
	kill_writer(a);
	kill_writer(b);
	CHECK_EQ_INT(write_through(in_dir("a.json"), "newer", 0), 0);
	CHECK_EQ_STR(get(in_dir("a.json")), "newer");
	CHECK_EQ_INT(entries(), 1);
	remove_dir();
}

TEST(only_temporaries_of_the_same_name_removed)
{
	make_dir();
	kill_writer(start_writer("b.json", 0));
	const char *others[] = {".a.json.abc", ".a.json.ABCDEFG", ".a.json.ABCDE!", "a.json.ABCDEF",
				".a.jsonXABCDEF"};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		put(in_dir(others[i]), "not a temporary of a.json");
	CHECK(mkdir(in_dir(".a.json.DIRDIR"), 0755) == 0);
	CHECK(symlink("b.json", in_dir(".a.json.LINKED")) == 0);
	int before = entries();
	CHECK_EQ_INT(write_through(in_dir("a.json"), "new", 0), 0);
	CHECK_EQ_INT(entries(), before + 1);
	remove_dir();
}

/* ---------------------------------------------------------------- NAME.gz */

/* What gzip -dc makes of path. */
static char *gunzip(const char *path, size_t *n)
{
	char cmd[400], *out = NULL;
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	FILE *p = popen(cmd, "r"), *m = open_memstream(&out, n);
	CHECK(p && m);
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, got, m);
	CHECK(pclose(p) == 0);
	fclose(m);
	return out;
}

TEST(gz_name_written_compressed)
{
	make_dir();
	/* more than a few of the compressor's 1 MiB chunks, in pieces of every size */
	size_t want = 5 * 1024 * 1024 + 12345, done = 0;
	char *text = malloc(want);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < want; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		text[i] = i % 97 < 60 ? "{\"name\":\"kernel\",\"ts\":1.5}"[i % 26] : (char)(x & 0xff);
	}
	struct kg_outfile of;
	FILE *f = outfile_open(&of, in_dir("a.json.gz"), NULL);
	CHECK(f);
	for (size_t piece = 1; done < want; piece = piece * 3 + 1) {
		size_t n = piece < want - done ? piece : want - done;
		CHECK_EQ_INT(fwrite(text + done, 1, n, f), n);
		done += n;
	}
	CHECK_EQ_INT(outfile_commit(&of), 0);
	size_t n;
	char *back = gunzip(in_dir("a.json.gz"), &n);
	CHECK_EQ_INT(n, want);
	CHECK(!memcmp(back, text, want));
	free(back);
	/* the same bytes again, and nothing for an empty output */
	struct stat a, b;
	CHECK(stat(in_dir("a.json.gz"), &a) == 0);
	f = outfile_open(&of, in_dir("b.json.gz"), NULL);
	CHECK(f && fwrite(text, 1, want, f) == want);
	CHECK_EQ_INT(outfile_commit(&of), 0);
	CHECK(stat(in_dir("b.json.gz"), &b) == 0);
	CHECK_EQ_INT(a.st_size, b.st_size);
	CHECK(outfile_open(&of, in_dir("c.gz"), NULL));
	CHECK_EQ_INT(outfile_commit(&of), 0);
	back = gunzip(in_dir("c.gz"), &n);
	CHECK_EQ_INT(n, 0);
	free(back);
	free(text);
	CHECK_EQ_INT(entries(), 3);
	remove_dir();
}

TEST(gz_write_error_reported)
{
	FILE *full = fopen("/dev/full", "w");
	CHECK(full);
	FILE *z = outfile_gzip_stream(full);
	if (z) { /* the header may already have failed */
		char buf[4096] = {0};
		for (int i = 0; i < 1000; i++)
			fwrite(buf, 1, sizeof(buf), z);
		CHECK(fclose(z) != 0);
	}
	fclose(full);
}
