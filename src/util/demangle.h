#ifndef KGANTT_DEMANGLE_H
#define KGANTT_DEMANGLE_H

/* The demangled form of a C++ (Itanium ABI) name as a malloc'ed string, or NULL when
 * `name` is not a mangled name. Uses libstdc++'s own demangler rather than our own:
 * CUDA kernel names carry templates, lambdas and ABI tags that only a complete
 * implementation gets right. */
char *demangle(const char *name);

#endif
