/* C++ names shortened for a line: kernels (text/names.c, by the columns they take) and
 * native frames (analysis/sites.c frame_label). The steps, each on a name in place. */
#ifndef KGANTT_UTIL_CXX_NAME_H
#define KGANTT_UTIL_CXX_NAME_H

#include <stddef.h>

/* "void ns::k<int>(float*, int)" → "void ns::k<int>": the parameter list at the end. */
void cxx_strip_params(char *s);
/* "void ns::k<unsigned int>" → "ns::k<unsigned int>": the return type. */
void cxx_strip_return_type(char *s);
/* The namespaces and classes qualifying names at template depth >= level. */
void cxx_strip_qualifiers(char *s, int level);
/* Template arguments at bracket depth >= level become "…" ("k<A<BC>, D>", level 2:
 * "k<A<…>, D>"), into out, which needs strlen(s) * 2 + 1 bytes. */
void cxx_collapse_templates(const char *s, int level, char *out);

/* A function's name in about width bytes, unchanged when it fits: without its parameter
 * list, then its return type, then the namespaces in its template arguments, then nested
 * template arguments, then all of them as "<…>". Returns out. */
const char *cxx_short_name(const char *name, size_t width, char *out, size_t outlen);

#endif
