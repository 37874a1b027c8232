/* The words and numbers kgantt prints, written one way everywhere (report, job report,
 * diff, charts, pages, record's summary, the readers' notes): durations, shares, counts,
 * plurals. Below the model: it knows no trace (text/names.h names a trace's things). */
#ifndef KGANTT_TEXT_FORMAT_H
#define KGANTT_TEXT_FORMAT_H

#include <stdint.h>

/* A duration with the unit its magnitude needs: "850 ns", "12.3 µs", "4.56 ms", "2.35 s";
 * "-" for an unknown one (INT64_MIN, the model's KG_NO_TIME). Returns buf. */
const char *fmt_duration(int64_t ns, char buf[32]);
/* "42.0%"; "-" when whole is 0. */
const char *fmt_pct(double part, double whole, char buf[16]);
/* "12,345": counts with thousands separators, for people. */
const char *fmt_count(unsigned long long n, char buf[32]);
/* A size with the binary unit its magnitude needs: "812 B", "12.3 KiB", "4.1 MiB", "1.2 GiB". */
const char *fmt_bytes(uint64_t n, char buf[32]);
/* one when n is 1, else many: "%u %s", n, plural(n, "gap", "gaps"). */
static inline const char *plural(unsigned long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

#endif
