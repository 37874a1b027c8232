/* The column codec (codec.h): the check of a column's varints that decodes nothing. */
#include "trace/codec.h"

#include <string.h>

int varints_fit(const uint8_t *p, const uint8_t *end, uint64_t count)
{
	uint64_t ends = 0;
	unsigned run = 0; /* continuation bytes since the last varint ended */
	/* eight bytes at a time: their high bits, one per byte */
	for (; end - p >= 8; p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t high = w & 0x8080808080808080ull;
		if (high == 0x8080808080808080ull) {
			if ((run += 8) >= KG_VARINT_MAX)
				return 0;
			continue;
		}
		ends += 8 - (uint64_t)__builtin_popcountll(high);
		/* a word with a byte of a longer varint: its run walked byte by byte */
		if (high) {
			for (int i = 0; i < 8; i++) {
				if (p[i] & 0x80) {
					if (++run >= KG_VARINT_MAX)
						return 0;
				} else {
					run = 0;
				}
			}
		} else {
			run = 0;
		}
	}
	for (; p < end; p++) {
		if (*p & 0x80) {
			if (++run >= KG_VARINT_MAX)
				return 0;
		} else {
			ends++;
			run = 0;
		}
	}
	return run == 0 && ends == count;
}
