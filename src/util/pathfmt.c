#include "util/pathfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int append(char *out, size_t outlen, size_t *o, const char *s, size_t n)
{
	if (*o + n + 1 > outlen)
		return -1;
	memcpy(out + *o, s, n);
	*o += n;
	out[*o] = '\0';
	return 0;
}

int expand_path_pattern(const char *pattern, int pid, const char *host, char *out,
			size_t outlen, char *err, size_t errlen)
{
	size_t o = 0;
	char num[32];
	if (outlen == 0)
		return -1;
	out[0] = '\0';
	for (const char *p = pattern; *p; p++) {
		int rc;
		if (*p != '%') {
			rc = append(out, outlen, &o, p, 1);
		} else if (p[1] == '%') {
			rc = append(out, outlen, &o, "%", 1);
			p++;
		} else if (p[1] == 'p') {
			snprintf(num, sizeof(num), "%d", pid);
			rc = append(out, outlen, &o, num, strlen(num));
			p++;
		} else if (p[1] == 'h') {
			rc = append(out, outlen, &o, host, strlen(host));
			p++;
		} else if (p[1] == 'q' && p[2] == '{') {
			const char *close = strchr(p + 3, '}');
			if (!close || close == p + 3) {
				snprintf(err, errlen, "'%s': %%q needs a variable name: %%q{NAME}",
					 pattern);
				return -1;
			}
			char name[256];
			size_t n = (size_t)(close - (p + 3));
			if (n >= sizeof(name)) {
				snprintf(err, errlen, "'%s': variable name too long", pattern);
				return -1;
			}
			memcpy(name, p + 3, n);
			name[n] = '\0';
			const char *v = getenv(name);
			if (!v) {
				snprintf(err, errlen, "'%s': environment variable %s is not set",
					 pattern, name);
				return -1;
			}
			rc = append(out, outlen, &o, v, strlen(v));
			p = close;
		} else {
			snprintf(err, errlen,
				 "'%s': unknown '%%%c' (expected %%p, %%h, %%q{VAR} or %%%%)",
				 pattern, p[1] ? p[1] : ' ');
			return -1;
		}
		if (rc < 0) {
			snprintf(err, errlen, "'%s': expanded name is too long", pattern);
			return -1;
		}
	}
	return 0;
}

const char *path_base(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}
