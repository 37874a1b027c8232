# examples/examples.mk — the example CUDA programs (included by the top-level Makefile,
# which defines BUILD, NVCC, NVCC_FLAGS and CUDA_LIB).
#
#   make examples                 build all of them into $(BUILD)/examples/
#   make $(BUILD)/examples/NAME   build one
#
# Each program plants one GPU scheduling problem; see examples/README.md.

EXAMPLE_NAMES := streams copies launches occupancy timeslice multigpu longrun nvtx profrange syncs bound
EXAMPLES      := $(EXAMPLE_NAMES:%=$(BUILD)/examples/%)

# -cudart shared: link libcudart dynamically, as most real programs do, so kgantt traces
#   the examples exactly the way it traces anything else.
# rpath: find that libcudart at run time without LD_LIBRARY_PATH.
# Host-compiler warnings on, so the examples stay warning clean.
EXAMPLES_LDFLAGS := -cudart shared -Xlinker -rpath -Xlinker $(CUDA_LIB)
EXAMPLES_WARN    := -Xcompiler -Wall,-Wextra
# -g: host debug info, so that call stacks name the examples' source lines (device code is
# untouched: that would be -G).
EXAMPLES_DEBUG   := -g

.PHONY: examples
examples: $(EXAMPLES)

# nvtx.cu uses NVTX v3, header-only (it dlopens its injection library at run time).
$(BUILD)/examples/%: examples/%.cu examples/common.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(EXAMPLES_DEBUG) $(EXAMPLES_WARN) -o $@ $< $(EXAMPLES_LDFLAGS)

# SM placement (kgantt record --sm): kernels that log which SM ran each block with
# include/kgantt/sm.h.
EXAMPLES_SM := $(BUILD)/examples/sm_concurrent $(BUILD)/examples/sm_tailwave
examples: $(EXAMPLES_SM)
$(EXAMPLES_SM): $(BUILD)/examples/%: examples/%.cu examples/common.h include/kgantt/sm.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(EXAMPLES_DEBUG) $(EXAMPLES_WARN) -Iinclude -o $@ $< $(EXAMPLES_LDFLAGS)

# Builds of `syncs` that call stacks must survive: one stripped of every symbol (the
# frames keep their module and address), one also without unwind tables for its own code
# (the unwinder stops inside it: the stacks are marked partial), and one with frame
# pointers, whose host samples walk from the host work to main (record --host-samples:
# a frame-pointer walk, docs/host-samples.md).
examples: $(BUILD)/examples/syncs_stripped $(BUILD)/examples/syncs_nounwind $(BUILD)/examples/syncs_fp
$(BUILD)/examples/syncs_fp: examples/syncs.cu examples/common.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(EXAMPLES_DEBUG) $(EXAMPLES_WARN) -Xcompiler -fno-omit-frame-pointer \
	    -o $@ $< $(EXAMPLES_LDFLAGS)
$(BUILD)/examples/syncs_stripped: $(BUILD)/examples/syncs
	strip -s -o $@ $<
$(BUILD)/examples/syncs_nounwind: examples/syncs.cu examples/common.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(EXAMPLES_WARN) \
	    -Xcompiler -fno-asynchronous-unwind-tables,-fno-unwind-tables,-fno-exceptions,-fomit-frame-pointer \
	    -o $@.tmp $< $(EXAMPLES_LDFLAGS) && strip -s -o $@ $@.tmp && rm -f $@.tmp
