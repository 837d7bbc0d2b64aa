/*
 * test_diff.c -- heapfmt-diff on dumps of known content: exact new, freed
 * and retained sets, per-class sums, any object order, id reuse, class
 * names given late, identity warnings, incomplete dumps, huge sizes and
 * out-of-memory at every allocation.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "status.h"
#include "diff.h"
#include "test_diff_dumps.h"
#include "tio.h"
#include "ttext.h"

/* ---- a random heap that changes ---- */

static const char *const classes[] = {"String", "Array", "Hash", "Session",
                                      NULL};
#define NCLASSES (sizeof classes / sizeof *classes)

typedef struct heap {
    tobj *v;
    size_t n, cap;
} heap;

static void heap_add(heap *h, tobj o)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 256;
        h->v = realloc(h->v, h->cap * sizeof *h->v);
        cr_assert_not_null(h->v);
    }
    h->v[h->n++] = o;
}

static const char *const files[] = {"app/models/order.rb", "lib/cache.rb",
                                    NULL};

static tobj random_obj(tprng *p, uint64_t id)
{
    tobj o = {id, classes[tprng_below(p, NCLASSES)],
              40 + 8 * tprng_below(p, 100), "T_OBJECT",
              files[tprng_below(p, 3)], 0};
    if (o.file != NULL)
        o.line = 1 + tprng_below(p, 9);
    return o;
}

/* A heap of about n objects at addresses from base on. */
static void heap_random(heap *h, tprng *p, uint64_t base, size_t n)
{
    for (size_t k = 0; k < n; k++)
        heap_add(h, random_obj(p, base + 40 * k));
}

/* The next state of h: most objects live on (some grow), some die, some
 * slots are reused by objects of another class, and new ones appear. */
static void heap_step(heap *next, const heap *h, tprng *p, uint64_t base,
                      size_t born)
{
    for (size_t i = 0; i < h->n; i++) {
        tobj o = h->v[i];
        uint64_t r = tprng_below(p, 100);
        if (r < 65) {
            if (tprng_below(p, 10) == 0)
                o.size += 8; /* a string that grew: the same object */
            heap_add(next, o);
        } else if (r < 80) {
            tobj n = random_obj(p, o.id); /* the slot reused */
            heap_add(next, n);
        } /* else freed */
    }
    heap_random(next, p, base, born);
}

static void heap_free(heap *h)
{
    free(h->v);
    memset(h, 0, sizeof *h);
}

/* ---- the usual setup: a heap, its next state, both written ---- */

typedef struct pair {
    heap b, a;
    char pb[512], pa[512];
} pair;

/* Writes the objects b[0..nb) and a[0..na) to the two files of s, with
 * the td_write flags fb and fa. */
static void pair_write(pair *s, const tobj *b, size_t nb, unsigned fb,
                       const tobj *a, size_t na, unsigned fa)
{
    td_path(s->pb, sizeof s->pb, "b.dump");
    td_path(s->pa, sizeof s->pa, "a.dump");
    td_write(s->pb, b, nb, NULL, fb, 1);
    td_write(s->pa, a, na, NULL, fa, 2);
}

/* A random heap of n objects and its next state with born new objects at
 * born_base, written to two files with the td_write flags fb and fa. */
static void pair_make(pair *s, uint64_t seed, size_t n, size_t born,
                      uint64_t born_base, unsigned fb, unsigned fa)
{
    tprng p;
    tprng_seed(&p, seed);
    memset(s, 0, sizeof *s);
    heap_random(&s->b, &p, 0x7f0000000000ull, n);
    heap_step(&s->a, &s->b, &p, born_base, born);
    pair_write(s, s->b.v, s->b.n, fb, s->a.v, s->a.n, fa);
}

static void pair_free(pair *s)
{
    heap_free(&s->b);
    heap_free(&s->a);
    unlink(s->pb);
    unlink(s->pa);
}

/* ---- two dumps ---- */

/* The diff's objects and changes are the model's. */
static void assert_sets(const texps *want, const diff_result *res)
{
    texps got = {0};
    td_got(&got, res);
    td_assert_same(want, &got);
    texps_free(&got);
}

/* Writes two or three heaps (td_write flags per dump), diffs them with
 * --list and the chunk size, and compares every object's change with the
 * model's (td_expect2, td_expect3). */
static void check_sets(const heap *const *h, int n, const unsigned *flags,
                       size_t chunk)
{
    static const char *const names[2][3] = {
        {"before.dump", "after.dump", NULL}, {"d1.dump", "d2.dump", "d3.dump"}};
    static const uint64_t seeds[2][3] = {{11, 12, 0}, {1, 2, 3}};
    char p[3][512];
    tmeta m = TMETA_APP;
    for (int i = 0; i < n; i++) {
        td_path(p[i], sizeof p[i], names[n - 2][i]);
        td_write(p[i], h[i]->v, h[i]->n, &m, flags[i], seeds[n - 2][i]);
    }
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.list = 1;
    opt.chunk = chunk;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, n, p[0], p[1], n == 3 ? p[2] : NULL),
                 AN_OK);
    if (n == 2)
        cr_assert(res.complete);
    cr_assert_eq(res.warnings.n, 0, "unexpected warning: %s",
                 res.warnings.n ? res.warnings.v[0].text : "");
    texps want = {0};
    if (n == 2)
        td_expect2(&want, h[0]->v, h[0]->n, h[1]->v, h[1]->n);
    else
        td_expect3(&want, h[0]->v, h[0]->n, h[1]->v, h[1]->n, h[2]->v,
                   h[2]->n);
    assert_sets(&want, &res);
    texps_free(&want);
    diff_result_free(&res);
    for (int i = 0; i < n; i++)
        unlink(p[i]);
}

