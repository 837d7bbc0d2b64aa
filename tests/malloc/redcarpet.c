/* redcarpet.c -- the leak of Redcarpet 3.3.2 that mwrap found (the seeds'
 * "Could Mwrap isolate the old redcarpet leak?"), in C, for
 * tests/cli/malloc_lifespan.sh: a site whose blocks mostly die young, and
 * one in five never does.
 *   render_markdown  5 buffers a call from one call stack, 4 freed before
 *                    it returns: the leak beside churn at one site
 *   parse_inline     6 buffers a call, all freed: churn
 *   fill_cache       a few large blocks made just before the last dump:
 *                    the most new bytes, but young
 * Usage: redcarpet CALLS D1 D2 -- CALLS/2 calls, dump D1, 300 ms, CALLS/2
 * calls, 700 ms, fill_cache, dump D2. Under heapfmt-malloc (it calls the
 * tracker's heapfmt_malloc_dump). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heapfmt_malloc.h"

#pragma weak heapfmt_malloc_dump

static void *volatile *kept;
static long nkept;

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void dump(const char *path)
{
    if (!heapfmt_malloc_dump || heapfmt_malloc_dump(path, NULL, 0) != 0) {
        fprintf(stderr, "redcarpet: cannot dump to %s (not under the tracker?)\n", path);
        exit(1);
    }
}

__attribute__((noinline)) void render_markdown(long i)
{
    void *buf[5];
    for (int k = 0; k < 5; k++) {
        buf[k] = malloc(96);
        if (buf[k])
            memset(buf[k], (int)i, 96);
    }
    for (int k = 1; k < 5; k++)
        free(buf[k]);
    kept[nkept++] = buf[0]; /* the bug: the first buffer is never freed */
}

__attribute__((noinline)) void parse_inline(long i)
{
    void *buf[6];
    for (int k = 0; k < 6; k++) {
        buf[k] = malloc(40);
        if (buf[k])
            memset(buf[k], (int)i, 40);
    }
    for (int k = 0; k < 6; k++)
        free(buf[k]);
}

__attribute__((noinline)) void fill_cache(void)
{
    for (int k = 0; k < 4; k++) {
        void *p = malloc(256 * 1024);
        if (p)
            memset(p, k, 256 * 1024);
        kept[nkept++] = p;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: redcarpet CALLS D1 D2\n");
        return 2;
    }
    long calls = atol(argv[1]);
    kept = calloc((size_t)calls + 8, sizeof *kept);
    for (long i = 0; i < calls / 2; i++) {
        render_markdown(i);
        parse_inline(i);
    }
    dump(argv[2]);
    pause_ms(300);
    for (long i = calls / 2; i < calls; i++) {
        render_markdown(i);
        parse_inline(i);
    }
    pause_ms(700);
    fill_cache();
    dump(argv[3]);
    printf("%ld calls, %ld blocks kept\n", calls, nkept);
    return 0;
}
