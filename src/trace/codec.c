/* The column codec (codec.h): the check of a column's varints that decodes nothing. */
#include "trace/codec.h"

#include <string.h>

int varints_fit(const uint8_t *p, const uint8_t *end, uint64_t count)
{
	uint64_t ends = 0;
	unsigned run = 0; /* continuation bytes since the last varint ended */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* eight bytes at a time: the bytes that end a varint are those whose high bit is clear;
	 * a run of continuation bytes inside a word is at most 7 long, so only the runs at its
	 * ends, joined across words, can reach 10 */
	for (; end - p >= 8; p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t last = ~w & 0x8080808080808080ull; /* bit 8i+7: byte i ends a varint */
		if (!last) {
			if ((run += 8) >= KG_VARINT_MAX)
				return 0;
			continue;
		}
		if (run + (unsigned)(__builtin_ctzll(last) >> 3) >= KG_VARINT_MAX)
			return 0;
		ends += ((last >> 7) * 0x0101010101010101ull) >> 56; /* its bytes' bits, summed */
		run = (unsigned)(__builtin_clzll(last) >> 3);
	}
#endif
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