static void check_two(const heap *b, const heap *a, unsigned fb, unsigned fa,
                      size_t chunk)
{
    const heap *h[2] = {b, a};
    const unsigned flags[2] = {fb, fa};
    check_sets(h, 2, flags, chunk);
}

/* ---- random heaps: the case table ---- */

/* A random heap of n objects at 0x7f0000000000 and its next states (born
 * new objects at base each), diffed with each run's flags and chunk. */
typedef struct sets_case {
    const char *name;
    uint64_t seed;
    size_t n;
    size_t nsteps; /* 1: two dumps; 2: three */
    struct {
        uint64_t base;
        size_t born;
    } steps[2];
    size_t nruns;
    struct {
        unsigned flags[3];
        size_t chunk;
    } runs[5];
} sets_case;

static const sets_case sets_cases[] = {
    {"two_dumps_exact_sets", 1, 1500, 1, {{0x7f0000100000ull, 400}}, 5,
     {{{0, 0}, 0}, {{0, 0}, 1}, {{0, 0}, 7}, {{0, 0}, 100}, {{0, 0}, 5000}}},
    /* new ones below */
    {"objects_in_any_order", 2, 1200, 1, {{0x7effff000000ull, 300}}, 3,
     {{{TD_SHUFFLE, TD_REVERSE}, 64},
      {{TD_REVERSE, TD_SHUFFLE | TD_SMALL_BLOCKS}, 0},
      {{TD_SHUFFLE | TD_STORED, TD_SHUFFLE}, 3}}},
    /* The writer meets objects before their classes: the classes are
     * anonymous first and named at the end. Identity must use the final
     * names, whether the footer is there to say them up front or not. */
    {"class_names_given_after_their_objects", 6, 800, 1,
     {{0x7f0000100000ull, 200}}, 2,
     {{{TD_LATE_CLASSES, TD_LATE_CLASSES | TD_SHUFFLE}, 0},
      {{TD_LATE_CLASSES, 0}, 10}}},
    {"three_dumps_retained", 5, 1000, 2,
     {{0x7f0000100000ull, 500}, {0x7f0000200000ull, 500}}, 3,
     {{{0, 0, 0}, 0},
      {{TD_SHUFFLE, TD_SHUFFLE, TD_SHUFFLE}, 5},
      {{TD_REVERSE | TD_LATE_CLASSES, TD_REVERSE | TD_LATE_CLASSES,
        TD_REVERSE | TD_LATE_CLASSES},
       1}}},
};

Test(diff, sets_cases, .fini = tcase_fini)
{
    for (size_t k = 0; k < sizeof sets_cases / sizeof sets_cases[0]; k++) {
        const sets_case *sc = &sets_cases[k];
        tcase_enter(sc->name);
        tprng p;
        tprng_seed(&p, sc->seed);
        heap h[3] = {{0}};
        const heap *hp[3] = {&h[0], &h[1], &h[2]};
        heap_random(&h[0], &p, 0x7f0000000000ull, sc->n);
        for (size_t i = 0; i < sc->nsteps; i++)
            heap_step(&h[i + 1], &h[i], &p, sc->steps[i].base,
                      sc->steps[i].born);
        for (size_t r = 0; r < sc->nruns; r++)
            check_sets(hp, (int)sc->nsteps + 1, sc->runs[r].flags,
                       sc->runs[r].chunk);
        for (size_t i = 0; i <= sc->nsteps; i++)
            heap_free(&h[i]);
    }
    tcase_leave();
}

Test(diff, id_reuse_with_another_class)
{
    tobj before[] = {
        {0x1000, "Session", 64, NULL, NULL, 0},
        {0x1040, "String", 40, NULL, NULL, 0},
        {0x1080, NULL, 40, NULL, NULL, 0},
    };
    tobj after[] = {
        {0x1000, "String", 40, NULL, NULL, 0}, /* reused by a String */
        {0x1040, "String", 48, NULL, NULL, 0}, /* same, grown */
        {0x1080, NULL, 40, NULL, NULL, 0},     /* same, no class */
    };
    heap b = {before, 3, 3}, a = {after, 3, 3};
    check_two(&b, &a, 0, 0, 0);

    pair dumps = {0};
    pair_write(&dumps, before, 3, 0, after, 3, 0);
    diff_result res;
    cr_assert_eq(td_run(&res, NULL, 2, dumps.pb, dumps.pa, NULL), AN_OK);
    cr_assert_eq(res.total.count[DIFF_NEW], 1);
    cr_assert_eq(res.total.bytes[DIFF_NEW], 40);
    cr_assert_eq(res.total.count[DIFF_FREED], 1);
    cr_assert_eq(res.total.bytes[DIFF_FREED], 64);
    cr_assert_eq(res.nrows, 2); /* String: 1 new; Session: 1 freed */
    diff_result_free(&res);
    unlink(dumps.pb);
    unlink(dumps.pa);
}

