/* One row of a trace table as its readers see it, from SQL or from a packed block
 * (trace/block.h): each value as sqlite3_column_int64 gives it (a REAL column's as its
 * double's bits), and which columns are NULL. */
#ifndef KGANTT_ROW_H
#define KGANTT_ROW_H

#include <stdint.h>

#define KG_PACKED_MAX_COLUMNS 40

struct kg_row {
	int64_t v[KG_PACKED_MAX_COLUMNS];
	uint64_t nulls; /* bit i: column i is NULL */
};

static inline int row_is_null(const struct kg_row *r, int col)
{
	return (int)((r->nulls >> col) & 1);
}

#endif
