/* The host sampler (recorder/hostsample.c) and the stack tables it fills (recorder/stacks.c)
 * inside this test, under ASan/UBSan: samples of a thread taken by its own signal name the
 * function that took them once the spool is imported; the spool's records are whole; the
 * stack tables, emptied when nearly full, go on handing out new ids. The cases with real
 * programs and Python are tests/py/test_hostsample.py's. */
#include "harness.h"
#include "import_spools.h"

#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#include "recorder/hostsample.h"
#include "recorder/raw_format.h"
#include "recorder/spool.h"
#include "recorder/stacks.h"
#include "util/clock.h"

static char dir[256], path[300];
static struct kg_spool spool;

#define REC(s, type, T) ((T *)spool_reserve((s), (type), sizeof(T)))

static void open_spool(void)
{
	snprintf(dir, sizeof(dir), "/tmp/kgantt-host-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.1.kgspool", dir);
	CHECK_EQ_INT(spool_open(&spool, path, 1 << 16), 0);
	struct kg_raw_process *p = REC(&spool, KG_RAW_PROCESS, struct kg_raw_process);
	p->pid = (uint32_t)getpid();
	p->start_ns = now_raw_ns();
}

static void close_spool(void)
{
	struct kg_raw_end *e = REC(&spool, KG_RAW_END, struct kg_raw_end);
	e->ts = now_raw_ns();
	spool_close(&spool);
}

static void remove_dir(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(cmd), 0);
}

/* The spool's records of one type, and the samples in it. */
struct seen {
	int records[KG_RAW_TYPE_MAX];
	uint32_t samples, thread_starts, thread_ends, max_stack;
	struct kg_raw_host_counts counts;
	struct kg_raw_host_settings settings;
};

