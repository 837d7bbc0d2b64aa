/* stacks.c -- heapfmt-gen --stacks: the call paths of a native heap. */
#include <string.h>

#include "stacks.h"

#define LIB "/usr/lib/x86_64-linux-gnu/"
#define TRACKER LIB "libheapfmt-malloc.so"
#define LIBC LIB "libc.so.6"
#define RUBY LIB "libruby-3.1.so.3.1"
#define PROGRAM "/srv/app/bin/app-server"

/* One frame; file NULL when the library has no debug information. */
typedef struct sframe {
    const char *function;
    const char *library;
    uint32_t offset;
    const char *file;
    uint32_t line;
} sframe;

#define LEAF_DEPTH 4
#define CALLER_DEPTH 5

/* The allocating ends, innermost first; a short one ends with NULL. */
static const sframe leaves[GEN_STACK_LEAVES][LEAF_DEPTH] = {
    {{"malloc", TRACKER, 0x2f10, NULL, 0},
     {"leaky_function", PROGRAM, 0x1139, "src/leak.c", 12},
     {"handle_message", PROGRAM, 0x1a07, "src/server.c", 88}},
    {{"malloc", TRACKER, 0x2f10, NULL, 0},
     {"__strdup", LIBC, 0x9e6e9, NULL, 0},
     {"parse_header", PROGRAM, 0x20c4, "src/http.c", 141},
     {"handle_request", PROGRAM, 0x2411, "src/http.c", 37}},
    {{"calloc", TRACKER, 0x3080, NULL, 0},
     {"cache_put", PROGRAM, 0x2b58, "src/cache.c", 64},
     {"handle_request", PROGRAM, 0x2466, "src/http.c", 52}},
    {{"malloc", TRACKER, 0x2f10, NULL, 0},
     {"_Znwm", LIB "libstdc++.so.6", 0xae65c, NULL, 0},
     {"Index::insert", PROGRAM, 0x3310, "src/index.cc", 210}},
    {{"realloc", TRACKER, 0x31a0, NULL, 0},
     {"buffer_grow", PROGRAM, 0x1d80, "src/buffer.c", 29},
     {"read_body", PROGRAM, 0x2290, "src/http.c", 98}},
    {{"malloc", TRACKER, 0x2f10, NULL, 0},
     {"objspace_xmalloc0", RUBY, 0x12f2b0, NULL, 0},
     {"ruby_xmalloc", RUBY, 0x130c41, NULL, 0},
     {"rb_str_buf_new", RUBY, 0x24a8f3, NULL, 0}},
    {{"malloc", TRACKER, 0x2f10, NULL, 0},
     {"fiddle_malloc", "/usr/lib/ruby/3.1.0/x86_64-linux-gnu/fiddle.so",
      0x5c7e, NULL, 0},
     {"vm_call_cfunc_with_frame", RUBY, 0x2f5b19, NULL, 0}},
    {{"malloc", TRACKER, 0x2f10, NULL, 0},
     {"yaml_malloc", LIB "libyaml-0.so.2", 0x4b29, NULL, 0},
     {"yaml_parser_parse", LIB "libyaml-0.so.2", 0x11e6e, NULL, 0},
     {"parse", "/usr/lib/ruby/3.1.0/x86_64-linux-gnu/psych.so", 0x7d31,
      NULL, 0}},
    {{"malloc", TRACKER, 0x2f10, NULL, 0},
     {"CRYPTO_malloc", LIB "libcrypto.so.3", 0x1a6d5e, NULL, 0},
     {"SSL_new", LIB "libssl.so.3", 0x4a1f2, NULL, 0}},
    {{"posix_memalign", TRACKER, 0x3290, NULL, 0},
     {"_int_memalign", LIBC, 0xa1c2e, NULL, 0},
     {"rb_aligned_malloc", RUBY, 0x12c3f9, NULL, 0},
     {"heap_page_allocate", RUBY, 0x12d6e0, NULL, 0}},
    {{"calloc", TRACKER, 0x3080, NULL, 0},
     {"zcalloc", LIB "libz.so.1", 0x3b47, NULL, 0},
     {"inflateInit2_", LIB "libz.so.1", 0x9c4a, NULL, 0},
     {"zstream_init", "/usr/lib/ruby/3.1.0/x86_64-linux-gnu/zlib.so",
      0x6f81, NULL, 0}},
    /* an ancient tracker build without symbols: offsets only */
    {{NULL, TRACKER, 0x2f10, NULL, 0},
     {NULL, LIB "libffi.so.8", 0x7a1c, NULL, 0},
     {"ffi_call", LIB "libffi.so.8", 0x7b90, NULL, 0}},
};

