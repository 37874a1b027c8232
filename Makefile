# kgantt — top-level build.
#
#   make            build the tool, the injected recorder, the examples
#   make test       install what is missing, build, run every test (GPU tests skip without a GPU)
#   make demo       install what is missing, build, record or reuse a real H200 trace, show it
#
# Sub-makefiles (examples/examples.mk, bench/bench.mk, tests/tests.mk) add their own targets;
# they may use every variable defined here.

BUILD      ?= build
CUDA_HOME  ?= $(shell dirname $$(dirname $$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)))
CUDA_INC   := $(CUDA_HOME)/include
CUDA_LIB   := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))
NVCC       ?= $(CUDA_HOME)/bin/nvcc

CC         ?= cc
CSTD       := -std=c11 -D_GNU_SOURCE
# Truncation by snprintf is how long names are cut to fit: intended, so not a warning.
WARN       := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-format-truncation
OPT        ?= -O2 -g
SAN        ?=
CAIRO_CFLAGS := $(shell pkg-config --cflags cairo-ft freetype2 2>/dev/null)
CAIRO_LIBS   := $(or $(shell pkg-config --libs cairo-ft freetype2 2>/dev/null),-lcairo -lfreetype)
CFLAGS     += $(CSTD) $(WARN) $(OPT) $(SAN) -Isrc $(CAIRO_CFLAGS) -MMD -MP
LDFLAGS    += $(SAN)
# What the tool and every test binary link: one list.
TOOL_LIBS  := -lsqlite3 -lzstd -llzma -lyajl -lz -ldw -lelf $(CAIRO_LIBS) -lstdc++ -lm -ldl -lpthread
# MPI, for `mpirun kgantt report FOLDER` (src/cli/job_mpi.c): Open MPI from Debian
# (libopenmpi-dev, which make test installs). Without it kgantt builds without MPI and a
# report started by mpirun says so.
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
ifneq ($(MPI_LIBS),)
MPI_CFLAGS += -DKG_HAVE_MPI
endif
TOOL_LIBS  += $(MPI_LIBS)

# Hopper (H100/H200) machine code plus PTX so newer GPUs can JIT it.
NVCC_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVCC_FLAGS ?= -O2 -std=c++17 $(NVCC_ARCH) -lineinfo

VERSION    := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
# libcupti's soname major (13 for CUDA 13): the recorder forwards NVTX to that library
CUPTI_SOMAJOR := $(shell readlink $(CUDA_LIB)/libcupti.so 2>/dev/null | sed -n 's/^libcupti\.so\.\([0-9]*\).*/\1/p')
CUPTI_SOMAJOR := $(or $(CUPTI_SOMAJOR),13)

.PHONY: all tool recorder clean test demo deps check-deps
all: tool recorder examples

