/* no_malloc.c -- a shared object that loads and defines no malloc, for
 * tests/cli/replay.sh: heapfmt-replay must call it "not an allocator"
 * (built without sanitizers, so that any build can preload it). */
int heapfmt_test_not_an_allocator(void);
int heapfmt_test_not_an_allocator(void) { return 1; }
