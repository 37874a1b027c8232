/* A byte for each function of CUPTI's runtime and driver API domains (each callback id),
 * set once from the functions' names, for the callbacks to look up by id: which functions
 * are kernel launches (launches.c), which call stack a function's calls get (stacks.c),
 * which calls can change what a stream handle names (hooked_launches.c). */
#ifndef KGANTT_CBID_TABLE_H
#define KGANTT_CBID_TABLE_H

#include <stdint.h>
#include <cupti.h>

struct kg_cbid_table {
	uint8_t runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE];
	uint8_t driver[CUPTI_DRIVER_TRACE_CBID_SIZE];
};

/* Every function CUPTI names gets of(domain, cbid, name, ctx); the others 0. */
void cbid_table_fill(struct kg_cbid_table *t,
		     uint8_t (*of)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				   const char *name, void *ctx),
		     void *ctx);

/* The function's byte; 0 for another domain or an id past CUPTI's. */
static inline uint8_t cbid_table_get(const struct kg_cbid_table *t, CUpti_CallbackDomain domain,
				     CUpti_CallbackId cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		return t->runtime[cbid];
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		return t->driver[cbid];
	return 0;
}

/* CUPTI's callbacks of every function of the domain whose byte is value: on or off. */
void cbid_table_enable(const struct kg_cbid_table *t, CUpti_CallbackDomain domain, uint8_t value,
		       CUpti_SubscriberHandle sub, uint32_t on);

#endif