Test(diff, duplicate_ids_pair_one_to_one)
{
    tobj before[] = {
        {0x10, "A", 8, NULL, NULL, 0},
        {0x10, "A", 8, NULL, NULL, 0},
        {0x10, "A", 8, NULL, NULL, 0},
        {0x20, "B", 8, NULL, NULL, 0},
    };
    tobj after[] = {
        {0x10, "A", 8, NULL, NULL, 0},
        {0x20, "B", 8, NULL, NULL, 0},
        {0x20, "B", 8, NULL, NULL, 0},
    };
    heap b = {before, 4, 4}, a = {after, 3, 3};
    check_two(&b, &a, 0, 0, 0);
    check_two(&a, &b, TD_SHUFFLE, 0, 1);
}

/* ---- per-class sums ---- */

Test(diff, per_class_sums)
{
    pair dumps;
    pair_make(&dumps, 3, 2000, 700, 0x7f0000100000ull, TD_SHUFFLE, TD_SHUFFLE);

    texps want = {0};
    td_expect2(&want, dumps.b.v, dumps.b.n, dumps.a.v, dumps.a.n);
    diff_result res;
    cr_assert_eq(td_run(&res, NULL, 2, dumps.pb, dumps.pa, NULL), AN_OK);
    diff_stat total = {{0, 0}, {0, 0}};
    for (size_t c = 0; c < NCLASSES; c++) {
        const char *name = classes[c] ? classes[c] : "(no class)";
        diff_stat s = {{0, 0}, {0, 0}};
        for (size_t i = 0; i < want.n; i++)
            if (strcmp(want.v[i].cls, name) == 0) {
                s.count[want.v[i].change]++;
                s.bytes[want.v[i].change] += want.v[i].size;
            }
        const diff_row *row = NULL;
        for (size_t r = 0; r < res.nrows; r++) {
            size_t len;
            const char *rn = nameid_text(&res.names, res.rows[r].cls, &len);
            if (strcmp(rn, name) == 0)
                row = &res.rows[r];
        }
        cr_assert_not_null(row, "no row for %s", name);
        cr_assert(memcmp(&row->s, &s, sizeof s) == 0,
                  "%s: got %llu new (%llu B), %llu freed (%llu B); expected "
                  "%llu (%llu B), %llu (%llu B)",
                  name, (unsigned long long)row->s.count[0],
                  (unsigned long long)row->s.bytes[0],
                  (unsigned long long)row->s.count[1],
                  (unsigned long long)row->s.bytes[1],
                  (unsigned long long)s.count[0],
                  (unsigned long long)s.bytes[0],
                  (unsigned long long)s.count[1],
                  (unsigned long long)s.bytes[1]);
        for (int i = 0; i < 2; i++) {
            total.count[i] += s.count[i];
            total.bytes[i] += s.bytes[i];
        }
    }
    cr_assert_eq(res.nrows, NCLASSES);
    cr_assert(memcmp(&res.total, &total, sizeof total) == 0);
    /* Sorted by new bytes, largest first. */
    for (size_t r = 1; r < res.nrows; r++)
        cr_assert_geq(res.rows[r - 1].s.bytes[0], res.rows[r].s.bytes[0]);
    diff_result_free(&res);
    texps_free(&want);
    pair_free(&dumps);
}

Test(diff, a_dump_against_itself_has_no_rows)
{
    tprng p;
    tprng_seed(&p, 4);
    heap b = {0};
    heap_random(&b, &p, 0x1000, 300);
    char pb[512];
    td_path(pb, sizeof pb, "self.dump");
    td_write(pb, b.v, b.n, NULL, 0, 1);
    diff_result res;
    cr_assert_eq(td_run(&res, NULL, 2, pb, pb, NULL), AN_OK);
    cr_assert_eq(res.nrows, 0);
    cr_assert_eq(res.total.count[0] + res.total.count[1], 0);
    diff_result_free(&res);
    cr_assert_eq(td_run(&res, NULL, 3, pb, pb, pb), AN_OK);
    cr_assert_eq(res.nrows, 0);
    diff_result_free(&res);
    heap_free(&b);
    unlink(pb);
}

/* ---- three dumps ---- */