/* The callers, innermost first. */
static const sframe callers[GEN_STACK_CALLERS][CALLER_DEPTH] = {
    {{"worker_loop", PROGRAM, 0x1480, "src/worker.c", 55},
     {"start_thread", LIBC, 0x94ac2, NULL, 0},
     {"clone3", LIBC, 0x126850, NULL, 0}},
    {{"main", PROGRAM, 0x1190, "src/main.c", 23},
     {"__libc_start_call_main", LIBC, 0x29d8f, NULL, 0},
     {"__libc_start_main", LIBC, 0x29e3f, NULL, 0},
     {"_start", PROGRAM, 0x10a5, NULL, 0}},
    {{"vm_exec_core", RUBY, 0x2d8a6e, NULL, 0},
     {"rb_vm_exec", RUBY, 0x2e1d4c, NULL, 0},
     {"ruby_run_node", RUBY, 0x10a3b1, NULL, 0},
     {"main", "/usr/bin/ruby3.1", 0x115e, NULL, 0},
     {"__libc_start_main", LIBC, 0x29e3f, NULL, 0}},
    {{"thread_start_func_2", RUBY, 0x2a55f7, NULL, 0},
     {"start_thread", LIBC, 0x94ac2, NULL, 0}},
};

static int intern(heapfmt_writer *w, const char *s, uint32_t *id)
{
    *id = 0;
    return s == NULL ? HEAPFMT_OK : heapfmt_write_string(w, s, strlen(s), id);
}

/* Appends the frames of v (up to n, stopping at an empty entry) to
 * frames. */
static int add_frames(heapfmt_writer *w, const sframe *v, size_t n,
                      uint32_t *frames, size_t *nframes)
{
    for (size_t i = 0; i < n && v[i].library != NULL; i++) {
        heapfmt_frame f = {0, 0, v[i].offset, 0, v[i].line};
        int rc;
        if ((rc = intern(w, v[i].function, &f.function)) != HEAPFMT_OK ||
            (rc = intern(w, v[i].library, &f.library)) != HEAPFMT_OK ||
            (rc = intern(w, v[i].file, &f.file)) != HEAPFMT_OK ||
            (rc = heapfmt_write_frame(w, &f, &frames[*nframes])) !=
                HEAPFMT_OK)
            return rc;
        (*nframes)++;
    }
    return HEAPFMT_OK;
}

int gen_stacks_write(heapfmt_writer *w, uint32_t ids[GEN_STACK_PATHS])
{
    for (uint32_t p = 0; p < GEN_STACK_PATHS; p++) {
        uint32_t frames[LEAF_DEPTH + CALLER_DEPTH];
        size_t n = 0;
        int rc = add_frames(w, leaves[p % GEN_STACK_LEAVES], LEAF_DEPTH,
                            frames, &n);
        if (rc == HEAPFMT_OK)
            rc = add_frames(w, callers[p / GEN_STACK_LEAVES], CALLER_DEPTH,
                            frames, &n);
        if (rc == HEAPFMT_OK)
            rc = heapfmt_write_stack(w, frames, n, &ids[p]);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    return HEAPFMT_OK;
}
