/* Which CUDA API functions the trace leaves out unless `record --all-api`: queries that
 * launch nothing, wait for nothing and take well under a microsecond. One list, used by
 * the activity records (CUPTI told to leave them out), by the API calls from callbacks
 * and by the call stacks (a call the trace leaves out gets no stack), and named in the
 * trace's note. */
#ifndef KGANTT_API_FILTER_H
#define KGANTT_API_FILTER_H

#include <stddef.h>
#include <cupti.h>

/* 1 when the function is a trivial query the trace leaves out. */
int api_filter_trivial(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/* The trivial functions of one domain (runtime or driver): their count, *list set. */
size_t api_filter_list(CUpti_CallbackDomain domain, const CUpti_CallbackId **list);

/* Their names as users write them, runtime first, each once, comma-separated, into buf
 * (cut short, still terminated, when size is too small); those for which omit(domain,
 * cbid) returns 1 are not named (omit may be NULL). */
void api_filter_names(char *buf, size_t size,
		      int (*omit)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid));

#endif
