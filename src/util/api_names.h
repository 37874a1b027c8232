/* What a CUDA runtime or driver API function does, told by its name: one classification
 * for the recorder (which calls get a call stack) and the analysis (which calls launch,
 * copy, wait or allocate). */
#ifndef KGANTT_API_NAMES_H
#define KGANTT_API_NAMES_H

/* X(ID, "name"): LAUNCH kernel and graph launches; SYNC device/stream/event/context
 * synchronize and stream waits; ALLOC malloc and free of any kind. */
#define KG_API_CATEGORIES(X)                                                      \
	X(OTHER, "other") X(LAUNCH, "launch") X(MEMCPY, "memcpy") X(MEMSET, "memset") \
	X(SYNC, "sync") X(ALLOC, "alloc")
enum kg_api_category {
#define KG_API_CATEGORY_ENUM_(id, name) KG_API_##id,
	KG_API_CATEGORIES(KG_API_CATEGORY_ENUM_)
#undef KG_API_CATEGORY_ENUM_
};
/* "launch", "memcpy", ...; "other" for other codes. */
const char *api_category_name(unsigned category);

/* The category of a CUDA runtime/driver API function from its name (version suffixes such
 * as _v7000 do not matter). */
enum kg_api_category api_category(const char *name);

/* 1 for a call that makes the host wait for the device: a synchronisation (category
 * SYNC), or a copy or memset without "Async" in its name. */
int api_blocks_host_call(enum kg_api_category category, const char *name);

/* 1 for a call that begins capturing a stream into a CUDA graph (cudaStreamBeginCapture,
 * cuStreamBeginCapture, hipStreamBeginCapture, ...ToGraph), -1 for one that ends it, 2
 * for one that sets a captured graph up by itself (cudaGraphInstantiate, its variants,
 * cudaGraphUpload), 0 for any other. */
int api_capture_edge(const char *name);

/* The name as a user writes it: CUPTI's version suffix dropped ("cudaStreamSynchronize"
 * for "cudaStreamSynchronize_v3020"). Returns buf. */
const char *api_display_name(const char *name, char *buf, unsigned len);

#endif
