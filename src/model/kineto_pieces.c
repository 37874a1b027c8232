/* Cutting the Kineto JSON text into pieces at event boundaries (kineto_pieces.h). */
#include "model/kineto_pieces.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether the newline at text[nl] sits in "}<ws>,<ws>\n<ws>{": the offsets of the ','
 * and the '}' then. */
static int cut_at(const unsigned char *text, size_t len, size_t nl, size_t *comma,
		  size_t *brace)
{
	size_t i = nl + 1;
	while (i < len && is_space(text[i]))
		i++;
	if (i == len || text[i] != '{')
		return 0;
	i = nl;
	while (i > 0 && text[i - 1] != '\n' && is_space(text[i - 1]))
		i--;
	if (i == 0 || text[i - 1] != ',')
		return 0;
	*comma = --i;
	while (i > 0 && is_space(text[i - 1]))
		i--;
	if (i == 0 || text[i - 1] != '}')
		return 0;
	*brace = i - 1;
	return 1;
}

long kin_find_cut(const unsigned char *text, size_t len, size_t from, size_t to,
		  size_t *brace)
{
	size_t end = to < len ? to : len;
	const unsigned char *nl;
	/* the newline comes after the ',': look at the line that holds `to` too */
	while (end < len && end - to < 4096 && text[end] != '\n')
		end++;
	end += end < len; /* the newline itself */
	while (end > from && (nl = memrchr(text + from, '\n', end - from)) != NULL) {
		size_t at = (size_t)(nl - text), comma;
		if (cut_at(text, len, at, &comma, brace) && comma >= from && comma < to)
			return (long)comma;
		end = at;
	}
	return -1;
}

void kin_cutter_init(struct kin_cutter *c, struct kin_input *in, size_t size)
{
	memset(c, 0, sizeof(*c));
	c->in = in;
	c->size = size < 64 ? 64 : size; /* tests and fuzzing cut small texts finely */
}

void kin_cutter_free(struct kin_cutter *c)
{
	free(c->carry);
	free(c->reads);
	c->carry = NULL;
	c->reads = NULL;
}

void kin_piece_free(struct kin_piece *p)
{
	free(p->text);
	free(p->reads);
	memset(p, 0, sizeof(*p));
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*arr, n * size);
	if (!q)
		return -ENOMEM;
	*arr = q;
	*cap = n;
	return 0;
}

/* Reads into p until it holds c->size bytes or the text ends, noting where each read
 * began. */
static int fill(struct kin_cutter *c, struct kin_piece *p)
{
	while (p->len < c->size && !c->eof) {
		if (grow((void **)&c->reads, &c->cap_reads, c->n_reads + 1, sizeof(*c->reads)) < 0)
			return -ENOMEM;
		long n = kin_input_read(c->in, p->text + p->len, c->eof_msg, sizeof(c->eof_msg));
		if (n <= 0) {
			c->eof = 1;
			c->eof_rc = (int)n;
			break;
		}
		c->reads[c->n_reads++] = p->base + p->len;
		p->len += (size_t)n;
	}
	return 0;
}

/* Ends p at its last cut in [size/2, size), keeping the rest for the next piece. */
static int cut(struct kin_cutter *c, struct kin_piece *p)
{
	size_t brace;
	long comma = p->len > c->size || !c->eof
			     ? kin_find_cut(p->text, p->len, c->size / 2, c->size, &brace) : -1;
	c->cut_before = comma >= 0;
	if (comma < 0)
		return 0;
	size_t rest = p->len - (size_t)comma;
	if (grow((void **)&c->carry, &c->cap_carry, rest, 1) < 0)
		return -ENOMEM;
	memcpy(c->carry, p->text + comma, rest);
	c->n_carry = rest;
	p->len = (size_t)comma;
	p->cut_after = 1;
	p->brace_after = c->brace = p->base + brace;
	return 0;
}

/* Hands p the read offsets inside it; later ones stay for the next piece. */
static int take_reads(struct kin_cutter *c, struct kin_piece *p)
{
	size_t i = 0;
	uint64_t end = p->base + p->len;
	while (i < c->n_reads && c->reads[i] < end)
		i++;
	if (grow((void **)&p->reads, &p->cap_reads, i, sizeof(*p->reads)) < 0)
		return -ENOMEM;
	p->n_reads = 0;
	for (size_t j = 0; j < i; j++)
		if (c->reads[j] > p->base)
			p->reads[p->n_reads++] = c->reads[j];
	memmove(c->reads, c->reads + i, (c->n_reads - i) * sizeof(*c->reads));
	c->n_reads -= i;
	return 0;
}

/* p emptied, its buffers kept. */
static void reset(struct kin_piece *p)
{
	struct kin_piece keep = {.text = p->text, .cap = p->cap, .reads = p->reads,
				 .cap_reads = p->cap_reads};
	*p = keep;
}

int kin_cutter_next(struct kin_cutter *c, struct kin_piece *p)
{
	reset(p);
	p->base = c->base;
	if (c->done) {
		p->last = 1;
		return 0;
	}
	if (grow((void **)&p->text, &p->cap, c->n_carry + c->size + KIN_CHUNK, 1) < 0)
		return -ENOMEM;
	if (c->n_carry)
		memcpy(p->text, c->carry, c->n_carry);
	p->len = c->n_carry;
	c->n_carry = 0;
	p->cut_before = c->cut_before;
	p->brace = c->brace;
	if (fill(c, p) < 0 || cut(c, p) < 0 || take_reads(c, p) < 0)
		return -ENOMEM;
	c->base += p->len;
	if (c->eof && !c->n_carry) {
		c->done = p->last = 1;
		p->input_rc = c->eof_rc;
		memcpy(p->input_msg, c->eof_msg, sizeof(p->input_msg));
	}
	return 0;
}
