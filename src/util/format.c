/* Durations, shares and counts (format.h). */
#include "util/format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


const char *fmt_duration(int64_t ns, char buf[32])
{
	if (ns == INT64_MIN)
		return strcpy(buf, "-");
	double a = fabs((double)ns);
	if (a < 999.5)
		snprintf(buf, 32, "%" PRId64 " ns", ns);
	else if (a < 999950.0)
		snprintf(buf, 32, "%.1f µs", (double)ns / 1e3);
	else if (a < 999995000.0)
		snprintf(buf, 32, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, 32, "%.2f s", (double)ns / 1e9);
	return buf;
}

const char *fmt_pct(double part, double whole, char buf[16])
{
	if (whole <= 0)
		return strcpy(buf, "-");
	snprintf(buf, 16, "%.1f%%", 100.0 * part / whole);
	return buf;
}

const char *fmt_count(unsigned long long n, char buf[32])
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%llu", n);
	int o = 0;
	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *fmt_bytes(uint64_t n, char buf[32])
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	if (n < 1024) {
		snprintf(buf, 32, "%llu B", (unsigned long long)n);
		return buf;
	}
	double v = (double)n / 1024;
	size_t u = 0;
	for (; v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]); u++)
		v /= 1024;
	snprintf(buf, 32, "%.1f %s", v, units[u]);
	return buf;
}
