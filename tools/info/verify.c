/* verify.c -- heapfmt-info --verify: read everything, trust nothing.
 *
 * Checks every rule spec/FORMAT.md states with MUST (the table of
 * docs/robustness.md, "What --verify checks", names each with its test),
 * stopping at the first problem:
 *   - what the reader checks (magic, versions, header, block and trailer
 *     checks, limits, reserved fields and bits, shortest varints, record
 *     layouts, ids in range and defined once, labels: kind, position and
 *     count, END last and right): any error it reports is a failure, and
 *     truncation is reported as such;
 *   - every record decodes, references and labels included;
 *   - every id a record uses is defined by an earlier record: an object's
 *     class, type, file and stack, a class's name, a root's kind, a
 *     frame's strings, a stack's frames, a label's string, a lifespan's
 *     stack and file (tools/common/cli_undefined.h);
 *   - a lifespan counts no more frees (and freed bytes) than allocations;
 *   - a thread's EVENTS records come in the order of its events: each
 *     starts after the sequence number where the thread's previous one
 *     ended (the reader checks each record alone);
 *   - no reserved object flag bit (5-31) is set in a dump of this minor;
 *   - END's totals match the objects, bytes and records counted;
 *   - the footer's totals match what was counted (objects, bytes, records,
 *     classes, strings, roots, data blocks, decoded bytes, codecs);
 *   - the block index matches the blocks read (offsets, objects per block,
 *     records per block when no unknown record was skipped, records in
 *     all);
 *   - the per-class summary lists every class index once, in increasing
 *     order, with the count and bytes counted, named as its last CLASS
 *     record named it;
 *   - no two objects have the same id (8 bytes per object are kept, and
 *     sorted at the end, to know). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_grow.h"
#include "cli_msg.h"
#include "cli_dump.h"
#include "cli_undefined.h"
#include "cli_num.h"
#include "hf_common.h"
#include "idset.h"
#include "info.h"

typedef struct tally {
    uint64_t count;
    uint64_t bytes;
} tally;

typedef struct block_seen {
    uint64_t offset;
    uint64_t objects;
    uint64_t records; /* delivered (unknown ones skipped are not) */
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
    idset ids;      /* every object id, for duplicates */
    int repeated;   /* an id came twice: the lowest such is dup */
    uint64_t dup;
    hf_map thread_at;   /* EVENTS thread -> its slot in last_seq */
    uint64_t *last_seq; /* where each thread's last record ended */
    size_t nthreads, cthreads;
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
    return cli_grow_zeroed((void **)&v->per_slot, &v->nslots, need,
                           sizeof *v->per_slot);
}

