/* histo_jobs.c -- histo --jobs: one dump read by several threads, each
 * decoding a contiguous range of its blocks.
 *
 * The footer's block index gives every data block's offset. The blocks are
 * cut into N ranges of about equal file bytes; each thread opens the file
 * again and reads its range with its own reader
 * (heapfmt_reader_seek_range), which ends at the first block of the next
 * range, the last one at the footer. A thread knows only the strings and
 * classes defined in its own range: objects refer to the others through
 * "undefined" entries that keep the exact class index or string id. So
 * counts are kept by the reader's dense slot, as in the one-thread scan,
 * and turned into names only after every thread has finished:
 *   class  by class index, named from the footer summary (the final names,
 *          which the one-thread scan also shows);
 *   type   by string id, named from the thread that met its STRING record;
 *   site   by (file string id, line), the same way;
 *   stack, frame  by the reader's stack (its id), named from a copy of the
 *          stack completed with the FRAME, STACK and STRING records every
 *          range met (a range keeps the FRAME and STACK records it reads,
 *          which no reader call lists afterwards).
 *
 * The result is checked before it is used, with every check one reader
 * makes: each thread must have ended cleanly at its boundary with exactly
 * the objects and records the block index gives its range; END must end
 * the last range and, with the footer's totals, agree with what the
 * ranges hold together (objects, bytes, records, blocks, decoded bytes,
 * codecs); strings, frames and stacks must be defined once; every id a
 * range used undefined must be defined by an earlier range
 * (histo_undef.h); by class, every class must be in the summary with its
 * counts; the ranges' tables together must fit one reader's limit.
 * Anything else (a damaged block, a lie in END or the footer, a file
 * changed while it is read) makes histo read the dump again with one
 * thread, which reports problems the usual way. -j changes how fast histo
 * is, never what it prints (tests/cli/histo_jobs.sh checks this over
 * every hostile dump, fixture and fuzz corpus file). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_file.h"
#include "cli_search.h"
#include "cli_names.h"
#include "cli_stack.h"
#include "histo.h"
#include "histo_undef.h"

enum part_status { PART_OK = 0, PART_FAILED, PART_NOMEM };

/* The string, class and stack tables one reader may fill (heapfmt.h's
 * default), shared by the ranges' readers. */
#define HISTO_TABLE_LIMIT (1ull << 30)

/* FRAME or STACK table entries of a reader (--by=stack, frame), as
 * pointers; sorted by id once every range is read. */
typedef struct defs {
    const void **v;
    size_t n, cap;
} defs;

