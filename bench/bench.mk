# bench/bench.mk -- `make bench`: speed and memory at scale (issue 7).
#
# Included by the top-level Makefile (-include bench/bench.mk), at its top
# or its end; it only relies on BUILD (default build) and on the library
# archive and tools that `make all` builds. Variables:
#   BENCH_SCALE  full (default): 1M- and 10M-object dumps, under 10 minutes
#                on 2 cores; small: 1M only, about a minute
#   BENCH_RUNS   runs of each case, the median is reported (default 3)
#   PYTHON       the Python 3 that runs bench/bench.py (default python3)
# Results: a table on standard output and $(BUILD)/bench/results.json.

BUILD       ?= build
BENCH_SCALE ?= full
BENCH_RUNS  ?= 3
PYTHON      ?= python3

BENCH_OUT := $(BUILD)/bench

# The helpers: the physical floor (zlib and libzstd alone), the writer alone (any
# codec, with or without its compression thread; LIB_LIBS are the
# library's own link flags, -lzstd -lz -pthread), and the runner that
# measures each case.
$(BENCH_OUT)/measure: bench/measure.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

$(BENCH_OUT)/inflate_floor: bench/inflate_floor.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(CFLAGS) -pthread -o $@ $< \
	  $(LDFLAGS) -lzstd -lz

# The floor of a gzip file (issue 39): a zlib read loop, nothing else.
$(BENCH_OUT)/gzip_floor: bench/gzip_floor.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS) -lz

$(BENCH_OUT)/writer_bench: bench/writer_bench.c $(BUILD)/lib/libheapfmt.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(CFLAGS) -Ilibheapfmt -o $@ $< \
	  $(LDFLAGS) $(BUILD)/lib/libheapfmt.a $(LIB_LIBS)

# The malloc tracker's workload (issue 16): plain C, no library.
$(BENCH_OUT)/malloc_bench: bench/malloc_bench.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) \
	  -o $@ $<

# The tracker at malloc-heavy rates (issue 39): 4 threads, plain C.
$(BENCH_OUT)/malloc_heavy: bench/malloc_heavy.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) \
	  -pthread -o $@ $<

# The floor of an LD_PRELOAD tracker (issue 39): a forwarding shim.
$(BENCH_OUT)/malloc_shim_floor.so: bench/malloc_shim_floor.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) \
	  -fPIC -shared -o $@ $<

# The floor of an exact tracker (issue 39): the shim, unwinding each
# allocation with libunwind as exact mode does.
$(BENCH_OUT)/malloc_unwind_floor.so: bench/malloc_unwind_floor.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) \
	  -fPIC -shared -o $@ $< -lunwind

# heapfmt-core's heap (issue 33): plain C, no library.
$(BENCH_OUT)/core_heap: bench/core_heap.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(REQUIRED_CFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) \
	  -o $@ $<

.PHONY: bench bench-helpers bench-scale bench-core bench-ruby bench-replay \
        bench-malloc bench-extmem
bench-helpers: $(BENCH_OUT)/measure $(BENCH_OUT)/inflate_floor \
               $(BENCH_OUT)/gzip_floor \
               $(BENCH_OUT)/writer_bench $(BENCH_OUT)/malloc_bench \
               $(BENCH_OUT)/malloc_heavy $(BENCH_OUT)/malloc_shim_floor.so \
               $(BENCH_OUT)/malloc_unwind_floor.so \
               $(BENCH_OUT)/core_heap $(BUILD)/tests/hm_prog \
               $(BUILD)/tests/replay_prog

## bench: measure speed and memory at scale (BENCH_SCALE=small|full) into build/bench/results.json
bench: all bench-helpers
	$(PYTHON) bench/bench.py --scale $(BENCH_SCALE) --runs $(BENCH_RUNS) \
	  --build $(BUILD)

## bench-core: heapfmt-core's cases alone (BENCH_SCALE=small|full) into build/bench/core.json
bench-core: all bench-helpers
	$(PYTHON) bench/bench.py --only core --scale $(BENCH_SCALE) \
	  --runs $(BENCH_RUNS) --build $(BUILD)

## bench-ruby: issue 36's Ruby cases alone (HeapFmt.dump vs dump_all) into build/bench/results-ruby.json
bench-ruby: all bench-helpers ruby
	$(PYTHON) bench/bench.py --only ruby --scale $(BENCH_SCALE) \
	  --runs $(BENCH_RUNS) --build $(BUILD)

## bench-malloc: the malloc tracker's cases alone (issues 16, 34, 39) into build/bench/malloc.json
bench-malloc: all bench-helpers
	$(PYTHON) bench/bench.py --only malloc --scale $(BENCH_SCALE) \
	  --runs $(BENCH_RUNS) --build $(BUILD)

## bench-replay: issue 37's cases alone (heapfmt-malloc --record, heapfmt-replay) into build/bench/replay.json
bench-replay: all bench-helpers
	$(PYTHON) bench/bench.py --only replay --scale $(BENCH_SCALE) \
	  --runs $(BENCH_RUNS) --build $(BUILD)

## bench-extmem: dominators in memory vs --temp-dir at EXTMEM_OBJECTS objects (EXTMEM_LIMIT: a cgroup limit in bytes)
EXTMEM_OBJECTS ?= 10000000
EXTMEM_LIMIT ?= 0
bench-extmem: all $(BENCH_OUT)/measure
	$(PYTHON) bench/extmem.py --build $(BUILD) --objects $(EXTMEM_OBJECTS) \
	  --runs $(BENCH_RUNS) --limit $(EXTMEM_LIMIT)

## bench-scale: issue 19's scale table (every tool at BENCH_SIZES objects) into build/bench/scale.json
BENCH_SIZES ?= 1000000,3000000,10000000,30000000
bench-scale: all bench-helpers
	$(PYTHON) bench/bench.py --scale-table $(BENCH_SIZES) --runs $(BENCH_RUNS) \
	  --build $(BUILD)
