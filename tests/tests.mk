# Tests. `make test` = unit tests (under ASan/UBSan) + end-to-end tests over the committed
# H200 fixtures + GPU tests (which skip, saying so, when no GPU is present).

TEST_SAN   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
# Library sources the unit tests link, built again with the sanitizers.
UNIT_LIB   := $(UTIL_SRC) $(TRACE_SRC) $(ANALYSIS_SRC) src/recorder/spool.c src/recorder/stop_wait.c $(VIEW_GEN) $(VIEW_JOB_GEN) $(FONT_GEN)

# The library is compiled once with the sanitizers, then linked into each test.
SAN_OBJ    := $(patsubst %.c,$(BUILD)/san/%.o,$(UNIT_LIB))
SAN_LIB    := $(BUILD)/libkgantt-san.a

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) -MMD -MP \
	    -DKGANTT_VERSION='"$(VERSION)"' -c $< -o $@

$(SAN_LIB): $(SAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/harness.h tests/unit/import_spools.h $(SAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) \
	    -DKGANTT_VERSION='"$(VERSION)"' -o $@ $< $(SAN_LIB) \
	    $(TOOL_LIBS)

.PHONY: unit-tests e2e-tests gpu-tests test-build san-tool
test-build: all $(UNIT_TESTS) san-tool

# kgantt again with the sanitizers, for the end-to-end tests of others' and malformed input
# (tests/run-all.sh): a build of its own, which its own make keeps up to date. With clang
# where make test installed it with its sanitizer runtimes (FUZZ_PKGS; the check links one):
# its UBSan also reports arithmetic on a null pointer (NULL + 0, an empty array), which
# gcc's lets pass and a fuzz target found.
SAN_TOOL_CC = $(if $(shell tests/fuzz/run.sh --check $(FUZZ_CC) && echo y),$(FUZZ_CC) \
	      -Wno-unknown-warning-option,$(CC))
san-tool:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san-tool CC="$(SAN_TOOL_CC)" SAN="$(TEST_SAN)" \
	    OPT="-O1 -g" $(BUILD)/san-tool/kgantt

unit-tests: $(UNIT_TESTS)
	@tests/run-unit.sh $(UNIT_TESTS)

e2e-tests: all
	@tests/run-e2e.sh

test: deps test-deps
	@$(MAKE) --no-print-directory test-build
	@tests/run-all.sh $(UNIT_TESTS)

# The recorder's stack taker: the sources every build of it needs
REC_STACKS_SRC := src/recorder/stacks.c src/recorder/wait_places.c

# The recorder's stack taker as a library of its own, for tests/unit/test_stacks.c: the
# test's functions must not lie in the module whose frames the recorder skips.
STACKS_TEST_SRC := $(REC_STACKS_SRC) $(REC_LAUNCHES_SRC) src/recorder/maps.c src/recorder/pyframes.c src/recorder/spool.c \
                   src/util/strtab.c src/util/api_names.c
$(BUILD)/tests/libkgstacks.so: $(STACKS_TEST_SRC) $(wildcard src/recorder/*.h src/util/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g -fPIC -shared -Isrc -I$(CUDA_INC) -o $@ $(filter %.c,$^) \
	    -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -ldl -lpthread

$(BUILD)/tests/test_stacks: tests/unit/test_stacks.c tests/unit/harness.h tests/unit/import_spools.h $(SAN_LIB) \
                            $(BUILD)/tests/libkgstacks.so
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) \
	    -DKGANTT_VERSION='"$(VERSION)"' -o $@ $< $(BUILD)/tests/libkgstacks.so \
	    -Wl,-rpath,$(abspath $(BUILD)/tests) $(SAN_LIB) $(TOOL_LIBS) \
	    -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti

# SM placement (tests/unit/test_sm.c): the recorder's block log reader, src/recorder/smlog.c,
# built into the test with the sanitizers; the test hands it a fake driver.
$(BUILD)/tests/test_sm: tests/unit/test_sm.c tests/unit/harness.h $(SAN_LIB) \
                        src/recorder/smlog.c src/recorder/smlog.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) \
	    -DKGANTT_VERSION='"$(VERSION)"' -o $@ $< src/recorder/smlog.c $(SAN_LIB) \
	    $(TOOL_LIBS) -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti

# Waits' stacks by Python place (tests/unit/test_wait_places.c): the recorder's table.
$(BUILD)/tests/test_wait_places: tests/unit/test_wait_places.c tests/unit/harness.h $(SAN_LIB) \
                                 src/recorder/wait_places.c src/recorder/wait_places.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc -o $@ $< src/recorder/wait_places.c $(SAN_LIB) \
	    $(TOOL_LIBS)

# The recorder's view of the loaded modules (tests/unit/test_maps.c): src/recorder/maps.c
# against what the loader says on a thread where asking it is safe.
$(BUILD)/tests/test_maps: tests/unit/test_maps.c tests/unit/harness.h $(SAN_LIB) \
                          src/recorder/maps.c src/recorder/maps.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc -o $@ $< src/recorder/maps.c $(SAN_LIB) \
	    $(TOOL_LIBS) -ldl

# Which API functions the trace leaves out (tests/unit/test_api_filter.c): the recorder's
# list, with libcupti for the functions' names.
$(BUILD)/tests/test_api_filter: tests/unit/test_api_filter.c tests/unit/harness.h $(SAN_LIB) \
                                src/recorder/api_filter.c src/recorder/api_filter.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) \
	    -DKGANTT_VERSION='"$(VERSION)"' -o $@ $< src/recorder/api_filter.c $(SAN_LIB) \
	    $(TOOL_LIBS) -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti

# The recorder's API calls from callbacks (tests/unit/test_api_calls.c): api_calls.c,
# convert.c and the launch hook's side (hooked_launches.c) built into the test with the
# sanitizers; the test plays CUPTI's callbacks and the hook.
API_CALLS_TEST_SRC := src/recorder/api_calls.c src/recorder/convert.c $(REC_LAUNCHES_SRC) \
                      src/recorder/sync_calls.c src/recorder/hooked_launches.c
$(BUILD)/tests/test_api_calls: tests/unit/test_api_calls.c tests/unit/harness.h $(SAN_LIB) \
                               $(API_CALLS_TEST_SRC) $(wildcard src/recorder/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) \
	    -DKGANTT_VERSION='"$(VERSION)"' -o $@ $< $(API_CALLS_TEST_SRC) $(SAN_LIB) \
	    $(TOOL_LIBS) -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -lpthread

# recorder/pyframes.c inside a live CPython: tests/py/pyframes_probe.c wraps the recorder's
# own object (same flags, -fPIC, no sanitizers) and trace/pyline.c into a library that
# tests/py/test_pyframes.py loads with ctypes (tests/e2e/t090_pyframes.sh runs it under
# every installed CPython). The _asan variant is the same library under ASan/UBSan.
PYPROBE     := $(BUILD)/tests/py/pyframes_probe.so
PYPROBE_ASAN := $(BUILD)/tests/py/pyframes_probe_asan.so
PYPROBE_SRC := tests/py/pyframes_probe.c src/recorder/pyframes.c src/trace/pyline.c

$(PYPROBE): tests/py/pyframes_probe.c $(BUILD)/pic/src/recorder/pyframes.o \
            $(BUILD)/pic/src/trace/pyline.o
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -fPIC -fvisibility=hidden -shared -Isrc -o $@ $^ \
	    -ldl -lpthread -Wl,--no-undefined

$(PYPROBE_ASAN): $(PYPROBE_SRC) src/recorder/pyframes.h src/trace/pyline.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -fPIC \
	    -fvisibility=hidden -shared -Isrc -o $@ $(PYPROBE_SRC) -ldl -lpthread

.PHONY: pyprobe
pyprobe: $(PYPROBE) $(PYPROBE_ASAN)
test-build: pyprobe

# The recorder's host sampler without CUDA (tests/py/host_shim.c): LD_PRELOADed into C and
# Python programs by tests/py/test_hostsample.py (tests/e2e/t092_host_samples.sh runs it).
# Built from the recorder's own objects, as the injected library is.
HOSTSHIM   := $(BUILD)/tests/py/host_shim.so
HOSTSHIM_OBJ := $(REC_STACKS_SRC:%.c=$(BUILD)/pic/%.o) $(REC_LAUNCHES_SRC:%.c=$(BUILD)/pic/%.o) \
                $(addprefix $(BUILD)/pic/src/,recorder/hostsample.o recorder/maps.o \
                recorder/pyframes.o recorder/spool.o util/strtab.o util/api_names.o)
$(HOSTSHIM): tests/py/host_shim.c $(HOSTSHIM_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -fPIC -fvisibility=hidden -shared -Isrc -I$(CUDA_INC) -o $@ $^ \
	    -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -ldl -lpthread -Wl,--no-undefined

.PHONY: hostshim
hostshim: $(HOSTSHIM)
test-build: hostshim

# The host sampler in the test itself (tests/unit/test_hostsample.c): hostsample.c and the
# stack tables built into the test with the sanitizers, the test's own thread sampled.
HOST_TEST_SRC := src/recorder/hostsample.c $(REC_STACKS_SRC) $(REC_LAUNCHES_SRC) src/recorder/pyframes.c src/recorder/maps.c
$(BUILD)/tests/test_hostsample: tests/unit/test_hostsample.c tests/unit/harness.h tests/unit/import_spools.h $(SAN_LIB) \
                                $(HOST_TEST_SRC) $(wildcard src/recorder/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) \
	    -DKGANTT_VERSION='"$(VERSION)"' -o $@ $< $(HOST_TEST_SRC) $(SAN_LIB) \
	    $(TOOL_LIBS) -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -lpthread

# The launch hook (tests/unit/test_launch_hook.c): the preloaded library as built, a stand-in
# driver and two libraries that ask dlsym for RTLD_NEXT.
# The stand-in driver has libcuda's soname (the hook finds an already loaded libcuda by it);
# with -Bsymbolic-functions the functions it hands out are its own, as the driver's are, and
# without, the preloaded ones by name (both are tested).
HOOK_TEST_LIBS := $(BUILD)/tests/hook/libcuda.so.1 $(BUILD)/tests/hook/interposed/libcuda.so.1 \
                  $(BUILD)/tests/hook/libnext_a.so $(BUILD)/tests/hook/libnext_b.so
$(BUILD)/tests/hook/libcuda.so.1: tests/unit/hook/fake_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g -fPIC -shared -fvisibility=hidden -I$(CUDA_INC) -o $@ $< \
	    -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic-functions
$(BUILD)/tests/hook/interposed/libcuda.so.1: tests/unit/hook/fake_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g -fPIC -shared -fvisibility=hidden -I$(CUDA_INC) -o $@ $< \
	    -Wl,-soname,libcuda.so.1
$(BUILD)/tests/hook/lib%.so: tests/unit/hook/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g -fPIC -shared -o $@ $< -ldl
$(BUILD)/tests/test_launch_hook: tests/unit/test_launch_hook.c tests/unit/harness.h \
                                 src/preload/launch_hook.h $(BUILD)/libkgantt-launch.so $(HOOK_TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc -I$(CUDA_INC) \
	    -DHOOK_LIB='"$(abspath $(BUILD))/libkgantt-launch.so"' \
	    -DFAKE_CUDA='"$(abspath $(BUILD))/tests/hook/libcuda.so.1"' \
	    -DFAKE_CUDA_INTERPOSED='"$(abspath $(BUILD))/tests/hook/interposed/libcuda.so.1"' \
	    -o $@ $< -Wl,--no-as-needed -L$(BUILD)/tests/hook -Wl,-rpath,$(abspath $(BUILD))/tests/hook \
	    -lnext_a -lnext_b -ldl
