/* diff.c -- the work of heapfmt-diff: read the dumps, match, sum up.
 *
 * Steps:
 *   1. open every dump (so a missing file fails before any long read) and
 *      read the footers that are there;
 *   2. read the held dump into a sorted objset, its kinds made shared;
 *   3. stream each other dump through it in sorted chunks (diff_match.h),
 *      marking the held objects seen; streamed objects without a partner
 *      are counted per local kind, then folded into shared kinds;
 *   4. walk the held objects: unmarked ones are freed (or new), and with
 *      three dumps, the ones seen in d3 but not in d1 are retained;
 *   5. fold kinds into rows, or sort the listed objects; add warnings. */
#include <stdint.h>
#include <string.h>

#include "diff.h"
#include "diff_input.h"
#include "diff_match.h"
#include "objset.h"

typedef struct run {
    const diff_options *opt;
    diff_result *res;
    const diff_mem *mem;
    input in[3];
    int n;
    objset held;
    objset chunk;     /* of the dump being streamed */
    objset deferred;  /* its objects whose class may still be renamed */
    size_t chunk_max;
    input *cur;       /* the dump being read */
    uint32_t mark;    /* set on held objects seen in cur */
    uint32_t avoid;   /* held objects to pair with last (see diff_match.h) */
    int change;       /* an unmatched object of cur: DIFF_NEW, DIFF_FREED,
                         or -1: not reported */
    diff_stat *lstat; /* per local kind of cur */
    size_t nlstat;
    diff_stat *kstat; /* per shared kind */
    size_t nkstat;
    unsigned char *pass; /* per class name id: passes the filter */
    size_t npass, cpass;
    /* An object's identity besides its id: its class and its call stack
     * (name ids), numbered by keys. */
    tuples keys;
    uint32_t *held_key; /* per shared kind of the held dump */
    size_t nheld_key;
    uint32_t *chunk_key; /* per local kind of cur, or DIFF_MATCH_DEFER */
    size_t cchunk_key;
    diff_life_entry *life; /* the last dump's lifespans, keyed as rows */
    size_t nlife, clife;
} run;

static int nomem(const run *r)
{
    return an_no_memory(r->opt->ctx, NULL);
}

/* Grows a zero-filled diff_stat array to n entries exactly: there is one
 * per kind, and kinds can run into the millions. */
static int grow_stats(const diff_mem *mem, diff_stat **v, size_t *len,
                      size_t n)
{
    if (n <= *len)
        return 0;
    if (n > SIZE_MAX / sizeof **v)
        return -1;
    diff_stat *p = diff_mem_realloc(mem, *v, n * sizeof **v);
    if (p == NULL)
        return -1;
    memset(p + *len, 0, (n - *len) * sizeof *p);
    *v = p;
    *len = n;
    return 0;
}

/* Extends r->pass (class name id -> passes the filter) to every name
 * known so far. Returns 0 or -1 (no memory). */
static int update_pass(run *r)
{
    cli_strmap *t = &r->res->names;
    size_t n = cli_strmap_count(t);
    if (n <= r->npass)
        return 0;
    if (diff_mem_reserve(r->mem, (void **)&r->pass, &r->cpass, n, 1) != 0)
        return -1;
    for (size_t id = r->npass; id < n; id++) {
        size_t len;
        const char *s = nameid_text(t, (uint32_t)id, &len);
        r->pass[id] = (unsigned char)diff_filter_pass(r->opt->filter, s, len);
    }
    r->npass = n;
    return 0;
}

/* ---- matching callbacks ---- */

/* The number of (class, stack): two objects of one id are the same when
 * it is the same. A block of a native heap keeps its stack for its life:
 * an address taken again by a block of another stack is another object.
 * Returns 0 or -1 (no memory). */
static int identity(run *r, uint32_t cls, uint32_t stack, uint32_t *key)
{
    tuple k = {.klass = cls, .stack = stack};
    return tuples_intern(&r->keys, &k, key) == 0 ? 0 : -1;
}

