# heapfmt -- top-level GNU Makefile.
#
# Everything is built under $(BUILD) (default: build/):
#   $(BUILD)/lib    libheapfmt.a, libheapfmt.so*
#   $(BUILD)/bin    the tools
#   $(BUILD)/tests  the Criterion test binaries
#   $(BUILD)/obj    object and dependency files
#
# Variables a user or packager may set:
#   CC, CFLAGS (default -O2 -g), CPPFLAGS, LDFLAGS, WERROR (set it empty to
#   build without -Werror), BUILD, PREFIX, DESTDIR, BINDIR, LIBDIR,
#   INCLUDEDIR, MANDIR, PKGCONFIGDIR, TEST_FLAGS (extra arguments for the
#   Criterion binaries), TEST_TIMEOUT (seconds per test item, default 300;
#   900 for asan and ubsan), TEST_JOBS (test items run at once, default
#   one per core).
#
# `make help` lists the targets.

THIS_MAKEFILE := $(lastword $(MAKEFILE_LIST))

BUILD   ?= build
CFLAGS  ?= -O2 -g
WERROR  ?= -Werror
LDFLAGS ?=
AR      ?= ar

PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

# Flags every compilation gets, whatever CFLAGS says.
REQUIRED_CFLAGS := -std=c11 -Wall -Wextra -Wshadow $(WERROR) \
                   -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
DEPFLAGS := -MMD -MP
COMPILE   = $(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(CFLAGS) $(DEPFLAGS)

# ---------------------------------------------------------------------------
# Library
# ---------------------------------------------------------------------------

# The version comes from the public header, the one place it is defined.
VERSION := $(shell sed -n 's/^.define HEAPFMT_LIB_VERSION_STRING "\(.*\)".*/\1/p' libheapfmt/heapfmt.h)
SOVERSION := $(firstword $(subst ., ,$(VERSION)))

LIB_SRCS := $(wildcard libheapfmt/*.c libheapfmt/common/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_A    := $(BUILD)/lib/libheapfmt.a
SO_LINK  := libheapfmt.so
SO_NAME  := libheapfmt.so.$(SOVERSION)
SO_REAL  := libheapfmt.so.$(VERSION)
LIB_SO   := $(BUILD)/lib/$(SO_REAL)
HEAPFMT_ZSTD ?= 1
ifeq ($(HEAPFMT_ZSTD),0)
LIB_LIBS := -lz -pthread
LIB_CPPFLAGS := -DHEAPFMT_NO_ZSTD
else
LIB_LIBS := -lzstd -lz -pthread
LIB_CPPFLAGS :=
endif

$(BUILD)/obj/libheapfmt/%.o: libheapfmt/%.c
	@mkdir -p $(@D)
	$(COMPILE) $(LIB_CPPFLAGS) -fPIC -fvisibility=hidden -Ilibheapfmt -Ilibheapfmt/common -c $< -o $@

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared $(CFLAGS) $(LDFLAGS) -Wl,-soname,$(SO_NAME) -o $@ $^ $(LIB_LIBS)
	ln -sf $(SO_REAL) $(BUILD)/lib/$(SO_NAME)
	ln -sf $(SO_NAME) $(BUILD)/lib/$(SO_LINK)

# ---------------------------------------------------------------------------
# Tools: tools/<dir>/*.c + tools/common/*.c -> $(BUILD)/bin/<name>
# ---------------------------------------------------------------------------

# Installed name of the tool in each tools/<dir>; a directory not listed
# here is installed as heapfmt-<dir>.
TOOL_NAME_gen    := heapfmt-gen
TOOL_NAME_info   := heapfmt-info
TOOL_NAME_histo  := histo
TOOL_NAME_diff   := heapfmt-diff
TOOL_NAME_export := heapfmt-export
TOOL_NAME_import := heapfmt-import
TOOL_NAME_graph  := heapfmt-graph

# Extra libraries of a tool, by directory. (No tool links jansson: only
# tests do, as an independent JSON reader.)
TOOL_LIBS_histo  := -pthread
# heapfmt-core demangles C++ class names with libstdc++'s __cxa_demangle.
TOOL_LIBS_core   := -lstdc++

TOOL_LIBS_report := -pthread

tool_name = $(or $(TOOL_NAME_$(1)),heapfmt-$(1))

# Every tools/<dir>/ that holds C sources, except the shared common/.
TOOL_DIRS := $(sort $(filter-out common,$(patsubst tools/%/,%,$(dir $(wildcard tools/*/*.c)))))

