# GPU-side data-collection programs (tests/gpu/). Included by the top-level Makefile, which
# defines BUILD, NVCC, NVCC_FLAGS and CUDA_LIB.
#
#   make gpu-probes                                   build the probes
#   build/tests/gpu/occupancy_probe > occupancy.csv    occupancy ground truth (needs a GPU)
#   python3 tests/gpu/torch_traces.py OUTDIR          PyTorch profiler traces (needs a GPU + torch)

GPU_PROBES := $(BUILD)/tests/gpu/occupancy_probe

.PHONY: gpu-probes
gpu-probes: $(GPU_PROBES)

$(BUILD)/tests/gpu/occupancy_probe: tests/gpu/occupancy_probe.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -cudart shared -Xlinker -rpath -Xlinker $(CUDA_LIB) -o $@ $<

# A program with its own CUPTI subscriber (tests/gpu/nvtx_and_subscriber_h200.sh).
$(BUILD)/tests/gpu/cupti_first: tests/gpu/cupti_first.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_FLAGS) -o $@ $< -cudart shared -lcupti -L$(CUDA_LIB) -Xlinker -rpath -Xlinker $(CUDA_LIB)
gpu-probes: $(BUILD)/tests/gpu/cupti_first

# An observer for the launch hook (tests/gpu/launch_hook_probe.c, launch_hook_probe.sh).
$(BUILD)/tests/gpu/libhookprobe.so: tests/gpu/launch_hook_probe.c src/preload/launch_hook.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -fPIC -shared -Isrc -I$(CUDA_INC) -o $@ $< -ldl -lpthread
gpu-probes: $(BUILD)/tests/gpu/libhookprobe.so
