# bench/bench.mk — overhead-benchmark binaries (included by the top-level Makefile).
#
#   make bench-build     build/bench/launch_loop and build/bench/libcupti_raw.so
#   bench/overhead.sh    run the benchmark on a GPU machine (see bench/README.md)
#
# Not part of `all`.

BENCH_OUT := $(BUILD)/bench

.PHONY: bench-build
bench-build: $(BENCH_OUT)/launch_loop $(BENCH_OUT)/libcupti_raw.so

# Shared cudart (as most real programs and PyTorch use it); the rpath lets it run without
# LD_LIBRARY_PATH where the toolkit sits at the same place as here.
$(BENCH_OUT)/launch_loop: bench/launch_loop.cu bench/bench.mk
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -cudart shared -Xlinker -rpath,$(CUDA_LIB) -o $@ bench/launch_loop.cu

# What include/kgantt/sm.h's macros cost per block (tests/gpu/sm_h200.sh runs it).
$(BENCH_OUT)/sm_cost: bench/sm_cost.cu include/kgantt/sm.h bench/bench.mk
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -Iinclude -cudart shared -Xlinker -rpath,$(CUDA_LIB) -o $@ bench/sm_cost.cu
bench-build: $(BENCH_OUT)/sm_cost

# The minimal CUPTI injection library (the `cupti-raw` configuration).  No sanitizers:
# it is loaded into programs not built with them.
$(BENCH_OUT)/libcupti_raw.so: bench/cupti_raw.c bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -shared -fPIC -fvisibility=hidden -I$(CUDA_INC) \
	    -o $@ bench/cupti_raw.c -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -lpthread \
	    -Wl,--no-undefined

# What the recorder's own code costs per event, no GPU needed (bench/recorder_parts.c): built
# as the recorder is (-O2, -fPIC, no sanitizers), against libcupti for its types and names.
.PHONY: bench-parts
bench-parts: $(BENCH_OUT)/recorder_parts
bench-build: $(BENCH_OUT)/recorder_parts
RECORDER_PARTS_SRC := src/recorder/api_calls.c $(REC_LAUNCHES_SRC) src/recorder/convert.c src/recorder/sync_calls.c src/recorder/spool.c \
                      src/util/strtab.c src/util/api_names.c
$(BENCH_OUT)/recorder_parts: bench/recorder_parts.c $(RECORDER_PARTS_SRC) bench/bench.mk \
                             $(wildcard src/recorder/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -fPIC -Isrc -I$(CUDA_INC) -o $@ $< $(RECORDER_PARTS_SRC) \
	    -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -lpthread

# The trace-size benchmark's tools (no GPU needed): which transforms of the packed blocks
# pay, at which zstd level (bench/pack_transforms.c); a launch loop's spool written by the
# recorder's own spool writer, for timing `kgantt import` (bench/spool_gen.c).
.PHONY: bench-pack
bench-pack: $(BENCH_OUT)/pack_transforms $(BENCH_OUT)/spool_gen
$(BENCH_OUT)/pack_transforms: bench/pack_transforms.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB_A) $(TOOL_LIBS)
$(BENCH_OUT)/spool_gen: bench/spool_gen.c src/recorder/spool.c src/util/strtab.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -Isrc -I$(CUDA_INC) -o $@ $^ -lpthread