static uint32_t held_class(void *ctx, uint32_t kind)
{
    run *r = ctx;
    return r->held_key[kind];
}

static uint32_t chunk_class(void *ctx, uint32_t lk)
{
    run *r = ctx;
    return r->chunk_key[lk];
}

/* Brings r->chunk_key up to date for every local kind of the dump being
 * streamed, with class names as they are known now (final: at its end).
 * Returns 0 or -1 (no memory). */
static int update_chunk_keys(run *r, int final)
{
    input *in = r->cur;
    if (input_classes(in, &r->res->names, final) != 0 ||
        input_stacks(in, &r->res->names) != 0)
        return -1;
    size_t n = tuples_count(&in->lkinds);
    if (diff_mem_reserve(r->mem, (void **)&r->chunk_key, &r->cchunk_key, n,
                         sizeof *r->chunk_key) != 0)
        return -1;
    for (size_t lk = 0; lk < n; lk++) {
        uint32_t cls = input_class_of(in, (uint32_t)lk);
        r->chunk_key[lk] = DIFF_MATCH_DEFER;
        if (cls != DIFF_MATCH_DEFER &&
            identity(r, cls, in->lkind_stack[lk], &r->chunk_key[lk]) != 0)
            return -1;
    }
    return 0;
}

static int unmatched(void *ctx, const objset *chunk, const dobj *o,
                     uint32_t cls)
{
    run *r = ctx;
    if (r->change < 0)
        return 0;
    uint32_t lk = objset_kind(chunk, o);
    cls = input_class_of(r->cur, lk); /* not the identity: the class */
    uint64_t size = objset_size(chunk, o);
    diff_stat *s = &r->lstat[lk];
    stat_add(&s->count[r->change], 1);
    stat_add(&s->bytes[r->change], size);
    if (r->opt->list) {
        if (update_pass(r) != 0)
            return nomem(r);
        if (r->pass[cls]) {
            diff_item it = {objset_id(chunk, o), size, lk, (uint8_t)r->change,
                            1};
            if (olist_add(&r->res->items, &it) != 0)
                return nomem(r);
        }
    }
    return 0;
}

static int defer(void *ctx, const objset *chunk, const dobj *o)
{
    run *r = ctx;
    if (objset_push(&r->deferred, objset_id(chunk, o), objset_kind(chunk, o),
                    objset_size(chunk, o)) != 0)
        return nomem(r);
    return 0;
}

static const diff_match_ops ops = {held_class, chunk_class, unmatched, defer};

/* Matches the objects in set against the held ones, then empties set. */
static int flush(run *r, objset *set, int final)
{
    if (update_chunk_keys(r, final) != 0)
        return nomem(r);
    if (r->change >= 0 && grow_stats(r->mem, &r->lstat, &r->nlstat,
                                     tuples_count(&r->cur->lkinds)) != 0)
        return nomem(r);
    int rc = diff_match_chunk(&r->held, set, r->mark, r->avoid, &ops, r);
    objset_clear(set);
    return rc;
}

/* ---- reading ---- */

static int held_sink(void *ctx, uint64_t id, uint32_t lk, uint64_t size)
{
    run *r = ctx;
    return objset_push(&r->held, id, lk, size) == 0 ? 0 : nomem(r);
}

static int stream_sink(void *ctx, uint64_t id, uint32_t lk, uint64_t size)
{
    run *r = ctx;
    if (objset_push(&r->chunk, id, lk, size) != 0)
        return nomem(r);
    return r->chunk.n >= r->chunk_max ? flush(r, &r->chunk, 0) : 0;
}

/* Maps the local kinds of in to shared ones: *map (free with diff_mem_free). */
static int resolve(run *r, input *in, uint32_t **map)
{
    int rc = input_resolve(in, &r->res->names, &r->res->kinds, map);
    if (rc == -2)
        return an_fail(r->opt->ctx, AN_ERROR, in->name,
                       "too many distinct classes, types and sites");
    if (rc != 0)
        return nomem(r);
    return AN_OK;
}

