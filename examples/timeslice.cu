// timeslice.cu — two processes sharing one GPU.
//
//   timeslice [bad|fixed|worker]
//
// The work: 2 x KERNELS long kernels (~20 ms each when alone on the GPU), each one full
// wave of blocks over every SM doing a fixed amount of arithmetic.
//
//   bad    the parent never touches CUDA. It fork()s two children; each execv()s this same
//          binary (/proc/self/exe) in mode `worker`, so each has its own process and its
//          own CUDA context, and runs KERNELS kernels. Without MPS, contexts of different
//          processes cannot run at the same time on one GPU: the GPU time-slices between
//          them, and each kernel's span (start to end) stretches to about twice its
//          ~20 ms of work, interleaved with the other process's kernel.
//          ~0.4 s of GPU work, plus two context creations.
//   fixed  one process, one context, the same 2 x KERNELS kernels on two streams: no
//          context switches, each kernel spans only its own work. ~0.4 s.
//   worker one process's share of bad (KERNELS kernels); started by bad, also runnable
//          alone. Each worker prints its own expectation lines; the validator sums them.
//
// The two workers wait for each other before launching (a pipe barrier through the
// parent), so that their kernels really overlap in time however long each context takes to
// create. The work is a count of operations, not a spin on a clock, so a kernel that is
// descheduled really does take longer.
#include "common.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

enum { KERNELS = 10, BLOCK = 256 };

// ~20 ms per kernel alone on an H200: with a full SM every thread gets ~1/16 of its
// scheduler at ~1.4 issue slots per iteration, ~22 cycles per iteration:
// 1.8e6 * 22 / 1.98 GHz ~= 20 ms.
static const int ITERS = 1800000;

__global__ void timeslice_spin(float *out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = burn((float)i * 1e-7f, iters);
}

// Launch `per_stream` kernels on each of `nstreams` streams, interleaved, and wait.
static long long run_kernels(int nstreams, int per_stream, const char *who, int ready_fd, int go_fd)
{
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(0));  // create the context now, before the barrier
    const int grid = full_wave_grid((const void *)timeslice_spin, BLOCK);
    float *out = NULL;
    CHECK(cudaMalloc(&out, (size_t)nstreams * grid * BLOCK * sizeof(float)));
    cudaStream_t streams[2];
    for (int s = 0; s < nstreams; s++)
        CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize());

    // Barrier (workers of bad only): say "ready", then wait for the parent's "go", which
    // is the parent closing its end of the go pipe (read returns 0).
    if (ready_fd >= 0) {
        char c = 'r';
        if (write(ready_fd, &c, 1) != 1) perror("timeslice worker: write ready");
        close(ready_fd);
        ssize_t r;
        do r = read(go_fd, &c, 1);
        while (r < 0 && errno == EINTR);
        close(go_fd);
    }

    long long launched = 0;
    double t0 = now_ms();
    for (int k = 0; k < per_stream; k++) {
        for (int s = 0; s < nstreams; s++) {
            timeslice_spin<<<grid, BLOCK, 0, streams[s]>>>(out + (size_t)s * grid * BLOCK, ITERS);
            CHECK_LAUNCH();
            launched++;
        }
    }
    CHECK(cudaDeviceSynchronize());
    fprintf(stderr, "timeslice %s (pid %d): %lld kernels of <<<%d, %d>>> in %.2f ms\n", who,
            (int)getpid(), launched, grid, BLOCK, now_ms() - t0);

    for (int s = 0; s < nstreams; s++) CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaFree(out));
    CHECK(cudaDeviceSynchronize());
    return launched;
}

// bad: two worker processes, the parent only starts, synchronizes and reaps them.
static int run_parent(const char *argv0)
{
    int ready[2], go[2];
    if (pipe(ready) != 0 || pipe(go) != 0) {
        perror("timeslice: pipe");
        return 1;
    }
    fflush(stdout);  // nothing buffered may be duplicated into the children
    fflush(stderr);

    pid_t pids[2];
    int started = 0;
    for (int w = 0; w < 2; w++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("timeslice: fork");
            break;
        }
        if (pid == 0) {
            close(ready[0]);
            close(go[1]);
            char rfd[16], gfd[16];
            snprintf(rfd, sizeof rfd, "%d", ready[1]);
            snprintf(gfd, sizeof gfd, "%d", go[0]);
            char *args[] = {(char *)argv0, (char *)"worker", rfd, gfd, NULL};
            execv("/proc/self/exe", args);
            perror("timeslice: execv /proc/self/exe");
            _exit(127);
        }
        pids[started++] = pid;
    }
    close(ready[1]);
    close(go[0]);

    // Wait until every worker is ready, or has died (then all write ends are closed: EOF).
    char buf[2];
    int got = 0;
    while (got < started) {
        ssize_t r = read(ready[0], buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (int)r;
    }
    close(ready[0]);
    close(go[1]);  // go

    int failed = (started < 2);
    for (int w = 0; w < started; w++) {
        int status = 0;
        pid_t r;
        do r = waitpid(pids[w], &status, 0);
        while (r < 0 && errno == EINTR);
        if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "timeslice: worker %d failed (status 0x%x)\n", (int)pids[w], status);
            failed = 1;
        }
    }
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    // `worker READY_FD GO_FD` is how bad starts its children; plain `worker` runs alone.
    if (argc == 4 && strcmp(argv[1], "worker") == 0) {
        int ready_fd = atoi(argv[2]), go_fd = atoi(argv[3]);
        if (ready_fd <= 2 || go_fd <= 2) {
            fprintf(stderr, "usage: %s worker [READY_FD GO_FD]   (file descriptors > 2)\n", argv[0]);
            return 2;
        }
        long long n = run_kernels(1, KERNELS, "worker", ready_fd, go_fd);
        EXPECT_KERNEL(timeslice_spin, n);
        return 0;
    }
    static const char *const modes[] = {"bad", "fixed", "worker", NULL};
    const int mode = parse_mode(argc, argv, modes);
    if (mode == 0) return run_parent(argv[0]);  // children print the expectation lines

    long long n = (mode == 1) ? run_kernels(2, KERNELS, "fixed", -1, -1)
                              : run_kernels(1, KERNELS, "worker", -1, -1);
    EXPECT_KERNEL(timeslice_spin, n);
    return 0;
}
