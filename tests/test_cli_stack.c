/*
 * test_cli_stack.c -- the tools' one rule for the top frame of an
 * allocation stack (which frames are the allocator's or the tracker's),
 * and the names of frames and stacks in text and folded form, on frames
 * built by hand as a reader would deliver them.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "cli_stack.h"

/* ---- frames as the reader gives them ---------------------------------- */

static const heapfmt_rstring none = {"", 0, 0, 0, 0, 0};

static heapfmt_rstring str(const char *s)
{
    return (heapfmt_rstring){s, strlen(s), 1, 1, 0, 0};
}

/* A frame: NULL strings are absent. */
typedef struct tframe {
    heapfmt_rstring function, library, file;
    heapfmt_rframe f;
} tframe;

static void make(tframe *t, const char *fn, const char *lib, uint64_t off,
                 const char *file, uint64_t line)
{
    t->function = fn ? str(fn) : none;
    t->library = lib ? str(lib) : none;
    t->file = file ? str(file) : none;
    t->f = (heapfmt_rframe){7, 1, &t->function, &t->library, off,
                            &t->file, line, 0};
}

/* ---- the allocator rule ----------------------------------------------- */

typedef struct rule_case {
    const char *fn, *lib;
    int allocator;
} rule_case;

static const rule_case rule_cases[] = {
    {"malloc", "/usr/lib/x86_64-linux-gnu/libheapfmt-malloc.so", 1},
    {"hf_capture", "/opt/lib/libheapfmt-malloc.so.0", 1},
    {NULL, "/usr/lib/x86_64-linux-gnu/libheapfmt-malloc.so", 1},
    {"__libc_malloc", "/lib/x86_64-linux-gnu/libc.so.6", 1},
    {"_int_malloc", "/lib/libc-2.31.so", 1},
    {"_dl_init", "/lib64/ld-linux-x86-64.so.2", 1},
    {"calloc", "/app/bin/server", 1},
    {"realloc", NULL, 1},
    {"reallocarray", "x", 1},
    {"free", "x", 1},
    {"posix_memalign", "x", 1},
    {"aligned_alloc", "x", 1},
    {"memalign", "x", 1},
    {"valloc", "x", 1},
    {"pvalloc", "x", 1},
    {"_Znwm", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 1},
    {"_Znam", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 1},
    {"_ZnwmRKSt9nothrow_t", "libstdc++.so.6", 1},
    {"_ZnwmSt11align_val_t", "libstdc++.so.6", 1},
    {"operator new(unsigned long)", "libstdc++.so.6", 1},
    {"_ZdlPv", "libstdc++.so.6", 1},
    /* the program's own frames */
    {"leaky_function", "/app/bin/server", 0},
    {"malloc_wrapper", "/app/bin/server", 0}, /* a prefix is not a match */
    {"mallocx", "/app/bin/server", 0},
    {"std::vector<int>::push_back", "libstdc++.so.6", 0},
    {"fiddle_malloc", "/usr/lib/ruby/3.1.0/x86_64-linux/fiddle.so", 0},
    {NULL, "/usr/lib/libcrypto.so.3", 0}, /* libc... but not libc */
    {"g", "/usr/lib/libcurl.so.4", 0},
    {NULL, NULL, 0},
};

Test(cli_stack, allocator_rule)
{
    for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
        const rule_case *c = &rule_cases[i];
        tframe t;
        make(&t, c->fn, c->lib, 0x10, NULL, 0);
        cr_expect_eq(cli_frame_is_allocator(&t.f), c->allocator, "%s in %s",
                     c->fn ? c->fn : "?", c->lib ? c->lib : "?");
    }
}

/* A tracker stack: tracker, libc, then the program. */
Test(cli_stack, top_skips_allocator_frames)
{
    tframe t[5];
    make(&t[0], "malloc", "/usr/lib/libheapfmt-malloc.so", 0x1200, NULL, 0);
    make(&t[1], "_Znwm", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 0x9a,
         NULL, 0);
    make(&t[2], "make_buffer", "/app/bin/server", 0x1139, "buf.c", 12);
    make(&t[3], "main", "/app/bin/server", 0x1200, "main.c", 40);
    make(&t[4], "__libc_start_main", "/lib/x86_64-linux-gnu/libc.so.6",
         0x271ca, NULL, 0);
    const heapfmt_rframe *fr[5] = {&t[0].f, &t[1].f, &t[2].f, &t[3].f,
                                   &t[4].f};
    heapfmt_rstack s = {1, 0, 5, fr, 0};
    cr_assert_eq(cli_stack_top(&s), 2);
    cli_buf b = {0};
    cr_assert_eq(cli_stack_top_name(&b, &s, CLI_STACK_TEXT), 0);
    cr_expect_str_eq(b.s, "make_buffer (server+0x1139) buf.c:12");
    cr_assert_eq(cli_stack_name(&b, &s, CLI_STACK_TEXT), 0);
    cr_expect_str_eq(b.s,
                     "malloc (libheapfmt-malloc.so+0x1200) < "
                     "_Znwm (libstdc++.so.6+0x9a) < "
                     "make_buffer (server+0x1139) buf.c:12 < "
                     "main (server+0x1200) main.c:40 < "
                     "__libc_start_main (libc.so.6+0x271ca)");
    cr_assert_eq(cli_stack_name(&b, &s, CLI_STACK_FOLDED), 0);
    cr_expect_str_eq(b.s,
                     "__libc_start_main (libc.so.6+0x271ca);"
                     "main (server+0x1200) main.c:40;"
                     "make_buffer (server+0x1139) buf.c:12;"
                     "_Znwm (libstdc++.so.6+0x9a);"
                     "malloc (libheapfmt-malloc.so+0x1200)");
    cli_buf_free(&b);
}