Test(diff, three_dumps_duplicates_as_multisets)
{
    /* d2 has four copies of one object, d1 one, d3 two: two are new in
     * d2, and d3 still has two of them. */
    tobj d1[] = {{0x10, "A", 8, NULL, NULL, 0}};
    tobj d2[] = {{0x10, "A", 8, NULL, NULL, 0}, {0x10, "A", 8, NULL, NULL, 0},
                 {0x10, "A", 8, NULL, NULL, 0}, {0x10, "A", 8, NULL, NULL, 0}};
    tobj d3[] = {{0x10, "A", 8, NULL, NULL, 0}, {0x10, "A", 8, NULL, NULL, 0}};
    heap h1 = {d1, 1, 1}, h2 = {d2, 4, 4}, h3 = {d3, 2, 2};
    const heap *h[3] = {&h1, &h2, &h3};
    static const unsigned flags[3] = {0, 0, 0};
    check_sets(h, 3, flags, 0);
}

/* ---- class names that come late ---- */

/* Runs the diff with the dump at path fed to standard input as "-". */
static int run_with_stdin(diff_result *res, const diff_options *opt,
                          const char *stdin_path, int n, const char *p0,
                          const char *p1, const char *p2)
{
    unsigned char *data;
    size_t len;
    cr_assert_eq(tread_file(stdin_path, &data, &len), 0);
    int child;
    int fd = tpipe_fd(data, len, &child);
    int saved = dup(0);
    cr_assert_eq(dup2(fd, 0), 0);
    close(fd);
    int rc = td_run(res, opt, n, p0, p1, p2);
    dup2(saved, 0);
    close(saved);
    twait_child(child);
    free(data);
    return rc;
}

Test(diff, late_class_names_from_a_pipe)
{
    /* Without a footer (standard input) the objects of still anonymous
     * classes wait for the end of the dump. */
    pair dumps;
    pair_make(&dumps, 7, 600, 300, 0x7f0000100000ull, TD_LATE_CLASSES, TD_LATE_CLASSES | TD_SHUFFLE);
    texps want = {0};
    td_expect2(&want, dumps.b.v, dumps.b.n, dumps.a.v, dumps.a.n);
    for (int which = 0; which < 2; which++) {
        diff_options opt = DIFF_OPTIONS_INIT;
        opt.list = 1;
        opt.chunk = 50;
        diff_result res;
        int rc = which == 0
                     ? run_with_stdin(&res, &opt, dumps.pb, 2, "-", dumps.pa, NULL)
                     : run_with_stdin(&res, &opt, dumps.pa, 2, dumps.pb, "-", NULL);
        cr_assert_eq(rc, AN_OK);
        assert_sets(&want, &res);
        diff_result_free(&res);
    }
    texps_free(&want);
    pair_free(&dumps);
}

Test(diff, three_dumps_with_d1_on_a_pipe)
{
    tprng p;
    tprng_seed(&p, 8);
    heap h1 = {0}, h2 = {0}, h3 = {0};
    heap_random(&h1, &p, 0x7f0000000000ull, 500);
    heap_step(&h2, &h1, &p, 0x7f0000100000ull, 300);
    heap_step(&h3, &h2, &p, 0x7f0000200000ull, 300);
    char p1[512], p2[512], p3[512];
    td_path(p1, sizeof p1, "d1.dump");
    td_path(p2, sizeof p2, "d2.dump");
    td_path(p3, sizeof p3, "d3.dump");
    td_write(p1, h1.v, h1.n, NULL, TD_LATE_CLASSES, 1);
    td_write(p2, h2.v, h2.n, NULL, TD_SHUFFLE, 2);
    td_write(p3, h3.v, h3.n, NULL, TD_LATE_CLASSES, 3);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.list = 1;
    diff_result res;
    cr_assert_eq(run_with_stdin(&res, &opt, p1, 3, "-", p2, p3), AN_OK);
    texps want = {0};
    td_expect3(&want, h1.v, h1.n, h2.v, h2.n, h3.v, h3.n);
    assert_sets(&want, &res);
    texps_free(&want);
    diff_result_free(&res);
    heap_free(&h1);
    heap_free(&h2);
    heap_free(&h3);
    unlink(p1);
    unlink(p2);
    unlink(p3);
}

/* ---- identity warnings ---- */

static diff_result warn_run(const tmeta *mb, const tmeta *ma, int *rc)
{
    tobj objs[] = {{0x10, "A", 8, NULL, NULL, 0}};
    char pb[512], pa[512];
    td_path(pb, sizeof pb, "wb.dump");
    td_path(pa, sizeof pa, "wa.dump");
    td_write(pb, objs, 1, mb, 0, 1);
    td_write(pa, objs, 1, ma, 0, 1);
    diff_result res;
    *rc = td_run(&res, NULL, 2, pb, pa, NULL);
    unlink(pb);
    unlink(pa);
    return res;
}

