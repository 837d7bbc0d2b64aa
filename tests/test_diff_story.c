/*
 * test_diff_story.c -- the three-dump leak hunt of README.md, checked.
 *
 * A small simulation of a Ruby web application writes three dumps of one
 * process, the way a VM would: every object in a heap slot (its id is the
 * slot's address), slots reused after garbage collection, dead objects
 * still in the heap until the next GC, allocation sites traced from boot
 * on. Between the dumps the application serves requests; a middleware
 * leaks an AuditLog::Entry (and its String and Hash) on every POST, and an
 * I18n cache fills up with the odd new key.
 *
 * The test checks heapfmt-diff's retained set against the simulation's own
 * record of which objects are where. Set DIFF_STORY_DIR to a directory to
 * keep the three dumps (README.md was written from them):
 *     DIFF_STORY_DIR=/tmp/story build/tests/test_diff_story
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"
#include "diff.h"
#include "test_diff_dumps.h"
#include "tio.h"

#define SLOT 40u
#define BASE 0x00007f3a8c000000ull
#define MAX_SLOTS 200000u
#define GC_EVERY 24000u /* allocations between two collections */

/* A kind of object the application allocates. */
typedef struct shape_t {
    const char *cls;
    const char *type;
    uint64_t min, max; /* size range, bytes */
} shape_t;

enum {
    S_STRING, S_ARRAY, S_HASH, S_PROC, S_IMEMO, S_SYMBOL, S_REQUEST,
    S_RESPONSE, S_RESULT, S_USER, S_ORDER, S_HWIA, S_ENTRY, S_COUNT
};

static const shape_t shapes[S_COUNT] = {
    [S_STRING] = {"String", "T_STRING", 40, 400},
    [S_ARRAY] = {"Array", "T_ARRAY", 40, 320},
    [S_HASH] = {"Hash", "T_HASH", 160, 640},
    [S_PROC] = {"Proc", "T_DATA", 80, 80},
    [S_IMEMO] = {NULL, "T_IMEMO", 40, 40},
    [S_SYMBOL] = {"Symbol", "T_SYMBOL", 40, 40},
    [S_REQUEST] = {"ActionDispatch::Request", "T_OBJECT", 80, 80},
    [S_RESPONSE] = {"Rack::Response", "T_OBJECT", 80, 80},
    [S_RESULT] = {"ActiveRecord::Result", "T_OBJECT", 80, 80},
    [S_USER] = {"User", "T_OBJECT", 160, 160},
    [S_ORDER] = {"Order", "T_OBJECT", 160, 160},
    [S_HWIA] = {"ActiveSupport::HashWithIndifferentAccess", "T_HASH", 160,
                640},
    [S_ENTRY] = {"AuditLog::Entry", "T_OBJECT", 80, 80},
};

/* What one request allocates: shape, site, how many. */
typedef struct alloc_step {
    int shape;
    const char *file;
    uint64_t line;
    int count;
} alloc_step;

static const alloc_step request_steps[] = {
    {S_REQUEST, "actionpack-7.1.2/lib/action_dispatch/http/request.rb", 57, 1},
    {S_HWIA, "actionpack-7.1.2/lib/action_dispatch/http/parameters.rb", 48,
     1},
    {S_STRING, "rack-3.0.8/lib/rack/utils.rb", 120, 12},
    {S_HASH, "rack-3.0.8/lib/rack/headers.rb", 98, 2},
    {S_RESULT, "activerecord-7.1.2/lib/active_record/result.rb", 40, 2},
    {S_ARRAY, "activerecord-7.1.2/lib/active_record/result.rb", 66, 4},
    {S_USER, "activerecord-7.1.2/lib/active_record/persistence.rb", 118, 1},
    {S_ORDER, "activerecord-7.1.2/lib/active_record/persistence.rb", 118, 3},
    {S_STRING, "app/views/orders/index.html.erb", 12, 20},
    {S_ARRAY, "app/controllers/orders_controller.rb", 9, 3},
    {S_PROC, "activesupport-7.1.2/lib/active_support/callbacks.rb", 108, 4},
    {S_IMEMO, "activesupport-7.1.2/lib/active_support/callbacks.rb", 108, 6},
    {S_RESPONSE, "rack-3.0.8/lib/rack/response.rb", 34, 1},
    {S_STRING, "rack-3.0.8/lib/rack/response.rb", 80, 3},
};

/* The leak: on every POST, kept in AuditLog's class-level array. */
static const alloc_step leak_steps[] = {
    {S_ENTRY, "app/middleware/audit_log.rb", 27, 1},
    {S_STRING, "app/middleware/audit_log.rb", 28, 1},
    {S_HASH, "app/middleware/audit_log.rb", 29, 1},
};