/* Only allocator frames: the outermost is the top. */
Test(cli_stack, top_of_an_allocator_only_stack_is_outermost)
{
    tframe t[2];
    make(&t[0], "malloc", "libheapfmt-malloc.so", 1, NULL, 0);
    make(&t[1], "strdup", "/lib/x86_64-linux-gnu/libc.so.6", 2, NULL, 0);
    const heapfmt_rframe *fr[2] = {&t[0].f, &t[1].f};
    heapfmt_rstack s = {1, 0, 2, fr, 0};
    cr_expect_eq(cli_stack_top(&s), 1);
}

/* ---- names ------------------------------------------------------------ */

typedef struct name_case {
    const char *fn, *lib;
    uint64_t off;
    const char *file;
    uint64_t line;
    const char *text, *folded;
} name_case;

static const name_case name_cases[] = {
    {"f", "/a/b/libx.so.1", 0x2a, NULL, 0, "f (libx.so.1+0x2a)",
     "f (libx.so.1+0x2a)"},
    {"f", "prog", 0x2a, "src/f.c", 9, "f (prog+0x2a) src/f.c:9",
     "f (prog+0x2a) src/f.c:9"},
    {"f", NULL, 0x7f001000, NULL, 0, "f (0x7f001000)", "f (0x7f001000)"},
    {NULL, "/usr/lib/libz.so", 0x10, NULL, 0, "libz.so+0x10",
     "libz.so+0x10"},
    {NULL, NULL, 0x7f0000401000ull, NULL, 0, "0x7f0000401000",
     "0x7f0000401000"},
    {NULL, NULL, 0x400, "a.c", 0, "0x400 a.c", "0x400 a.c"},
    /* what would cut a folded line is replaced */
    {"a;b\nc", "lib", 1, NULL, 0, "a;b\nc (lib+0x1)", "a,b?c (lib+0x1)"},
    {"std::map<int; int>", "l;l", 1, "x;y.c", 3,
     "std::map<int; int> (l;l+0x1) x;y.c:3",
     "std::map<int, int> (l,l+0x1) x,y.c:3"},
};

Test(cli_stack, frame_names)
{
    cli_buf b = {0};
    for (size_t i = 0; i < sizeof name_cases / sizeof name_cases[0]; i++) {
        const name_case *c = &name_cases[i];
        tframe t;
        make(&t, c->fn, c->lib, c->off, c->file, c->line);
        cr_assert_eq(cli_frame_name(&b, &t.f, CLI_STACK_TEXT), 0);
        cr_expect_eq(b.len, strlen(c->text));
        cr_expect_str_eq(b.s, c->text);
        cr_assert_eq(cli_frame_name(&b, &t.f, CLI_STACK_FOLDED), 0);
        cr_expect_str_eq(b.s, c->folded);
    }
    cli_buf_free(&b);
}

/* Lost records: placeholders, never a crash. */
Test(cli_stack, lost_records)
{
    cli_buf b = {0};
    cr_assert_eq(cli_stack_name(&b, NULL, CLI_STACK_TEXT), 0);
    cr_expect_str_eq(b.s, CLI_NO_STACK);
    cr_assert_eq(cli_stack_top_name(&b, NULL, CLI_STACK_FOLDED), 0);
    cr_expect_str_eq(b.s, CLI_NO_STACK);

    heapfmt_rstack lost = {12, 3, 0, NULL, 1};
    cr_expect_eq(cli_stack_top(&lost), -1);
    cr_assert_eq(cli_stack_name(&b, &lost, CLI_STACK_TEXT), 0);
    cr_expect_str_eq(b.s, CLI_UNKNOWN_STACK);
    cr_assert_eq(cli_stack_top_name(&b, &lost, CLI_STACK_TEXT), 0);
    cr_expect_str_eq(b.s, CLI_UNKNOWN_STACK);

    /* A stack whose first frame was lost, the second's function string
     * too: the lost frame is not taken for the allocator's. */
    heapfmt_rframe gone = {5, 0, &none, &none, 0, &none, 0, 1};
    heapfmt_rstring lost_fn = {"", 0, 31, 4, 1, 0};
    tframe t;
    make(&t, NULL, "/app/prog", 0x99, NULL, 0);
    t.function = lost_fn;
    const heapfmt_rframe *fr[2] = {&gone, &t.f};
    heapfmt_rstack s = {2, 0, 2, fr, 0};
    cr_expect_eq(cli_stack_top(&s), 0);
    cr_assert_eq(cli_stack_name(&b, &s, CLI_STACK_TEXT), 0);
    cr_expect_str_eq(b.s, "#<undefined frame 5> < "
                          "#<undefined string 31> (prog+0x99)");
    cli_buf_free(&b);
}
