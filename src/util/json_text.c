#include "util/json_text.h"

#include <stdlib.h>

#include "util/utf8.h"

void json_put_string(FILE *f, const char *s)
{
	char *clean = NULL;
	size_t n, cap = 0;
	const char *t = utf8_clean(s ? s : "", &n, &clean, &cap);
	fputc('"', f);
	for (; t && *t; t++) {
		unsigned char c = (unsigned char)*t;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
	free(clean);
}