Test(diff, warnings_for_ids_that_cannot_be_compared)
{
    struct {
        tmeta b, a;
        const char *want; /* NULL: no warning */
    } cases[] = {
        {TMETA_APP, TMETA_APP, NULL},
        {TMETA_NONE, TMETA_NONE, NULL},
        {TMETA_APP, TMETA_NONE, NULL}, /* absent keys prove nothing */
        {{4242, "app-1", 1700000000, 0, 0}, TMETA_APP, "ids are not stable"},
        {TMETA_APP, {4242, "app-1", 1700000000, 0, 0}, "ids are not stable"},
        {{4242, "app-1", 1700000000, 1, 2},
         {4242, "app-1", 1700000000, 1, 3},
         "gc.compactions 2 vs 3"},
        {TMETA_APP, {4343, "app-1", 1700000000, 1, 0}, "pid 4242 vs 4343"},
        {TMETA_APP, {4242, "app-2", 1700000000, 1, 0},
         "host app-1 vs app-2"},
        {TMETA_APP, {4242, "app-1", 1700000500, 1, 0},
         "process.start 1700000000 vs 1700000500"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc;
        diff_result res = warn_run(&cases[i].b, &cases[i].a, &rc);
        cr_assert_eq(rc, AN_OK, "case %zu", i);
        if (cases[i].want == NULL)
            cr_assert_eq(res.warnings.n, 0, "case %zu: unexpected %s", i,
                         res.warnings.v[0].text);
        else
            cr_assert(td_warned(&res, cases[i].want),
                      "case %zu: no warning with '%s'", i, cases[i].want);
        if (cases[i].want != NULL && strstr(cases[i].want, "vs") &&
            strncmp(cases[i].want, "gc.", 3) != 0)
            cr_assert(td_warned(&res, "different processes"), "case %zu", i);
        diff_result_free(&res);
    }
}

Test(diff, three_dumps_warn_about_each_step)
{
    tobj objs[] = {{0x10, "A", 8, NULL, NULL, 0}};
    tmeta m1 = {1, "h", 5, 1, 0}, m2 = {1, "h", 5, 1, 1}, m3 = {2, "h", 5, 1, 1};
    char p1[512], p2[512], p3[512];
    td_path(p1, sizeof p1, "w1.dump");
    td_path(p2, sizeof p2, "w2.dump");
    td_path(p3, sizeof p3, "w3.dump");
    td_write(p1, objs, 1, &m1, 0, 1);
    td_write(p2, objs, 1, &m2, 0, 1);
    td_write(p3, objs, 1, &m3, 0, 1);
    diff_result res;
    cr_assert_eq(td_run(&res, NULL, 3, p1, p2, p3), AN_OK);
    cr_assert_eq(res.warnings.n, 2);
    cr_assert(td_warned(&res, "gc.compactions 0 vs 1"));
    cr_assert(td_warned(&res, "pid 1 vs 2"));
    diff_result_free(&res);
    unlink(p1);
    unlink(p2);
    unlink(p3);
}

/* ---- incomplete dumps ---- */

Test(diff, truncated_after_dump)
{
    tprng p;
    tprng_seed(&p, 9);
    heap b = {0};
    heap_random(&b, &p, 0x7f0000000000ull, 3000);
    pair dumps = {0};
    pair_write(&dumps, b.v, b.n, TD_SMALL_BLOCKS, b.v, b.n, TD_SMALL_BLOCKS);
    td_truncate(dumps.pa, 1, 2);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.list = 1;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, 2, dumps.pb, dumps.pa, NULL), AN_INCOMPLETE);
    cr_assert_not(res.complete);
    cr_assert(td_warned(&res, "reported as freed"));
    /* Only objects of the lost half can be freed, none new; and the
     * freed ones are the last ones written. */
    cr_assert_gt(res.items.n, 0);
    cr_assert_lt(res.items.n, b.n);
    uint64_t lowest = UINT64_MAX;
    for (size_t i = 0; i < res.items.n; i++) {
        cr_assert_eq(res.items.v[i].change, DIFF_FREED);
        if (res.items.v[i].id < lowest)
            lowest = res.items.v[i].id;
    }
    cr_assert_eq(res.items.n, (size_t)((b.v[b.n - 1].id - lowest) / 40 + 1),
                 "the freed objects are not the tail of the dump");
    diff_result_free(&res);

    /* Truncated before: the lost objects look new. */
    cr_assert_eq(td_run(&res, NULL, 2, dumps.pa, dumps.pb, NULL), AN_INCOMPLETE);
    cr_assert(td_warned(&res, "reported as new"));
    cr_assert_gt(res.total.count[DIFF_NEW], 0);
    cr_assert_eq(res.total.count[DIFF_FREED], 0);
    diff_result_free(&res);

    /* Three dumps, d3 truncated: fewer retained, and a warning. */
    cr_assert_eq(td_run(&res, NULL, 3, dumps.pb, dumps.pb, dumps.pa), AN_INCOMPLETE);
    cr_assert(td_warned(&res, "not counted as retained"));
    diff_result_free(&res);
    heap_free(&b);
    unlink(dumps.pb);
    unlink(dumps.pa);
}

