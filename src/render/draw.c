#include "render/draw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

void set_rgb(cairo_t *cr, struct rgb c)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

void font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

double text_w(cairo_t *cr, const char *s)
{
	cairo_text_extents_t e;
	cairo_text_extents(cr, s, &e);
	return e.x_advance;
}

double text_fit(cairo_t *cr, double x, double y, double maxw, const char *s, struct rgb c)
{
	char *clean = NULL, buf[600];
	size_t n, cap = 0;
	const char *t = utf8_clean(s, &n, &clean, &cap);
	snprintf(buf, sizeof(buf), "%s", t ? t : "");
	free(clean);
	size_t len = strlen(buf);
	while (len > 0 && text_w(cr, buf) > maxw) {
		do /* back to the start of a UTF-8 character */
			len--;
		while (len > 0 && ((unsigned char)buf[len] & 0xc0) == 0x80);
		if (len + 4 > sizeof(buf))
			continue;
		memcpy(buf + len, "…", 4);
		if (text_w(cr, buf) <= maxw)
			break;
	}
	if (!len)
		return 0;
	set_rgb(cr, c);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, buf);
	return text_w(cr, buf);
}
