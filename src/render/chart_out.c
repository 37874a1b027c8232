/* Charts to files (chart_out.h). */
#include "render/chart_out.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/outfile.h"

#define PNG_MAX_SIDE 32767

struct sink {
	FILE *f;
	int error; /* errno of the first failed write (ENOSPC: a full disk), 0 */
};

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int len)
{
	struct sink *s = closure;
	if (fwrite(data, 1, len, s->f) != len) {
		if (!s->error)
			s->error = errno ? errno : EIO;
		return CAIRO_STATUS_WRITE_ERROR;
	}
	return CAIRO_STATUS_SUCCESS;
}

double chart_pixel_scale(enum kg_plot_format format, int dpi)
{
	return format == KG_PLOT_PNG ? (dpi > 0 ? dpi : 96) / 96.0
	       : format == KG_PLOT_PDF ? 0.75 : 1.0;
}

static cairo_surface_t *make_surface(enum kg_plot_format format, double k, double w, double h,
				     struct sink *s)
{
	switch (format) {
	case KG_PLOT_PNG:
		return cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w * k),
						  (int)ceil(h * k));
	case KG_PLOT_SVG: {
		cairo_surface_t *sf = cairo_svg_surface_create_for_stream(sink_write, s, w, h);
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 15, 10)
		cairo_svg_surface_set_document_unit(sf, CAIRO_SVG_UNIT_PX);
#endif
		return sf;
	}
	default:
		return cairo_pdf_surface_create_for_stream(sink_write, s, w * k, h * k);
	}
}

/* Draws onto a surface writing into s; 0 or a negative errno. */
static int render_to(enum kg_plot_format format, double k, double w, double h,
		     chart_draw_fn draw, void *arg, struct sink *s)
{
	cairo_surface_t *sf = make_surface(format, k, w, h, s);
	if (cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(sf);
		return -ENOMEM;
	}
	cairo_t *cr = cairo_create(sf);
	cairo_scale(cr, k, k);
	int drawn = draw(cr, arg);
	cairo_status_t st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && format == KG_PLOT_PNG)
		st = cairo_surface_write_to_png_stream(sf, sink_write, s);
	cairo_surface_finish(sf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	if (s->error || st == CAIRO_STATUS_WRITE_ERROR)
		return s->error ? -s->error : -EIO;
	return st == CAIRO_STATUS_SUCCESS && drawn == 0 ? 0 : -ENOMEM;
}

int chart_write(enum kg_plot_format format, int dpi, double width, double height,
		chart_draw_fn draw, void *arg, const char *path, const char *what, char *err,
		size_t errlen)
{
	double k = chart_pixel_scale(format, dpi);
	if (format == KG_PLOT_PNG && (width * k > PNG_MAX_SIDE || height * k > PNG_MAX_SIDE)) {
		snprintf(err, errlen, "cannot draw '%s': %.0f x %.0f pixels is more than a PNG "
			 "can hold here (%d a side)", path, width * k, height * k, PNG_MAX_SIDE);
		return -EFBIG;
	}
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = what};
	FILE *f = outfile_open(&of, path, &oo);
	if (!f) {
		snprintf(err, errlen, "%s", of.err);
		return -EIO;
	}
	struct sink s = {f, 0};
	int rc = render_to(format, k, width, height, draw, arg, &s);
	if (rc < 0) {
		outfile_abort(&of);
		snprintf(err, errlen, rc == -ENOMEM ? "out of memory drawing '%s'"
						     : "cannot write '%s': %s",
			 path, strerror(-rc));
	} else if ((rc = outfile_commit(&of)) < 0) {
		snprintf(err, errlen, "%s", of.err);
	}
	return rc;
}