Test(diff, cut_inside_the_header_reads_as_empty)
{
    tobj objs[] = {{0x10, "A", 8, NULL, NULL, 0}};
    pair dumps = {0};
    pair_write(&dumps, objs, 1, 0, objs, 1, 0);
    cr_assert_eq(truncate(dumps.pa, 5), 0);
    diff_result res;
    cr_assert_eq(td_run(&res, NULL, 2, dumps.pb, dumps.pa, NULL), AN_INCOMPLETE);
    cr_assert_not(res.complete);
    cr_assert_eq(res.total.count[DIFF_FREED], 1); /* read as empty */
    cr_assert(td_warned(&res, "reported as freed"));
    diff_result_free(&res);
    cr_assert_eq(td_run(&res, NULL, 3, dumps.pa, dumps.pb, dumps.pb), AN_INCOMPLETE);
    cr_assert_eq(res.total.count[DIFF_RETAINED], 1);
    diff_result_free(&res);
    unlink(dumps.pb);
    unlink(dumps.pa);
}

/* ---- small inputs: the case table ---- */

/* Inputs by name: an empty dump, a dump of one object, a JSON file, or
 * any other path as it is. */
#define IN_EMPTY "(empty)"
#define IN_ONE "(one)"
#define IN_JSON "(notes.json)"
#define NOT_CHECKED (-1)

typedef struct small_case {
    const char *name;
    int n;
    const char *in[3];
    int status;
    long new_count, freed_count, nrows; /* or NOT_CHECKED */
} small_case;

static const small_case small_cases[] = {
    {"empty_then_one", 2, {IN_EMPTY, IN_ONE}, AN_OK, 1, NOT_CHECKED,
     NOT_CHECKED},
    {"one_then_empty", 2, {IN_ONE, IN_EMPTY}, AN_OK, NOT_CHECKED, 1,
     NOT_CHECKED},
    {"three_empty_dumps", 3, {IN_EMPTY, IN_EMPTY, IN_EMPTY}, AN_OK,
     NOT_CHECKED, NOT_CHECKED, 0},
    /* unreadable inputs are errors */
    {"a_json_file", 2, {IN_ONE, IN_JSON}, AN_ERROR, NOT_CHECKED, NOT_CHECKED,
     NOT_CHECKED},
    {"a_missing_second", 2, {IN_ONE, "/nonexistent/x.dump"}, AN_ERROR,
     NOT_CHECKED, NOT_CHECKED, NOT_CHECKED},
    {"a_missing_first_of_three", 3, {"/nonexistent/1", IN_ONE, IN_ONE},
     AN_ERROR, NOT_CHECKED, NOT_CHECKED, NOT_CHECKED},
};

Test(diff, small_cases, .fini = tcase_fini)
{
    tobj one[] = {{0x10, "A", 8, NULL, NULL, 0}};
    char pe[512], p1[512], pj[512];
    td_path(pe, sizeof pe, "empty.dump");
    td_path(p1, sizeof p1, "one.dump");
    td_path(pj, sizeof pj, "notes.json");
    td_write(pe, NULL, 0, NULL, 0, 1);
    td_write(p1, one, 1, NULL, 0, 1);
    FILE *f = fopen(pj, "w");
    cr_assert_not_null(f);
    fputs("{\"address\": \"0x7f\"}\n", f);
    fclose(f);
    for (size_t k = 0; k < sizeof small_cases / sizeof small_cases[0]; k++) {
        const small_case *sc = &small_cases[k];
        tcase_enter(sc->name);
        const char *p[3] = {NULL, NULL, NULL};
        for (int i = 0; i < sc->n; i++)
            p[i] = strcmp(sc->in[i], IN_EMPTY) == 0 ? pe
                   : strcmp(sc->in[i], IN_ONE) == 0 ? p1
                   : strcmp(sc->in[i], IN_JSON) == 0 ? pj
                                                     : sc->in[i];
        diff_result res;
        cr_assert_eq(td_run(&res, NULL, sc->n, p[0], p[1], p[2]), sc->status);
        if (sc->new_count != NOT_CHECKED)
            cr_assert_eq(res.total.count[DIFF_NEW], (uint64_t)sc->new_count);
        if (sc->freed_count != NOT_CHECKED)
            cr_assert_eq(res.total.count[DIFF_FREED],
                         (uint64_t)sc->freed_count);
        if (sc->nrows != NOT_CHECKED)
            cr_assert_eq(res.nrows, (size_t)sc->nrows);
        diff_result_free(&res);
    }
    tcase_leave();
    unlink(pe);
    unlink(p1);
    unlink(pj);
}

/* ---- sites, filters, top ---- */

static void site_dumps(char *pb, char *pa, size_t size)
{
    tobj before[] = {
        {0x100, "String", 40, "T_STRING", "app/a.rb", 1},
    };
    tobj after[] = {
        {0x100, "String", 40, "T_STRING", "app/a.rb", 1},
        {0x200, "String", 50, "T_STRING", "app/a.rb", 1},
        {0x240, "String", 60, "T_STRING", "app/b.rb", 7},
        {0x280, "Array", 70, "T_ARRAY", "app/a.rb", 1},
        {0x2c0, "Array", 80, "T_ARRAY", NULL, 0},
        {0x300, "Hash", 5ull << 30, "T_HASH", "app/b.rb", 0},
    };
    td_path(pb, size, "sb.dump");
    td_path(pa, size, "sa.dump");
    td_write(pb, before, 1, NULL, 0, 1);
    td_write(pa, after, 6, NULL, TD_SHUFFLE, 1);
}