/* A heap slot. */
typedef struct slot {
    int used;      /* holds an object (alive or dead, not yet swept) */
    int dead;      /* garbage: freed at the next GC */
    int shape;
    uint64_t size;
    const char *file;
    uint64_t line;
    uint32_t ref[2]; /* slots it references */
    int nref;
} slot;

typedef struct app {
    slot *slots;
    uint32_t *free_list; /* slot numbers, used last in first out */
    size_t nfree;
    uint32_t top;        /* slots ever used */
    uint64_t allocs;
    tprng rng;
    uint32_t cache_keys; /* I18n keys cached so far */
    uint32_t entries;    /* AuditLog::ENTRIES, the Array that leaks */
    uint32_t *audit;     /* the slots it references */
    size_t naudit;
} app;

static void app_gc(app *a)
{
    for (uint32_t i = 0; i < a->top; i++)
        if (a->slots[i].used && a->slots[i].dead) {
            a->slots[i].used = 0;
            a->free_list[a->nfree++] = i;
        }
}

/* Allocates an object; returns its slot number. */
static uint32_t app_alloc(app *a, int shape, const char *file, uint64_t line)
{
    if (++a->allocs % GC_EVERY == 0)
        app_gc(a);
    uint32_t i;
    if (a->nfree > 0) {
        i = a->free_list[--a->nfree];
    } else {
        cr_assert_lt(a->top, MAX_SLOTS);
        i = a->top++;
    }
    const shape_t *s = &shapes[shape];
    uint64_t size = s->min;
    if (s->max > s->min)
        size += 8 * tprng_below(&a->rng, (s->max - s->min) / 8 + 1);
    a->slots[i] = (slot){1, 0, shape, size, file, line, {0, 0}, 0};
    return i;
}

static void app_boot(app *a)
{
    /* Boot allocates before allocation tracing starts: no sites. */
    static const int boot_mix[] = {S_STRING, S_STRING, S_STRING, S_STRING,
                                   S_ARRAY,  S_ARRAY,  S_HASH,   S_PROC,
                                   S_IMEMO,  S_IMEMO,  S_SYMBOL, S_HASH};
    for (int i = 0; i < 30000; i++) {
        app_alloc(a, boot_mix[tprng_below(&a->rng, 12)], NULL, 0);
        if (i == 20000) /* AuditLog loads: its entries live in an Array */
            a->entries = app_alloc(a, S_ARRAY, NULL, 0);
    }
}

static void app_request(app *a)
{
    uint32_t mine[128];
    size_t n = 0;
    for (size_t s = 0; s < sizeof request_steps / sizeof *request_steps;
         s++)
        for (int k = 0; k < request_steps[s].count; k++) {
            uint32_t i = app_alloc(a, request_steps[s].shape,
                                   request_steps[s].file,
                                   request_steps[s].line);
            if (n < 128)
                mine[n++] = i;
        }
    if (tprng_below(&a->rng, 5) == 0) { /* a POST: AuditLog.record */
        uint32_t e[3];
        for (size_t s = 0; s < 3; s++)
            e[s] = app_alloc(a, leak_steps[s].shape, leak_steps[s].file,
                             leak_steps[s].line);
        a->slots[e[0]].ref[0] = e[1];
        a->slots[e[0]].ref[1] = e[2];
        a->slots[e[0]].nref = 2;
        a->audit[a->naudit++] = e[0]; /* ENTRIES << entry */
        a->slots[a->entries].size = 40 + 8 * a->naudit;
    }
    if (tprng_below(&a->rng, 40) == 0 && a->cache_keys < 400) {
        /* A translation looked up for the first time: cached for good. */
        a->cache_keys++;
        app_alloc(a, S_STRING, "i18n-1.14.1/lib/i18n/backend/simple.rb", 61);
    }
    for (size_t i = 0; i < n; i++) /* the request is over */
        a->slots[mine[i]].dead = 1;
}

static uint64_t slot_id(uint32_t i)
{
    return BASE + (uint64_t)i * SLOT;
}

/* The heap as objects, in address order (as a VM walks its pages), with
 * their references in *refs and *ids (free all three). */
static tobj *app_snapshot(const app *a, size_t *n, trefs **refs,
                          uint64_t **ids)
{
    tobj *v = malloc((a->top ? a->top : 1) * sizeof *v);
    trefs *r = malloc((a->top ? a->top : 1) * sizeof *r);
    uint64_t *id = malloc((2 * (size_t)a->top + a->naudit + 1) * sizeof *id);
    cr_assert(v != NULL && r != NULL && id != NULL);
    size_t k = 0, nid = 0;
    for (uint32_t i = 0; i < a->top; i++) {
        const slot *s = &a->slots[i];
        if (!s->used)
            continue;
        v[k] = (tobj){slot_id(i), shapes[s->shape].cls, s->size,
                      shapes[s->shape].type, s->file, s->line};
        r[k].ids = id + nid;
        if (i == a->entries)
            for (size_t e = 0; e < a->naudit; e++)
                id[nid++] = slot_id(a->audit[e]);
        for (int e = 0; e < s->nref; e++)
            id[nid++] = slot_id(s->ref[e]);
        r[k].n = (size_t)(id + nid - r[k].ids);
        k++;
    }
    *n = k;
    *refs = r;
    *ids = id;
    return v;
}

