/* The recorder's parts tell the recorder what to write as a status record (and print)
 * through a callback of this shape; say_to() formats a message for one. */
#ifndef KGANTT_SAY_H
#define KGANTT_SAY_H

#include <stdarg.h>
#include <stdio.h>

typedef void (*kg_say_fn)(int level, const char *text);

static inline void say_to(kg_say_fn fn, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void say_to(kg_say_fn fn, int level, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (fn)
		fn(level, text);
}

#endif
