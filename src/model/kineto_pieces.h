/* The Kineto JSON text cut into pieces that two threads can parse at once (read_kineto.c).
 *
 * A piece ends, where it can, just before the ',' that separates two elements of
 * traceEvents: a ',' with only white space and a newline between it and the next '{', and
 * only white space between it and the '}' before it. A JSON string cannot hold a raw
 * newline, so in valid JSON such a ',' is never inside a string; whether it is between
 * two events, and not between two objects nested deeper, only the parse before it can
 * tell: read_kineto.c checks that (kin_json_between_events) before it trusts a piece
 * parsed on its own. The text's layout decides how often a cut can be made: torch writes
 * one key per line, so every event boundary qualifies; a trace on one line gives no cut,
 * and the whole text is parsed as one sequence. */
#ifndef KGANTT_KINETO_PIECES_H
#define KGANTT_KINETO_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "model/kineto_input.h"

struct kin_piece {
	unsigned char *text;      /* malloc'ed, cap bytes: kept for the next piece */
	size_t len, cap;
	uint64_t base;            /* JSON offset of text[0] */
	int cut_before;           /* text[0] is such a ',': */
	uint64_t brace;           /* ... and the '}' before it is at this offset */
	int cut_after;            /* the text after the piece starts with such a ',' */
	uint64_t brace_after;     /* ... and the '}' before it (the piece's last) is here */
	uint64_t *reads;          /* JSON offsets inside the piece where a read of the file
				   * began (kin_input_read): the document's parser is given the
				   * text in those pieces (see KIN_CHUNK); malloc'ed */
	size_t n_reads, cap_reads;
	int last;                 /* the text ends with the piece */
	int input_rc;             /* last: 0 at the end of the file, or the read error that
				   * stopped it (message in input_msg) */
	char input_msg[400];
};

struct kin_cutter {
	struct kin_input *in;
	size_t size;              /* bytes per piece */
	unsigned char *carry;     /* text read past the last cut, for the next piece */
	size_t n_carry, cap_carry;
	uint64_t *reads;          /* offsets where reads began, not yet handed out */
	size_t n_reads, cap_reads;
	uint64_t base;            /* JSON offset of the next piece */
	int cut_before;
	uint64_t brace;
	int eof, eof_rc;          /* the input ended, with this kin_input_read result */
	char eof_msg[400];
	int done;
};

/* Pieces of about size bytes (at least 64) of in's text. */
void kin_cutter_init(struct kin_cutter *c, struct kin_input *in, size_t size);
void kin_cutter_free(struct kin_cutter *c);
/* The next piece into p, reusing its buffers (p zeroed at first; kin_piece_free at the
 * end). 0, or -ENOMEM. Read errors end the text: they come back as p->input_rc of the
 * last piece, after the text read before them. */
int kin_cutter_next(struct kin_cutter *c, struct kin_piece *p);
void kin_piece_free(struct kin_piece *p);

/* The offset in text (len bytes) of the last ',' as described above that is in
 * [from, to), with the offset of the '}' before it in *brace; -1 when there is none. */
long kin_find_cut(const unsigned char *text, size_t len, size_t from, size_t to,
		  size_t *brace);

/* read_kineto (load.h) with pieces of piece bytes; the tests cut small files into many. */
struct kg_model;
int read_kineto_pieces(struct kg_model *m, const char *path, const struct kg_load_opts *opts,
		       size_t piece, char *err, size_t errlen);

#endif
