#include "util/demangle.h"

#include <stddef.h>
#include <string.h>

/* libstdc++'s demangler (C++ ABI); declared here so this file stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *demangle(const char *name)
{
	if (!name || strncmp(name, "_Z", 2) != 0)
		return NULL;
	int status = 0;
	char *out = __cxa_demangle(name, NULL, NULL, &status);
	return status == 0 ? out : NULL;
}
