/* The recorder's numeric settings, one table for both sides: `kgantt record` checks an
 * option against the range and passes it in the environment; the injected library
 * (recorder/inject.c) reads the same variable with the same default and range (a value
 * set by hand outside the range falls back to the default there).
 *
 * X(ID, ENV, OPTION, DEFAULT, MIN, MAX)  OPTION: what `record` calls it in messages */
#ifndef KGANTT_RECORD_SETTINGS_H
#define KGANTT_RECORD_SETTINGS_H

/* Full mode's rate without --host-samples (and of KGANTT_HOST_HZ unset): 100 samples a
 * second a thread, which cost nothing measurable on the H200 (full mode with them against
 * without, paired over 5 rounds: 0.98x on the launch loop, 1.00x on tiny PyTorch ops and on
 * the GPT step; docs/results/host-default-h200.md), within the 3 % bar the default had to
 * meet. Kernels mode records no API calls, which the samples' attribution needs: off there.
 * Record's --help follows. */
#define KG_HOST_HZ_UNASKED 100

#define KG_RECORD_SETTINGS(X)                                                              \
	X(BUFFER_MB, "KGANTT_BUFFER_MB", "--buffer-size", 8, 1, 1024)                      \
	X(BUFFERS, "KGANTT_BUFFERS", "--buffers", 8, 2, 4096)                              \
	X(FLUSH_MS, "KGANTT_FLUSH_MS", "--flush-ms", 500, 10, 60000)                       \
	X(STACK_FIRST, "KGANTT_STACK_FIRST", "--stack-launches FIRST", 8, 0, 1000000)      \
	X(STACK_EVERY, "KGANTT_STACK_EVERY", "--stack-launches EVERY", 64, 0, 1000000000)  \
	X(STACK_DEPTH, "KGANTT_STACK_DEPTH", "--stack-depth", 64, 1, 128)                  \
	X(HW_NS, "KGANTT_HW_NS", "--hw", 0, 10000, 1000000000) /* 0: off; default 100us */ \
	X(HOST_HZ, "KGANTT_HOST_HZ", "--host-samples", KG_HOST_HZ_UNASKED, 0, 10000) /* 0: off */

enum kg_record_setting {
#define KG_RS_ENUM_(id, env, opt, def, lo, hi) KG_RS_##id,
	KG_RECORD_SETTINGS(KG_RS_ENUM_)
#undef KG_RS_ENUM_
	KG_RS_COUNT
};

struct kg_record_setting_info {
	const char *env, *option;
	long def, lo, hi;
};

static const struct kg_record_setting_info kg_record_setting[KG_RS_COUNT] = {
#define KG_RS_INFO_(id, env, opt, def, lo, hi) {env, opt, def, lo, hi},
	KG_RECORD_SETTINGS(KG_RS_INFO_)
#undef KG_RS_INFO_
};

/* --hw without an interval: 10 kHz, Nsight Systems' default for GPU metrics too */
#define KG_HW_DEFAULT_NS 100000

/* --host-samples without a rate: 1 kHz, which cost nothing measurable on the H200's launch
 * loop where 4 to 10 kHz cost up to 15 % (docs/host-samples.md) */
#define KG_HOST_DEFAULT_HZ 1000

#endif
