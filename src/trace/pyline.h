/* The source line of a CPython instruction, from the raw line table the recorder copied
 * out of the code object (recorder/pyframes.h). Used at import time: the recorder stores
 * (code, lasti) per frame and each code's co_linetable once, and the line is worked out
 * here, off the traced program's path. */
#ifndef KGANTT_PYLINE_H
#define KGANTT_PYLINE_H

#include <stdint.h>

/* Source line of the instruction at byte offset lasti of a code object of CPython
 * major.minor (version = major << 8 | minor), from its raw co_linetable (3.10: the 3.10
 * format; 3.11+: the location table) and co_firstlineno. 0 when unknown. */
int pyline_line(unsigned version, const uint8_t *linetable, uint32_t len, int firstlineno, int lasti);

#endif
