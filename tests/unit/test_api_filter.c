/* The API functions the trace leaves out (src/recorder/api_filter.c): only queries, every
 * one named once in the trace's note, and nothing the analysis reads among them. */
#include "harness.h"

#include <cupti.h>

#include "recorder/api_filter.h"
#include "util/api_names.h"

static const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API,
					       CUPTI_CB_DOMAIN_DRIVER_API};

static int count_word(const char *text, const char *word)
{
	int n = 0;
	size_t wl = strlen(word);
	for (const char *p = text; (p = strstr(p, word)) != NULL; p += wl)
		if ((p == text || p[-1] == ' ') && (p[wl] == ',' || p[wl] == '\0'))
			n++;
	return n;
}

TEST(no_left_out_function_launches_copies_waits_or_allocates)
{
	for (int d = 0; d < 2; d++) {
		const CUpti_CallbackId *list;
		size_t n = api_filter_list(domains[d], &list);
		CHECK(n > 10);
		for (size_t i = 0; i < n; i++) {
			const char *name = NULL;
			CHECK(cuptiGetCallbackName(domains[d], list[i], &name) == CUPTI_SUCCESS);
			CHECK(name != NULL);
			if (api_category(name) != KG_API_OTHER)
				fprintf(stderr, "    %s is left out but the analysis reads it\n", name);
			CHECK(api_category(name) == KG_API_OTHER);
			CHECK(api_filter_trivial(domains[d], list[i]));
		}
	}
}

TEST(launches_waits_and_copies_are_kept)
{
	CHECK(!api_filter_trivial(CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
	CHECK(!api_filter_trivial(CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020));
	CHECK(!api_filter_trivial(CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
	CHECK(!api_filter_trivial(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
	/* cuBLAS sets a kernel's attribute before some launches: 3 us, not a query */
	CHECK(!api_filter_trivial(CUPTI_CB_DOMAIN_DRIVER_API,
				  CUPTI_DRIVER_TRACE_CBID_cuKernelSetAttribute));
	CHECK(api_filter_trivial(CUPTI_CB_DOMAIN_DRIVER_API,
				 CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute));
	CHECK(api_filter_trivial(CUPTI_CB_DOMAIN_RUNTIME_API,
				 CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
	/* the ids of one domain mean other functions in another */
	CHECK(!api_filter_trivial(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute));
	const CUpti_CallbackId *list;
	CHECK(api_filter_list(CUPTI_CB_DOMAIN_RESOURCE, &list) == 0 && list == NULL);
}

TEST(the_note_names_each_function_once_as_users_write_it)
{
	char names[1536];
	api_filter_names(names, sizeof(names), NULL);
	CHECK(strncmp(names, "cudaGetDevice, cudaGetLastError, ", 33) == 0);
	CHECK(count_word(names, "cudaStreamGetCaptureInfo") == 1); /* and its _v2 */
	CHECK(count_word(names, "cuCtxGetDevice") == 1);
	CHECK(count_word(names, "cuStreamGetCtx") == 1);
	CHECK(count_word(names, "cuKernelGetAttribute") == 1);
	CHECK(count_word(names, "cuGetErrorString") == 1);
	CHECK(!strstr(names, "_v")); /* no version suffix left */
	CHECK(strlen(names) < sizeof(names) - 100); /* room to grow, and the note is whole */
	/* every function of both lists is in it */
	for (int d = 0; d < 2; d++) {
		const CUpti_CallbackId *list;
		size_t n = api_filter_list(domains[d], &list);
		for (size_t i = 0; i < n; i++) {
			const char *name = NULL;
			char shown[128], again[128];
			cuptiGetCallbackName(domains[d], list[i], &name);
			api_display_name(api_display_name(name, again, sizeof(again)), shown,
					 sizeof(shown));
			CHECK(count_word(names, shown) == 1);
		}
	}
}

TEST(a_short_buffer_gets_whole_names_and_its_end)
{
	char names[40];
	memset(names, 'x', sizeof(names));
	api_filter_names(names, sizeof(names), NULL);
	CHECK(memchr(names, '\0', sizeof(names)) != NULL);
	CHECK(strcmp(names, "cudaGetDevice, cudaGetLastError") == 0);
	char none[1] = {'x'};
	api_filter_names(none, sizeof(none), NULL);
	CHECK(none[0] == '\0');
	api_filter_names(none, 0, NULL); /* writes nothing */
}

static int omit_last_error(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020;
}

TEST(functions_cupti_kept_are_not_named)
{
	char names[1536];
	api_filter_names(names, sizeof(names), omit_last_error);
	CHECK(strncmp(names, "cudaGetDevice, cudaPeekAtLastError, ", 36) == 0);
	CHECK(count_word(names, "cudaGetLastError") == 0);
}