# ---------------------------------------------------------------- library code
UTIL_SRC   := $(wildcard src/util/*.c)
TRACE_SRC  := $(wildcard src/trace/*.c)
ANALYSIS_SRC := $(wildcard src/analysis/*.c) $(wildcard src/model/*.c) $(wildcard src/text/*.c) \
                $(wildcard src/report/*.c) \
                $(wildcard src/render/*.c) $(wildcard src/export/*.c) \
                $(wildcard src/job/*.c)
CLI_SRC    := $(wildcard src/cli/*.c)
REC_SRC    := $(wildcard src/recorder/*.c)
# The launch windows and the sleep their thread (and the host sampler's) wakes from at exit:
# every build of part of the recorder that holds launches.c or hostsample.c takes both.
REC_LAUNCHES_SRC := src/recorder/launches.c src/recorder/stop_wait.c src/recorder/cbid_table.c

UTIL_OBJ   := $(UTIL_SRC:%.c=$(BUILD)/obj/%.o)
TRACE_OBJ  := $(TRACE_SRC:%.c=$(BUILD)/obj/%.o)
ANALYSIS_OBJ := $(ANALYSIS_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
# The recorder is built position-independent and without sanitizers: it lives inside the
# user's program, which was not built with them.
REC_OBJ    := $(REC_SRC:%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/src/util/strtab.o \
              $(BUILD)/pic/src/util/api_names.o

# The HTML view's page, embedded as a C array at build time (scripts/embed.sh).
VIEW_GEN   := $(BUILD)/gen/view_template.c
VIEW_OBJ   := $(BUILD)/gen/view_template.o
VIEW_JOB_GEN := $(BUILD)/gen/view_job_template.c
VIEW_JOB_OBJ := $(BUILD)/gen/view_job_template.o
# The charts' font, Debian's DejaVu Sans, embedded the same way: a chart drawn on a machine
# without fonts or a fontconfig set-up (a GPU node) looks like one drawn here.
FONT_DIR   ?= /usr/share/fonts/truetype/dejavu
FONT_GEN   := $(BUILD)/gen/font_regular.c $(BUILD)/gen/font_bold.c
FONT_OBJ   := $(FONT_GEN:.c=.o)
LIB_OBJ    := $(UTIL_OBJ) $(TRACE_OBJ) $(ANALYSIS_OBJ) $(VIEW_OBJ) $(VIEW_JOB_OBJ) $(FONT_OBJ)
LIB_A      := $(BUILD)/libkgantt.a

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DKGANTT_VERSION='"$(VERSION)"' -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -fPIC -fvisibility=hidden -Isrc -I$(CUDA_INC) -MMD -MP \
	    -DKGANTT_VERSION='"$(VERSION)"' -DCUPTI_SOVERSION_MAJOR=$(CUPTI_SOMAJOR) -c $< -o $@

# cupti_profiler_host.h includes C++'s <string> without using it: hwsample.c (C) gets an
# empty stand-in (src/recorder/cxx_shim/string).
$(BUILD)/pic/src/recorder/hwsample.o: WARN += -isystem src/recorder/cxx_shim

$(VIEW_GEN): src/render/view_template.html scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh $< kg_view_template $@

$(VIEW_JOB_GEN): src/render/view_job_template.html scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh $< kg_view_job_template $@

$(BUILD)/gen/font_regular.c: $(FONT_DIR)/DejaVuSans.ttf scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh $< kg_font_regular $@

$(BUILD)/gen/font_bold.c: $(FONT_DIR)/DejaVuSans-Bold.ttf scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh $< kg_font_bold $@

$(FONT_OBJ): %.o: %.c
	$(CC) $(CSTD) -O0 -c $< -o $@

$(VIEW_OBJ): $(VIEW_GEN)
	$(CC) $(CSTD) -O2 -c $< -o $@

$(VIEW_JOB_OBJ): $(VIEW_JOB_GEN)
	$(CC) $(CSTD) -O2 -c $< -o $@

$(BUILD)/obj/src/cli/job_mpi.o: CFLAGS += $(MPI_CFLAGS)

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

tool: $(BUILD)/kgantt
$(BUILD)/kgantt: $(CLI_OBJ) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB_A) $(TOOL_LIBS)

# The injected library. libcupti is found through the rpath of the toolkit it was built
# against; `kgantt record` also points NVTX_INJECTION64_PATH at that same libcupti.
recorder: $(BUILD)/libkgantt-inject.so
$(BUILD)/libkgantt-inject.so: $(REC_OBJ)
	$(CC) -shared -o $@ $^ -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -ldl -lpthread \
	    -Wl,--no-undefined -Wl,-z,defs

# The launch hook, preloaded into the recorded program (src/preload/launch_hook.h): no
# CUPTI, no sanitizers, nothing but the C library.
recorder: $(BUILD)/libkgantt-launch.so
$(BUILD)/libkgantt-launch.so: $(BUILD)/pic/src/preload/launch_hook.o
	$(CC) -shared -o $@ $^ -ldl -Wl,--no-undefined -Wl,-z,defs

-include examples/examples.mk
-include bench/bench.mk
-include bench/kineto.mk
-include tests/tests.mk
-include tests/gpu/gpu.mk
-include tests/fuzz/fuzz.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- set-up
# Debian packages the build and tests need; installed when missing (CI runs as root).
DEB_PKGS := build-essential pkg-config libsqlite3-dev sqlite3 libzstd-dev liblzma-dev libyajl-dev zlib1g-dev libcairo2-dev \
            libdw-dev libelf-dev libfreetype-dev \
            fonts-dejavu-core python3 xz-utils \
            openmpi-bin libopenmpi-dev
# Only the tests need a browser (the HTML view is checked in headless Chromium).
TEST_PKGS := chromium
deps:
	@scripts/install-deps.sh $(DEB_PKGS)

test-deps:
	@scripts/install-deps.sh $(TEST_PKGS) || echo "make: no chromium: the browser half of the view test will be skipped"
.PHONY: test-deps

clean:
	rm -rf $(BUILD)

demo: deps all
	@scripts/demo.sh
