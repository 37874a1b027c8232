#include "util/api_names.h"

#include <stdio.h>
#include <string.h>

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

enum kg_api_category api_category(const char *name)
{
	if (!name)
		return KG_API_OTHER;
	/* runtime (cuda...) and driver (cu...) names */
	if (strstr(name, "Synchronize") || has_prefix(name, "cudaStreamWaitEvent") ||
	    has_prefix(name, "cuStreamWaitEvent"))
		return KG_API_SYNC;
	if (strstr(name, "LaunchKernel") || strstr(name, "GraphLaunch") ||
	    has_prefix(name, "cudaLaunch") || has_prefix(name, "cuLaunch"))
		return KG_API_LAUNCH;
	if (strstr(name, "Memcpy") || strstr(name, "memcpy"))
		return KG_API_MEMCPY;
	if (strstr(name, "Memset") || strstr(name, "memset"))
		return KG_API_MEMSET;
	if (strstr(name, "Malloc") || strstr(name, "Free") || strstr(name, "MemAlloc") ||
	    strstr(name, "MemFree") || strstr(name, "HostAlloc") || strstr(name, "HostRegister"))
		return KG_API_ALLOC;
	return KG_API_OTHER;
}

int api_blocks_host_call(enum kg_api_category category, const char *name)
{
	if (category == KG_API_SYNC)
		return 1;
	if (category == KG_API_MEMCPY || category == KG_API_MEMSET)
		return name && !strstr(name, "Async");
	return 0;
}

int api_capture_edge(const char *name)
{
	if (!name)
		return 0;
	if (strstr(name, "StreamBeginCapture"))
		return 1;
	if (strstr(name, "StreamEndCapture"))
		return -1;
	return strstr(name, "GraphInstantiate") || strstr(name, "GraphUpload") ? 2 : 0;
}

const char *api_display_name(const char *name, char *buf, unsigned len)
{
	if (!name)
		name = "";
	size_t n = strlen(name);
	/* "_v3020", "_v2", "_v7000": CUPTI's callback names carry the API version */
	size_t i = n;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i < n && i >= 2 && name[i - 1] == 'v' && name[i - 2] == '_')
		n = i - 2;
	snprintf(buf, len, "%.*s", (int)n, name);
	return buf;
}

const char *api_category_name(unsigned category)
{
	static const char *const names[] = {
#define KG_API_CATEGORY_NAME_(id, name) name,
		KG_API_CATEGORIES(KG_API_CATEGORY_NAME_)
#undef KG_API_CATEGORY_NAME_
	};
	return category < sizeof(names) / sizeof(names[0]) ? names[category] : names[KG_API_OTHER];
}
