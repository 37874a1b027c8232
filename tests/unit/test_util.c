#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/cxx_name.h"
#include "util/demangle.h"
#include "util/pathfmt.h"
#include "text/page.h"
#include "util/strtab.h"

TEST(strtab_same_text_same_id)
{
	struct kg_strtab t;
	strtab_init(&t);
	uint32_t a = strtab_intern(&t, "kernel_a", 8, NULL);
	uint32_t b = strtab_intern(&t, "kernel_b", 8, NULL);
	int added = 1;
	uint32_t a2 = strtab_intern(&t, "kernel_a-suffix", 8, &added); /* prefix of 8 bytes */
	CHECK(a != 0 && b != 0 && a != b);
	CHECK_EQ_INT(a2, a);
	CHECK_EQ_INT(added, 0);
	CHECK_EQ_STR(strtab_get(&t, b), "kernel_b");
	CHECK(strtab_get(&t, 0) == NULL);
	CHECK(strtab_get(&t, 99) == NULL);
	strtab_free(&t);
}

TEST(strtab_grows_past_many_entries)
{
	struct kg_strtab t;
	strtab_init(&t);
	char buf[32];
	for (int i = 0; i < 50000; i++) {
		int n = snprintf(buf, sizeof(buf), "name%d", i);
		CHECK_EQ_INT(strtab_intern(&t, buf, (size_t)n, NULL), i + 1);
	}
	for (int i = 0; i < 50000; i += 997) {
		int n = snprintf(buf, sizeof(buf), "name%d", i);
		CHECK_EQ_INT(strtab_intern(&t, buf, (size_t)n, NULL), i + 1);
	}
	strtab_free(&t);
}

TEST(pathfmt_expands_pid_host_env)
{
	char out[256], err[256];
	setenv("KG_TEST_RANK", "3", 1);
	CHECK_EQ_INT(expand_path_pattern("run_%h_%p_%q{KG_TEST_RANK}_%%.kgt", 42, "node7", out,
					 sizeof(out), err, sizeof(err)),
		     0);
	CHECK_EQ_STR(out, "run_node7_42_3_%.kgt");
}

TEST(pathfmt_rejects_bad_patterns)
{
	char out[64], err[256];
	unsetenv("KG_TEST_UNSET");
	CHECK(expand_path_pattern("a%q{KG_TEST_UNSET}", 1, "h", out, sizeof(out), err,
				  sizeof(err)) < 0);
	CHECK(strstr(err, "KG_TEST_UNSET is not set"));
	CHECK(expand_path_pattern("a%x", 1, "h", out, sizeof(out), err, sizeof(err)) < 0);
	CHECK(strstr(err, "unknown '%x'"));
	CHECK(expand_path_pattern("a%q{", 1, "h", out, sizeof(out), err, sizeof(err)) < 0);
	char longname[100];
	memset(longname, 'x', 99);
	longname[99] = '\0';
	CHECK(expand_path_pattern(longname, 1, "h", out, sizeof(out), err, sizeof(err)) < 0);
	CHECK(strstr(err, "too long"));
}

/* Native frames' names in the host's activities: a line, not a screen of templates. */
TEST(cxx_names_shortened_for_a_frame)
{
	char out[256];
	CHECK_EQ_STR(cxx_short_name("main", 72, out, sizeof(out)), "main");
	CHECK_EQ_STR(cxx_short_name("at::native::stack(c10::ArrayRef<at::Tensor>, long)", 72, out,
				    sizeof(out)),
		     "at::native::stack(c10::ArrayRef<at::Tensor>, long)");
	CHECK_EQ_STR(cxx_short_name("at::TensorIteratorBase::serial_for_each(c10::function_ref<void "
				    "(char**, long const*, long, long)>, at::Range) const",
				    40, out, sizeof(out)),
		     "at::TensorIteratorBase::serial_for_each");
	CHECK_EQ_STR(cxx_short_name("xla::gpu::PriorityFusion::RunImpl(xla::HloModule*, absl::lts_"
				    "20260526::flat_hash_set<std::basic_string_view<char, std::char_"
				    "traits<char> >, absl::lts_20260526::container_internal::StringHash"
				    "> const&)",
				    72, out, sizeof(out)),
		     "xla::gpu::PriorityFusion::RunImpl");
	/* templates of the function itself: namespaces inside them, then nested, then all */
	CHECK_EQ_STR(cxx_short_name("void c10::function_ref<void (char**, long const*, long, long)>::"
				    "callback_fn<at::native::AVX2::VectorizedLoop2d<at::native::AVX2::"
				    "direct_copy_kernel(at::TensorIteratorBase&)::{lambda()#3}> >(long, "
				    "char**, long const*, long, long)",
				    40, out, sizeof(out)),
		     "c10::function_ref<…>::callback_fn<…>");
}

TEST(demangle_cuda_kernel_names)
{
	char *d = demangle("_Z12streams_workPfi");
	CHECK_EQ_STR(d, "streams_work(float*, int)");
	free(d);
	d = demangle("_ZN2ns6kernelIiEEvPT_");
	CHECK_EQ_STR(d, "void ns::kernel<int>(int*)");
	free(d);
	CHECK(demangle("plain_c_kernel") == NULL);
	CHECK(demangle("_Znot valid") == NULL);
	CHECK(demangle(NULL) == NULL);
}

/* 1 when the mapping of /proc/self/smaps holding p has flag (VmFlags), 0 when not, -1 when
 * it cannot be told */
static int mapping_has_flag(const void *p, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	int in = 0, found = -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && !strncmp(line, "VmFlags:", 8))
			found = strstr(line, flag) != NULL;
	}
	fclose(f);
	return found;
}

/* A large growing array is advised onto huge pages (the model's ops and API calls: a
 * 512th of the page faults). Skipped where the kernel has transparent huge pages off. */
TEST(large_arrays_advised_huge)
{
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	if (!strstr(mode, "[madvise]") && !strstr(mode, "[always]"))
		return; /* nothing to advise */
	char *big = NULL;
	uint32_t cap = 0;
	CHECK_EQ_INT(array_room((void **)&big, &cap, 0, 1, 16u << 20), 0);
	int huge = mapping_has_flag(big + (8u << 20), " hg");
	if (huge >= 0) /* no /proc: nothing to tell */
		CHECK_EQ_INT(huge, 1);
	free(big);
}

/* A command line's script reads as one line: newlines as '↵', tabs and carriage returns as
 * spaces (a script written on Windows: "\r\n" is " ↵"); the other
 * control characters (escape sequences) as '?'; cut short at a character boundary. */
TEST(text_safe_shows_newlines_and_hides_escapes)
{
	char out[64];
	CHECK_EQ_STR(text_safe("python3 -c 'import torch\nx = 1'", out, sizeof(out)),
		     "python3 -c 'import torch\xe2\x86\xb5x = 1'");
	CHECK_EQ_STR(text_safe("a\tb\x1b[31mc\x7f", out, sizeof(out)), "a b?[31mc?");
	CHECK_EQ_STR(text_safe("x\r\ny", out, sizeof(out)), "x \xe2\x86\xb5y");
	CHECK_EQ_STR(text_safe("ab\n", out, 5), "ab");
	CHECK_EQ_STR(text_safe("ab\n", out, 6), "ab\xe2\x86\xb5");
}
