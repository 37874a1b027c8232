// cupti_first.cu — a program that subscribes to CUPTI itself before it touches CUDA, as a
// profiler of its own would. Only one CUPTI subscriber is allowed per process: either the
// program or kgantt's recorder is refused. The program must run on and succeed either
// way, and `kgantt record` must say what happened.
#include <cupti.h>
#include <stdio.h>

__global__ void cupti_first_kernel(int *x) { x[threadIdx.x] += 1; }

static void CUPTIAPI callback(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

int main()
{
    CUpti_SubscriberHandle sub;
    CUptiResult r = cuptiSubscribe(&sub, (CUpti_CallbackFunc)callback, NULL);
    const char *msg = "?";
    cuptiGetResultString(r, &msg);
    printf("program's own cuptiSubscribe: %s\n", msg);
    int *x = NULL;
    if (cudaMalloc(&x, 32 * sizeof(int)) != cudaSuccess) return 1;
    cudaMemset(x, 0, 32 * sizeof(int));
    for (int i = 0; i < 10; i++) cupti_first_kernel<<<1, 32>>>(x);
    int h[32];
    cudaMemcpy(h, x, sizeof(h), cudaMemcpyDeviceToHost);
    printf("result %d (expected 10)\n", h[0]);
    return h[0] == 10 ? 0 : 1;
}
