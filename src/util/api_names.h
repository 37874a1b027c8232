/* What a CUDA runtime or driver API function does, told by its name: one classification
 * for the recorder (which calls get a call stack) and the analysis (which calls launch,
 * copy, wait or allocate). */
#ifndef KGANTT_API_NAMES_H
#define KGANTT_API_NAMES_H

enum kg_api_category {
	KG_API_OTHER = 0,
	KG_API_LAUNCH,      /* kernel launches, graph launches */
	KG_API_MEMCPY,
	KG_API_MEMSET,
	KG_API_SYNC,        /* device/stream/event/context synchronize, stream wait */
	KG_API_ALLOC,       /* malloc/free of any kind */
};

/* The category of a CUDA runtime/driver API function from its name (version suffixes such
 * as _v7000 do not matter). */
enum kg_api_category api_category(const char *name);

/* The name as a user writes it: CUPTI's version suffix dropped ("cudaStreamSynchronize"
 * for "cudaStreamSynchronize_v3020"). Returns buf. */
const char *api_display_name(const char *name, char *buf, unsigned len);

#endif
