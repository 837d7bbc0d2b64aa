# libheapfmt-malloc/malloc.mk -- the LD_PRELOAD malloc tracker.
#
# Included by the top-level Makefile. Builds $(BUILD)/lib/libheapfmt-malloc.so
# from libheapfmt-malloc/*.c and its own copy of libheapfmt's sources. The
# copy and the tracker are built without sanitizers whatever CFLAGS says:
# a preloaded malloc and AddressSanitizer's malloc cannot both sit under a
# program (make asan still checks the launcher and the tools with them).
# The launcher is tools/malloc (heapfmt-malloc), built as any tool.

HM_SRCS   := $(wildcard libheapfmt-malloc/*.c)
HM_OBJS   := $(HM_SRCS:%.c=$(BUILD)/obj/hm/%.o) \
             $(LIB_SRCS:%.c=$(BUILD)/obj/hm/%.o)
HM_SO     := $(BUILD)/lib/libheapfmt-malloc.so
HM_CFLAGS  = $(filter-out -fsanitize%,$(CFLAGS))
HM_LIBS   := -lunwind -ldw -lzstd -lz -ldl -lm -pthread

$(BUILD)/obj/hm/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(HM_CFLAGS) $(DEPFLAGS) $(LIB_CPPFLAGS) \
	  -fPIC -fvisibility=hidden -Ilibheapfmt -Ilibheapfmt/common \
	  -Ilibheapfmt-malloc -c $< -o $@

# -z nodelete: a tracker that a dlclose unloaded would leave the program's
# malloc pointing at nothing.
$(HM_SO): $(HM_OBJS) libheapfmt-malloc/exports.map
	@mkdir -p $(@D)
	$(CC) -shared $(HM_CFLAGS) $(filter-out -fsanitize%,$(LDFLAGS)) \
	  -Wl,-soname,libheapfmt-malloc.so -Wl,-z,nodelete \
	  -Wl,--version-script=libheapfmt-malloc/exports.map -o $@ $(HM_OBJS) $(HM_LIBS)

# The launcher finds the tracker next to it (../lib).
$(BUILD)/bin/heapfmt-malloc: | $(HM_SO)
tools: $(HM_SO)

-include $(HM_OBJS:.o=.d)

# The launcher validates signal names as the tracker reads them (hm_config,
# and hm_host for the log line it may write).
HM_CONFIG_OBJ := $(BUILD)/obj/hm/libheapfmt-malloc/hm_config.o \
                 $(BUILD)/obj/hm/libheapfmt-malloc/hm_host.o
TOOL_DEP_OBJS_malloc += $(HM_CONFIG_OBJ)
$(BUILD)/bin/heapfmt-malloc: $(HM_CONFIG_OBJ)
$(BUILD)/obj/tools/malloc/%.o: TOOL_CPPFLAGS += -Ilibheapfmt-malloc

# tests/malloc/hm_prog: the programs tests/cli/malloc.sh runs under the
# tracker (no sanitizers: the tracker is their malloc).
HM_PROG := $(BUILD)/tests/hm_prog
$(HM_PROG): tests/malloc/hm_prog.c libheapfmt-malloc/heapfmt_malloc.h
	@mkdir -p $(@D)
	$(CC) $(REQUIRED_CFLAGS) $(HM_CFLAGS) -Ilibheapfmt-malloc \
	  -o $@ $< -pthread
# tests/malloc/hostile_host: programs that treat their process as
# production programs do (close every descriptor, tiny rlimits, exec...).
HM_HOST := $(BUILD)/tests/hm_host
$(HM_HOST): tests/malloc/hostile_host.c libheapfmt-malloc/heapfmt_malloc.h
	@mkdir -p $(@D)
	$(CC) $(REQUIRED_CFLAGS) $(HM_CFLAGS) -Ilibheapfmt-malloc \
	  -o $@ $< -pthread
test: $(HM_PROG) $(HM_HOST)

# tests/test_malloc_*.c: units of the tracker, linked with its objects
# (built without sanitizers; the test itself may have them).
HM_UNIT_OBJS := $(BUILD)/obj/hm/libheapfmt-malloc/hm_live.o \
                $(BUILD)/obj/hm/libheapfmt-malloc/hm_addr_seed.o \
                $(BUILD)/obj/hm/libheapfmt-malloc/hm_sample.o \
                $(BUILD)/obj/hm/libheapfmt-malloc/hm_config.o \
                $(BUILD)/obj/hm/libheapfmt-malloc/hm_host.o \
                $(BUILD)/obj/hm/libheapfmt-malloc/hm_wake.o
$(BUILD)/obj/tests/test_malloc_%.o: TEST_CPPFLAGS += -Ilibheapfmt-malloc
$(foreach t,$(filter test_malloc_%,$(TEST_NAMES)),$(eval $(BUILD)/tests/$(t): $(HM_UNIT_OBJS)))
$(BUILD)/tests/test_malloc_%: TEST_LIBS += -lm
