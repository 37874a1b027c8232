# bench/kineto.mk — timing driver of the Kineto (PyTorch profiler JSON) reader; included
# by the top-level Makefile.
#
#   make kineto-bench-build   build/bench/kineto_load
#   bench/kineto_speed.sh     generate synthetic traces, time read_kineto against Python's
#                             json.load (docs/results/kineto-speed.md)
#   bench/kineto_report_speed.sh   `kgantt report` end to end on such a trace (needs
#                             `make tool`; same results file)
#
# Not part of `all`. The driver links the tool's library (only the objects read_kineto
# needs come in), so it times read_kineto and nothing else, and a new source file of the
# reader needs no change here.

KINETO_LOAD := $(BUILD)/bench/kineto_load

.PHONY: kineto-bench-build
kineto-bench-build: $(KINETO_LOAD) $(BUILD)/kgantt

$(KINETO_LOAD): bench/kineto_load.c $(LIB_A) bench/kineto.mk
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -Isrc -o $@ bench/kineto_load.c $(LIB_A) $(TOOL_LIBS)
