/* Trace strings are bytes from programs: JSON and CSV writers need valid UTF-8. */
#ifndef KGANTT_UTF8_H
#define KGANTT_UTF8_H

#include <stddef.h>

/* s itself when it is valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points
 * above U+10FFFF), else a copy in *buf (grown as needed; the caller frees it) where each
 * invalid byte became U+FFFD. *len is the result's length. NULL when out of memory. */
const char *utf8_clean(const char *s, size_t *len, char **buf, size_t *cap);

#endif
