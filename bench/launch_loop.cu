// launch_loop.cu — launch-overhead workload for bench/overhead.sh.
//
// Launches N empty kernels in a loop on one stream, then one cudaDeviceSynchronize, and
// times loop+sync with CLOCK_MONOTONIC_RAW.  A warm-up of W launches (+ sync) comes
// first; the timed loop is repeated R times and the median is printed:
//
//     us_per_launch=<median µs per launch>
//     reps_us_per_launch=<r1>,<r2>,...
//     host_us_per_launch=<r1>,<r2>,...   (the loop alone, before the sync: if it equals the
//                                         figure above, the host sets the pace, not the GPU)
//     launches=<N> reps=<R> warmup=<W> sync_every=<S>
//
// Usage: launch_loop [-n LAUNCHES] [-w WARMUP] [-r REPS] [-s EVERY]
//        (defaults 20000, 1000, 3, 0)
//   -s EVERY  also cudaStreamSynchronize every EVERY launches (0: never), as a training
//             loop does at each step: whether what CUPTI holds per kernel with latency
//             timestamps on is given back at a synchronisation (bench/recorder_memory.sh)
// Exit status: 0 on success, 1 on a CUDA error, 2 on bad arguments.
#include <cuda_runtime.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__global__ void empty_kernel() {}

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "launch_loop: %s:%d: %s failed: %s (%s)\n", __FILE__,         \
                    __LINE__, #call, cudaGetErrorString(e_), cudaGetErrorName(e_));       \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static double now_us()
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0) {
        fprintf(stderr, "launch_loop: clock_gettime(CLOCK_MONOTONIC_RAW): %s\n",
                strerror(errno));
        exit(1);
    }
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long parse_count(const char *opt, const char *s, long min, long max)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || *end || end == s || v < min || v > max) {
        fprintf(stderr, "launch_loop: bad value for %s: '%s' (want %ld..%ld)\n", opt, s, min,
                max);
        exit(2);
    }
    return v;
}

// Launch `n` empty kernels on `s`; every launch's return code is checked (an integer
// compare: the same cost in every configuration).
static void launch_n(long n, cudaStream_t s, long sync_every)
{
    for (long i = 0; i < n; i++) {
        if (sync_every && i && i % sync_every == 0)
            CK(cudaStreamSynchronize(s));
        cudaError_t e = cudaLaunchKernel((const void *)empty_kernel, dim3(1), dim3(1), NULL,
                                         0, s);
        if (e != cudaSuccess) {
            fprintf(stderr, "launch_loop: launch %ld failed: %s (%s)\n", i,
                    cudaGetErrorString(e), cudaGetErrorName(e));
            exit(1);
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long n = 20000, warmup = 1000, reps = 3, sync_every = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s [-n LAUNCHES] [-w WARMUP] [-r REPS] [-s SYNC_EVERY]\n",
                   argv[0]);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "launch_loop: unknown or incomplete argument '%s'\n", a);
            return 2;
        }
        if (!strcmp(a, "-n"))
            n = parse_count("-n", argv[++i], 1, 100000000L);
        else if (!strcmp(a, "-w"))
            warmup = parse_count("-w", argv[++i], 0, 100000000L);
        else if (!strcmp(a, "-r"))
            reps = parse_count("-r", argv[++i], 1, 101);
        else if (!strcmp(a, "-s"))
            sync_every = parse_count("-s", argv[++i], 0, 100000000L);
        else {
            fprintf(stderr, "launch_loop: unknown argument '%s'\n", a);
            return 2;
        }
    }

    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    if (ndev < 1) {
        fprintf(stderr, "launch_loop: no CUDA device\n");
        return 1;
    }
    CK(cudaSetDevice(0));
    CK(cudaFree(0));  // create the context before anything is timed
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    fprintf(stderr, "launch_loop: device 0: %s (sm_%d%d)\n", prop.name, prop.major,
            prop.minor);

    cudaStream_t s;
    CK(cudaStreamCreate(&s));

    launch_n(warmup, s, sync_every);
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());

    double *per = (double *)calloc((size_t)reps, sizeof *per);
    double *host = (double *)calloc((size_t)reps, sizeof *host);
    if (!per || !host) {
        fprintf(stderr, "launch_loop: out of memory\n");
        return 1;
    }
    for (long r = 0; r < reps; r++) {
        double t0 = now_us();
        launch_n(n, s, sync_every);
        double t_loop = now_us();
        CK(cudaDeviceSynchronize());
        double t1 = now_us();
        per[r] = (t1 - t0) / (double)n;
        host[r] = (t_loop - t0) / (double)n;
    }
    CK(cudaGetLastError());

    printf("reps_us_per_launch=");
    for (long r = 0; r < reps; r++)
        printf("%s%.4f", r ? "," : "", per[r]);
    printf("\nhost_us_per_launch=");
    for (long r = 0; r < reps; r++)
        printf("%s%.4f", r ? "," : "", host[r]);
    printf("\n");
    qsort(per, (size_t)reps, sizeof *per, cmp_double);
    double med = (reps % 2) ? per[reps / 2] : 0.5 * (per[reps / 2 - 1] + per[reps / 2]);
    printf("launches=%ld reps=%ld warmup=%ld sync_every=%ld\n", n, reps, warmup, sync_every);
    printf("us_per_launch=%.4f\n", med);
    fflush(stdout);

    free(per);
    free(host);
    CK(cudaStreamDestroy(s));
    return 0;
}
