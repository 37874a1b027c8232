# bench/kineto.mk — timing driver of the Kineto (PyTorch profiler JSON) reader; included
# by the top-level Makefile.
#
#   make kineto-bench-build   build/bench/kineto_load
#   bench/kineto_speed.sh     generate synthetic traces, time read_kineto against Python's
#                             json.load (docs/results/kineto-speed.md)
#
# Not part of `all`. Only the reader's own sources are linked, so the driver times
# read_kineto and nothing else.

KINETO_LOAD := $(BUILD)/bench/kineto_load
KINETO_LOAD_SRC := bench/kineto_load.c src/model/read_kineto.c src/model/kineto_stacks.c \
		   src/model/model.c src/util/strtab.c src/util/idmap.c src/util/api_names.c

.PHONY: kineto-bench-build
kineto-bench-build: $(KINETO_LOAD)

$(KINETO_LOAD): $(KINETO_LOAD_SRC) src/model/model.h src/model/load.h src/util/strtab.h \
		bench/kineto.mk
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -Isrc -o $@ $(KINETO_LOAD_SRC) -lyajl -lz -lm
