/* verify.c -- heapfmt-info --verify: read everything, trust nothing.
 *
 * Checks, stopping at the first problem:
 *   - every block decodes and passes its CRC (the reader checks; any error
 *     it reports is a failure, and truncation is reported as such);
 *   - every record decodes, references included;
 *   - every object's class, type and file, every class name and every root
 *     kind refer to defined records (nothing "undefined"), and so do
 *     lifespans, which never count more frees than allocations;
 *   - END's totals match the objects, bytes and records counted;
 *   - the footer's totals match what was counted (objects, bytes, records,
 *     classes, strings, roots, data blocks);
 *   - the block index matches the blocks read (offsets, objects per block,
 *     records in all);
 *   - the per-class summary matches the count and bytes counted for every
 *     class index, and names each class as its last CLASS record did;
 *   - no two objects have the same id (8 bytes per object are kept, and
 *     sorted at the end, to know). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_scan.h"
#include "cli_num.h"
#include "info.h"

typedef struct tally {
    uint64_t count;
    uint64_t bytes;
} tally;

typedef struct block_seen {
    uint64_t offset;
    uint64_t objects;
} block_seen;

typedef struct verifier {
    cli_dump *d;
    heapfmt_reader *r;
    /* what the data blocks hold */
    uint64_t objects, bytes, strings, roots;
    uint64_t end_records; /* records before END */
    int end_seen;
    tally *per_slot; /* by class slot */
    size_t nslots;
    block_seen *blocks; /* data blocks that delivered records */
    size_t nblocks, cblocks;
    uint64_t *ids; /* every object id, for duplicates */
    size_t nids, cids;
} verifier;

