/* mktrace.c -- traces heapfmt-malloc --record would never write, for
 * tests/cli/replay.sh: events that free blocks never made or already
 * freed, reallocs of dead blocks, frees across threads. Written with
 * libheapfmt's writer, which checks the encoding but not the meaning.
 *
 *   mktrace bad OUT   two threads; the program's live bytes at each
 *                     MARK are printed ("mark N LIVE") and at the end
 *                     ("end LIVE") as a replay that skips the bad
 *                     events must find them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"

static heapfmt_writer *w;
static uint64_t seq, now;

static void die(const char *what) {
    fprintf(stderr, "mktrace: %s: %s\n", what,
            w ? heapfmt_writer_error(w)->message : "cannot open");
    exit(1);
}

/* One event in its own record (records may hold one). */
static uint64_t ev(uint32_t thread, unsigned op, uint64_t block, uint64_t size) {
    heapfmt_event e = {0};
    e.op = op;
    e.seq = ++seq;
    e.time_us = now += 10;
    e.block = block;
    e.size = size;
    if (op == HEAPFMT_EV_POSIX_MEMALIGN)
        e.align = 64;
    if (heapfmt_write_events(w, thread, &e, 1) != HEAPFMT_OK)
        die("event");
    return e.seq;
}

static void mark(void) {
    heapfmt_event e = {0};
    e.op = HEAPFMT_EV_MARK;
    e.seq = ++seq;
    e.time_us = now += 10;
    e.rss = e.peak = 1 << 20;
    if (heapfmt_write_events(w, 0, &e, 1) != HEAPFMT_OK)
        die("mark");
}

static int cmd_bad(const char *out) {
    FILE *f = fopen(out, "wb");
    if (f == NULL || heapfmt_writer_open_fd(&w, NULL, fileno(f)) != HEAPFMT_OK)
        die(out);
    heapfmt_write_meta_text(w, "malloc.mode", "record");
    uint64_t a = ev(1, HEAPFMT_EV_MALLOC, 0, 1000);
    uint64_t b = ev(1, HEAPFMT_EV_CALLOC, 0, 300);
    uint64_t c = ev(2, HEAPFMT_EV_POSIX_MEMALIGN, 0, 200);
    mark();
    printf("mark 0 %d\n", 1000 + 300 + 200);
    ev(2, HEAPFMT_EV_FREE, a, 0);           /* across threads */
    ev(1, HEAPFMT_EV_FREE, 1, 0);           /* a again: double free */
    ev(1, HEAPFMT_EV_FREE, seq - 1, 0);     /* the free event: not a block */
    uint64_t d = ev(1, HEAPFMT_EV_REALLOC, b, 5000); /* b moves */
    ev(2, HEAPFMT_EV_REALLOC, a, 700);      /* a is dead: a malloc */
    mark();
    printf("mark 1 %d\n", 200 + 5000 + 700);
    ev(1, HEAPFMT_EV_FREE, d, 0);
    ev(2, HEAPFMT_EV_FREE, b, 0);           /* b, moved by realloc */
    ev(2, HEAPFMT_EV_FREE, c, 0);
    mark();
    printf("mark 2 %d\n", 700);
    printf("end %d\n", 700);
    if (heapfmt_writer_finish(w) != HEAPFMT_OK)
        die("finish");
    heapfmt_writer_free(w);
    return fclose(f) == 0 ? 0 : 1;
}

static int cmd_many(const char *out) {
    FILE *f = fopen(out, "wb");
    if (f == NULL || heapfmt_writer_open_fd(&w, NULL, fileno(f)) != HEAPFMT_OK)
        die(out);
    heapfmt_event e[500];
    for (int r = 0; r < 200; r++) {
        for (int i = 0; i < 500; i++) { /* kept, temporary, its free, kept */
            memset(&e[i], 0, sizeof e[i]);
            e[i].op = i % 4 == 2 ? HEAPFMT_EV_FREE : HEAPFMT_EV_MALLOC;
            e[i].seq = ++seq;
            e[i].time_us = now += 3;
            e[i].size = i % 4 == 0 ? 32 + (uint64_t)(i % 7) * 16 : i % 4 == 1 ? 100 : 50;
            if (i % 4 == 2) {
                e[i].block = e[i - 1].seq;
                e[i].size = 0;
            }
        }
        if (heapfmt_write_events(w, 1, e, 500) != HEAPFMT_OK)
            die("events");
        if (r % 10 == 9) {
            mark();
            if (heapfmt_writer_flush(w) != HEAPFMT_OK)
                die("flush");
        }
    }
    if (heapfmt_writer_finish(w) != HEAPFMT_OK)
        die("finish");
    heapfmt_writer_free(w);
    return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "bad") == 0)
        return cmd_bad(argv[2]);
    if (argc == 3 && strcmp(argv[1], "many") == 0)
        return cmd_many(argv[2]);
    fprintf(stderr, "usage: mktrace bad|many OUT\n");
    return 2;
}
