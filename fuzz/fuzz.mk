# fuzz/fuzz.mk -- fuzzing, corpus replay and valgrind targets.
#
# Included by the top-level Makefile (`-include fuzz/fuzz.mk`, after its own
# variables); on its own: make -f Makefile -f fuzz/fuzz.mk TARGET.
#
#   make fuzz [FUZZ_SECONDS=N]   build the libFuzzer harnesses with clang
#                                into $(BUILD)/fuzz and run each for N
#                                seconds (default 60) with the dictionary;
#                                new inputs go to $(BUILD)/fuzz/corpus/H,
#                                crashes to $(BUILD)/fuzz/artifacts/H
#       FUZZ_HARNESSES=...       only these harnesses
#       FUZZ_FORK=J              J fuzzing processes per harness
#       FUZZ_FLAGS=...           more libFuzzer flags
#       FUZZ_CC=...              the clang to use (default clang-14)
#   make fuzz-replay             build the replay driver with $(CC) and the
#                                usual CFLAGS/LDFLAGS (sanitizers included
#                                when set) and run every harness over
#                                fuzz/corpus and fuzz/crashes, and
#                                fuzz_read over tests/fixtures/invalid
#   make fuzz-corpus             regenerate the seed corpus (fuzz/mkcorpus.c)
#   make valgrind                run the tools under valgrind over generated
#                                dumps and every invalid fixture
#                                (fuzz/valgrind.sh)

ifndef HEAPFMT_FUZZ_MK
HEAPFMT_FUZZ_MK := 1

.PHONY: fuzz fuzz-build fuzz-replay fuzz-corpus valgrind

FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_FORK    ?= 1
FUZZ_FLAGS   ?=
FUZZ_CFLAGS  ?= -O1 -g -fno-omit-frame-pointer
FUZZ_DIR      = $(BUILD)/fuzz
# the library's own (-lzstd -lz -pthread; -lz alone with HEAPFMT_ZSTD=0)
FUZZ_LIBS     = $(or $(LIB_LIBS),-lzstd -lz -pthread)

# The importer harness needs the importer's work function (tools/import).
FUZZ_HAVE_IMPORT := $(wildcard tools/import/import.h)
# The graph harness needs the engines of analysis/ (the graph, and the
# diff's code it uses) and the tools' common code they use.
FUZZ_HAVE_GRAPH := $(wildcard analysis/graph.h)
# The core harness needs heapfmt-core's code (tools/core) and libstdc++
# (its demangler).
FUZZ_HAVE_CORE := $(wildcard tools/core/glibc.h)
FUZZ_ALL_HARNESSES := fuzz_read fuzz_stream fuzz_roundtrip \
                      $(if $(FUZZ_HAVE_IMPORT),fuzz_import) \
                      $(if $(FUZZ_HAVE_GRAPH),fuzz_graph) fuzz_malloc_host \
                      $(if $(FUZZ_HAVE_CORE),fuzz_core)
FUZZ_HARNESSES ?= $(FUZZ_ALL_HARNESSES)

# Longest input per harness, the dictionary, and extra seed directories.
FUZZ_MAXLEN_fuzz_read      ?= 16384
FUZZ_MAXLEN_fuzz_stream    ?= 16384
FUZZ_MAXLEN_fuzz_roundtrip ?= 4096
FUZZ_MAXLEN_fuzz_import    ?= 16384
FUZZ_MAXLEN_fuzz_graph     ?= 16384
FUZZ_MAXLEN_fuzz_malloc_host ?= 1024
FUZZ_MAXLEN_fuzz_core      ?= 65536
FUZZ_DICT_fuzz_import      := fuzz/import.dict
FUZZ_DICT_fuzz_malloc_host := fuzz/malloc_host.dict
FUZZ_SEEDS_fuzz_read       := tests/fixtures/invalid
FUZZ_SEEDS_fuzz_graph      := fuzz/corpus/fuzz_read
fuzz_dict = $(or $(FUZZ_DICT_$(1)),fuzz/heapfmt.dict)

FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_COMPILE   = $(FUZZ_CC) -std=c11 -Wall -Wextra -D_DEFAULT_SOURCE \
                 -D_POSIX_C_SOURCE=200809L -MMD -MP $(FUZZ_CFLAGS) $(FUZZ_SAN)
