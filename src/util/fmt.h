#ifndef KGANTT_FMT_H
#define KGANTT_FMT_H

/* "12,345": counts with thousands separators, for people. */
const char *fmt_count(unsigned long long n, char buf[32]);

#endif
