/* A minimal unit-test harness. Each TEST runs in a forked child, as uftrace's do, so a
 * crash or a sanitizer abort is reported as that test's failure instead of ending the
 * run. The last line is "N passed, N failed", which CI reads. */
#ifndef KGANTT_TEST_HARNESS_H
#define KGANTT_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct kg_test {
	const char *name;
	void (*fn)(void);
};

#define MAX_TESTS 256
static struct kg_test kg_tests[MAX_TESTS];
static int kg_ntests, kg_unregistered; /* tests past MAX_TESTS: a failure, never silent */

#define TEST(name)                                                          \
	static void test_##name(void);                                      \
	__attribute__((constructor)) static void register_##name(void)     \
	{                                                                   \
		if (kg_ntests < MAX_TESTS)                                  \
			kg_tests[kg_ntests++] = (struct kg_test){#name, test_##name}; \
		else                                                        \
			kg_unregistered++;                                  \
	}                                                                   \
	static void test_##name(void)

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "    %s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                             \
	do {                                                                           \
		long long _a = (long long)(a), _b = (long long)(b);                    \
		if (_a != _b) {                                                        \
			fprintf(stderr, "    %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, _a, #b, _b);                             \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                \
	do {                                                                              \
		const char *_a = (a), *_b = (b);                                          \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                  \
			fprintf(stderr, "    %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, \
				__LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)");    \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

/* A fixed-seed xorshift64 generator: random test data that is the same on every run. */
static inline unsigned long long test_random(void)
{
	static unsigned long long x = 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	for (int i = 0; i < kg_ntests; i++) {
		if (argc > 1 && !strstr(kg_tests[i].name, argv[1]))
			continue;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			kg_tests[i].fn();
			exit(0);
		}
		int status = 0;
		waitpid(pid, &status, 0);
		int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		printf("%s %s%s\n", ok ? "ok  " : "FAIL", kg_tests[i].name,
		       WIFSIGNALED(status) ? " (crashed)" : "");
		ok ? passed++ : failed++;
	}
	if (kg_unregistered) {
		printf("FAIL %d tests not run: more than MAX_TESTS (%d) in one file; raise it\n",
		       kg_unregistered, MAX_TESTS);
		failed += kg_unregistered;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
