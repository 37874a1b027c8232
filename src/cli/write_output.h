/* A command's output file written one way (view's page, export's text, the job's page):
 * through util/outfile.h (a temporary file beside it, renamed when complete; FIFOs,
 * devices and "-" written directly), with one way of saying what went wrong. */
#ifndef KGANTT_CLI_WRITE_OUTPUT_H
#define KGANTT_CLI_WRITE_OUTPUT_H

#include <stdio.h>

/* Writes the whole output to f: 0, -ENOMEM, -EINVAL (a damaged compiled-in template), or
 * another negative value when a write failed (errno says why). */
typedef int (*cli_writer_fn)(FILE *f, const void *arg);

/* KG_EXIT_OK, or KG_EXIT_FAILURE after the message (what: "the page", "the export"). */
int cli_write_output(const char *out, const char *what, cli_writer_fn write, const void *arg);

#endif
