/* Decoding CPython line tables (see pyline.h).
 *
 * The tables come from the traced program and may be cut short (the recorder caps what
 * it copies) or, from a damaged spool, be anything at all: every read is bounds-checked
 * and a table that does not parse gives 0 ("unknown"), never a guess. The semantics are
 * CPython's own PyCode_Addr2Line: the line of the address range holding the byte offset,
 * or none for a range marked as having no line. */
#include "trace/pyline.h"

#include <stddef.h>

/* 3.10 (co_linetable, PEP 626): pairs of (unsigned byte-offset delta, signed line delta);
 * a line delta of -128 marks a range without a line. Empty ranges only move the line. */
static int line_310(const uint8_t *lt, uint32_t len, int firstlineno, int lasti)
{
	long line = firstlineno, end = 0;
	for (uint32_t i = 0; i + 1 < len; i += 2) {
		long start = end;
		int ldelta = (int8_t)lt[i + 1];
		end += lt[i];
		int has_line = ldelta != -128;
		if (has_line)
			line += ldelta;
		if (lasti >= start && lasti < end)
			return has_line && line > 0 && line <= INT32_MAX ? (int)line : 0;
	}
	return 0;
}

/* The varints of the 3.11+ location table: 6 bits a byte, low bits first, 0x40 = more.
 * Returns the number of bytes read, 0 when the table ends first or the value is absurd. */
static uint32_t varint(const uint8_t *p, uint32_t avail, uint32_t *val)
{
	uint32_t v = 0;
	for (uint32_t i = 0; i < avail && i < 5; i++) {
		v |= (uint32_t)(p[i] & 63) << (6 * i);
		if (!(p[i] & 64)) {
			*val = v;
			return i + 1;
		}
	}
	return 0;
}

/* 3.11+ (co_linetable, the location table of PEP 657): entries that each start with a
 * byte with bit 7 set; bits 3-6 a code, bits 0-2 the length in code units minus one.
 * Code 15: no location; 14 (long) and 13 (no columns): a signed varint line delta first;
 * 10-12: line delta code-10 with two column bytes; 0-9: same line, one column byte. */
static int line_311(const uint8_t *lt, uint32_t len, int firstlineno, int lasti)
{
	long line = firstlineno, addr = 0;
	uint32_t i = 0;
	while (i < len) {
		uint8_t b = lt[i];
		if (!(b & 0x80))
			return 0; /* not at the start of an entry: not a location table */
		int code = (b >> 3) & 15;
		long n = ((b & 7) + 1) * 2;
		long delta = 0;
		if (code == 13 || code == 14) {
			uint32_t u;
			if (!varint(lt + i + 1, len - i - 1, &u))
				return 0;
			delta = (u & 1) ? -(long)(u >> 1) : (long)(u >> 1);
		} else if (code >= 10 && code <= 12) {
			delta = code - 10;
		}
		line += delta;
		if (lasti < addr + n)
			return code != 15 && line > 0 && line <= INT32_MAX ? (int)line : 0;
		addr += n;
		for (i++; i < len && !(lt[i] & 0x80); i++)
			;
	}
	return 0;
}

int pyline_line(unsigned version, const uint8_t *linetable, uint32_t len, int firstlineno,
		int lasti)
{
	if (!linetable || lasti < 0 || (version >> 8) != 3)
		return 0;
	if ((version & 0xff) == 10)
		return line_310(linetable, len, firstlineno, lasti);
	if ((version & 0xff) >= 11)
		return line_311(linetable, len, firstlineno, lasti);
	return 0;
}
