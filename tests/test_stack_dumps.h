/*
 * test_stack_dumps.h -- native-heap dumps of known content for the tests
 * of histo --by=stack/frame, -f folded and heapfmt-diff --by=stack/frame:
 * objects with call stacks as the malloc tracker writes them (id = the
 * address, type = the allocation call), written with the library's writer
 * from plain tables, and the answers the tools must give, stated by hand.
 *
 * Included by test_histo_stacks.c and test_diff_stacks.c (static inline
 * functions: each test binary gets its own copy).
 */
#ifndef TEST_STACK_DUMPS_H
#define TEST_STACK_DUMPS_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapfmt.h"

#define TS_MAX_FRAMES 6

/* A frame; NULL strings are absent. */
typedef struct ts_frame {
    const char *fn, *lib;
    uint64_t offset;
    const char *file;
    uint64_t line;
} ts_frame;

/* A stack, innermost frame first; ends at the first frame without a
 * library and function. */
typedef struct ts_stack {
    ts_frame f[TS_MAX_FRAMES];
} ts_stack;

/* An object: its address, size, and stack (an index into the stacks, or
 * TS_NONE for an object without one). */
typedef struct ts_obj {
    uint64_t id;
    uint64_t size;
    int stack;
} ts_obj;

#define TS_NONE (-1)

#define TS_TRACKER "/usr/lib/x86_64-linux-gnu/libheapfmt-malloc.so"
#define TS_LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define TS_PROG "/srv/leak/bin/leak"

/* The stacks of the tests, by index. */
enum {
    TS_LEAK_MAIN,   /* malloc < leaky_function < main < libc */
    TS_LEAK_WORKER, /* realloc < leaky_function < worker: same top frame */
    TS_NEW,         /* malloc < operator new < Index::insert < main */
    TS_STRDUP,      /* malloc < strdup: allocator frames only */
    TS_NSTACKS
};

static const ts_stack ts_stacks[TS_NSTACKS] = {
    {{{"malloc", TS_TRACKER, 0x2f10, NULL, 0},
      {"leaky_function", TS_PROG, 0x1139, "leak.c", 12},
      {"main", TS_PROG, 0x1200, "leak.c", 40},
      {"__libc_start_main", TS_LIBC, 0x29e3f, NULL, 0}}},
    {{{"realloc", TS_TRACKER, 0x31a0, NULL, 0},
      {"leaky_function", TS_PROG, 0x1139, "leak.c", 12},
      {"worker", TS_PROG, 0x1480, "leak.c", 77}}},
    {{{"malloc", TS_TRACKER, 0x2f10, NULL, 0},
      {"_Znwm", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 0xae65c, NULL,
       0},
      {"Index::insert", TS_PROG, 0x3310, NULL, 0},
      {"main", TS_PROG, 0x1200, "leak.c", 40}}},
    {{{"malloc", TS_TRACKER, 0x2f10, NULL, 0},
      {"__strdup", TS_LIBC, 0x9e6e9, NULL, 0}}},
};

/* The names cli_stack.h gives them (text, innermost first). */
#define TS_F_MALLOC "malloc (libheapfmt-malloc.so+0x2f10)"
#define TS_F_REALLOC "realloc (libheapfmt-malloc.so+0x31a0)"
#define TS_F_LEAKY "leaky_function (leak+0x1139) leak.c:12"
#define TS_F_MAIN "main (leak+0x1200) leak.c:40"
#define TS_F_START "__libc_start_main (libc.so.6+0x29e3f)"
#define TS_F_WORKER "worker (leak+0x1480) leak.c:77"
#define TS_F_NEW "_Znwm (libstdc++.so.6+0xae65c)"
#define TS_F_INSERT "Index::insert (leak+0x3310)"
#define TS_F_STRDUP "__strdup (libc.so.6+0x9e6e9)"

#define TS_S_LEAK_MAIN                                                      \
    TS_F_MALLOC " < " TS_F_LEAKY " < " TS_F_MAIN " < " TS_F_START
#define TS_S_LEAK_WORKER TS_F_REALLOC " < " TS_F_LEAKY " < " TS_F_WORKER
#define TS_S_NEW TS_F_MALLOC " < " TS_F_NEW " < " TS_F_INSERT " < " TS_F_MAIN
#define TS_S_STRDUP TS_F_MALLOC " < " TS_F_STRDUP

/* ts_write flags */
#define TS_LOSE_STACKS 0x01u /* the block of the FRAME and STACK records
                                is damaged: every stack is undefined */
#define TS_UNFINISHED 0x02u  /* no END, footer or trailer */
#define TS_SPLIT 0x04u       /* strings, frames, stacks and every two
                                objects in blocks of their own: the ranges
                                of histo -jN see each other's records */

static inline uint32_t ts_string(heapfmt_writer *w, const char *s)
{
    uint32_t id = 0;
    if (s != NULL)
        cr_assert_eq(heapfmt_write_string(w, s, strlen(s), &id), HEAPFMT_OK);
    return id;
}

