/* For the recorder's unit tests: a spool directory through the importer into a trace. */
#ifndef KGANTT_TEST_IMPORT_SPOOLS_H
#define KGANTT_TEST_IMPORT_SPOOLS_H

#include "harness.h"
#include "trace/spool_import.h"

/* Imports every spool of dir into the trace out, or fails the test with the importer's
 * message. */
static void import_spools(const char *dir, const char *out)
{
	struct kg_import im;
	CHECK_EQ_INT(import_begin(&im, out, "test"), 0);
	int rc = import_spool_dir(&im, dir, NULL);
	if (rc)
		fprintf(stderr, "    %s\n", im.err);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(import_commit(&im), 0);
}

#endif