static int note_block(verifier *v, uint64_t offset)
{
    if (v->nblocks > 0 && v->blocks[v->nblocks - 1].offset == offset)
        return 0;
    if (GROW(v->blocks, v->cblocks, v->nblocks) != 0)
        return -1;
    v->blocks[v->nblocks++] = (block_seen){offset, 0, 0};
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

/* The first id the record uses that no earlier record defines. */
typedef struct first_use {
    int found;
    cli_undef_use use;
} first_use;

static void keep_first(void *ctx, const heapfmt_record *rec,
                       const cli_undef_use *use)
{
    first_use *f = ctx;
    (void)rec;
    if (!f->found) {
        f->found = 1;
        f->use = *use;
    }
}

static int undefined_use(verifier *v, const heapfmt_record *rec,
                         const first_use *f)
{
    char where[64];
    return problem(v, "%s: %s %" PRIu32 " is used, but no %s record "
                      "defines it before",
                   cli_undef_where(rec, where, sizeof where), f->use.role,
                   f->use.id, cli_undef_record_name(f->use.kind));
}

/* Decodes the labels of the last record (the reader checks their kinds,
 * positions and count) and checks their strings. */
static int check_labels(verifier *v, const heapfmt_record *rec)
{
    const heapfmt_rlabel *labels;
    long n = heapfmt_reader_labels(v->r, &labels);
    if (n < 0) {
        cli_dump_error(v->d, (int)n);
        return CLI_EXIT_ERROR;
    }
    first_use f = {0, {0, 0, 0, NULL}};
    cli_undefined_labels(rec, labels, (size_t)n, keep_first, &f);
    return f.found ? undefined_use(v, rec, &f) : CLI_EXIT_OK;
}

/* Object flag bits 5-31 are reserved (spec 6.4): zero in a dump whose
 * minor is not newer than this reader's. */
#define RESERVED_OBJECT_FLAGS UINT64_C(0xffffffe0)

static int check_object(verifier *v, const heapfmt_record *rec)
{
    const heapfmt_robject *o = rec->u.object;
    const heapfmt_rclass *k = o->klass;
    int minor;
    heapfmt_reader_version(v->r, NULL, &minor);
    if ((o->fields & HEAPFMT_F_FLAGS) && minor <= HEAPFMT_FORMAT_MINOR &&
        (o->flags & RESERVED_OBJECT_FLAGS) != 0)
        return problem(v, "record %" PRIu64 ": object %#" PRIx64
                          " has reserved flag bits set (%#" PRIx64 ")",
                       rec->index, o->id, o->flags & RESERVED_OBJECT_FLAGS);
    if (grow_slots(v, (size_t)k->slot + 1) != 0)
        return out_of_memory(v);
    uint32_t seen = idset_add(&v->ids, o->id);
    if (seen == 0)
        return out_of_memory(v);
    if (seen == 2 && (!v->repeated || o->id < v->dup)) {
        v->repeated = 1;
        v->dup = o->id;
    }
    v->per_slot[k->slot].count++;
    v->per_slot[k->slot].bytes += o->size;
    v->objects++;
    v->bytes += o->size;
    v->blocks[v->nblocks - 1].objects++;
    int code = check_refs(v, o->nrefs, rec->index);
    if (code == CLI_EXIT_OK && (o->fields & HEAPFMT_F_LABELS))
        code = check_labels(v, rec);
    return code;
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

/* A thread's sequence numbers increase across its records (spec 6.10):
 * each record starts after the one before of its thread. A table entry
 * per thread that has records: memory bounded by the file. */
static int check_events(verifier *v, const heapfmt_record *rec)
{
    const heapfmt_revents *e = rec->u.events;
    uint32_t slot;
    if (hf_map_get(&v->thread_at, e->thread, &slot)) {
        if (e->first_seq <= v->last_seq[slot])
            return problem(v, "record %" PRIu64 ": thread %" PRIu32
                              "'s events start at sequence number %" PRIu64
                              ", not after %" PRIu64 " where its previous "
                              "record ended", rec->index, e->thread,
                           e->first_seq, v->last_seq[slot]);
        v->last_seq[slot] = e->last_seq;
        return CLI_EXIT_OK;
    }
    if (GROW(v->last_seq, v->cthreads, v->nthreads) != 0)
        return out_of_memory(v);
    if (hf_map_put(&v->thread_at, hf_default_allocator(), e->thread,
                   (uint32_t)v->nthreads) != 0)
        return out_of_memory(v);
    v->last_seq[v->nthreads++] = e->last_seq;
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
    v->blocks[v->nblocks - 1].records++;
    first_use f = {0, {0, 0, 0, NULL}};
    cli_undefined_each(record, keep_first, &f);
    if (f.found)
        return undefined_use(v, record, &f);
    int code = CLI_EXIT_OK;
    switch (record->tag) {
    case HEAPFMT_TAG_OBJECT:
        code = check_object(v, record);
        break;
    case HEAPFMT_TAG_STRING:
        v->strings++;
        break;
    case HEAPFMT_TAG_ROOT:
        v->roots++;
        code = check_refs(v, record->u.root->nrefs, record->index);
        if (code == CLI_EXIT_OK && record->u.root->labeled)
            code = check_labels(v, record);
        break;
    case HEAPFMT_TAG_LIFESPAN: {
        const heapfmt_rlifespan *l = record->u.lifespan;
        if (l->frees > l->allocs || l->free_bytes > l->alloc_bytes)
            code = problem(v, "record %" PRIu64 ": a lifespan with more "
                              "frees (%" PRIu64 ", %" PRIu64 " bytes) than "
                              "allocations (%" PRIu64 ", %" PRIu64 " bytes)",
                           record->index, l->frees, l->free_bytes, l->allocs,
                           l->alloc_bytes);
        break;
    }
    case HEAPFMT_TAG_EVENTS:
        code = check_events(v, record);
        break;
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
                                       "data blocks", "decoded block bytes"};
    const uint64_t said[] = {t->objects, t->bytes,   t->records, t->classes,
                             t->strings, t->roots,   t->blocks, t->raw_bytes};
    const uint64_t seen[] = {v->objects, v->bytes,   v->end_records, classes,
                             v->strings, v->roots,   p.blocks, p.raw_bytes};
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        if (said[i] != seen[i])
            return problem(v, "footer says %" PRIu64 " %s, the dump has %"
                              PRIu64, said[i], what[i], seen[i]);
    int minor;
    heapfmt_reader_version(v->r, NULL, &minor);
    if (minor >= 1 && t->codecs != p.codecs) /* TOTALS codecs: 1.1 */
        return problem(v, "footer says the blocks use codecs %#" PRIx64
                          ", they use %#" PRIx64, t->codecs, p.codecs);
    return CLI_EXIT_OK;
}

static int check_block_index(verifier *v, const heapfmt_footer *f)
{
    if (f->nblocks != f->totals.blocks)
        return problem(v, "the block index lists %zu blocks, the totals say %"
                          PRIu64, f->nblocks, f->totals.blocks);
    heapfmt_progress p;
    heapfmt_reader_progress(v->r, &p);
    uint64_t skipped = p.skipped;
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
        uint64_t objects = 0, brecords = 0;
        if (j < v->nblocks && v->blocks[j].offset == e->offset) {
            objects = v->blocks[j].objects;
            brecords = v->blocks[j++].records;
        }
        if (objects != e->objects)
            return problem(v, "block index entry %zu (offset %" PRIu64
                              ") says %" PRIu64 " objects, the block holds %"
                              PRIu64, i, e->offset, e->objects, objects);
        /* unknown records are skipped, not delivered: then the records
         * of a block are only known in all */
        if (skipped == 0 && brecords != e->records)
            return problem(v, "block index entry %zu (offset %" PRIu64
                              ") says %" PRIu64 " records, the block holds %"
                              PRIu64, i, e->offset, e->records, brecords);
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
        if (i > 0 && e->index <= f->classes[i - 1].index)
            return problem(v, "the class summary lists class index %" PRIu32
                              " after %" PRIu32 " (in increasing order, "
                              "each once)",
                           e->index, f->classes[i - 1].index);
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

/* Two objects with one id: a heap has one object per address, and
 * MongoDB rejects a second document with the same _id. The lowest such
 * id is named, with how many objects have it. */
static int check_duplicates(verifier *v)
{
    if (!v->repeated)
        return CLI_EXIT_OK;
    return problem(v, "%" PRIu32 " objects have the id %#" PRIx64
                      " (an id names one object)",
                   idset_count(&v->ids, v->dup), v->dup);
}

int info_verify(cli_dump *d, const info_options *opt, FILE *out)
{
    verifier v;
    memset(&v, 0, sizeof v);
    v.d = d;
    v.r = d->reader;
    hf_map_init(&v.thread_at);
    idset_init(&v.ids);

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
    idset_free(&v.ids);
    hf_map_free(&v.thread_at, hf_default_allocator());
    free(v.last_seq);
    return code;
}