static int problem(verifier *v, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Reports the first problem found; returns CLI_EXIT_ERROR. */
static int problem(verifier *v, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_error(v->d->name, "%s", msg);
    return CLI_EXIT_ERROR;
}

static int out_of_memory(verifier *v)
{
    return problem(v, "out of memory");
}

static int grow_slots(verifier *v, size_t need)
{
    if (need <= v->nslots)
        return 0;
    size_t n = v->nslots ? v->nslots : 64;
    while (n < need)
        n *= 2;
    tally *t = realloc(v->per_slot, n * sizeof *t);
    if (t == NULL)
        return -1;
    memset(t + v->nslots, 0, (n - v->nslots) * sizeof *t);
    v->per_slot = t;
    v->nslots = n;
    return 0;
}

static int note_block(verifier *v, uint64_t offset)
{
    if (v->nblocks > 0 && v->blocks[v->nblocks - 1].offset == offset)
        return 0;
    if (v->nblocks == v->cblocks) {
        size_t n = v->cblocks ? 2 * v->cblocks : 256;
        block_seen *b = realloc(v->blocks, n * sizeof *b);
        if (b == NULL)
            return -1;
        v->blocks = b;
        v->cblocks = n;
    }
    v->blocks[v->nblocks++] = (block_seen){offset, 0};
    return 0;
}

/* Decodes the references of the last record; checks the count. */
static int check_refs(verifier *v, uint64_t nrefs, uint64_t index)
{
    if (nrefs == 0)
        return CLI_EXIT_OK;
    const uint64_t *ids;
    long n = heapfmt_reader_refs(v->r, &ids);
    if (n < 0) {
        cli_dump_error(v->d, (int)n);
        return CLI_EXIT_ERROR;
    }
    if ((uint64_t)n != nrefs)
        return problem(v, "record %" PRIu64 ": %ld references decoded, %"
                          PRIu64 " announced", index, n, nrefs);
    return CLI_EXIT_OK;
}

static int check_object(verifier *v, const heapfmt_record *rec)
{
    const heapfmt_robject *o = rec->u.object;
    const heapfmt_rclass *k = o->klass;
    if (k->undefined)
        return problem(v, "record %" PRIu64 ": object %#" PRIx64
                          " has class index %" PRIu32
                          ", which no CLASS record defines",
                       rec->index, o->id, k->index);
    if (k->name != NULL && k->name->undefined)
        return problem(v, "record %" PRIu64 ": the name of class index %"
                          PRIu32 " is string %" PRIu32
                          ", which no STRING record defines",
                       rec->index, k->index, k->name->id);
    if (o->type->undefined)
        return problem(v, "record %" PRIu64 ": object %#" PRIx64
                          " has type string %" PRIu32
                          ", which no STRING record defines",
                       rec->index, o->id, o->type->id);
    if ((o->fields & HEAPFMT_F_SITE) && o->file->undefined)
        return problem(v, "record %" PRIu64 ": object %#" PRIx64
                          " has file string %" PRIu32
                          ", which no STRING record defines",
                       rec->index, o->id, o->file->id);
    if (grow_slots(v, (size_t)k->slot + 1) != 0)
        return out_of_memory(v);
    if (v->nids == v->cids) {
        size_t cap = v->cids ? v->cids + v->cids / 2 : 4096;
        uint64_t *ids = realloc(v->ids, cap * sizeof *ids);
        if (ids == NULL)
            return out_of_memory(v);
        v->ids = ids;
        v->cids = cap;
    }
    v->ids[v->nids++] = o->id;
    v->per_slot[k->slot].count++;
    v->per_slot[k->slot].bytes += o->size;
    v->objects++;
    v->bytes += o->size;
    v->blocks[v->nblocks - 1].objects++;
    return check_refs(v, o->nrefs, rec->index);
}

static int check_end(verifier *v, const heapfmt_record *rec)
{
    const heapfmt_totals *e = rec->u.end;
    /* END counts every record before it, the skipped unknown kinds too. */
    heapfmt_progress p;
    heapfmt_reader_progress(v->r, &p);
    v->end_seen = 1;
    v->end_records = rec->index + p.skipped;
    if (e->objects != v->objects)
        return problem(v, "END says %" PRIu64 " objects, the dump has %" PRIu64,
                       e->objects, v->objects);
    if (e->bytes != v->bytes)
        return problem(v, "END says %" PRIu64 " object bytes, the objects add "
                          "up to %" PRIu64, e->bytes, v->bytes);
    if (e->records != v->end_records)
        return problem(v, "END says %" PRIu64 " records, %" PRIu64
                          " come before it", e->records, v->end_records);
    return CLI_EXIT_OK;
}

/* Checks one record; nonzero (an exit code) stops the reading. */
static int verify_record(void *ctx, heapfmt_reader *r,
                         const heapfmt_record *record)
{
    verifier *v = ctx;
    (void)r;
    if (note_block(v, record->offset) != 0)
        return out_of_memory(v);
    int code = CLI_EXIT_OK;
    switch (record->tag) {
    case HEAPFMT_TAG_OBJECT:
        code = check_object(v, record);
        break;
    case HEAPFMT_TAG_STRING:
        v->strings++;
        break;
    case HEAPFMT_TAG_CLASS:
        if (record->u.klass->name != NULL && record->u.klass->name->undefined)
            code = problem(v, "record %" PRIu64 ": class index %" PRIu32
                              " is named by string %" PRIu32
                              ", which no STRING record defines",
                           record->index, record->u.klass->index,
                           record->u.klass->name->id);
        break;
    case HEAPFMT_TAG_ROOT:
        v->roots++;
        if (record->u.root->kind->undefined)
            code = problem(v, "record %" PRIu64 ": root kind string %"
                              PRIu32 " is never defined",
                           record->index, record->u.root->kind->id);
        else
            code = check_refs(v, record->u.root->nrefs, record->index);
        break;
    case HEAPFMT_TAG_LIFESPAN: {
        const heapfmt_rlifespan *l = record->u.lifespan;
        if (l->stack != NULL && l->stack->undefined)
            code = problem(v, "record %" PRIu64 ": a lifespan of stack %"
                              PRIu32 ", which no STACK record defines",
                           record->index, l->stack->id);
        else if (l->file->undefined)
            code = problem(v, "record %" PRIu64 ": a lifespan of file string %"
                              PRIu32 ", which no STRING record defines",
                           record->index, l->file->id);
        else if (l->frees > l->allocs || l->free_bytes > l->alloc_bytes)
            code = problem(v, "record %" PRIu64 ": a lifespan with more "
                              "frees (%" PRIu64 ", %" PRIu64 " bytes) than "
                              "allocations (%" PRIu64 ", %" PRIu64 " bytes)",
                           record->index, l->frees, l->free_bytes, l->allocs,
                           l->alloc_bytes);
        break;
    }
    case HEAPFMT_TAG_END:
        code = check_end(v, record);
        break;
    default:
        break;
    }
    return code;
}

/* Reads every record, strictly: the first damage is the verdict. */
static int read_all(verifier *v)
{
    int code = cli_scan_with(v->d, CLI_SCAN_STRICT, verify_record, v, NULL);
    if (code != CLI_EXIT_OK)
        return code;
    if (!v->end_seen)
        return problem(v, "the dump has no END record");
    return CLI_EXIT_OK;
}

static int check_totals(verifier *v, const heapfmt_footer *f)
{
    const heapfmt_totals *t = &f->totals;
    heapfmt_progress p;
    heapfmt_reader_progress(v->r, &p);
    uint64_t classes = 0;
    size_t nc = heapfmt_reader_class_count(v->r);
    for (size_t s = 0; s < nc; s++) {
        const heapfmt_rclass *c = heapfmt_reader_class(v->r, s);
        if (c->index != 0 && !c->undefined)
            classes++;
    }
    static const char *const what[] = {"objects", "object bytes", "records",
                                       "classes", "strings", "roots",
                                       "data blocks"};
    const uint64_t said[] = {t->objects, t->bytes,   t->records, t->classes,
                             t->strings, t->roots,   t->blocks};
    const uint64_t seen[] = {v->objects, v->bytes,   v->end_records, classes,
                             v->strings, v->roots,   p.blocks};
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        if (said[i] != seen[i])
            return problem(v, "footer says %" PRIu64 " %s, the dump has %"
                              PRIu64, said[i], what[i], seen[i]);
    return CLI_EXIT_OK;
}

static int check_block_index(verifier *v, const heapfmt_footer *f)
{
    if (f->nblocks != f->totals.blocks)
        return problem(v, "the block index lists %zu blocks, the totals say %"
                          PRIu64, f->nblocks, f->totals.blocks);
    uint64_t records = 0;
    size_t j = 0; /* next block seen */
    for (size_t i = 0; i < f->nblocks; i++) {
        const heapfmt_block_entry *e = &f->blocks[i];
        if (i > 0 && e->offset <= f->blocks[i - 1].offset)
            return problem(v, "block index entry %zu: offset %" PRIu64
                              " does not follow %" PRIu64,
                           i, e->offset, f->blocks[i - 1].offset);
        records += e->records;
        /* A block of records this reader skips delivers nothing, so it
         * is absent from what was seen: only blocks seen are compared. */
        uint64_t objects = 0;
        if (j < v->nblocks && v->blocks[j].offset == e->offset)
            objects = v->blocks[j++].objects;
        if (objects != e->objects)
            return problem(v, "block index entry %zu (offset %" PRIu64
                              ") says %" PRIu64 " objects, the block holds %"
                              PRIu64, i, e->offset, e->objects, objects);
    }
    if (j != v->nblocks)
        return problem(v, "the block at offset %" PRIu64
                          " is missing from the block index",
                       v->blocks[j].offset);
    /* The index counts END too. */
    if (records != v->end_records + 1)
        return problem(v, "the block index counts %" PRIu64
                          " records, the dump has %" PRIu64,
                       records, v->end_records + 1);
    return CLI_EXIT_OK;
}

typedef struct slot_ref {
    uint32_t index;
    uint32_t slot;
} slot_ref;

static int by_index(const void *a, const void *b)
{
    uint32_t x = ((const slot_ref *)a)->index, y = ((const slot_ref *)b)->index;
    return (x > y) - (x < y);
}

static int same_name(const heapfmt_rstring *name, const heapfmt_class_summary *e)
{
    if (name == NULL || name->len == 0)
        return e->name == NULL || e->name_len == 0;
    return e->name != NULL && e->name_len == name->len &&
           memcmp(e->name, name->ptr, name->len) == 0;
}

static int check_summary_entries(verifier *v, const heapfmt_footer *f,
                                 const slot_ref *map, size_t nmap,
                                 unsigned char *listed)
{
    for (size_t i = 0; i < f->nclasses; i++) {
        const heapfmt_class_summary *e = &f->classes[i];
        slot_ref key = {e->index, 0};
        const slot_ref *m = bsearch(&key, map, nmap, sizeof *map, by_index);
        if (m == NULL)
            return problem(v, "the class summary lists class index %" PRIu32
                              ", which the dump never defines", e->index);
        if (listed[m->slot])
            return problem(v, "the class summary lists class index %" PRIu32
                              " twice", e->index);
        listed[m->slot] = 1;
        tally t = m->slot < v->nslots ? v->per_slot[m->slot] : (tally){0, 0};
        if (e->count != t.count || e->bytes != t.bytes)
            return problem(v, "class index %" PRIu32 " (%s): the summary says %"
                              PRIu64 " objects, %" PRIu64
                              " bytes; the dump has %" PRIu64 ", %" PRIu64,
                           e->index, e->name ? e->name : "anonymous",
                           e->count, e->bytes, t.count, t.bytes);
        if (e->index == 0)
            continue;
        const heapfmt_rclass *c = heapfmt_reader_class(v->r, m->slot);
        if (e->id != c->id || e->flags != c->flags || !same_name(c->name, e))
            return problem(v, "class index %" PRIu32
                              ": the summary does not match its last CLASS "
                              "record (id, flags or name)", e->index);
    }
    return CLI_EXIT_OK;
}

static int check_summary(verifier *v, const heapfmt_footer *f)
{
    size_t nc = heapfmt_reader_class_count(v->r);
    slot_ref *map = malloc((nc ? nc : 1) * sizeof *map);
    unsigned char *listed = calloc(nc ? nc : 1, 1);
    if (map == NULL || listed == NULL) {
        free(map);
        free(listed);
        return out_of_memory(v);
    }
    for (size_t s = 0; s < nc; s++)
        map[s] = (slot_ref){heapfmt_reader_class(v->r, s)->index, (uint32_t)s};
    qsort(map, nc, sizeof *map, by_index);

    int code = check_summary_entries(v, f, map, nc, listed);
    /* Every defined class has an entry; so has "no class" when used. */
    for (size_t s = 0; s < nc && code == CLI_EXIT_OK; s++) {
        const heapfmt_rclass *c = heapfmt_reader_class(v->r, s);
        uint64_t used = s < v->nslots ? v->per_slot[s].count : 0;
        if (listed[s] || (c->index == 0 ? used == 0 : c->undefined))
            continue;
        code = problem(v, "class index %" PRIu32
                          " (%s objects) is missing from the class summary",
                       c->index, cli_fmt_count(used).s);
    }
    free(map);
    free(listed);
    return code;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Two objects with one id: a heap has one object per address, and
 * MongoDB rejects a second document with the same _id. */
static int check_duplicates(verifier *v)
{
    if (v->nids > 1)
        qsort(v->ids, v->nids, sizeof *v->ids, by_id);
    for (size_t i = 1; i < v->nids; i++) {
        if (v->ids[i] != v->ids[i - 1])
            continue;
        size_t n = 2;
        while (i + 1 < v->nids && v->ids[i + 1] == v->ids[i]) {
            i++;
            n++;
        }
        return problem(v, "%zu objects have the id %#" PRIx64
                          " (an id names one object)",
                       n, v->ids[i]);
    }
    return CLI_EXIT_OK;
}

int info_verify(cli_dump *d, const info_options *opt, FILE *out)
{
    verifier v;
    memset(&v, 0, sizeof v);
    v.d = d;
    v.r = d->reader;

    int code = read_all(&v);
    const heapfmt_footer *f = NULL;
    if (code == CLI_EXIT_OK) {
        int rc = heapfmt_reader_footer(v.r, &f);
        if (rc != HEAPFMT_OK) {
            cli_dump_error(d, rc);
            code = CLI_EXIT_ERROR;
        }
    }
    if (code == CLI_EXIT_OK)
        code = check_totals(&v, f);
    if (code == CLI_EXIT_OK)
        code = check_block_index(&v, f);
    if (code == CLI_EXIT_OK)
        code = check_summary(&v, f);
    if (code == CLI_EXIT_OK)
        code = check_duplicates(&v);
    if (code == CLI_EXIT_OK)
        fprintf(out, "OK: %s object%s verified\n",
                (opt->plain ? cli_fmt_plain(v.objects)
                            : cli_fmt_count(v.objects)).s,
                v.objects == 1 ? "" : "s");
    free(v.per_slot);
    free(v.blocks);
    free(v.ids);
    return code;
}
