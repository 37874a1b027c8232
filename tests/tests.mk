# Tests. `make test` = unit tests (under ASan/UBSan) + end-to-end tests over the committed
# H200 fixtures + GPU tests (which skip, saying so, when no GPU is present).

TEST_SAN   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
# Library sources the unit tests link, built again with the sanitizers.
UNIT_LIB   := $(UTIL_SRC) $(TRACE_SRC) $(ANALYSIS_SRC) src/recorder/spool.c $(VIEW_GEN)

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

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/harness.h $(SAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(TEST_SAN) -Isrc $(CAIRO_CFLAGS) -I$(CUDA_INC) \
	    -DKGANTT_VERSION='"$(VERSION)"' -o $@ $< $(SAN_LIB) \
	    -lsqlite3 -lyajl -lz $(CAIRO_LIBS) -lstdc++ -lpthread -lm

.PHONY: unit-tests e2e-tests gpu-tests test-build
test-build: all $(UNIT_TESTS)

unit-tests: $(UNIT_TESTS)
	@tests/run-unit.sh $(UNIT_TESTS)

e2e-tests: all
	@tests/run-e2e.sh

test: deps test-deps
	@$(MAKE) --no-print-directory test-build
	@tests/run-all.sh $(UNIT_TESTS)
