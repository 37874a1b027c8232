#include "util/fmt.h"

#include <stdio.h>

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
