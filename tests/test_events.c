/*
 * test_events.c -- EVENTS records (format 1.2, spec 6.10): what the writer
 * takes and refuses, what the reader gives back, the records it calls
 * corrupt (built field by field with tests/support/traw.c), and the
 * compatibility rule: a file of an older minor skips tag 0x0a.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tevent.h"
#include "tio.h"
#include "traw.h"

/* A reproducible stream of events of one thread, as a program makes them:
 * allocations of every op, frees and reallocs of its own earlier blocks,
 * gaps where other threads took numbers, times that jump now and then. */
typedef struct gen {
    uint64_t rng, seq, time;
    uint64_t live[64];
    size_t nlive;
} gen;

static uint64_t next_rand(gen *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static heapfmt_event gen_event(gen *g)
{
    heapfmt_event e = { 0 };
    uint64_t r = next_rand(g);
    g->seq += 1 + (r % 4 == 0 ? r % 1000 : 0);
    g->time += r % 8 == 0 ? (r >> 8) % 100000 : 0;
    e.seq = g->seq;
    e.time_us = g->time;
    unsigned pick = (unsigned)((r >> 20) % 12);
    if (g->nlive > 0 && (pick >= 9 || g->nlive == 64)) {
        size_t i = (size_t)((r >> 32) % g->nlive);
        e.block = g->live[i];
        g->live[i] = g->live[--g->nlive];
        e.op = pick == 10 ? HEAPFMT_EV_REALLOC : HEAPFMT_EV_FREE;
    } else {
        e.op = pick > HEAPFMT_EV_LAST_ALLOC ? HEAPFMT_EV_MALLOC : pick;
        if ((e.op == HEAPFMT_EV_REALLOC || e.op == HEAPFMT_EV_REALLOCARRAY))
            e.block = 0; /* of NULL */
    }
    if (e.op != HEAPFMT_EV_FREE) {
        e.size = (r >> 40) % 5000 + (r % 97 == 0 ? UINT64_C(1) << 40 : 0);
        if (e.op >= HEAPFMT_EV_POSIX_MEMALIGN && e.op <= HEAPFMT_EV_MEMALIGN)
            e.align = UINT64_C(1) << (4 + (r >> 50) % 10);
        g->live[g->nlive++] = e.seq;
    }
    return e;
}

static heapfmt_writer *open_writer(tsink *s, int level)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = level;
    opt.block_size = 4096; /* many blocks */
    heapfmt_writer *w = twriter_on_sink(s, &opt);
    return w;
}

/* Every event written comes back, with its thread, in each record's
 * order; stored and compressed, over many blocks. */
static void roundtrip(int level)
{
    tsink s;
    heapfmt_writer *w = open_writer(&s, level);
    enum { THREADS = 3, RECORDS = 40, PER = 300 };
    gen g[THREADS];
    heapfmt_event *all = malloc(sizeof *all * THREADS * RECORDS * PER);
    uint32_t *thread_of = malloc(sizeof *thread_of * THREADS * RECORDS);
    cr_assert(all && thread_of);
    memset(g, 0, sizeof g);
    for (int t = 0; t < THREADS; t++)
        g[t].rng = 0x9e3779b97f4a7c15ull * (t + 1);
    size_t n = 0;
    for (int k = 0; k < RECORDS * THREADS; k++) {
        int t = (int)(next_rand(&g[0]) % THREADS);
        size_t count = 1 + next_rand(&g[t]) % PER;
        for (size_t i = 0; i < count; i++)
            all[n + i] = gen_event(&g[t]);
        TASSERT_OK(heapfmt_write_events(w, (uint32_t)t + 1, all + n, count));
        thread_of[k] = (uint32_t)t + 1;
        n += count;
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);

    heapfmt_reader *r = treader_on_memory(s.out.data, s.out.len);
    heapfmt_record rec;
    int rc;
    size_t at = 0, k = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag == HEAPFMT_TAG_END)
            continue;
        cr_assert_eq(rec.tag, HEAPFMT_TAG_EVENTS);
        cr_assert_eq(rec.u.events->thread, thread_of[k]);
        heapfmt_event e;
        size_t got = 0;
        while ((rc = heapfmt_reader_event(r, &e)) == 1) {
            cr_assert(tevent_same(&e, &all[at]),
                         "event %zu: op %u seq %llu, want op %u seq %llu", at,
                         e.op, (unsigned long long)e.seq, all[at].op,
                         (unsigned long long)all[at].seq);
            at++;
            got++;
        }
        cr_assert_eq(rc, 0);
        cr_assert_eq(got, rec.u.events->count);
        k++;
    }
    cr_assert_eq(rc, HEAPFMT_DONE, "%s", heapfmt_reader_error(r)->message);
    cr_assert_eq(at, n);
    heapfmt_reader_free(r);
    tbuf_free(&s.out);
    free(all);
    free(thread_of);
}

