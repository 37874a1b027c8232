/* The importer's side of `record --hw`: KG_RAW_HW_DEVICE and KG_RAW_HW_SAMPLES records
 * into the trace's hw_devices, hw_metrics and hw_samples tables (trace/schema.c). */
#ifndef KGANTT_HW_IMPORT_H
#define KGANTT_HW_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/raw_format.h"
#include "trace/spool_import.h"

struct kg_hw_import;

struct kg_hw_import *hw_import_new(struct kg_import *im);
void hw_import_free(struct kg_hw_import *h);
/* metric and note: the texts of x->metric_str and x->note_str, NULL when absent. */
int hw_import_device(struct kg_hw_import *h, int64_t process, const struct kg_raw_hw_device *x,
		     const char *metric, const char *note);
/* size: the record's size. Returns 0, -EINVAL with `why` filled, or an SQLite failure
 * (negative, message in the import's err). */
int hw_import_samples(struct kg_hw_import *h, int64_t process, const struct kg_raw_hw_samples *x,
		      size_t size, char *why, size_t why_size);

#endif
