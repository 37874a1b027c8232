/* A terminal page (page.h). */
#include "text/page.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

size_t text_columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

size_t text_bytes_for_columns(const char *s, size_t cols)
{
	size_t i = 0, c = 0;
	while (s[i]) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && c++ == cols)
			break;
		i++;
	}
	return i;
}

/* Length of the UTF-8 sequence a lead byte starts (1 for anything else). */
static size_t utf8_len(unsigned char c)
{
	return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

const char *text_safe(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0;
	while (*p && i + 1 < len) {
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
			out[i++] = '?';
			p += 2;
			continue;
		}
		/* a command line's script ("python3 -c '...'"), perhaps written with "\r\n" */
		if (*p == '\n' || *p == '\t' || *p == '\r') {
			const char *as = *p == '\n' ? "\xe2\x86\xb5" : " "; /* '↵' */
			size_t n = strlen(as);
			if (i + 4 > len) /* room for '↵' and the end, whichever it is */
				break;
			memcpy(out + i, as, n);
			i += n;
			p++;
			continue;
		}
		out[i++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
		p++;
	}
	if (*p) { /* cut short: do not leave half a UTF-8 sequence at the end */
		size_t j = i;
		while (j > 0 && ((unsigned char)out[j - 1] & 0xC0) == 0x80)
			j--;
		if (j > 0 && j - 1 + utf8_len((unsigned char)out[j - 1]) > i)
			i = j - 1;
	}
	out[i] = '\0';
	return out;
}

void text_cut(char *s, size_t len, size_t width)
{
	if (text_columns(s) <= width || width == 0)
		return;
	size_t b = text_bytes_for_columns(s, width - 1);
	if (b + 4 > len) { /* "…" is 3 bytes: make room, at a character boundary */
		b = len - 4;
		while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
			b--;
	}
	strcpy(s + b, "…");
}

void text_appendf(char *buf, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

void page_cell(FILE *f, const char *s, size_t width, int right)
{
	size_t c = text_columns(s);
	size_t pad = c < width ? width - c : (size_t)(right != 0); /* a gap even when too wide */
	if (right)
		fprintf(f, "%*s%s", (int)pad, "", s);
	else
		fprintf(f, "%s%*s", s, (int)pad, "");
}

/* Prints text (already safe) from column col to the page width, word-wrapped; the next
 * lines start at column col too. Words longer than a line (kernel names) are broken. */
static void wrap_text(FILE *f, size_t col, const char *p)
{
	size_t room = KG_PAGE_WIDTH > col + 20 ? KG_PAGE_WIDTH - col : 20;
	while (*p == ' ')
		p++;
	if (!*p)
		fputc('\n', f);
	while (*p) {
		size_t b = text_bytes_for_columns(p, room);
		if (p[b]) { /* break at the last space that fits, if there is one */
			size_t s = b;
			while (s > 0 && p[s] != ' ')
				s--;
			if (s > 0)
				b = s;
		}
		fprintf(f, "%.*s\n", (int)b, p);
		p += b;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(f, "%*s", (int)col, "");
	}
}

void page_wrap(FILE *f, size_t col, const char *text)
{
	size_t n = strlen(text) + 1;
	char small[1024], *buf = n <= sizeof(small) ? small : malloc(n);
	if (!buf) { /* out of memory: what fits in the small buffer */
		buf = small;
		n = sizeof(small);
	}
	wrap_text(f, col, text_safe(text, buf, n));
	if (buf != small)
		free(buf);
}

void page_field(FILE *f, int indent, const char *label, const char *text)
{
	fprintf(f, "%*s", indent, "");
	if (label)
		page_cell(f, label, KG_PAGE_LABEL, 0);
	page_wrap(f, (size_t)indent + (label ? KG_PAGE_LABEL : 0), text);
}

void page_fieldf(FILE *f, int indent, const char *label, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	page_field(f, indent, label, text);
	free(text);
}

void page_tone_on(FILE *f, int color, enum page_tone t)
{
	static const char *const codes[] = {"", "\033[1m", "\033[33m", "\033[1;31m"};
	if (color && t != PAGE_PLAIN)
		fputs(codes[t], f);
}

void page_tone_off(FILE *f, int color, enum page_tone t)
{
	if (color && t != PAGE_PLAIN)
		fputs("\033[0m", f);
}

void page_heading(FILE *f, int color, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputc('\n', f);
	page_tone_on(f, color, PAGE_BOLD);
	vfprintf(f, fmt, ap);
	page_tone_off(f, color, PAGE_BOLD);
	fputc('\n', f);
	va_end(ap);
}