/* Flips a byte in the middle of the first block (its check then fails). */
static inline void ts_damage_first_block(const char *path)
{
    heapfmt_reader *r;
    const heapfmt_footer *f;
    cr_assert_eq(heapfmt_reader_open_path(&r, NULL, path), HEAPFMT_OK);
    cr_assert_eq(heapfmt_reader_footer(r, &f), HEAPFMT_OK);
    cr_assert_geq(f->nblocks, 2);
    long at = (long)((f->blocks[0].offset + f->blocks[1].offset) / 2);
    heapfmt_reader_free(r);
    FILE *fp = fopen(path, "r+b");
    cr_assert_not_null(fp);
    cr_assert_eq(fseek(fp, at, SEEK_SET), 0);
    int c = fgetc(fp);
    cr_assert_eq(fseek(fp, at, SEEK_SET), 0);
    fputc(c ^ 0x5a, fp);
    cr_assert_eq(fclose(fp), 0);
}

/* The number of frames of stack s. */
static inline size_t ts_depth(size_t s)
{
    size_t n = 0;
    while (n < TS_MAX_FRAMES &&
           (ts_stacks[s].f[n].fn != NULL || ts_stacks[s].f[n].lib != NULL))
        n++;
    return n;
}

/* Writes objs to path: the strings, frames and stacks first (one block of
 * their own with TS_LOSE_STACKS), then the objects, type "malloc". */
static inline void ts_write(const char *path, const ts_obj *objs, size_t n,
                            unsigned flags)
{
    heapfmt_writer *w;
    /* a descriptor: a writer of a path leaves no unfinished dump */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(heapfmt_writer_open_fd(&w, NULL, fd), HEAPFMT_OK);
    cr_assert_eq(heapfmt_write_meta_uint(w, "pid", 4242), HEAPFMT_OK);
    cr_assert_eq(heapfmt_write_meta_uint(w, "ids_stable", 1), HEAPFMT_OK);
    uint32_t type = ts_string(w, "malloc");
    /* The strings first, then the frames, then the stacks: with TS_SPLIT
     * each in blocks of their own. */
    heapfmt_frame hf[TS_NSTACKS][TS_MAX_FRAMES];
    for (size_t s = 0; s < TS_NSTACKS; s++)
        for (size_t i = 0; i < ts_depth(s); i++) {
            const ts_frame *f = &ts_stacks[s].f[i];
            hf[s][i] = (heapfmt_frame){ts_string(w, f->fn),
                                       ts_string(w, f->lib), f->offset,
                                       ts_string(w, f->file), f->line};
        }
    if (flags & TS_SPLIT)
        cr_assert_eq(heapfmt_writer_flush(w), HEAPFMT_OK);
    uint32_t frames[TS_NSTACKS][TS_MAX_FRAMES];
    for (size_t s = 0; s < TS_NSTACKS; s++)
        for (size_t i = 0; i < ts_depth(s); i++)
            cr_assert_eq(heapfmt_write_frame(w, &hf[s][i], &frames[s][i]),
                         HEAPFMT_OK);
    if (flags & TS_SPLIT)
        cr_assert_eq(heapfmt_writer_flush(w), HEAPFMT_OK);
    uint32_t stack_ids[TS_NSTACKS];
    for (size_t s = 0; s < TS_NSTACKS; s++)
        cr_assert_eq(heapfmt_write_stack(w, frames[s], ts_depth(s),
                                         &stack_ids[s]),
                     HEAPFMT_OK);
    if (flags & (TS_LOSE_STACKS | TS_SPLIT))
        cr_assert_eq(heapfmt_writer_flush(w), HEAPFMT_OK);
    for (size_t i = 0; i < n; i++) {
        if ((flags & TS_SPLIT) && i > 0 && i % 2 == 0)
            cr_assert_eq(heapfmt_writer_flush(w), HEAPFMT_OK);
        heapfmt_object o;
        memset(&o, 0, sizeof o);
        o.id = objs[i].id;
        o.type = type;
        o.size = objs[i].size;
        if (objs[i].stack != TS_NONE) {
            o.fields = HEAPFMT_F_STACK;
            o.stack = stack_ids[objs[i].stack];
        }
        cr_assert_eq(heapfmt_write_object(w, &o), HEAPFMT_OK);
    }
    if (flags & TS_UNFINISHED)
        cr_assert_eq(heapfmt_writer_flush(w), HEAPFMT_OK);
    else
        cr_assert_eq(heapfmt_writer_finish(w), HEAPFMT_OK);
    heapfmt_writer_free(w);
    cr_assert_eq(close(fd), 0);
    if (flags & TS_LOSE_STACKS)
        ts_damage_first_block(path);
}

/* A file name in the test's temporary directory. */
static inline void ts_path(char *buf, size_t cap, const char *name)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, cap, "%s/ts-%ld-%s.hfd", dir ? dir : "/tmp",
             (long)getpid(), name);
}

/* Everything out printed, as a string (free it). */
static inline char *ts_slurp(FILE *f)
{
    cr_assert_eq(fflush(f), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    rewind(f);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    return s;
}

#endif /* TEST_STACK_DUMPS_H */
