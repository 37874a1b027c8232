/* cli_write_output (write_output.h). */
#include "cli/write_output.h"

#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "util/outfile.h"

int cli_write_output(const char *out, const char *what, cli_writer_fn write, const void *arg)
{
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = what};
	FILE *f = outfile_open(&of, out, &oo);
	if (!f) {
		kg_err("%s", of.err);
		return KG_EXIT_FAILURE;
	}
	errno = 0;
	int rc = write(f, arg);
	int e = errno ? errno : EIO;
	if (rc < 0) {
		if (rc == -ENOMEM)
			kg_err("out of memory writing %s to '%s'", what, out);
		else if (rc == -EINVAL)
			kg_err("cannot write '%s': the compiled-in template is damaged", out);
		else if (of.direct && !strcmp(out, "-"))
			kg_err("cannot write to standard output: %s", strerror(e));
		else
			kg_err("cannot write '%s': %s", out, strerror(e));
		outfile_abort(&of);
		return KG_EXIT_FAILURE;
	}
	if (outfile_commit(&of) < 0) {
		kg_err("%s", of.err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}