FUZZ_LIB_OBJS  = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(wildcard libheapfmt/*.c libheapfmt/common/*.c))
FUZZ_IMPORT_OBJS = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o, \
                   $(filter-out tools/import/main.c,$(wildcard tools/import/*.c)) \
                   tools/common/cli_grow.c)
FUZZ_GRAPH_SRCS  = $(wildcard analysis/*.c) $(wildcard tools/common/*.c)
FUZZ_GRAPH_OBJS  = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_GRAPH_SRCS))
# The malloc tracker's dealings with its host: its descriptor, wake-up and
# signal code, without the allocation hooks (they would replace malloc).
FUZZ_HM_SRCS     = $(addprefix libheapfmt-malloc/,hm_host.c hm_wake.c hm_config.c)
FUZZ_HM_OBJS     = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_HM_SRCS))
FUZZ_CORE_SRCS   = $(filter-out %/main.c,$(wildcard tools/core/*.c)) \
                   $(wildcard tools/common/*.c) $(wildcard analysis/*.c)
FUZZ_CORE_OBJS   = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_CORE_SRCS))
FUZZ_INCLUDES    = -Ilibheapfmt -Ilibheapfmt/common -Itools/import -Ianalysis \
                   -Itools/common -Ilibheapfmt-malloc -Itools/core

# The code under test is instrumented for coverage; the harnesses' own code
# (checks, models) only for the sanitizers, so that its branches neither
# slow the fuzzer down nor count as progress.
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_COMPILE) $(LIB_CPPFLAGS) -fsanitize=fuzzer-no-link \
	  $(FUZZ_INCLUDES) -c $< -o $@

$(FUZZ_DIR)/obj/fuzz/%.o: fuzz/%.c
	@mkdir -p $(@D)
	$(FUZZ_COMPILE) $(FUZZ_INCLUDES) -c $< -o $@

$(FUZZ_DIR)/fuzz_graph: $(FUZZ_DIR)/obj/fuzz/fuzz_graph.o \
    $(FUZZ_DIR)/obj/fuzz/fuzz_util.o $(FUZZ_GRAPH_OBJS) $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_DIR)/fuzz_core: $(FUZZ_DIR)/obj/fuzz/fuzz_core.o \
    $(FUZZ_DIR)/obj/fuzz/fuzz_util.o $(FUZZ_CORE_OBJS) $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS) -lstdc++

$(FUZZ_DIR)/fuzz_import: $(FUZZ_DIR)/obj/fuzz/fuzz_import.o \
    $(FUZZ_DIR)/obj/fuzz/fuzz_util.o $(FUZZ_IMPORT_OBJS) $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_DIR)/fuzz_malloc_host: $(FUZZ_DIR)/obj/fuzz/fuzz_malloc_host.o \
    $(FUZZ_DIR)/obj/fuzz/fuzz_util.o $(FUZZ_HM_OBJS) $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz/fuzz_%.o \
    $(FUZZ_DIR)/obj/fuzz/fuzz_util.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS)

# keep the harness objects (make would delete them as intermediate)
.SECONDARY: $(patsubst %,$(FUZZ_DIR)/obj/fuzz/%.o,$(FUZZ_ALL_HARNESSES))

define FUZZ_RUN
	@mkdir -p $(FUZZ_DIR)/corpus/$(1) $(FUZZ_DIR)/artifacts/$(1)
	@echo "fuzz: $(1) for $(FUZZ_SECONDS) s"
	$(FUZZ_DIR)/$(1) -max_total_time=$(FUZZ_SECONDS) \
	  -max_len=$(FUZZ_MAXLEN_$(1)) -dict=$(call fuzz_dict,$(1)) \
	  -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)/ \
	  $(if $(filter-out 0 1,$(FUZZ_FORK)),-fork=$(FUZZ_FORK)) $(FUZZ_FLAGS) \
	  $(FUZZ_DIR)/corpus/$(1) fuzz/corpus/$(1) $(FUZZ_SEEDS_$(1))

endef

## fuzz-build: build the libFuzzer harnesses (clang) in build/fuzz
fuzz-build: $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/%)

## fuzz: build and run each fuzz harness for FUZZ_SECONDS (default 60)
fuzz: fuzz-build
	$(foreach h,$(FUZZ_HARNESSES),$(call FUZZ_RUN,$(h)))

# ---- the replay driver: the same harnesses, built with $(CC) ----

FUZZ_REPLAY_DIR   = $(BUILD)/fuzz-replay
FUZZ_REPLAY       = $(FUZZ_REPLAY_DIR)/replay
FUZZ_REPLAY_OBJS  = $(patsubst %,$(FUZZ_REPLAY_DIR)/%.o,replay fuzz_util \
                    $(FUZZ_ALL_HARNESSES))
FUZZ_REPLAY_HM_OBJS = $(patsubst libheapfmt-malloc/%.c,$(FUZZ_REPLAY_DIR)/hm/%.o,$(FUZZ_HM_SRCS))
FUZZ_REPLAY_TOOL_OBJS = $(if $(FUZZ_HAVE_IMPORT), \
                        $(filter-out %/main.o,$(TOOL_OBJS_import))) \
                        $(if $(FUZZ_HAVE_GRAPH), \
                        $(ANALYSIS_A) $(COMMON_A)) \
                        $(if $(FUZZ_HAVE_CORE), \
                        $(filter-out %/main.o,$(TOOL_OBJS_core)) $(COMMON_A))

# Each harness's entry point gets its own name, so one driver holds all.
$(FUZZ_REPLAY_DIR)/%.o: fuzz/%.c
	@mkdir -p $(@D)
	$(COMPILE) $(FUZZ_INCLUDES) \
	  $(if $(FUZZ_HAVE_IMPORT),-DFUZZ_WITH_IMPORT) \
	  $(if $(FUZZ_HAVE_GRAPH),-DFUZZ_WITH_GRAPH) \
	  $(if $(FUZZ_HAVE_CORE),-DFUZZ_WITH_CORE) \
	  -DLLVMFuzzerTestOneInput=$*_entry -c $< -o $@

$(FUZZ_REPLAY_DIR)/hm/%.o: libheapfmt-malloc/%.c
	@mkdir -p $(@D)
	$(COMPILE) -Ilibheapfmt-malloc -c $< -o $@

$(FUZZ_REPLAY): $(FUZZ_REPLAY_OBJS) $(FUZZ_REPLAY_HM_OBJS) $(FUZZ_REPLAY_TOOL_OBJS) $(LIB_A)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) \
	  $(LIB_LIBS) $(if $(FUZZ_HAVE_CORE),-lstdc++)

$(FUZZ_REPLAY_DIR)/mkcorpus: $(FUZZ_REPLAY_DIR)/mkcorpus.o $(LIB_A)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIB_LIBS)

## fuzz-replay: run every fuzz harness over fuzz/corpus and fuzz/crashes (no clang)
fuzz-replay: $(FUZZ_REPLAY)
	$(FUZZ_REPLAY) fuzz/corpus fuzz/crashes
	$(FUZZ_REPLAY) -H fuzz_read $(wildcard tests/fixtures/invalid/*.hfd)
	$(if $(FUZZ_HAVE_GRAPH),$(FUZZ_REPLAY) -H fuzz_graph \
	  $(wildcard tests/fixtures/invalid/*.hfd))

## fuzz-corpus: regenerate the seed corpus in fuzz/corpus
fuzz-corpus: $(FUZZ_REPLAY_DIR)/mkcorpus
	$(FUZZ_REPLAY_DIR)/mkcorpus fuzz/corpus \
	  $(if $(FUZZ_HAVE_IMPORT),tests/fixtures/import)

## valgrind: run the tools under valgrind over generated dumps and fixtures
valgrind: all
	BIN='$(abspath $(BUILD)/bin)' FIXTURES='$(abspath tests/fixtures)' \
	  VALGRIND='$(VALGRIND)' fuzz/valgrind.sh

VALGRIND ?= valgrind

-include $(FUZZ_REPLAY_OBJS:.o=.d) $(FUZZ_REPLAY_HM_OBJS:.o=.d) $(FUZZ_REPLAY_DIR)/mkcorpus.d \
         $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_IMPORT_OBJS:.o=.d) \
         $(FUZZ_GRAPH_OBJS:.o=.d) $(FUZZ_HM_OBJS:.o=.d) $(FUZZ_CORE_OBJS:.o=.d) \
         $(patsubst %,$(FUZZ_DIR)/obj/fuzz/%.d,fuzz_util $(FUZZ_ALL_HARNESSES))

endif