static int defs_push(defs *d, const void *x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        const void **v = realloc(d->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

/* One thread's range and what it counted. */
typedef struct part {
    const char *path;
    uint64_t first;        /* offset of the range's first block */
    uint64_t stop;         /* offset of the next range's, or the footer's */
    uint64_t table_limit;  /* this range's share of the reader's tables */
    uint64_t want_objects; /* objects of the range, from the block index */
    uint64_t want_records; /* and its records: a block the index leaves
                              out is found even when it holds no object */
    heapfmt_reader *r;
    histo_acc acc;         /* what the range holds */
    defs frames, stacks;   /* the range's FRAME and STACK records */
    uint64_t objects, bytes;
    uint64_t records;      /* delivered, END included */
    int saw_end;
    heapfmt_totals end;    /* END's objects, bytes and records */
    heapfmt_progress progress; /* at the end of the range */
    histo_undef undef;     /* ids used before their definition */
    enum part_status status;
} part;

static void *run_part(void *arg)
{
    part *p = arg;
    heapfmt_record rec;
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    ro.max_table_memory = p->table_limit;
    int rc = heapfmt_reader_open_path(&p->r, &ro, p->path);
    if (rc == HEAPFMT_OK)
        rc = heapfmt_reader_seek_range(p->r, p->first, p->stop);
    if (rc != HEAPFMT_OK) {
        p->status = PART_FAILED;
        return NULL;
    }
    /* The loop counts in locals: the parts are neighbours in one array,
     * and a count stored per record into one part while the other thread
     * reads its own part's fields made the cache line they share bounce
     * between the cores (-j2 cost 11-36% more CPU than -j1). */
    uint64_t records = 0, objects = 0, bytes = 0;
    while ((rc = heapfmt_reader_next(p->r, &rec)) == HEAPFMT_OK) {
        records++;
        histo_undef_record(&p->undef, &rec);
        if (rec.tag == HEAPFMT_TAG_FRAME || rec.tag == HEAPFMT_TAG_STACK) {
            defs *d = rec.tag == HEAPFMT_TAG_FRAME ? &p->frames : &p->stacks;
            if (defs_push(d, rec.tag == HEAPFMT_TAG_FRAME
                                 ? (const void *)rec.u.frame
                                 : (const void *)rec.u.stack) != 0) {
                p->status = PART_NOMEM;
                return NULL;
            }
            continue;
        }
        if (rec.tag == HEAPFMT_TAG_END) {
            p->saw_end = 1;
            p->end = *rec.u.end;
            continue;
        }
        if (rec.tag == HEAPFMT_TAG_LIFESPAN &&
            histo_acc_add_lifespan(&p->acc, rec.u.lifespan) != 0) {
            p->status = PART_NOMEM;
            return NULL;
        }
        if (rec.tag != HEAPFMT_TAG_OBJECT)
            continue;
        if (histo_acc_add(&p->acc, rec.u.object) != 0) {
            p->status = PART_NOMEM;
            return NULL;
        }
        objects++;
        bytes += rec.u.object->size;
    }
    p->records = records;
    p->objects = objects;
    p->bytes = bytes;
    heapfmt_reader_progress(p->r, &p->progress);
    /* A range ends exactly at the next range's first block (the last one
     * at the footer). Any doubt (a block outside the index, a count that
     * differs) goes to the one-thread scan, which checks the footer and
     * says what is wrong: both paths give the same output and exit
     * status. */
    if (rc != HEAPFMT_DONE || p->objects != p->want_objects ||
        p->records + p->progress.skipped != p->want_records)
        p->status = PART_FAILED;
    return NULL;
}

/* What one reader checks at the END record and the footer (reader.c,
 * decode_end and read_footer_block), over the ranges together: each
 * range's reader checked only its own blocks. 1 if the dump passes. */
static int whole_dump_agrees(const part *parts, size_t nparts,
                             const heapfmt_footer *f)
{
    uint64_t objects = 0, bytes = 0, records = 0, blocks = 0, raw = 0,
             codecs = 0;
    for (size_t k = 0; k < nparts; k++) {
        const part *p = &parts[k];
        /* END only as the last record of the last range (a reader
         * refuses records and blocks after it within a range) */
        if (p->saw_end != (k + 1 == nparts))
            return 0;
        objects += p->objects;
        bytes += p->bytes;
        records += p->records - (uint64_t)p->saw_end + p->progress.skipped;
        blocks += p->progress.blocks;
        raw += p->progress.raw_bytes;
        codecs |= p->progress.codecs;
    }
    const heapfmt_totals *end = &parts[nparts - 1].end, *t = &f->totals;
    return end->objects == objects && end->bytes == bytes &&
           end->records == records && t->objects == end->objects &&
           t->bytes == end->bytes && t->records == end->records &&
           t->blocks == blocks && f->nblocks == blocks &&
           t->raw_bytes == raw && (t->codecs == 0 || t->codecs == codecs);
}

/* ---- names ---- */

static int cmp_summary(const void *a, const void *b)
{
    uint32_t x = (*(const heapfmt_class_summary *const *)a)->index;
    uint32_t y = (*(const heapfmt_class_summary *const *)b)->index;
    return x < y ? -1 : x > y;
}

static int cmp_string(const void *a, const void *b)
{
    uint32_t x = (*(const heapfmt_rstring *const *)a)->id;
    uint32_t y = (*(const heapfmt_rstring *const *)b)->id;
    return x < y ? -1 : x > y;
}

static int cmp_frame(const void *a, const void *b)
{
    uint32_t x = ((const heapfmt_rframe *)*(const void *const *)a)->id;
    uint32_t y = ((const heapfmt_rframe *)*(const void *const *)b)->id;
    return x < y ? -1 : x > y;
}

static int cmp_stack(const void *a, const void *b)
{
    uint32_t x = ((const heapfmt_rstack *)*(const void *const *)a)->id;
    uint32_t y = ((const heapfmt_rstack *)*(const void *const *)b)->id;
    return x < y ? -1 : x > y;
}

/* What the merge needs besides the parts. */
typedef struct names {
    const heapfmt_class_summary **classes; /* sorted by index */
    size_t nclasses;
    const heapfmt_rstring **strings; /* defined strings, sorted by id */
    size_t nstrings;
    defs frames, stacks; /* --by=stack, frame: every range's, by id */
    /* The stack being named, completed (resolve_stack). */
    heapfmt_rstack stack;
    heapfmt_rframe *frame_copies;
    const heapfmt_rframe **frame_ptrs;
    size_t cap_copies;
} names;

static const heapfmt_class_summary *find_class(const names *nm,
                                               uint32_t index)
{
    size_t lo;
    CLI_LOWER_BOUND(lo, nm->nclasses, i, nm->classes[i]->index < index);
    return lo < nm->nclasses && nm->classes[lo]->index == index
               ? nm->classes[lo]
               : NULL;
}

/* The defined string with the id of s (s itself when it is defined), or
 * s, the placeholder, when no thread met its STRING record. */
static const heapfmt_rstring *resolve_string(const names *nm,
                                             const heapfmt_rstring *s)
{
    if (!s->undefined)
        return s;
    size_t lo;
    CLI_LOWER_BOUND(lo, nm->nstrings, i, nm->strings[i]->id < s->id);
    return lo < nm->nstrings && nm->strings[lo]->id == s->id ? nm->strings[lo]
                                                             : s;
}

/* The defined frame with the id of f, or f when no range defined it. */
static const heapfmt_rframe *resolve_frame(const names *nm,
                                           const heapfmt_rframe *f)
{
    if (!f->undefined)
        return f;
    size_t lo;
    CLI_LOWER_BOUND(lo, nm->frames.n, i,
                    ((const heapfmt_rframe *)nm->frames.v[i])->id < f->id);
    return lo < nm->frames.n &&
                   ((const heapfmt_rframe *)nm->frames.v[lo])->id == f->id
               ? nm->frames.v[lo]
               : f;
}

/* histo_stack_resolver: the stack with the id of s as every range
 * together defined it, in nm->stack. */
static const heapfmt_rstack *resolve_stack(void *ctx, const heapfmt_rstack *s)
{
    names *nm = ctx;
    if (s->undefined) {
        size_t lo;
        CLI_LOWER_BOUND(lo, nm->stacks.n, i,
                        ((const heapfmt_rstack *)nm->stacks.v[i])->id < s->id);
        if (lo < nm->stacks.n &&
            ((const heapfmt_rstack *)nm->stacks.v[lo])->id == s->id)
            s = nm->stacks.v[lo];
    }
    nm->stack = *s;
    if (s->undefined)
        return &nm->stack;
    if (s->nframes > nm->cap_copies) {
        heapfmt_rframe *c = realloc(nm->frame_copies, s->nframes * sizeof *c);
        if (c != NULL)
            nm->frame_copies = c;
        const heapfmt_rframe **p =
            realloc(nm->frame_ptrs, s->nframes * sizeof *p);
        if (p != NULL)
            nm->frame_ptrs = p;
        if (c == NULL || p == NULL)
            return NULL;
        nm->cap_copies = s->nframes;
    }
    for (size_t i = 0; i < s->nframes; i++) {
        heapfmt_rframe *f = &nm->frame_copies[i];
        *f = *resolve_frame(nm, s->frames[i]);
        f->function = resolve_string(nm, f->function);
        f->library = resolve_string(nm, f->library);
        f->file = resolve_string(nm, f->file);
        nm->frame_ptrs[i] = f;
    }
    nm->stack.frames = nm->frame_ptrs;
    return &nm->stack;
}

/* Gathers the FRAME (or STACK) records of every range into all, sorted by
 * id. Returns PART_OK, PART_FAILED (an id defined by two ranges: one
 * reader would call the dump corrupt) or PART_NOMEM. */
static enum part_status gather(defs *all, const part *parts, size_t nparts,
                               int stacks)
{
    for (size_t k = 0; k < nparts; k++) {
        const defs *d = stacks ? &parts[k].stacks : &parts[k].frames;
        for (size_t i = 0; i < d->n; i++)
            if (defs_push(all, d->v[i]) != 0)
                return PART_NOMEM;
    }
    int (*cmp)(const void *, const void *) = stacks ? cmp_stack : cmp_frame;
    if (all->n > 1)
        qsort(all->v, all->n, sizeof *all->v, cmp);
    for (size_t i = 1; i < all->n; i++)
        if (cmp(&all->v[i - 1], &all->v[i]) == 0)
            return PART_FAILED;
    return PART_OK;
}

/* The defined strings of every range, sorted by id, in nm. Returns
 * PART_OK, PART_FAILED (a string defined in two ranges: one reader would
 * call the dump corrupt) or PART_NOMEM. */
static enum part_status gather_strings(names *nm, const part *parts,
                                       size_t nparts)
{
    size_t total = 0;
    for (size_t k = 0; k < nparts; k++)
        total += heapfmt_reader_string_count(parts[k].r);
    nm->strings = malloc((total ? total : 1) * sizeof *nm->strings);
    if (nm->strings == NULL)
        return PART_NOMEM;
    for (size_t k = 0; k < nparts; k++) {
        size_t n = heapfmt_reader_string_count(parts[k].r);
        for (size_t slot = 1; slot < n; slot++) {
            const heapfmt_rstring *s = heapfmt_reader_string(parts[k].r, slot);
            if (!s->undefined)
                nm->strings[nm->nstrings++] = s;
        }
    }
    qsort(nm->strings, nm->nstrings, sizeof *nm->strings, cmp_string);
    for (size_t i = 1; i < nm->nstrings; i++)
        if (nm->strings[i]->id == nm->strings[i - 1]->id)
            return PART_FAILED;
    return PART_OK;
}

/* By class: every class counted is in the footer summary, and the counts
 * are the summary's (or the one-thread scan has to say they are not). */
static enum part_status check_classes(names *nm, const heapfmt_footer *f,
                                      const part *parts, size_t nparts)
{
    nm->classes = malloc((f->nclasses ? f->nclasses : 1) *
                         sizeof *nm->classes);
    if (nm->classes == NULL)
        return PART_NOMEM;
    for (size_t i = 0; i < f->nclasses; i++)
        nm->classes[i] = &f->classes[i];
    nm->nclasses = f->nclasses;
    qsort(nm->classes, nm->nclasses, sizeof *nm->classes, cmp_summary);
    for (size_t i = 1; i < nm->nclasses; i++)
        if (nm->classes[i]->index == nm->classes[i - 1]->index)
            return PART_FAILED;
    size_t total = 0;
    for (size_t k = 0; k < nparts; k++) {
        const part *p = &parts[k];
        size_t n = heapfmt_reader_class_count(p->r);
        for (size_t slot = 0; slot < p->acc.cap && slot < n; slot++) {
            if (p->acc.v[slot].count > 0 &&
                find_class(nm, heapfmt_reader_class(p->r, slot)->index) ==
                    NULL)
                return PART_FAILED;
            total++;
        }
    }
    histo_class_total *v = malloc((total ? total : 1) * sizeof *v);
    if (v == NULL)
        return PART_NOMEM;
    size_t nv = 0;
    for (size_t k = 0; k < nparts; k++) {
        const part *p = &parts[k];
        size_t n = heapfmt_reader_class_count(p->r);
        for (size_t slot = 0; slot < p->acc.cap && slot < n; slot++)
            v[nv++] = (histo_class_total){
                heapfmt_reader_class(p->r, slot)->index, p->acc.v[slot].count,
                p->acc.v[slot].bytes};
    }
    char why[256];
    int rc = histo_summary_check(f, v, nv, why, sizeof why);
    free(v);
    return rc < 0 ? PART_NOMEM : rc > 0 ? PART_FAILED : PART_OK;
}

/* Fills nm. Returns PART_OK, PART_FAILED (a string, frame or stack
 * defined in two ranges; by class, a class missing from the summary, a
 * summary index twice or counts that differ: the dump is not what the
 * one-thread scan would accept silently) or PART_NOMEM. */
static enum part_status make_names(names *nm, const heapfmt_footer *f,
                                   const part *parts, size_t nparts,
                                   enum histo_by by)
{
    memset(nm, 0, sizeof *nm);
    enum part_status st = gather_strings(nm, parts, nparts);
    if (st == PART_OK)
        st = gather(&nm->frames, parts, nparts, 0);
    if (st == PART_OK)
        st = gather(&nm->stacks, parts, nparts, 1);
    if (st == PART_OK && by == HISTO_BY_CLASS)
        st = check_classes(nm, f, parts, nparts);
    return st;
}

static void free_names(names *nm)
{
    free(nm->classes);
    free(nm->strings);
    free(nm->frames.v);
    free(nm->stacks.v);
    free(nm->frame_copies);
    free(nm->frame_ptrs);
}

/* Adds the counts of every part to column d. Returns 0 or -1 (out of
 * memory). */
static int merge(histo_table *t, size_t d, names *nm, const part *parts,
                 size_t nparts, const histo_options *opt)
{
    enum histo_by by = opt->by;
    char *buf = NULL;
    size_t cap = 0, len;
    int rc = 0;
    for (size_t k = 0; k < nparts && rc == 0; k++) {
        const part *p = &parts[k];
        if (by == HISTO_BY_STACK || by == HISTO_BY_FRAME) {
            rc = histo_stacks_to_table(t, d, &p->acc, opt, resolve_stack, nm);
            continue;
        }
        if (by == HISTO_BY_SITE) {
            if (p->acc.no_site.count > 0)
                rc = histo_table_add(t, d, HISTO_NO_SITE,
                                     strlen(HISTO_NO_SITE), p->acc.no_site.count,
                                     p->acc.no_site.bytes);
            for (size_t i = 0; i < histo_sites_count(&p->acc.sites) && rc == 0;
                 i++) {
                uint32_t slot;
                uint64_t line;
                const histo_total *e = histo_sites_get(&p->acc.sites, i,
                                                       &slot, &line);
                const heapfmt_rstring *file =
                    resolve_string(nm, heapfmt_reader_string(p->r, slot));
                rc = cli_site_name(&buf, &cap, file, line, &len);
                if (rc == 0)
                    rc = histo_table_add_row(t, d, buf, len, e,
                                             histo_sites_life(&p->acc.sites, i));
            }
            continue;
        }
        size_t n = by == HISTO_BY_CLASS ? heapfmt_reader_class_count(p->r)
                                        : heapfmt_reader_string_count(p->r);
        for (size_t slot = 0; slot < p->acc.cap && slot < n && rc == 0; slot++) {
            const histo_total *a = &p->acc.v[slot];
            if (a->count == 0)
                continue;
            const char *name;
            cli_name cbuf;
            if (by == HISTO_BY_CLASS) {
                const heapfmt_rclass *c = heapfmt_reader_class(p->r, slot);
                name = cli_summary_shown(find_class(nm, c->index), &cbuf, &len);
            } else {
                const heapfmt_rstring *s =
                    resolve_string(nm, heapfmt_reader_string(p->r, slot));
                name = histo_type_name(s, &cbuf, &len);
            }
            rc = histo_table_add(t, d, name, len, a->count, a->bytes);
        }
    }
    free(buf);
    return rc;
}

/* --by=site, stack, frame: whether the dump has objects but no allocation
 * site (or stack) at all (the one-thread scan refuses it with an
 * explanation). */
static int lacks_keys(const part *parts, size_t nparts, enum histo_by by)
{
    uint64_t with = 0, without = 0;
    for (size_t k = 0; k < nparts; k++) {
        const histo_acc *a = &parts[k].acc;
        if (by == HISTO_BY_SITE) {
            with += histo_sites_count(&a->sites);
            without += a->no_site.count;
            continue;
        }
        for (size_t slot = 0; slot < a->cap; slot++)
            with += a->v[slot].count;
        without += a->no_stack.count;
    }
    return with == 0 && without > 0;
}

/* ---- ranges ---- */

/* Cuts the block index into at most jobs ranges of about equal file bytes;
 * start[k] is the first block of range k, start[n] = nblocks. Returns the
 * number of ranges, or 0 when the index is not in file order. */
static size_t cut_ranges(const heapfmt_footer *f, size_t jobs, size_t *start)
{
    const heapfmt_block_entry *b = f->blocks;
    size_t nb = f->nblocks;
    for (size_t i = 1; i < nb; i++)
        if (b[i].offset <= b[i - 1].offset)
            return 0;
    uint64_t base = b[0].offset;
    uint64_t span = b[nb - 1].offset - base + 1;
    size_t n = 0, i = 0;
    for (size_t k = 0; k < jobs; k++) {
        uint64_t target = base + span / jobs * k + span % jobs * k / jobs;
        while (i < nb && b[i].offset < target)
            i++;
        if (i >= nb)
            break;
        if (n == 0 || i > start[n - 1])
            start[n++] = i;
    }
    start[n] = nb;
    return n;
}

unsigned histo_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > HISTO_MAX_JOBS ? HISTO_MAX_JOBS : (unsigned)n;
}

int histo_collect_jobs(histo_table *t, size_t d, const char *path,
                       const heapfmt_footer *f, const histo_options *opt)
{
    size_t jobs = opt->jobs > HISTO_MAX_JOBS ? HISTO_MAX_JOBS : opt->jobs;
    /* --by=imemo and iseq need each object's type name, which a range
     * may know only by id (its STRING record in another range). */
    if (jobs < 2 || f->nblocks < 2 || path == NULL || strcmp(path, "-") == 0 ||
        opt->by == HISTO_BY_IMEMO || opt->by == HISTO_BY_ISEQ)
        return HISTO_JOBS_FALLBACK;
    size_t start[HISTO_MAX_JOBS + 1];
    size_t nparts = cut_ranges(f, jobs, start);
    if (nparts < 2)
        return HISTO_JOBS_FALLBACK;

    part *parts = calloc(nparts, sizeof *parts);
    pthread_t *tids = calloc(nparts, sizeof *tids);
    int *started = calloc(nparts, sizeof *started);
    if (parts == NULL || tids == NULL || started == NULL) {
        free(parts);
        free(tids);
        free(started);
        return an_no_memory(opt->ctx, cli_input_name(path));
    }
    for (size_t k = 0; k < nparts; k++) {
        part *p = &parts[k];
        p->path = path;
        p->first = f->blocks[start[k]].offset;
        p->stop = k + 1 < nparts ? f->blocks[start[k + 1]].offset : f->offset;
        /* the ranges' tables together within one reader's limit */
        p->table_limit = HISTO_TABLE_LIMIT / nparts;
        for (size_t i = start[k]; i < start[k + 1]; i++) {
            p->want_objects += f->blocks[i].objects;
            p->want_records += f->blocks[i].records;
        }
        histo_acc_init(&p->acc, opt->by);
    }
    /* Range 0 runs in this thread; a thread that cannot be started has its
     * range read here too, after range 0. */
    for (size_t k = 1; k < nparts; k++)
        started[k] = pthread_create(&tids[k], NULL, run_part, &parts[k]) == 0;
    run_part(&parts[0]);
    for (size_t k = 1; k < nparts; k++) {
        if (started[k])
            pthread_join(tids[k], NULL);
        else
            run_part(&parts[k]);
    }

    enum part_status status = PART_OK;
    for (size_t k = 0; k < nparts; k++)
        if (parts[k].status > status)
            status = parts[k].status;
    if (status == PART_OK && !whole_dump_agrees(parts, nparts, f))
        status = PART_FAILED;
    if (status == PART_OK) { /* an id used before any range defines it */
        histo_undef *u[HISTO_MAX_JOBS];
        for (size_t k = 0; k < nparts; k++)
            u[k] = &parts[k].undef;
        int resolved = histo_undef_resolved(u, nparts);
        status = resolved < 0 ? PART_NOMEM : resolved ? PART_OK : PART_FAILED;
    }
    names nm;
    memset(&nm, 0, sizeof nm);
    if (status == PART_OK)
        status = make_names(&nm, f, parts, nparts, opt->by);
    int rc = HISTO_JOBS_FALLBACK;
    if (status == PART_NOMEM) {
        rc = an_no_memory(opt->ctx, cli_input_name(path));
    } else if (status == PART_OK && opt->by != HISTO_BY_CLASS &&
               opt->by != HISTO_BY_TYPE &&
               lacks_keys(parts, nparts, opt->by)) {
        rc = HISTO_JOBS_FALLBACK; /* the one-thread scan explains */
    } else if (status == PART_OK) {
        rc = AN_OK;
        if (merge(t, d, &nm, parts, nparts, opt) != 0) {
            rc = an_no_memory(opt->ctx, cli_input_name(path));
        }
    }
    free_names(&nm);
    for (size_t k = 0; k < nparts; k++) {
        heapfmt_reader_free(parts[k].r);
        histo_acc_free(&parts[k].acc);
        histo_undef_free(&parts[k].undef);
        free(parts[k].frames.v);
        free(parts[k].stacks.v);
    }
    free(parts);
    free(tids);
    free(started);
    return rc;
}
