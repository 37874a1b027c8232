/* A terminal page, 100 columns at most: cells, word-wrapped fields, headings, colour.
 * UTF-8 (µ, ×, ≥) counts as one column a character. Everything that came from a trace
 * (names, command lines, notes) goes through text_safe first: a kernel name holding an
 * escape sequence must not drive the user's terminal. */
#ifndef KGANTT_TEXT_PAGE_H
#define KGANTT_TEXT_PAGE_H

#include <stddef.h>
#include <stdio.h>

#define KG_PAGE_WIDTH 100   /* columns of a page */
#define KG_PAGE_LABEL 13    /* columns of a field's label: "evidence", "copy overlap" */

/* Display columns of UTF-8 text (code points; every one taken as one column wide). */
size_t text_columns(const char *s);
/* Bytes of s that make up its first cols columns (never splitting a UTF-8 sequence). */
size_t text_bytes_for_columns(const char *s, size_t cols);
/* in copied to out (len bytes) with control characters replaced: a newline by '↵', a tab
 * and a carriage return by a space, the rest of C0, DEL, and C1 (U+0080 to U+009F, which
 * some terminals take as escape sequences) by '?'; cut at a character boundary when it does
 * not fit. Returns out. */
const char *text_safe(const char *in, char *out, size_t len);
/* Cuts s (a buffer of len bytes) in place to width columns, ending it with "…" when
 * something was cut. */
void text_cut(char *s, size_t len, size_t width);
/* Appends to the string in buf (of cap bytes), cutting what does not fit. */
void text_appendf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* s padded to width columns, right- or left-aligned; a right-aligned s wider than its
 * column still gets one space before it. */
void page_cell(FILE *f, const char *s, size_t width, int right);
/* text (made safe) from column col to the page width, word-wrapped; the next lines start
 * at column col too. Any length. */
void page_wrap(FILE *f, size_t col, const char *text);
/* indent spaces, label padded to KG_PAGE_LABEL (none when NULL), then text wrapped under
 * itself. */
void page_field(FILE *f, int indent, const char *label, const char *text);
/* ... the text from a format, of any length. */
void page_fieldf(FILE *f, int indent, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

enum page_tone { PAGE_PLAIN, PAGE_BOLD, PAGE_WARN, PAGE_BAD };
/* ANSI bold, yellow, bold red when color is on. */
void page_tone_on(FILE *f, int color, enum page_tone t);
void page_tone_off(FILE *f, int color, enum page_tone t);
/* A blank line, then the heading in bold. */
void page_heading(FILE *f, int color, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
