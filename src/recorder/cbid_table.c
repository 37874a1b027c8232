/* The functions' bytes by callback id (cbid_table.h). */
#include "recorder/cbid_table.h"

#include <string.h>

static uint32_t ids_in(CUpti_CallbackDomain domain)
{
	return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_RUNTIME_TRACE_CBID_SIZE
						     : CUPTI_DRIVER_TRACE_CBID_SIZE;
}

void cbid_table_fill(struct kg_cbid_table *t,
		     uint8_t (*of)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				   const char *name, void *ctx),
		     void *ctx)
{
	static const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API,
						       CUPTI_CB_DOMAIN_DRIVER_API};
	memset(t, 0, sizeof(*t));
	for (size_t d = 0; d < sizeof(domains) / sizeof(domains[0]); d++) {
		uint8_t *bytes = domains[d] == CUPTI_CB_DOMAIN_RUNTIME_API ? t->runtime : t->driver;
		for (uint32_t cbid = 1; cbid < ids_in(domains[d]); cbid++) {
			const char *name = NULL;
			if (cuptiGetCallbackName(domains[d], cbid, &name) == CUPTI_SUCCESS && name)
				bytes[cbid] = of(domains[d], cbid, name, ctx);
		}
	}
}

void cbid_table_enable(const struct kg_cbid_table *t, CUpti_CallbackDomain domain, uint8_t value,
		       CUpti_SubscriberHandle sub, uint32_t on)
{
	const uint8_t *bytes = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? t->runtime : t->driver;
	for (uint32_t cbid = 1; cbid < ids_in(domain); cbid++)
		if (bytes[cbid] == value)
			cuptiEnableCallback(on, sub, domain, cbid);
}
