/* libFuzzer target: the PyTorch profiler (Kineto) JSON reader, through model_load as every
 * command loads a trace. The input is the file: plain JSON, or gzip when it starts with
 * gzip's magic. A plain input is also read gzip-compressed now and then, and both reads
 * must agree: the reader streams either way, so chunk boundaries differ. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "fuzz_util.h"
#include "model/load.h"

/* gzip (not zlib) framing of data, in a malloc'ed buffer; NULL when out of memory. */
static uint8_t *gzip_of(const uint8_t *data, size_t size, size_t *out_len)
{
	z_stream z = {0};
	if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&z, (uLong)size) + 32;
	uint8_t *out = malloc(cap);
	if (!out) {
		deflateEnd(&z);
		return NULL;
	}
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

struct outcome {
	int rc;
	uint32_t ops, apis, syncs, ranges, streams, threads, stacks;
	int64_t begin, end;
};

static struct outcome load(const char *path)
{
	struct kg_model m;
	struct outcome o = {0};
	o.rc = fuzz_load("fuzz_kineto", path, NULL, &m);
	if (o.rc == 0) {
		o = (struct outcome){0, m.n_ops, m.n_apis, m.n_syncs, m.n_ranges, m.n_streams,
				     m.n_threads, m.n_stacks, m.begin, m.end};
		model_free(&m);
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX + 64];
	int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
	fuzz_write(gz ? "in.json.gz" : "in.json", data, size, path, sizeof(path));
	struct outcome plain = load(path);
	/* one plain input in four, chosen by its content so that a run can be repeated */
	if (gz || size == 0 || (data[size / 2] & 3) != 0)
		return 0;
	size_t zlen;
	uint8_t *z = gzip_of(data, size, &zlen);
	if (!z)
		return 0;
	fuzz_write("in.json.gz", z, zlen, path, sizeof(path));
	free(z);
	struct outcome packed = load(path);
	if (plain.rc != packed.rc || (plain.rc == 0 && memcmp(&plain, &packed, sizeof(plain)))) {
		fprintf(stderr, "fuzz_kineto: plain and gzip reads differ (rc %d / %d, ops %u / %u)\n",
			plain.rc, packed.rc, plain.ops, packed.ops);
		abort();
	}
	return 0;
}
