/* tests/unit/test_launch_hook.c: dlsym(RTLD_NEXT) from a library, through the launch hook's
 * dlsym, must find the definition after this library (next_b.c's), not this one. */
#include <dlfcn.h>

__attribute__((visibility("default"))) int which_library(void)
{
	return 1;
}

__attribute__((visibility("default"))) int next_which_library(void)
{
	int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "which_library");
	return next ? next() : 0;
}