/* Before a dump is closed: its lifespans, when it is the last one. */
static int keep_lifespans(run *r, input *in)
{
    if (!(in->want & INPUT_LIFE))
        return AN_OK;
    return input_lifespans(in, &r->res->names, r->opt->by, &r->life,
                           &r->nlife, &r->clife) == 0
               ? AN_OK
               : nomem(r);
}

static int read_held(run *r, input *in)
{
    uint64_t expect = input_footer_objects(in);
    if (expect > 0 && expect <= SIZE_MAX / sizeof(dobj))
        (void)objset_reserve(&r->held, (size_t)expect); /* else: grow */
    r->cur = in;
    int rc = input_scan(in, held_sink, r);
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        return rc;
    uint32_t *map;
    int rrc = resolve(r, in, &map);
    if (rrc != AN_OK)
        return rrc;
    for (size_t i = 0; i < r->held.n; i++) {
        dobj *o = &r->held.v[i];
        if (objset_set_kind(&r->held, o, map[objset_kind(&r->held, o)]) != 0) {
            diff_mem_free(r->mem, map);
            return nomem(r);
        }
    }
    diff_mem_free(r->mem, map);
    /* The identities of the held objects' kinds, all known now. */
    r->nheld_key = tuples_count(&r->res->kinds);
    r->held_key = diff_mem_alloc(
        r->mem, (r->nheld_key > 0 ? r->nheld_key : 1) * sizeof *r->held_key);
    if (r->held_key == NULL)
        return nomem(r);
    for (size_t k = 0; k < r->nheld_key; k++) {
        const tuple *kind = tuples_get(&r->res->kinds, (uint32_t)k);
        if (identity(r, kind->klass, kind->stack, &r->held_key[k]) != 0)
            return nomem(r);
    }
    int lrc = keep_lifespans(r, in);
    if (lrc != AN_OK)
        return lrc;
    input_close(in);
    objset_sort(&r->held);
    return rc;
}

/* Streams in through the held objects, setting mark on those seen. */
static int read_streamed(run *r, input *in, uint32_t mark, uint32_t avoid,
                         int change)
{
    r->cur = in;
    r->mark = mark;
    r->avoid = avoid;
    r->change = change;
    int rc = input_scan(in, stream_sink, r);
    if (rc != AN_OK && rc != AN_INCOMPLETE)
        return rc;
    /* The end of the dump: every class has its final name now. */
    int frc = flush(r, &r->chunk, 1);
    if (frc == 0 && r->deferred.n > 0)
        frc = flush(r, &r->deferred, 1);
    if (frc != 0)
        return frc;
    uint32_t *map;
    int rrc = resolve(r, in, &map);
    if (rrc != AN_OK)
        return rrc;
    if (r->nlstat > 0 && grow_stats(r->mem, &r->kstat, &r->nkstat,
                                    tuples_count(&r->res->kinds)) != 0) {
        diff_mem_free(r->mem, map);
        return nomem(r);
    }
    for (size_t lk = 0; lk < tuples_count(&in->lkinds) && lk < r->nlstat;
         lk++) {
        diff_stat *from = &r->lstat[lk], *to = &r->kstat[map[lk]];
        for (int i = 0; i < 2; i++) {
            stat_add(&to->count[i], from->count[i]);
            stat_add(&to->bytes[i], from->bytes[i]);
        }
    }
    olist *items = &r->res->items;
    for (size_t i = 0; i < items->n; i++)
        if (items->v[i].local) {
            items->v[i].kind = map[items->v[i].kind];
            items->v[i].local = 0;
        }
    diff_mem_free(r->mem, map);
    diff_mem_free(r->mem, r->lstat);
    r->lstat = NULL;
    r->nlstat = 0;
    int lrc = keep_lifespans(r, in);
    if (lrc != AN_OK)
        return lrc;
    input_close(in);
    return rc;
}

/* Counts (and lists) as change the held objects that carry every mark in
 * need and none in refuse. */