/* The row of (cls, file:line) as text; NULL parts are not grouped. */
static const diff_row *find_row(const diff_result *res, const char *cls,
                                const char *file, uint64_t line)
{
    for (size_t r = 0; r < res->nrows; r++) {
        const diff_row *row = &res->rows[r];
        const char *c = nameid_text(&res->names, row->cls, NULL);
        const char *f = nameid_text(&res->names, row->file, NULL);
        if ((cls == NULL || strcmp(c, cls) == 0) &&
            (file == NULL ? row->file == DIFF_NONE
                          : strcmp(f, file) == 0 && row->line == line))
            return row;
    }
    return NULL;
}

Test(diff, grouped_by_site)
{
    char pb[512], pa[512];
    site_dumps(pb, pa, sizeof pb);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.by = DIFF_BY_SITE;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, 2, pb, pa, NULL), AN_OK);
    cr_assert_eq(res.nrows, 4);
    const diff_row *a1 = find_row(&res, NULL, "app/a.rb", 1);
    cr_assert_not_null(a1);
    cr_assert_eq(a1->s.count[DIFF_NEW], 2);
    cr_assert_eq(a1->s.bytes[DIFF_NEW], 120);
    const diff_row *none = find_row(&res, NULL, NULL, 0);
    cr_assert_not_null(none);
    cr_assert_eq(none->s.bytes[DIFF_NEW], 80);
    const diff_row *b0 = find_row(&res, NULL, "app/b.rb", 0);
    cr_assert_not_null(b0);
    cr_assert_eq(b0->s.bytes[DIFF_NEW], 5ull << 30); /* a huge object */
    cr_assert_eq(res.rows[0].s.bytes[DIFF_NEW], 5ull << 30);
    diff_result_free(&res);

    opt.by = DIFF_BY_CLASS | DIFF_BY_SITE;
    cr_assert_eq(td_run(&res, &opt, 2, pb, pa, NULL), AN_OK);
    cr_assert_eq(res.nrows, 5);
    const diff_row *s = find_row(&res, "String", "app/a.rb", 1);
    cr_assert_not_null(s);
    cr_assert_eq(s->s.count[DIFF_NEW], 1);
    cr_assert_not_null(find_row(&res, "Array", "app/a.rb", 1));
    cr_assert_not_null(find_row(&res, "Array", NULL, 0));
    diff_result_free(&res);
    unlink(pb);
    unlink(pa);
}

Test(diff, by_site_without_any_site_is_an_error)
{
    tobj objs[] = {{0x10, "A", 8, NULL, NULL, 0}};
    pair dumps = {0};
    pair_write(&dumps, objs, 0, 0, objs, 1, 0);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.by = DIFF_BY_SITE;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, 2, dumps.pb, dumps.pa, NULL), AN_ERROR);
    diff_result_free(&res);
    /* Nothing at all to group is no error. */
    cr_assert_eq(td_run(&res, &opt, 2, dumps.pb, dumps.pb, NULL), AN_OK);
    cr_assert_eq(res.nrows, 0);
    diff_result_free(&res);
    unlink(dumps.pb);
    unlink(dumps.pa);
}

Test(diff, list_has_type_site_and_huge_sizes)
{
    char pb[512], pa[512];
    site_dumps(pb, pa, sizeof pb);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.list = 1;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, 2, pb, pa, NULL), AN_OK);
    cr_assert_eq(res.items.n, 5);
    /* Largest first: the 5 GiB Hash. */
    const diff_item *it = &res.items.v[0];
    cr_assert_eq(it->size, 5ull << 30);
    cr_assert_eq(it->id, 0x300);
    const tuple *k = tuples_get(&res.kinds, it->kind);
    cr_assert_str_eq(nameid_text(&res.names, k->klass, NULL), "Hash");
    cr_assert_str_eq(nameid_text(&res.names, k->type, NULL), "T_HASH");
    cr_assert_str_eq(nameid_text(&res.names, k->file, NULL), "app/b.rb");
    cr_assert_eq(k->line, 0);
    /* Then by size: 80 (no site), 70, 60, 50. */
    static const uint64_t sizes[] = {5ull << 30, 80, 70, 60, 50};
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(res.items.v[i].size, sizes[i]);
    k = tuples_get(&res.kinds, res.items.v[1].kind);
    cr_assert_eq(k->file, DIFF_NONE);
    diff_result_free(&res);
    unlink(pb);
    unlink(pa);
}

