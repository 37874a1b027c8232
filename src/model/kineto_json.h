/* The JSON layer of the Kineto reader: yajl's event parser, the keys and nesting of a
 * Chrome trace, each element of interest decoded into a struct kin_item (kineto_event.h).
 * It knows nothing of the model. */
#ifndef KGANTT_KINETO_JSON_H
#define KGANTT_KINETO_JSON_H

#include "model/kineto_event.h"

struct kin_json;

/* A parser at the start of a document; path names the file in messages. NULL when out
 * of memory. */
struct kin_json *kin_json_new(const char *path);
void kin_json_free(struct kin_json *j);

/* Parses the next len bytes of the document, which start at *at, adding the items that
 * end in them to out. 0, or a negative errno code (kin_json_error says why). */
int kin_json_feed(struct kin_json *j, const unsigned char *text, size_t len,
		  const struct kin_pos *at, struct kin_batch *out);
/* The document ended at *at: checks that it was whole and a trace. */
int kin_json_finish(struct kin_json *j, const struct kin_pos *at);
const char *kin_json_error(const struct kin_json *j);

/* Whether the document read so far ends inside traceEvents, right after an element
 * whose closing '}' is at byte brace (only white space since): there the rest of the
 * array may be parsed on its own (kin_json_events). */
int kin_json_between_events(const struct kin_json *j, uint64_t brace);

/* Parses text (len bytes at *at: a ',' then elements of traceEvents) on its own, as if
 * it followed an element of the array, j starting afresh: 0 when it is exactly a list
 * of whole elements, their items added to out; -1 when not (a parse error, or a piece
 * cut in the wrong place: then the document's own parser must read it, for its message
 * or its meaning). */
int kin_json_events(struct kin_json *j, const unsigned char *text, size_t len,
		    const struct kin_pos *at, struct kin_batch *out);

#endif
