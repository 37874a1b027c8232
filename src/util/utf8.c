#include "util/utf8.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one. Overlong
 * forms, surrogates and code points above U+10FFFF are invalid (RFC 3629). */
static size_t utf8_seq(const unsigned char *s, size_t left)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (!n || n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

const char *utf8_clean(const char *s, size_t *len, char **buf, size_t *cap)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	while (i < n && u[i] < 0x80) /* the usual case: plain ASCII */
		i++;
	while (i < n) {
		size_t k = utf8_seq(u + i, n - i);
		if (!k)
			break;
		i += k;
	}
	*len = n;
	if (i == n)
		return s;
	/* each bad byte becomes the 3 bytes of U+FFFD */
	if (*cap < 3 * n + 1) {
		char *b = realloc(*buf, 3 * n + 1);
		if (!b)
			return NULL;
		*buf = b;
		*cap = 3 * n + 1;
	}
	char *o = *buf;
	memcpy(o, s, i);
	size_t w = i;
	while (i < n) {
		size_t k = utf8_seq(u + i, n - i);
		if (k) {
			memcpy(o + w, s + i, k);
			w += k;
			i += k;
		} else {
			memcpy(o + w, "\xef\xbf\xbd", 3);
			w += 3;
			i++;
		}
	}
	o[w] = '\0';
	*len = w;
	return o;
}