static void read_spool(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	static char buf[64 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	size_t off = sizeof(struct kg_raw_file_header);
	while (off + sizeof(struct kg_raw_hdr) <= n) {
		const struct kg_raw_hdr *h = (const void *)(buf + off);
		CHECK(h->size >= sizeof(*h) && h->size % 8 == 0 && off + h->size <= n);
		if (h->type < KG_RAW_TYPE_MAX)
			s->records[h->type]++;
		if (h->type == KG_RAW_HOST_SAMPLES) {
			const struct kg_raw_host_samples *r = (const void *)h;
			CHECK(sizeof(*r) + r->count * sizeof(struct kg_raw_host_sample) <= h->size);
			const struct kg_raw_host_sample *x = (const void *)(r + 1);
			for (uint32_t i = 0; i < r->count; i++) {
				CHECK(x[i].thread >= 1);
				if (x[i].stack > s->max_stack)
					s->max_stack = x[i].stack;
			}
			s->samples += r->count;
		} else if (h->type == KG_RAW_HOST_THREAD) {
			const struct kg_raw_host_thread *r = (const void *)h;
			s->thread_starts += r->event == KG_HOST_THREAD_START;
			s->thread_ends += r->event == KG_HOST_THREAD_END;
		} else if (h->type == KG_RAW_HOST_COUNTS) {
			memcpy(&s->counts, h, sizeof(s->counts));
		} else if (h->type == KG_RAW_HOST_SETTINGS) {
			memcpy(&s->settings, h, sizeof(s->settings));
		}
		off += h->size;
	}
}

static int self_samples;

/* Samples of the calling thread by its own signal, from a function of known name. */
__attribute__((noinline)) static void sample_here(int n)
{
	for (int i = 0; i < n; i++)
		self_samples += hostsample_sample_self() == 0;
	__asm__ volatile("" ::: "memory");
}

/* Frames named `function` in the imported stacks. */
static int frames_named(const char *trace, const char *function)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int n = -1;
	CHECK_EQ_INT(sqlite3_open_v2(trace, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM stack_frames f JOIN strings s ON s.id = f.function "
				   "WHERE s.text = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, function, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return n;
}

TEST(hostsample_samples_name_the_function)
{
	open_spool();
	struct kg_host_config cfg = {.hz = 1000, .max_native = 64,
				     .cuda_tid = (pid_t)syscall(SYS_gettid)};
	CHECK_EQ_INT(hostsample_start(&cfg, &spool, NULL), 0);
	/* the sampler lists this thread within 10 ms */
	for (int i = 0; i < 200 && hostsample_sample_self() < 0; i++)
		sleep_ms(5);
	sample_here(300);
	CHECK_EQ_INT(self_samples, 300);
	sleep_ms(50); /* a few wall-clock samples too: this thread calls "CUDA" */
	hostsample_stop(&spool);
	uint64_t taken, written, lost;
	hostsample_counts(&taken, &written, &lost);
	close_spool();

	struct seen s;
	read_spool(&s);
	CHECK(s.settings.hz == 1000 && s.settings.signal > 0);
	CHECK(s.samples >= 300 && s.samples == written && lost == 0);
	CHECK(s.counts.taken == taken && s.counts.written == written);
	CHECK(s.thread_starts >= 1 && s.thread_ends == s.thread_starts);
	CHECK(s.records[KG_RAW_STACK] >= 1 && s.max_stack >= 1);

	char out[300];
	snprintf(out, sizeof(out), "%s/out.kgt", dir);
	import_spools(dir, out);
	CHECK(frames_named(out, "sample_here") >= 1);
	remove_dir();
}

TEST(hostsample_off_writes_nothing)
{
	open_spool();
	struct kg_host_config cfg = {.hz = 0};
	CHECK_EQ_INT(hostsample_start(&cfg, &spool, NULL), 0);
	CHECK_EQ_INT(hostsample_sample_self(), -1);
	hostsample_stop(&spool);
	close_spool();
	struct seen s;
	read_spool(&s);
	CHECK_EQ_INT(s.records[KG_RAW_HOST_SETTINGS] + s.records[KG_RAW_HOST_SAMPLES] +
			     s.records[KG_RAW_STACK],
		     0);
	remove_dir();
}

/* The program's exit does not wait out the sampler's period: at one sample a second
 * (--host-samples=1) the stop waited for the tick a second after the start (980 ms here)
 * before recorder/stop_wait.h. */
TEST(hostsample_stop_does_not_wait_for_the_next_tick)
{
	open_spool();
	struct kg_host_config cfg = {.hz = 1, .max_native = 64};
	CHECK_EQ_INT(hostsample_start(&cfg, &spool, NULL), 0);
	sleep_ms(20);
	uint64_t t0 = now_raw_ns();
	hostsample_stop(&spool);
	CHECK(now_raw_ns() - t0 < 400000000ull);
	close_spool();
	remove_dir();
}

/* A forked child: the parent's sampler is not its own, and nothing waits. */
TEST(hostsample_fork_child_is_quiet)
{
	open_spool();
	struct kg_host_config cfg = {.hz = 1000, .max_native = 64};
	CHECK_EQ_INT(hostsample_start(&cfg, &spool, NULL), 0);
	pid_t pid = fork();
	if (pid == 0) {
		hostsample_disable(); /* what the recorder's atfork handler does */
		hostsample_drain(&spool);
		hostsample_stop(&spool);
		_exit(hostsample_sample_self() == -1 ? 0 : 1);
	}
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	hostsample_stop(&spool);
	close_spool();
	remove_dir();
}

TEST(stacks_recycle_tables_ids_go_on)
{
	open_spool();
	CHECK_EQ_INT(stacks_table(1), 0);
	uintptr_t ips[2] = {0x1000, 0};
	uint32_t last = 0;
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < 30000; i++) {
			ips[1] = 0x100000 + (uintptr_t)round * 0x1000000 + i;
			uint32_t id = stacks_intern(ips, 2, NULL, 0, 0);
			CHECK(id > last); /* every stack is new: ids only grow */
			last = id;
		}
		stacks_drain(&spool); /* written, and the tables emptied once past 3/4 */
	}
	/* a stack met before the tables were emptied gets a new id */
	ips[1] = 0x100000;
	CHECK(stacks_intern(ips, 2, NULL, 0, 0) > last);
	stacks_drain(&spool);
	close_spool();
	struct seen s;
	read_spool(&s);
	CHECK_EQ_INT(s.records[KG_RAW_STACK], 90001);
	remove_dir();
}
