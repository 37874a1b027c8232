/* The input layer of the Kineto reader: the file, plain or gzip (by its magic bytes,
 * concatenated members read as one stream), read as a stream of JSON text with errors
 * that name the file and the byte. Never holds more than the buffers it is given. */
#ifndef KGANTT_KINETO_INPUT_H
#define KGANTT_KINETO_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "model/load.h"

/* The file is read KIN_CHUNK bytes at a time (compressed bytes for gzip, which then
 * inflate into pieces of at most KIN_CHUNK). yajl's parse errors are placed relative to
 * the piece of text it was given, so the text reaches the document's parser in exactly
 * these pieces (cut further only between tokens): messages do not depend on how the
 * reader runs. */
#define KIN_CHUNK (1u << 20)

struct kin_input;

/* Opens path and reads its start (to tell gzip from plain text). 0, or a negative errno
 * code with a message naming the file in msg; *out is NULL then. opts->progress, when
 * set, is called as the file is read. */
int kin_input_open(struct kin_input **out, const char *path, const struct kg_load_opts *opts,
		   char *msg, size_t msglen);
void kin_input_close(struct kin_input *r);

/* The next piece of JSON text into buf (KIN_CHUNK bytes of room): one read(2) of the
 * file, or what one call of inflate gives. Its length, 0 at the end, or a negative errno
 * code with a message in msg. */
long kin_input_read(struct kin_input *r, unsigned char *buf, char *msg, size_t msglen);

#endif