Test(diff, class_and_match_filters)
{
    char pb[512], pa[512];
    site_dumps(pb, pa, sizeof pb);
    filter f;
    diff_filter_init(&f);
    cr_assert_eq(diff_filter_add_name(&f, "Array"), 0);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.filter = &f;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, 2, pb, pa, NULL), AN_OK);
    cr_assert_eq(res.nrows, 1);
    cr_assert_eq(res.total.count[DIFF_NEW], 2);
    diff_result_free(&res);

    char err[128];
    cr_assert_eq(diff_filter_add_regex(&f, "^S.r", err, sizeof err), 0);
    opt.list = 1;
    cr_assert_eq(td_run(&res, &opt, 2, pb, pa, NULL), AN_OK);
    cr_assert_eq(res.items.n, 4); /* 2 Arrays, 2 new Strings */
    diff_result_free(&res);
    diff_filter_free(&f);

    diff_filter_init(&f);
    cr_assert_eq(diff_filter_add_regex(&f, "ash$", err, sizeof err), 0);
    cr_assert_neq(diff_filter_add_regex(&f, "(", err, sizeof err), 0);
    cr_assert_gt(strlen(err), 0);
    opt.list = 0;
    opt.by = DIFF_BY_SITE;
    cr_assert_eq(td_run(&res, &opt, 2, pb, pa, NULL), AN_OK);
    cr_assert_eq(res.nrows, 1);
    cr_assert_eq(res.total.bytes[DIFF_NEW], 5ull << 30);
    diff_result_free(&res);
    diff_filter_free(&f);
    unlink(pb);
    unlink(pa);
}

Test(diff, top_keeps_the_first_rows_and_objects)
{
    pair dumps;
    pair_make(&dumps, 10, 3000, 3000, 0x7f0000100000ull, 0, 0);
    diff_options opt = DIFF_OPTIONS_INIT;
    opt.list = 1;
    opt.chunk = 100;
    diff_result all;
    cr_assert_eq(td_run(&all, &opt, 2, dumps.pb, dumps.pa, NULL), AN_OK);
    static const uint64_t tops[] = {1, 2, 10, 999, 100000};
    for (size_t t = 0; t < sizeof tops / sizeof *tops; t++) {
        opt.top = tops[t];
        diff_result res;
        cr_assert_eq(td_run(&res, &opt, 2, dumps.pb, dumps.pa, NULL), AN_OK);
        size_t want = all.items.n < tops[t] ? all.items.n : (size_t)tops[t];
        cr_assert_eq(res.items.n, want);
        for (size_t i = 0; i < want; i++) {
            cr_assert_eq(res.items.v[i].id, all.items.v[i].id,
                         "top %llu: item %zu differs",
                         (unsigned long long)tops[t], i);
            cr_assert_eq(res.items.v[i].change, all.items.v[i].change);
        }
        diff_result_free(&res);
    }
    diff_result_free(&all);
    pair_free(&dumps);
}

/* ---- out of memory ---- */

typedef struct failing {
    unsigned long calls, fail_at;
    long live;
} failing;

static void *failing_resize(void *opaque, void *p, size_t size)
{
    failing *f = opaque;
    if (size == 0) {
        if (p != NULL)
            f->live--;
        free(p);
        return NULL;
    }
    if (++f->calls == f->fail_at)
        return NULL;
    void *q = realloc(p, size);
    if (q != NULL && p == NULL)
        f->live++;
    return q;
}

Test(diff, every_allocation_failure_is_clean)
{
    pair dumps;
    pair_make(&dumps, 11, 200, 100, 0x7f0000100000ull, TD_LATE_CLASSES, 0);
    /* The messages would flood the log. */
    cr_assert_not_null(freopen("/dev/null", "w", stderr));
    for (int list = 0; list < 2; list++) {
        diff_options ref = DIFF_OPTIONS_INIT;
        ref.list = list;
        ref.by = DIFF_BY_CLASS | DIFF_BY_SITE;
        diff_result want;
        cr_assert_eq(td_run(&want, &ref, 2, dumps.pb, dumps.pa, NULL), AN_OK);
        for (unsigned long n = 1;; n++) {
            failing f = {0, n, 0};
            diff_mem mem = {failing_resize, &f, NULL};
            diff_options opt = DIFF_OPTIONS_INIT;
            opt.mem = &mem;
            opt.list = list;
            opt.chunk = 16;
            opt.by = DIFF_BY_CLASS | DIFF_BY_SITE;
            diff_result res;
            int rc = td_run(&res, &opt, 2, dumps.pb, dumps.pa, NULL);
            if (f.calls < n) {
                cr_assert_eq(rc, AN_OK);
                diff_result_free(&res);
                cr_assert_eq(f.live, 0, "%ld blocks leak", f.live);
                break; /* every allocation has failed once */
            }
            /* Either a clean error, or (when only the footer could not be
             * read) the same answer the slower way. */
            if (rc == AN_OK) {
                cr_assert(memcmp(&res.total, &want.total, sizeof res.total) ==
                              0 &&
                              res.items.n == want.items.n,
                          "allocation %lu failed: a different answer", n);
            } else {
                cr_assert_eq(rc, AN_ERROR,
                             "allocation %lu failed: rc %d", n, rc);
            }
            diff_result_free(&res);
            cr_assert_eq(f.live, 0, "allocation %lu failed: %ld blocks leak",
                         n, f.live);
            cr_assert_lt(n, 100000);
        }
        diff_result_free(&want);
    }
    pair_free(&dumps);
}