Test(events, roundtrip_stored) { roundtrip(0); }
Test(events, roundtrip_zstd) { roundtrip(3); }

Test(events, marks_in_thread_zero)
{
    tsink s;
    heapfmt_writer *w = open_writer(&s, 1);
    heapfmt_event m[2] = {
        { HEAPFMT_EV_MARK, 7, 100000, 0, 0, 0, 1u << 20, 3u << 20, 12288 },
        { HEAPFMT_EV_MARK, 900, 200000, 0, 0, 0, 0, 0, 0 },
    };
    TASSERT_OK(heapfmt_write_events(w, 0, m, 2));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    heapfmt_reader *r = treader_on_memory(s.out.data, s.out.len);
    heapfmt_record rec;
    TASSERT_OK(heapfmt_reader_next(r, &rec));
    cr_assert_eq(rec.tag, HEAPFMT_TAG_EVENTS);
    cr_assert_eq(rec.u.events->thread, 0);
    for (int i = 0; i < 2; i++) {
        heapfmt_event e;
        cr_assert_eq(heapfmt_reader_event(r, &e), 1);
        cr_assert(tevent_same(&e, &m[i]));
    }
    cr_assert_eq(heapfmt_reader_next(r, &rec), HEAPFMT_OK); /* END */
    cr_assert_eq(heapfmt_reader_next(r, &rec), HEAPFMT_DONE);
    heapfmt_reader_free(r);
    tbuf_free(&s.out);
}

/* What heapfmt_write_events refuses, without writing or sticking. */
Test(events, writer_refuses_what_the_spec_forbids)
{
    tsink s;
    heapfmt_writer *w = open_writer(&s, 0);
    heapfmt_event ok = { HEAPFMT_EV_MALLOC, 5, 10, 0, 8, 0, 0, 0, 0 };
    struct {
        uint32_t thread;
        heapfmt_event e[2];
        size_t n;
        int rc;
    } bad[] = {
        { 1, { ok, { HEAPFMT_EV_MALLOC, 5, 10, 0, 8, 0, 0, 0, 0 } }, 2,
          HEAPFMT_E_ARG }, /* same number twice */
        { 1, { ok, { HEAPFMT_EV_MALLOC, 6, 9, 0, 8, 0, 0, 0, 0 } }, 2,
          HEAPFMT_E_ARG }, /* time goes back */
        { 1, { ok, { 10, 6, 10, 0, 8, 0, 0, 0, 0 } }, 2, HEAPFMT_E_ARG },
        { 1, { ok, { 16, 6, 10, 0, 8, 0, 0, 0, 0 } }, 2, HEAPFMT_E_ARG },
        { 1, { ok, { HEAPFMT_EV_FREE, 6, 10, 0, 0, 0, 0, 0, 0 } }, 2,
          HEAPFMT_E_ARG }, /* free of block 0 */
        { 1, { ok, { HEAPFMT_EV_FREE, 6, 10, 6, 0, 0, 0, 0, 0 } }, 2,
          HEAPFMT_E_ARG }, /* a block not made before */
        { 1, { ok, { HEAPFMT_EV_REALLOC, 6, 10, 9, 1, 0, 0, 0, 0 } }, 2,
          HEAPFMT_E_ARG },
        { 1, { { HEAPFMT_EV_MARK, 6, 10, 0, 0, 0, 1, 1, 1 } }, 1,
          HEAPFMT_E_ARG }, /* a MARK in a program thread */
        { 0, { ok }, 1, HEAPFMT_E_ARG }, /* a malloc in thread 0 */
        { 1, { { HEAPFMT_EV_MALLOC, 0, 10, 0, 8, 0, 0, 0, 0 } }, 1,
          HEAPFMT_E_ARG }, /* number 0 */
        { 1, { ok }, 0, HEAPFMT_E_ARG }, /* no event */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(heapfmt_write_events(w, bad[i].thread, bad[i].e,
                                          bad[i].n),
                     bad[i].rc, "case %zu: %s", i,
                     heapfmt_writer_error(w)->message);
    cr_assert_eq(heapfmt_write_events(w, 1, NULL, 1), HEAPFMT_E_ARG);
    /* not sticky: the writer goes on */
    TASSERT_OK(heapfmt_write_events(w, 1, &ok, 1));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    tbuf_free(&s.out);
}

/* A dump whose only data record is the EVENTS record built from fields;
 * returns the status of reading it and, on HEAPFMT_OK, its event count. */
static int read_built(unsigned minor, uint64_t thread, uint64_t seq0,
                      uint64_t count, const traw_event *ev, size_t n,
                      uint64_t *events, char *why, size_t whylen)
{
    traw d;
    traw_begin(&d, 1, minor, 0, 0);
    traw_events(&d, thread, seq0, 0, count, ev, n);
    traw_finish(&d);
    heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
    heapfmt_record rec;
    int rc;
    *events = 0;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag != HEAPFMT_TAG_EVENTS)
            continue;
        heapfmt_event e;
        while (heapfmt_reader_event(r, &e) == 1)
            (*events)++;
    }
    snprintf(why, whylen, "%s", heapfmt_reader_error(r)->message);
    heapfmt_reader_free(r);
    traw_free(&d);
    return rc == HEAPFMT_DONE ? HEAPFMT_OK : rc;
}

