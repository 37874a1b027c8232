/* The column codec (trace/codec.h): zigzag and varints round-trip every value, and
 * varints_fit says exactly what decoding the varints would say. */
#include "harness.h"

#include <stdint.h>

#include "trace/codec.h"

TEST(varints_round_trip_every_size)
{
	static const int64_t v[] = {0, 1, -1, 63, -64, 64, -65, 127, 128, INT64_MAX, INT64_MIN,
				    1LL << 40, -(1LL << 40), 300, -300};
	uint8_t buf[KG_VARINT_MAX * 20];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t len = put_varint(buf + n, zigzag((uint64_t)v[i]));
		CHECK_EQ_INT(len, varint_len(zigzag((uint64_t)v[i])));
		CHECK(len <= KG_VARINT_MAX);
		n += len;
	}
	const uint8_t *p = buf;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint64_t z;
		uint8_t room[KG_VARINT_MAX * 2] = {0};
		memcpy(room, p, (size_t)(buf + n - p) < sizeof(room) ? (size_t)(buf + n - p)
								     : sizeof(room));
		uint64_t z10;
		CHECK(get_varint(&p, buf + n, &z));
		/* the unrolled decoder takes the varints of more than one byte */
		CHECK(room[0] < 0x80 || (varint10(room, &z10) != NULL && z == z10));
		CHECK((int64_t)unzigzag(z) == v[i]);
	}
	CHECK(p == buf + n);
	CHECK(varints_fit(buf, buf + n, sizeof(v) / sizeof(v[0])));
}

/* What a decoder would take, counted without decoding: runs of every length across the
 * eight-byte words it counts in. */
static int decodes(const uint8_t *p, const uint8_t *end, uint64_t count)
{
	uint64_t got = 0, z;
	while (p < end && get_varint(&p, end, &z))
		got++;
	return p == end && got == count;
}

TEST(varints_fit_as_decoding_says)
{
	uint8_t buf[64];
	for (int trial = 0; trial < 200000; trial++) {
		size_t n = (size_t)(test_random() % sizeof(buf));
		for (size_t i = 0; i < n; i++) {
			uint64_t r = test_random();
			buf[i] = (uint8_t)(r % 4 ? r | 0x80 : r & 0x7f); /* long runs, often */
		}
		for (uint64_t count = 0; count < 12; count++)
			CHECK_EQ_INT(varints_fit(buf, buf + n, count), decodes(buf, buf + n, count));
	}
	/* ten bytes is the longest varint; eleven is not one */
	memset(buf, 0x80, 10);
	buf[9] = 0x01;
	CHECK(varints_fit(buf, buf + 10, 1));
	memset(buf, 0x80, 11);
	buf[10] = 0x01;
	CHECK(!varints_fit(buf, buf + 11, 1));
	CHECK(varints_fit(buf, buf, 0));
	CHECK(!varints_fit(buf, buf + 1, 0)); /* a varint cut short */
}
