# examples/examples.mk — the example CUDA programs (included by the top-level Makefile,
# which defines BUILD, NVCC, NVCC_FLAGS and CUDA_LIB).
#
#   make examples                 build all of them into $(BUILD)/examples/
#   make $(BUILD)/examples/NAME   build one
#
# Each program plants one GPU scheduling problem; see examples/README.md.

EXAMPLE_NAMES := streams copies launches occupancy timeslice multigpu longrun nvtx profrange
EXAMPLES      := $(EXAMPLE_NAMES:%=$(BUILD)/examples/%)

# -cudart shared: link libcudart dynamically, as most real programs do, so kgantt traces
#   the examples exactly the way it traces anything else.
# rpath: find that libcudart at run time without LD_LIBRARY_PATH.
# Host-compiler warnings on, so the examples stay warning clean.
EXAMPLES_LDFLAGS := -cudart shared -Xlinker -rpath -Xlinker $(CUDA_LIB)
EXAMPLES_WARN    := -Xcompiler -Wall,-Wextra

.PHONY: examples
examples: $(EXAMPLES)

# nvtx.cu uses NVTX v3, header-only (it dlopens its injection library at run time).
$(BUILD)/examples/%: examples/%.cu examples/common.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) $(EXAMPLES_WARN) -o $@ $< $(EXAMPLES_LDFLAGS)