COMMON_SRCS := $(wildcard tools/common/*.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/obj/%.o)
# An archive, so that a tool links only the common code it uses (and the
# libraries of that code only if it uses it).
COMMON_A := $(BUILD)/obj/tools/libcommon.a

# analysis/: the engines the tools are front ends of (histograms, the
# three-dump comparison, the reference graph, dominators, paths,
# owners). An archive like COMMON_A: every tool links it and takes only
# what it calls; no tool links another tool's objects.
ANALYSIS_SRCS := $(wildcard analysis/*.c)
ANALYSIS_OBJS := $(ANALYSIS_SRCS:%.c=$(BUILD)/obj/%.o)
ANALYSIS_A := $(BUILD)/obj/analysis/libanalysis.a

TOOL_CPPFLAGS := -Ilibheapfmt -Ilibheapfmt/common -Itools/common -Ianalysis

$(COMMON_A): $(COMMON_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(ANALYSIS_A): $(ANALYSIS_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/obj/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(COMPILE) $(TOOL_CPPFLAGS) -c $< -o $@

$(BUILD)/obj/analysis/%.o: analysis/%.c
	@mkdir -p $(@D)
	$(COMPILE) $(TOOL_CPPFLAGS) -c $< -o $@

# A tool: its objects (and TOOL_DEP_OBJS_<dir>, objects from outside
# tools/ a fragment adds), then the engines, the shared command-line code
# and the library (each archive may call into the ones after it).
TOOL_ARCHIVES := $(ANALYSIS_A) $(COMMON_A) $(LIB_A)
# On the link line the first two are one group: the engines call the
# shared helpers, and tools/common's printing wrappers of the dump reading
# (cli_dump.c) call analysis/dump_read.c.
TOOL_LINK_ARCHIVES := -Wl,--start-group $(ANALYSIS_A) $(COMMON_A) \
                      -Wl,--end-group $(LIB_A)

define TOOL_RULES
TOOL_OBJS_$(1) := $$(patsubst %.c,$$(BUILD)/obj/%.o,$$(wildcard tools/$(1)/*.c))
TOOL_BINS += $$(BUILD)/bin/$(call tool_name,$(1))
$$(BUILD)/bin/$(call tool_name,$(1)): $$(TOOL_OBJS_$(1)) $$(TOOL_ARCHIVES)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$(TOOL_OBJS_$(1)) $$(TOOL_DEP_OBJS_$(1)) $$(TOOL_LINK_ARCHIVES) $$(TOOL_LIBS_$(1)) $$(LIB_LIBS)
endef

TOOL_BINS :=
$(foreach t,$(TOOL_DIRS),$(eval $(call TOOL_RULES,$(t))))

# heapfmt-replay-child (tools/replay/child/): one replay, run under the
# allocator being measured, found by heapfmt-replay in BINDIR/../lib as
# heapfmt-malloc finds the tracker. Built without sanitizers whatever
# CFLAGS says, as the tracker is: an allocator under test and
# AddressSanitizer's malloc cannot both serve a process.
REPLAY_CHILD := $(BUILD)/lib/heapfmt-replay-child
REPLAY_CHILD_OBJS := $(patsubst %.c,$(BUILD)/obj/replay-child/%.o,$(wildcard tools/replay/child/*.c))
$(BUILD)/obj/replay-child/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) \
	  $(DEPFLAGS) -Ilibheapfmt -Itools/replay -Ilibheapfmt-malloc -c $< -o $@
$(REPLAY_CHILD): $(REPLAY_CHILD_OBJS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -fsanitize%,$(CFLAGS) $(LDFLAGS)) -o $@ $^ -pthread -ldl
$(BUILD)/bin/heapfmt-replay: | $(REPLAY_CHILD)
tools: $(REPLAY_CHILD)
-include $(REPLAY_CHILD_OBJS:.o=.d)

# ---------------------------------------------------------------------------
# Tests: tests/test_*.c -> $(BUILD)/tests/test_*, plus tests/cli/*.sh
# ---------------------------------------------------------------------------

TEST_SRCS    := $(wildcard tests/test_*.c)
TEST_NAMES   := $(TEST_SRCS:tests/%.c=%)
TEST_BINS    := $(TEST_NAMES:%=$(BUILD)/tests/%)
TEST_OBJS    := $(TEST_NAMES:%=$(BUILD)/obj/tests/%.o)
SUPPORT_SRCS := $(wildcard tests/support/*.c)
SUPPORT_OBJS := $(SUPPORT_SRCS:%.c=$(BUILD)/obj/%.o)
# What a program without Criterion may link (ttext.c reports through it).
SUPPORT_PLAIN_OBJS := $(filter-out %/ttext.o,$(SUPPORT_OBJS))
CLI_TESTS    := $(sort $(wildcard tests/cli/*.sh))
# -Ilibheapfmt also gives the tests the internal *_internal.h headers.
TEST_CPPFLAGS := -Ilibheapfmt -Ilibheapfmt/common -Itests/support -Itools/common \
                 -Ianalysis
TEST_LIBS     := -lcriterion -ljansson $(LIB_LIBS)

# Every test links the engines' archive (analysis/). The tool a test is
# about: test_<dir>_*.c, where tools/<dir> is a tool, tests that tool's
# front end too. It gets -Itools/<dir> and links the tool's objects
# except main.o (and the tool's extra libraries).
test_tool = $(filter $(TOOL_DIRS),$(word 2,$(subst _, ,$(1))))

$(BUILD)/obj/tests/support/%.o: tests/support/%.c
	@mkdir -p $(@D)
	$(COMPILE) $(TEST_CPPFLAGS) -c $< -o $@

define TEST_RULES
$$(BUILD)/obj/tests/$(1).o: tests/$(1).c
	@mkdir -p $$(@D)
	$$(COMPILE) $$(TEST_CPPFLAGS) $(2:%=-Itools/%) -c $$< -o $$@

$$(BUILD)/tests/$(1): $$(BUILD)/obj/tests/$(1).o $$(SUPPORT_OBJS) \
    $(if $(2),$$(filter-out %/main.o,$$(TOOL_OBJS_$(2)))) $$(TOOL_ARCHIVES)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(TOOL_LINK_ARCHIVES) \
	  $(if $(2),$$(TOOL_LIBS_$(2))) $$(TEST_LIBS)
endef

$(foreach t,$(TEST_NAMES),$(eval $(call TEST_RULES,$(t),$(call test_tool,$(t)))))

# tests/nozstd/: the library built without Zstandard (HEAPFMT_ZSTD=0), as an
# embedder may build it, and a test that such a reader names zstd blocks
# as unsupported. Its objects live apart from the normal build's.
NOZSTD_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/nozstd/%.o)
NOZSTD_TEST := $(BUILD)/tests/test_nozstd
TEST_BINS   += $(NOZSTD_TEST)

$(BUILD)/obj/nozstd/libheapfmt/%.o: libheapfmt/%.c
	@mkdir -p $(@D)
	$(COMPILE) -DHEAPFMT_NO_ZSTD -Ilibheapfmt -Ilibheapfmt/common -c $< -o $@

$(BUILD)/obj/tests/nozstd/%.o: tests/nozstd/%.c
	@mkdir -p $(@D)
	$(COMPILE) $(TEST_CPPFLAGS) -c $< -o $@

$(NOZSTD_TEST): $(BUILD)/obj/tests/nozstd/test_nozstd.o $(SUPPORT_OBJS) $(NOZSTD_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion -ljansson -lzstd -lz -pthread

# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------

.DEFAULT_GOAL := all
.PHONY: all lib tools tests test demo install uninstall asan ubsan clean help

## all: build the library (static and shared) and the tools (default)
all: lib tools

## lib: build build/lib/libheapfmt.a and libheapfmt.so
lib: $(LIB_A) $(LIB_SO)

## tools: build the tools in build/bin
tools: $(TOOL_BINS)

## tests: build the test binaries in build/tests
tests: $(TEST_BINS)

# examples/*.c: complete programs for library users, built and run by
# make test (tests/cli/example.sh), so that they always compile and work.
EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLE_BINS := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)

$(BUILD)/examples/%: examples/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(COMPILE) -Ilibheapfmt $(LDFLAGS) -o $@ $< $(LIB_A) $(LIB_LIBS)

# tests/hostile/mkhostile: dumps valid by checksum, hostile by meaning,
# for tests/cli/hostile.sh (built from the spec with tests/support/traw).
MKHOSTILE := $(BUILD)/tests/mkhostile

$(BUILD)/obj/tests/hostile/%.o: tests/hostile/%.c
	@mkdir -p $(@D)
	$(COMPILE) $(TEST_CPPFLAGS) -c $< -o $@

$(MKHOSTILE): $(BUILD)/obj/tests/hostile/mkhostile.o $(SUPPORT_PLAIN_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIB_LIBS)

# tests/replay/: what tests/cli/replay.sh records and replays. replay_prog
# runs under the tracker and the .so files are preloaded into the replay
# (an allocator that crashes, a library without malloc), so none has
# sanitizers; mktrace writes traces the recorder never would.
REPLAY_CFLAGS := $(filter-out -fsanitize%,$(CFLAGS))
REPLAY_TEST_BINS := $(BUILD)/tests/replay_prog $(BUILD)/tests/crash_alloc.so \
                    $(BUILD)/tests/no_malloc.so $(BUILD)/tests/mktrace
$(BUILD)/tests/replay_prog: tests/replay/replay_prog.c
	@mkdir -p $(@D)
	$(CC) $(REQUIRED_CFLAGS) $(REPLAY_CFLAGS) -o $@ $< -pthread
$(BUILD)/tests/%.so: tests/replay/%.c
	@mkdir -p $(@D)
	$(CC) $(REQUIRED_CFLAGS) $(REPLAY_CFLAGS) -shared -fPIC -o $@ $<
$(BUILD)/tests/mktrace: tests/replay/mktrace.c $(LIB_A)
	@mkdir -p $(@D)
	$(COMPILE) -Ilibheapfmt $(LDFLAGS) -o $@ $< $(LIB_A) $(LIB_LIBS)

# Test items run TEST_JOBS at a time (default: one per core), the slowest
# first so that none starts last: most wait on a child (ruby, gdb, a
# server) or run one thread, and one at a time the suite took 13 min of
# CI's 2 cores alone, 26 under the sanitizers. The order is from the
# sanitizer run's times (longest first); the rest follow in name order.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TEST_SLOW := histo_jobs hostile_crafted hostile hostile_corpus \
             malloc_record fuzz_replay test_import_android ruby_bundler \
             malloc_host ruby_attach_load verdicts malloc ruby_attach \
             export_engines ruby_install ruby_big test_import_hprof \
             malloc_attach ruby_gem \
             hostile_writers export_mongo malloc_ruby ruby_ext test_export
TEST_ITEMS_ALL = $(TEST_BINS) $(CLI_TESTS)
TEST_ITEMS_SLOW = $(foreach s,$(TEST_SLOW),$(filter %/$(s) %/$(s).sh,$(TEST_ITEMS_ALL)))
TEST_ITEMS = $(TEST_ITEMS_SLOW) $(filter-out $(TEST_ITEMS_SLOW),$(TEST_ITEMS_ALL))

## test: build everything, run the unit tests and the CLI tests
test: all $(TEST_BINS) $(EXAMPLE_BINS) $(MKHOSTILE) $(REPLAY_TEST_BINS)
	@BIN='$(abspath $(BUILD)/bin)' FIXTURES='$(abspath tests/fixtures)' \
	  LOGDIR='$(abspath $(BUILD)/test-logs)' TEST_FLAGS='$(TEST_FLAGS)' \
	  TEST_TIMEOUT='$(TEST_TIMEOUT)' TEST_JOBS='$(TEST_JOBS)' \
	  scripts/run-tests.sh $(TEST_ITEMS)

# The sanitizer builds live in their own build directories, so they never
# mix objects with the normal build.
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all

# Under the sanitizers every tool runs 2 to 8 times slower: the items
# that run them thousands of times (hostile.sh, histo_jobs.sh: 3 min on a
# loaded machine without them) get 900 s, not run-tests.sh's 300.
SAN_TEST_TIMEOUT := $(or $(TEST_TIMEOUT),900)

## asan: build and test with AddressSanitizer + UBSan in build/asan
asan:
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	$(MAKE) -f $(THIS_MAKEFILE) BUILD=$(BUILD)/asan \
	  CFLAGS='$(SAN_FLAGS) -fsanitize=address,undefined' \
	  LDFLAGS='-fsanitize=address,undefined' \
	  TEST_TIMEOUT='$(SAN_TEST_TIMEOUT)' test

## ubsan: build and test with UndefinedBehaviorSanitizer in build/ubsan
ubsan:
	$(MAKE) -f $(THIS_MAKEFILE) BUILD=$(BUILD)/ubsan \
	  CFLAGS='$(SAN_FLAGS) -fsanitize=undefined' \
	  LDFLAGS='-fsanitize=undefined' TEST_TIMEOUT='$(SAN_TEST_TIMEOUT)' test

DEMO_DIR := $(BUILD)/demo

## demo: install missing build dependencies (Debian), build, and show the tools at work
demo:
	scripts/install-deps.sh
	$(MAKE) -f $(THIS_MAKEFILE) all
	@mkdir -p $(DEMO_DIR)
	@echo '== a synthetic Ruby-like heap: write it, summarise it, check it'
	$(BUILD)/bin/heapfmt-gen --objects 200000 --seed 1 -o $(DEMO_DIR)/demo.dump
	$(BUILD)/bin/heapfmt-info $(DEMO_DIR)/demo.dump
	$(BUILD)/bin/heapfmt-info --verify $(DEMO_DIR)/demo.dump
	$(BUILD)/bin/histo --top 10 $(DEMO_DIR)/demo.dump
	@echo '== examples/leak.rb: a message server that keeps every message it receives'
	$(RUBY) -I $(BUILD)/ruby examples/leak.rb $(DEMO_DIR)
	@echo '== what grew between the first two dumps (histo), by count'
	$(BUILD)/bin/histo -s delta-count -n 5 $(DEMO_DIR)/leak-1-before.dump $(DEMO_DIR)/leak-2-after.dump
	@echo '== objects new in dump 2 and still alive in dump 3: the leak (heapfmt-diff)'
	$(BUILD)/bin/heapfmt-diff --top 5 $(DEMO_DIR)/leak-1-before.dump $(DEMO_DIR)/leak-2-after.dump $(DEMO_DIR)/leak-3-later.dump
	$(BUILD)/bin/heapfmt-diff --by=site --top 5 $(DEMO_DIR)/leak-1-before.dump $(DEMO_DIR)/leak-2-after.dump $(DEMO_DIR)/leak-3-later.dump
	@echo '== who holds the leak, and the path from a root to it (heapfmt-graph)'
	$(BUILD)/bin/heapfmt-graph owners --top 3 $(DEMO_DIR)/leak-1-before.dump $(DEMO_DIR)/leak-2-after.dump $(DEMO_DIR)/leak-3-later.dump
	@echo '== the same dump as MongoDB-ready documents (first two lines)'
	$(BUILD)/bin/heapfmt-export --format=mongo --dump-tag=later $(DEMO_DIR)/leak-3-later.dump | head -n 2
	@echo '== the native half: examples/native_leak.rb keeps Fiddle.malloc buffers, under heapfmt-malloc'
	$(BUILD)/bin/heapfmt-malloc --mode=exact --no-exit-dump -- $(RUBY) -I $(BUILD)/ruby examples/native_leak.rb $(DEMO_DIR)
	@echo '== its Ruby heap (HeapFmt.dump) before and after 20,000 messages: flat'
	$(BUILD)/bin/histo -n 3 $(DEMO_DIR)/ruby-1.hfd $(DEMO_DIR)/ruby-2.hfd
	@echo '== its malloc heap (heapfmt-malloc): the blocks new since the first dump, by Ruby line'
	$(BUILD)/bin/heapfmt-diff --by=site --top 3 $(DEMO_DIR)/native-1.hfd $(DEMO_DIR)/native-2.hfd
	@echo '== the leak story on one page (heapfmt-report)'
	$(BUILD)/bin/heapfmt-report -o $(DEMO_DIR)/leak-report.html $(DEMO_DIR)/leak-1-before.dump $(DEMO_DIR)/leak-2-after.dump $(DEMO_DIR)/leak-3-later.dump
	@echo 'open it in a browser: $(abspath $(DEMO_DIR))/leak-report.html'

# ---------------------------------------------------------------------------
# Installation
# ---------------------------------------------------------------------------

MAN_PAGES := $(wildcard man/*.1)
MAN3_PAGES := $(wildcard man/*.3)
PC_FILE   := $(BUILD)/heapfmt.pc

# Regenerated every time: it records PREFIX and friends.
$(PC_FILE): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' \
	  'prefix=$(PREFIX)' \
	  'libdir=$(LIBDIR)' \
	  'includedir=$(INCLUDEDIR)' \
	  '' \
	  'Name: heapfmt' \
	  'Description: streaming binary heap-dump format library' \
	  'Version: $(VERSION)' \
	  'Libs: -L$${libdir} -lheapfmt' \
	  'Libs.private: $(LIB_LIBS)' \
	  'Cflags: -I$${includedir}' > $@

.PHONY: FORCE
FORCE:

## install: install header, libraries, tools, man pages and heapfmt.pc (PREFIX, DESTDIR)
install: all $(PC_FILE)
	install -d '$(DESTDIR)$(INCLUDEDIR)' '$(DESTDIR)$(LIBDIR)' \
	  '$(DESTDIR)$(PKGCONFIGDIR)' '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(MANDIR)/man1' \
	  '$(DESTDIR)$(MANDIR)/man3'
	install -m 644 libheapfmt/heapfmt.h '$(DESTDIR)$(INCLUDEDIR)/heapfmt.h'
	install -m 644 $(LIB_A) '$(DESTDIR)$(LIBDIR)/libheapfmt.a'
	install -m 755 $(LIB_SO) '$(DESTDIR)$(LIBDIR)/$(SO_REAL)'
	ln -sf $(SO_REAL) '$(DESTDIR)$(LIBDIR)/$(SO_NAME)'
	ln -sf $(SO_NAME) '$(DESTDIR)$(LIBDIR)/$(SO_LINK)'
	install -m 644 $(PC_FILE) '$(DESTDIR)$(PKGCONFIGDIR)/heapfmt.pc'
	install -m 755 $(HM_SO) '$(DESTDIR)$(LIBDIR)/libheapfmt-malloc.so'
	install -m 755 $(REPLAY_CHILD) '$(DESTDIR)$(LIBDIR)/heapfmt-replay-child'
	install -m 644 libheapfmt-malloc/heapfmt_malloc.h '$(DESTDIR)$(INCLUDEDIR)/heapfmt_malloc.h'
	$(if $(TOOL_BINS),install -m 755 $(TOOL_BINS) '$(DESTDIR)$(BINDIR)/')
	$(if $(MAN_PAGES),install -m 644 $(MAN_PAGES) '$(DESTDIR)$(MANDIR)/man1/')
	$(if $(MAN3_PAGES),install -m 644 $(MAN3_PAGES) '$(DESTDIR)$(MANDIR)/man3/')

## uninstall: remove what install put in place (same PREFIX and DESTDIR)
uninstall:
	rm -f '$(DESTDIR)$(INCLUDEDIR)/heapfmt.h' \
	  '$(DESTDIR)$(LIBDIR)/libheapfmt.a' '$(DESTDIR)$(LIBDIR)/$(SO_REAL)' \
	  '$(DESTDIR)$(LIBDIR)/$(SO_NAME)' '$(DESTDIR)$(LIBDIR)/$(SO_LINK)' \
	  '$(DESTDIR)$(PKGCONFIGDIR)/heapfmt.pc' \
	  '$(DESTDIR)$(LIBDIR)/libheapfmt-malloc.so' '$(DESTDIR)$(INCLUDEDIR)/heapfmt_malloc.h' \
	  '$(DESTDIR)$(LIBDIR)/heapfmt-replay-child' \
	  $(foreach b,$(notdir $(TOOL_BINS)),'$(DESTDIR)$(BINDIR)/$(b)') \
	  $(foreach m,$(notdir $(MAN_PAGES)),'$(DESTDIR)$(MANDIR)/man1/$(m)') \
	  $(foreach m,$(notdir $(MAN3_PAGES)),'$(DESTDIR)$(MANDIR)/man3/$(m)')

## clean: remove the build directory
clean:
	rm -rf $(BUILD)

## help: list the targets
help:
	@sed -n 's/^## \([^:]*\): \(.*\)/\1\t\2/p' $(filter-out %.d,$(MAKEFILE_LIST)) | \
	  awk -F '\t' '{ printf "  %-10s %s\n", $$1, $$2 }'

-include $(LIB_OBJS:.o=.d) $(COMMON_OBJS:.o=.d) $(ANALYSIS_OBJS:.o=.d) \
         $(SUPPORT_OBJS:.o=.d) \
         $(NOZSTD_OBJS:.o=.d) $(BUILD)/obj/tests/nozstd/test_nozstd.d \
         $(BUILD)/obj/tests/hostile/mkhostile.d \
         $(foreach t,$(TOOL_DIRS),$(TOOL_OBJS_$(t):.o=.d)) \
         $(TEST_OBJS:.o=.d)

# Optional parts, each in its own fragment.
-include libheapfmt-malloc/malloc.mk
-include bindings/ruby/ruby.mk
-include bench/bench.mk
-include fuzz/fuzz.mk