Test(events, reader_calls_bad_records_corrupt)
{
    static const struct {
        const char *what;
        uint64_t thread, seq0, count;
        traw_event ev[2];
        size_t n;
    } cases[] = {
        { "count 0", 1, 0, 0, { { 0, 0, 0, 1, { 8 } } }, 1 },
        { "count past the bytes", 1, 0, 5, { { 0, 0, 0, 1, { 8 } } }, 1 },
        { "reserved op 10", 1, 0, 1, { { 10, 0, 0, 1, { 8 } } }, 1 },
        { "reserved op 14", 1, 0, 1, { { 14, 0, 0, 1, { 8 } } }, 1 },
        { "FREE of distance 0", 1, 5, 1, { { 9, 0, 0, 1, { 0 } } }, 1 },
        { "distance past the first event", 1, 5, 1,
          { { 9, 0, 0, 1, { 6 } } }, 1 },
        { "REALLOC distance too far", 1, 0, 2,
          { { 0, 0, 0, 1, { 8 } }, { 2, 0, 0, 2, { 2, 8 } } }, 2 },
        { "MARK in thread 1", 1, 0, 1, { { 15, 0, 0, 3, { 1, 1, 1 } } }, 1 },
        { "MALLOC in thread 0", 0, 0, 1, { { 0, 0, 0, 1, { 8 } } }, 1 },
        { "sequence overflows", 1, UINT64_MAX - 1, 2,
          { { 0, 0, 0, 1, { 8 } }, { 0, 0, 0, 1, { 8 } } }, 2 },
        { "gap overflows", 1, 3, 1, { { 0, UINT64_MAX - 2, 0, 1, { 8 } } }, 1 },
        { "truncated field", 1, 0, 1, { { 4, 0, 0, 1, { 16 } } }, 1 },
        { "thread past 2^32-1", UINT64_C(1) << 32, 0, 1,
          { { 0, 0, 0, 1, { 8 } } }, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t got;
        char why[256];
        int rc = read_built(2, cases[i].thread, cases[i].seq0, cases[i].count,
                            cases[i].ev, cases[i].n, &got, why, sizeof why);
        cr_assert_eq(rc, HEAPFMT_E_CORRUPT, "%s: %d (%s)", cases[i].what, rc,
                     why);
        cr_assert_eq(got, 0, "%s: %llu events delivered", cases[i].what,
                     (unsigned long long)got);
        cr_assert_not_null(strstr(why, "record 0"), "%s: %s", cases[i].what,
                           why);
    }
    /* and the same record, well formed, is read */
    traw_event fine[2] = { { 0, 0, 0, 1, { 8 } }, { 9, 2, 5, 1, { 3 } } };
    uint64_t got;
    char why[256];
    cr_assert_eq(read_built(2, 1, 0, 2, fine, 2, &got, why, sizeof why),
                 HEAPFMT_OK, "%s", why);
    cr_assert_eq(got, 2);
}

/* Bytes after the last event belong to a later version: ignored. */
Test(events, bytes_after_the_events_are_ignored)
{
    traw d;
    traw_begin(&d, 1, 2, 0, 0);
    d.pad = 5;
    traw_event ev[1] = { { 0, 0, 0, 1, { 8 } } };
    traw_events(&d, 1, 0, 0, 1, ev, 1);
    traw_finish(&d);
    tcapture c;
    tcapture_memory(&c, d.out.data, d.out.len, 0);
    cr_assert_eq(c.rc, HEAPFMT_DONE, "%s", c.err.message);
    tcapture_free(&c);
    traw_free(&d);
}

/* Spec 12: tag 0x0a is reserved in files of minor 0 and 1, so a reader
 * skips it there (counted as skipped, never delivered), even when its
 * bytes would not decode as events. */
Test(events, older_minor_skips_the_tag)
{
    for (unsigned minor = 0; minor < 2; minor++) {
        traw d;
        traw_begin(&d, 1, minor, 0, 0);
        traw_string(&d, 1, "x");
        traw_any(&d, 0x0a, "\x01\x00\x00\x09\x0e", 5); /* reserved op */
        traw_finish(&d);
        heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
        heapfmt_record rec;
        int rc, events = 0;
        while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
            events += rec.tag == HEAPFMT_TAG_EVENTS;
        cr_assert_eq(rc, HEAPFMT_DONE, "minor %u: %s", minor,
                     heapfmt_reader_error(r)->message);
        cr_assert_eq(events, 0);
        heapfmt_progress p;
        heapfmt_reader_progress(r, &p);
        cr_assert_eq(p.skipped, 1);
        heapfmt_reader_free(r);
        traw_free(&d);
    }
}

Test(events, event_after_another_record_is_a_state_error)
{
    traw d;
    traw_begin(&d, 1, 2, 0, 0);
    traw_string(&d, 1, "x");
    traw_finish(&d);
    heapfmt_reader *r = treader_on_memory(d.out.data, d.out.len);
    heapfmt_event e;
    cr_assert_eq(heapfmt_reader_event(r, &e), HEAPFMT_E_STATE);
    heapfmt_record rec;
    TASSERT_OK(heapfmt_reader_next(r, &rec));
    cr_assert_eq(rec.tag, HEAPFMT_TAG_STRING);
    cr_assert_eq(heapfmt_reader_event(r, &e), HEAPFMT_E_STATE);
    cr_assert_eq(heapfmt_reader_event(NULL, &e), HEAPFMT_E_ARG);
    cr_assert_eq(heapfmt_reader_event(r, NULL), HEAPFMT_E_ARG);
    heapfmt_reader_free(r);
    traw_free(&d);
}

/* A trace cut anywhere reads as truncated, with every event of every
 * complete block: the recovery every dump has. */
Test(events, cut_trace_keeps_complete_blocks)
{
    tsink s;
    heapfmt_writer *w = open_writer(&s, 1);
    gen g = { .rng = 42 };
    heapfmt_event ev[200];
    uint64_t written = 0;
    for (int k = 0; k < 50; k++) {
        for (int i = 0; i < 200; i++)
            ev[i] = gen_event(&g);
        TASSERT_OK(heapfmt_write_events(w, 1, ev, 200));
        written += 200;
    }
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    uint64_t prev = 0;
    for (size_t cut = 16; cut < s.out.len; cut += s.out.len / 37) {
        heapfmt_reader *r = treader_on_memory(s.out.data, cut);
        heapfmt_record rec;
        int rc;
        uint64_t n = 0, last = 0;
        while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
            heapfmt_event e;
            while (heapfmt_reader_event(r, &e) == 1) {
                cr_assert_gt(e.seq, last);
                last = e.seq;
                n++;
            }
        }
        cr_assert_eq(rc, HEAPFMT_E_TRUNCATED, "cut at %zu", cut);
        cr_assert_geq(n, prev, "cut at %zu: fewer events than a shorter cut",
                      cut);
        cr_assert_lt(n, written + 1);
        prev = n;
        heapfmt_reader_free(r);
    }
    cr_assert_gt(prev, written / 2);
    tbuf_free(&s.out);
}