static int walk_held(run *r, uint32_t need, uint32_t refuse, int change)
{
    /* Every kind is known by now: make room for the counts. */
    tuples_drop_index(&r->res->kinds);
    if (grow_stats(r->mem, &r->kstat, &r->nkstat,
                   tuples_count(&r->res->kinds)) != 0)
        return nomem(r);
    for (size_t i = 0; i < r->held.n; i++) {
        const dobj *o = &r->held.v[i];
        uint32_t marks = objset_marks(o);
        if ((marks & need) != need || (marks & refuse) != 0)
            continue;
        uint32_t kind = objset_kind(&r->held, o);
        uint64_t size = objset_size(&r->held, o);
        diff_stat *s = &r->kstat[kind];
        stat_add(&s->count[change], 1);
        stat_add(&s->bytes[change], size);
        if (r->opt->list) {
            uint32_t cls = tuples_get(&r->res->kinds, kind)->klass;
            if (update_pass(r) != 0)
                return nomem(r);
            if (r->pass[cls]) {
                diff_item it = {objset_id(&r->held, o), size, kind,
                                (uint8_t)change, 0};
                if (olist_add(&r->res->items, &it) != 0)
                    return nomem(r);
            }
        }
    }
    return AN_OK;
}

/* ---- warnings ---- */

static int add_warnings(run *r)
{
    diff_result *res = r->res;
    notes *w = &res->warnings;
    for (int i = 0; i < r->n; i++)
        if (ident_check_one(&r->in[i].id, r->in[i].name, w) != 0)
            return -1;
    for (int i = 0; i + 1 < r->n; i++)
        if (ident_check_pair(&r->in[i].id, r->in[i].name, &r->in[i + 1].id,
                             r->in[i + 1].name, w) != 0)
            return -1;
    /* What a lost block does to the results, dump by dump. */
    static const char *const two[2] = {
        "objects in its lost blocks are reported as new",
        "objects in its lost blocks are reported as freed",
    };
    static const char *const three[3] = {
        "objects in its lost blocks may be reported as retained",
        "retained objects in its lost blocks are missing",
        "objects in its lost blocks are not counted as retained",
    };
    /* An object is matched by its stack too: a stack lost with its block
     * is another stack. */
    for (int i = 0; i < r->n; i++)
        if (r->in[i].lost_stacks &&
            notes_add(w, r->in[i].name, "%s",
                      "call stacks were lost with its damaged blocks: "
                      "objects of those stacks do not match the same "
                      "objects in the other dumps") != 0)
            return -1;
    for (int i = 0; i < r->n; i++)
        if (r->in[i].status == AN_INCOMPLETE &&
            notes_add(w, r->in[i].name, "%s",
                      r->n == 2 ? two[i] : three[i]) != 0)
            return -1;
    return 0;
}

/* --by=site, stack or frame: dumps with objects but none of what the
 * rows are made of have nothing to show; says why. Returns AN_OK or
 * AN_ERROR. */
static int check_keys(const run *r)
{
    uint64_t objects = 0, sites = 0, stacks = 0, codes = 0;
    for (int i = 0; i < r->n; i++) {
        objects += r->in[i].objects;
        sites += r->in[i].with_site;
        stacks += r->in[i].with_stack;
        codes += r->in[i].with_code;
    }
    unsigned by = r->opt->by;
    const char *what, *word, *why = "their writer did not record them";
    if (objects == 0)
        return AN_OK;
    if ((by & DIFF_BY_SITE) && sites == 0) {
        what = "allocation sites";
        word = "site";
    } else if ((by & (DIFF_BY_STACK | DIFF_BY_FRAME)) && stacks == 0) {
        what = "call stacks";
        word = (by & DIFF_BY_STACK) ? "stack" : "frame";
    } else if ((by & DIFF_BY_IMEMO) && codes == 0) {
        what = "T_IMEMO objects";
        word = "imemo";
        why = "they are not Ruby heaps";
    } else if ((by & DIFF_BY_ISEQ) && codes == 0) {
        what = "instruction sequences or Procs with a code location";
        word = "iseq";
        why = "HeapFmt.dump records them in a Ruby heap";
    } else {
        return AN_OK;
    }
    return an_fail(r->opt->ctx, AN_ERROR, NULL,
                   "no %s in these dumps (%s), so --by=%s has nothing to "
                   "show",
                   what, why, word);
}