static void app_dump(const app *a, const char *path, tobj **objs, size_t *n)
{
    trefs *refs;
    uint64_t *ids;
    *objs = app_snapshot(a, n, &refs, &ids);
    tmeta m = {31337, "web-1", 1732190000, 1, 0};
    td_write_refs(path, *objs, *n, refs, &m, 0, 0);
    free(refs);
    free(ids);
}

/* Retained objects by (id, class), the simple way: ids are unique within
 * a snapshot (one object per slot), so a merge over the sorted ids will
 * do. Counts per class land in the expectation list. */
static int cmp_tobj(const void *x, const void *y)
{
    const tobj *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static const tobj *find(const tobj *v, size_t n, const tobj *o)
{
    const tobj *f = bsearch(o, v, n, sizeof *v, cmp_tobj);
    return f != NULL && strcmp(td_cls(f), td_cls(o)) == 0 ? f : NULL;
}

Test(story, three_dump_leak_hunt, .timeout = 60)
{
    const char *keep = getenv("DIFF_STORY_DIR");
    char p[3][512];
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "story%d.dump", i + 1);
        if (keep != NULL && *keep != '\0')
            snprintf(p[i], sizeof p[i], "%s/%s", keep, name);
        else
            td_path(p[i], sizeof p[i], name);
    }

    app a;
    memset(&a, 0, sizeof a);
    a.slots = calloc(MAX_SLOTS, sizeof *a.slots);
    a.free_list = malloc(MAX_SLOTS * sizeof *a.free_list);
    a.audit = malloc(MAX_SLOTS * sizeof *a.audit);
    cr_assert(a.slots != NULL && a.free_list != NULL && a.audit != NULL);
    tprng_seed(&a.rng, 2024);
    tobj *snap[3];
    size_t nsnap[3];
    app_boot(&a);
    for (int r = 0; r < 300; r++) /* warm-up */
        app_request(&a);
    app_dump(&a, p[0], &snap[0], &nsnap[0]);
    for (int r = 0; r < 1500; r++)
        app_request(&a);
    app_dump(&a, p[1], &snap[1], &nsnap[1]);
    for (int r = 0; r < 1500; r++)
        app_request(&a);
    app_dump(&a, p[2], &snap[2], &nsnap[2]);

    /* The expected retained set. */
    texps want = {0};
    for (size_t i = 0; i < nsnap[1]; i++) {
        const tobj *o = &snap[1][i];
        if (find(snap[0], nsnap[0], o) == NULL &&
            find(snap[2], nsnap[2], o) != NULL)
            texps_add(&want, DIFF_RETAINED, o->id, td_cls(o), o->size);
    }
    texps_sort(&want);

    diff_options opt = DIFF_OPTIONS_INIT;
    opt.list = 1;
    diff_result res;
    cr_assert_eq(td_run(&res, &opt, 3, p[0], p[1], p[2]), AN_OK);
    cr_assert_eq(res.warnings.n, 0);
    texps got = {0};
    td_got(&got, &res);
    td_assert_same(&want, &got);

    /* The story holds: the leak is the top retained site, and every
     * entry leaked between d1 and d2 is retained. */
    diff_result_free(&res);
    opt.list = 0;
    opt.by = DIFF_BY_SITE;
    cr_assert_eq(td_run(&res, &opt, 3, p[0], p[1], p[2]), AN_OK);
    cr_assert_gt(res.nrows, 0);
    cr_assert_str_eq(nameid_text(&res.names, res.rows[0].file, NULL),
                     "app/middleware/audit_log.rb");
    size_t entries = 0;
    for (size_t i = 0; i < want.n; i++)
        entries += strcmp(want.v[i].cls, "AuditLog::Entry") == 0;
    size_t leaked = 0;
    for (size_t i = 0; i < nsnap[1]; i++)
        if (snap[1][i].cls != NULL &&
            strcmp(snap[1][i].cls, "AuditLog::Entry") == 0 &&
            find(snap[0], nsnap[0], &snap[1][i]) == NULL)
            leaked++;
    cr_assert_eq(entries, leaked);
    cr_assert_gt(leaked, 200);
    diff_result_free(&res);

    texps_free(&want);
    texps_free(&got);
    for (int i = 0; i < 3; i++) {
        free(snap[i]);
        if (keep == NULL || *keep == '\0')
            unlink(p[i]);
    }
    free(a.slots);
    free(a.free_list);
    free(a.audit);
}
