#include "render/draw.h"

#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/page.h"
#include "util/utf8.h"

void set_rgb(cairo_t *cr, struct rgb c)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

/* DejaVu Sans, regular and bold, compiled in (Makefile: FONT_GEN): fontconfig is not
 * asked, so a chart made on a GPU node without fonts or a fontconfig set-up has the same
 * glyphs ("·", "µ", "—" included) as one made here, where the toy API drew boxes. */
extern const unsigned char kg_font_regular[], kg_font_bold[];
extern const size_t kg_font_regular_len, kg_font_bold_len;

static cairo_font_face_t *embedded_face(int bold)
{
	static FT_Library library;
	static cairo_font_face_t *faces[2];
	static int failed[2];
	bold = !!bold;
	if (faces[bold] || failed[bold])
		return faces[bold];
	FT_Face face = NULL;
	if ((!library && FT_Init_FreeType(&library) != 0) ||
	    FT_New_Memory_Face(library, bold ? kg_font_bold : kg_font_regular,
			       (FT_Long)(bold ? kg_font_bold_len : kg_font_regular_len), 0, &face) != 0) {
		failed[bold] = 1;
		return NULL;
	}
	/* the FreeType face lives as long as the program: cairo keeps using it */
	faces[bold] = cairo_ft_font_face_create_for_ft_face(face, 0);
	if (cairo_font_face_status(faces[bold]) != CAIRO_STATUS_SUCCESS) {
		faces[bold] = NULL;
		failed[bold] = 1;
	}
	return faces[bold];
}

void font(cairo_t *cr, double size, int bold)
{
	cairo_font_face_t *face = embedded_face(bold);
	if (face)
		cairo_set_font_face(cr, face);
	else /* FreeType refused the embedded file: the system's font by name */
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
	/* as the text report writes it: a recorded `python -c` command's newlines as '↵',
	 * other control characters (no glyph: a box each) as '?' */
	text_safe(t ? t : "", buf, sizeof(buf));
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