/* ---- the diff ---- */

/* Which of two dumps to hold: the one without a footer (its names cannot
 * be known before the end, and standard input can only be read once);
 * else the one with fewer objects, so that memory follows the smaller. */
static int pick_held(const input *in)
{
    int f0 = in[0].footer != NULL, f1 = in[1].footer != NULL;
    if (f0 != f1)
        return f0 ? 1 : 0;
    if (f0 && input_footer_objects(&in[1]) < input_footer_objects(&in[0]))
        return 1;
    return 0;
}

static int compute(run *r, const char *const *paths)
{
    const diff_options *opt = r->opt;
    unsigned want = INPUT_STACK;
    if (opt->list)
        want |= INPUT_TYPE | INPUT_SITE;
    if (opt->by & DIFF_BY_SITE)
        want |= INPUT_SITE;
    if (!opt->list && (opt->by & DIFF_BY_FRAME))
        want |= INPUT_FRAME;
    if (!opt->list && (opt->by & DIFF_BY_IMEMO))
        want |= INPUT_IMEMO;
    if (!opt->list && (opt->by & DIFF_BY_ISEQ))
        want |= INPUT_ISEQ;
    /* Lifespans (format 1.2) are the last dump's: per site, stack or frame */
    int life = !opt->list && (opt->by == DIFF_BY_SITE ||
                              opt->by == DIFF_BY_STACK ||
                              opt->by == DIFF_BY_FRAME);
    int rc = AN_OK;
    for (int i = 0; i < r->n; i++) {
        /* With three dumps, only d2's objects are ever reported. */
        int report = r->n == 2 || i == 1;
        unsigned w = report ? want : INPUT_STACK;
        if (life && i == r->n - 1)
            w |= INPUT_LIFE;
        int orc = input_open(&r->in[i], paths[i], r->mem, w, opt->ctx);
        r->res->dumps[i] = r->in[i].name;
        r->res->paths[i] = paths[i];
        if (orc == AN_INCOMPLETE)
            rc = orc; /* read as an empty, incomplete dump */
        else if (orc != AN_OK)
            return orc;
    }
    int held = r->n == 3 ? 1 : pick_held(r->in);
    int irc = read_held(r, &r->in[held]);
    if (irc != AN_OK && irc != AN_INCOMPLETE)
        return irc;
    if (irc != AN_OK)
        rc = irc;
    if (r->n == 2) {
        /* Unmatched objects of the held dump are freed when it is the
         * older one, new when it is the newer. */
        int other = 1 - held;
        irc = read_streamed(r, &r->in[other], OBJSET_MARK1, 0,
                            other == 1 ? DIFF_NEW : DIFF_FREED);
        if (irc != AN_OK && irc != AN_INCOMPLETE)
            return irc;
        if (irc != AN_OK)
            rc = irc;
        irc = walk_held(r, 0, OBJSET_MARK1, held == 0 ? DIFF_FREED : DIFF_NEW);
    } else {
        for (int i = 0; i < 3; i += 2) {
            irc = read_streamed(r, &r->in[i],
                                i == 0 ? OBJSET_MARK1 : OBJSET_MARK2,
                                i == 0 ? 0 : OBJSET_MARK1, -1);
            if (irc != AN_OK && irc != AN_INCOMPLETE)
                return irc;
            if (irc != AN_OK)
                rc = irc;
        }
        /* Retained: seen in d3 (MARK2), not in d1 (MARK1). */
        irc = walk_held(r, OBJSET_MARK2, OBJSET_MARK1, DIFF_RETAINED);
    }
    if (irc != AN_OK)
        return irc;
    objset_free(&r->held);
    objset_free(&r->chunk);
    objset_free(&r->deferred);
    diff_result *res = r->res;
    if (!opt->list && !opt->empty_ok && check_keys(r) != AN_OK)
        return AN_ERROR;
    if (opt->list) {
        olist_finish(&res->items);
    } else {
        if (update_pass(r) != 0 ||
            summary_rows(&res->kinds, r->kstat,
                         diff_filter_active(opt->filter) ? r->pass : NULL,
                         opt->by, &res->names, r->life, r->nlife, opt->sort,
                         r->mem, &res->rows, &res->nrows, &res->total) != 0)
            return nomem(r);
        for (size_t i = 0; i < res->nrows; i++)
            res->has_life |= res->rows[i].has_life;
    }
    if (add_warnings(r) != 0)
        return nomem(r);
    for (int i = 0; i < r->n; i++)
        res->dump_complete[i] = r->in[i].status == AN_OK;
    res->complete = rc == AN_OK;
    return rc;
}

