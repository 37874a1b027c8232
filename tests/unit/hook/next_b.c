/* tests/unit/test_launch_hook.c: the definition after next_a.c's */
__attribute__((visibility("default"))) int which_library(void)
{
	return 2;
}
