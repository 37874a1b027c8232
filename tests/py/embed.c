/* A program that embeds CPython the way some CUDA applications do, to check the paths
 * the python executable never takes:
 *   embed LIBPYTHON PROBE global   libpython in the global scope: init finds it before
 *                                  Py_Initialize, capture reads nothing then (the
 *                                  thread-state key does not exist yet), frames of the
 *                                  embedded code once it runs, nothing after Py_FinalizeEx;
 *   embed LIBPYTHON PROBE local    libpython loaded RTLD_LOCAL, out of dlsym(RTLD_DEFAULT)'s
 *                                  reach: init must still find it (dl_iterate_phdr);
 *   embed - PROBE none             no Python at all: init says so, capture reads nothing.
 * Needs no Python headers: everything is looked up with dlsym. Exit 0 when all holds. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, const char *detail)
{
	printf("FAIL: %s: %s\n", what, detail ? detail : "");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return fail("usage", "embed LIBPYTHON PROBE global|local");
	if (strcmp(argv[3], "none") == 0) {
		void *pr = dlopen(argv[2], RTLD_NOW);
		const char *(*init)(void) = pr ? (const char *(*)(void))dlsym(pr, "probe_init") : NULL;
		int (*count)(void) = pr ? (int (*)(void))dlsym(pr, "probe_count") : NULL;
		if (!init || !count)
			return fail("probe", dlerror());
		const char *why = init();
		printf("init without Python: %s\n", why);
		if (strcmp(why, "0 no Python in this process") != 0 || count() != 0)
			return fail("init without Python", why);
		return 0;
	}
	int global = strcmp(argv[3], "global") == 0;
	void *py = dlopen(argv[1], RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
	if (!py)
		return fail("dlopen libpython", dlerror());
	void *pr = dlopen(argv[2], RTLD_NOW);
	if (!pr)
		return fail("dlopen probe", dlerror());
	const char *(*init)(void) = (const char *(*)(void))dlsym(pr, "probe_init");
	int (*count)(void) = (int (*)(void))dlsym(pr, "probe_count");
	void (*initialize)(void) = (void (*)(void))dlsym(py, "Py_Initialize");
	int (*finalize)(void) = (int (*)(void))dlsym(py, "Py_FinalizeEx");
	int (*run)(const char *) = (int (*)(const char *))dlsym(py, "PyRun_SimpleString");
	if (!init || !count || !initialize || !finalize || !run)
		return fail("dlsym", dlerror());

	const char *why = init();
	printf("init before Py_Initialize (%s): %s\n", argv[3], why);
	if (strncmp(why, "1 CPython 3.", 12) != 0)
		return fail("init did not find the interpreter", why);
	if (count() != 0)
		return fail("frames before Py_Initialize", NULL);
	if (!global) /* extension modules need libpython global: stop here */
		return 0;

	initialize();
	char code[2048];
	snprintf(code, sizeof(code),
		 "import ctypes\n"
		 "lib = ctypes.CDLL('%s')\n"
		 "lib.probe.restype = ctypes.c_char_p\n"
		 "def f():\n"
		 "    return lib.probe()\n"
		 "r = f().decode()\n"
		 "print('embedded frames:', r)\n"
		 "if r != '<string>:5:f;<string>:6:<module>':\n"
		 "    raise SystemError('wrong frames')\n",
		 argv[2]);
	if (run(code) != 0) /* the exception is printed */
		return fail("embedded code", "wrong frames or an exception");
	if (finalize() != 0)
		return fail("Py_FinalizeEx", NULL);
	if (count() != 0)
		return fail("frames after Py_FinalizeEx", NULL);
	printf("ok: frames in embedded code, none before Py_Initialize or after Py_FinalizeEx\n");
	return 0;
}