int diff_compute(const char *const *paths, int n, const diff_options *opt,
                 diff_result *res)
{
    static const diff_options defaults = DIFF_OPTIONS_INIT;
    static const diff_mem plain = {NULL, NULL, NULL}; /* realloc and free */
    if (opt == NULL)
        opt = &defaults;
    memset(res, 0, sizeof *res);
    res->mem = opt->mem != NULL ? opt->mem : &plain;
    res->ndumps = n;
    res->by = opt->by;
    res->list = opt->list;
    res->top = opt->top;
    tuples_init(&res->kinds, res->mem, OBJSET_MAX_KINDS);
    olist_init(&res->items, res->mem, opt->list ? opt->top : 0);
    notes_init(&res->warnings, res->mem);
    if (n < 2 || n > 3)
        return an_fail(opt->ctx, AN_ERROR, NULL,
                       "compare two or three dumps, not %d", n);
    if (nameid_init(&res->names) != 0)
        return an_no_memory(opt->ctx, NULL);

    run r;
    memset(&r, 0, sizeof r);
    r.opt = opt;
    r.res = res;
    r.mem = res->mem;
    r.n = n;
    r.chunk_max = opt->chunk > 0 ? opt->chunk : DIFF_DEFAULT_CHUNK;
    objset_init(&r.held, r.mem);
    objset_init(&r.chunk, r.mem);
    objset_init(&r.deferred, r.mem);
    tuples_init(&r.keys, r.mem, UINT32_MAX - 1); /* never DIFF_MATCH_DEFER */
    for (int i = 0; i < n; i++) {
        r.in[i].d.fd = -1; /* closed, for input_close */
        r.in[i].mem = r.mem;
    }

    int rc = compute(&r, paths);

    for (int i = 0; i < n; i++)
        input_close(&r.in[i]);
    objset_free(&r.held);
    objset_free(&r.chunk);
    objset_free(&r.deferred);
    diff_mem_free(r.mem, r.lstat);
    diff_mem_free(r.mem, r.kstat);
    diff_mem_free(r.mem, r.pass);
    tuples_free(&r.keys);
    diff_mem_free(r.mem, r.held_key);
    diff_mem_free(r.mem, r.chunk_key);
    diff_mem_free(r.mem, r.life);
    if (rc != AN_OK && rc != AN_INCOMPLETE) {
        diff_result_free(res);
        res->ndumps = n;
    }
    return rc;
}

void diff_result_free(diff_result *res)
{
    cli_strmap_free(&res->names);
    tuples_free(&res->kinds);
    diff_mem_free(res->mem, res->rows);
    res->rows = NULL;
    res->nrows = 0;
    olist_free(&res->items);
    notes_free(&res->warnings);
}

const char *diff_kind_class(const diff_result *res, uint32_t kind,
                            size_t *len)
{
    return nameid_text(&res->names, tuples_get(&res->kinds, kind)->klass, len);
}
