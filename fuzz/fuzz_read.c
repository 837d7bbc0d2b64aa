/*
 * fuzz_read.c -- the whole input is a dump, read from memory.
 *
 * Three readers walk the same bytes in lock step:
 *   A  default allocator; heapfmt_reader_footer() is called once, before
 *      the first record or after one of the first few (chosen from a hash
 *      of the input), which seeks to the end and back;
 *   B  a counting allocator, nothing else: the reference;
 *   C  an allocator that fails one allocation, chosen from the hash among
 *      those B made.
 * Checks, besides the reader contract checked by fz_rd (fuzz_util.c):
 *   - A and B deliver identical entries (records with their references,
 *     labels and call stacks, error results with their detail -- a codec
 *     this build lacks, HEAPFMT_E_UNSUPPORTED, is a clean end like the
 *     others --, the footer): reading the footer
 *     in the middle changes nothing;
 *   - if B reads a complete dump (DONE), A's early footer call succeeded
 *     and gave the same footer;
 *   - after the walk, a footer call does not change the sticky result;
 *   - C delivers what B delivers until it reports HEAPFMT_E_NOMEM, and
 *     nothing after that: an allocation failure is never reported as
 *     damage, and never loses or invents records;
 *   - no allocation is left live (B and C) when the readers are freed;
 *   - a fourth reader D, moved by heapfmt_reader_seek_block to a block of
 *     the footer's index (or to any offset), reads to its end without
 *     harm; when B read a complete dump and the offset is a block B read,
 *     D delivers the same records as B from that block on (compared by
 *     ids and indexes, since D does not know the earlier blocks' strings
 *     and classes) and ends with DONE;
 *   - the library's CRC32 (which has its own fast path) agrees with zlib's
 *     on the input, at every alignment.
 */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_util.h"
#include "heapfmt.h"
#include "heapfmt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void open_three(const uint8_t *data, size_t size, fz_alloc *ab,
                       fz_alloc *ac, heapfmt_reader **ra, heapfmt_reader **rb,
                       heapfmt_reader **rc, int *rcs)
{
    heapfmt_reader_options ob = HEAPFMT_READER_OPTIONS_INIT;
    heapfmt_reader_options oc = HEAPFMT_READER_OPTIONS_INIT;
    ob.allocator = &ab->hooks;
    oc.allocator = &ac->hooks;
    rcs[0] = heapfmt_reader_open_memory(ra, NULL, data, size);
    rcs[1] = heapfmt_reader_open_memory(rb, &ob, data, size);
    rcs[2] = heapfmt_reader_open_memory(rc, &oc, data, size);
}

static void check_open(int rc, const heapfmt_reader *r, const char *who)
{
    if (rc == HEAPFMT_OK) {
        FZ_CHECK(r != NULL, "%s: open OK without a reader", who);
        return;
    }
    FZ_CHECK(rc == HEAPFMT_E_NOT_HEAPFMT || rc == HEAPFMT_E_VERSION ||
                 rc == HEAPFMT_E_CORRUPT || rc == HEAPFMT_E_TRUNCATED ||
                 rc == HEAPFMT_E_NOMEM || rc == HEAPFMT_E_UNSUPPORTED,
             "%s: open gave %s", who, fz_status_name(rc));
    if (rc != HEAPFMT_E_NOMEM)
        FZ_CHECK(r != NULL, "%s: open gave %s without a reader to explain it",
                 who, fz_status_name(rc));
}

/* A record reduced to what does not depend on the blocks before it: ids
 * and indexes instead of table entries. Hashed, from offset `from` on. */
typedef struct proj {
    uint64_t h, n, from;
    int on;
} proj;

static void ph(proj *p, const void *b, size_t n)
{
    const uint8_t *c = b;
    for (size_t i = 0; i < n; i++)
        p->h = (p->h ^ c[i]) * 1099511628211ull;
}

static void ph64(proj *p, uint64_t v)
{
    ph(p, &v, sizeof v);
}

static void ph_refs(proj *p, heapfmt_reader *r)
{
    const uint64_t *ids = NULL;
    long n = heapfmt_reader_refs(r, &ids);
    ph64(p, (uint64_t)n);
    if (n > 0)
        ph(p, ids, (size_t)n * sizeof *ids);
}

static void ph_labels(proj *p, heapfmt_reader *r)
{
    const heapfmt_rlabel *lb = NULL;
    long n = heapfmt_reader_labels(r, &lb);
    ph64(p, (uint64_t)n);
    for (long i = 0; i < n; i++) {
        ph64(p, lb[i].kind);
        ph64(p, lb[i].weak);
        ph64(p, lb[i].index);
        ph64(p, lb[i].name->id);
    }
}

static void project(void *ctx, heapfmt_reader *r, const heapfmt_record *rec)
{
    proj *p = ctx;
    if (!p->on || rec->offset < p->from)
        return;
    p->n++;
    ph64(p, (uint64_t)rec->tag);
    switch (rec->tag) {
    case HEAPFMT_TAG_META: {
        const heapfmt_rmeta *m = rec->u.meta;
        ph64(p, (uint64_t)m->type);
        ph(p, m->key, m->key_len + 1);
        ph(p, m->text, m->text_len);
        ph64(p, m->uint_value);
        ph64(p, (uint64_t)m->int_value);
        break;
    }
    case HEAPFMT_TAG_STRING:
        ph64(p, rec->u.string->id);
        ph(p, rec->u.string->ptr, rec->u.string->len);
        break;
    case HEAPFMT_TAG_CLASS: {
        const heapfmt_rclass *c = rec->u.klass;
        ph64(p, c->index);
        ph64(p, c->id);
        ph64(p, c->super_id);
        ph64(p, c->flags);
        ph64(p, c->name ? c->name->id : 0);
        break;
    }
    case HEAPFMT_TAG_OBJECT: {
        const heapfmt_robject *o = rec->u.object;
        ph64(p, o->id);
        ph64(p, o->klass->index);
        ph64(p, o->type->id);
        ph64(p, o->size);
        ph64(p, o->fields);
        ph64(p, o->flags);
        ph64(p, o->value != NULL);
        ph(p, o->value, o->value_len);
        ph64(p, o->file->id);
        ph64(p, o->line);
        ph64(p, o->generation);
        ph64(p, o->stack ? o->stack->id : 0);
        ph_refs(p, r);
        ph_labels(p, r);
        break;
    }
    case HEAPFMT_TAG_ROOT:
        ph64(p, rec->u.root->kind->id);
        ph64(p, (uint64_t)rec->u.root->labeled);
        ph_refs(p, r);
        ph_labels(p, r);
        break;
    case HEAPFMT_TAG_FRAME: {
        const heapfmt_rframe *f = rec->u.frame;
        ph64(p, f->id);
        ph64(p, f->function->id);
        ph64(p, f->library->id);
        ph64(p, f->offset);
        ph64(p, f->file->id);
        ph64(p, f->line);
        break;
    }
    case HEAPFMT_TAG_STACK: {
        const heapfmt_rstack *st = rec->u.stack;
        ph64(p, st->id);
        ph64(p, st->nframes);
        for (size_t i = 0; i < st->nframes; i++)
            ph64(p, st->frames[i]->id);
        break;
    }
    case HEAPFMT_TAG_LIFESPAN: {
        const heapfmt_rlifespan *l = rec->u.lifespan;
        ph64(p, l->key);
        ph64(p, l->stack ? l->stack->id : 0);
        ph64(p, l->file->id);
        ph64(p, l->line);
        ph64(p, l->allocs);
        ph64(p, l->frees);
        ph64(p, l->lifetime_us);
        ph64(p, l->oldest_us);
        break;
    }
    case HEAPFMT_TAG_END:
        ph64(p, rec->u.end->objects);
        ph64(p, rec->u.end->bytes);
        ph64(p, rec->u.end->records);
        break;
    }
}

/* D: moved to offset, then read to its end. */
static void seek_and_read(heapfmt_reader *rd, uint64_t off, size_t size,
                          proj *pd, int *final)
{
    int rc = heapfmt_reader_seek_block(rd, off);
    *final = rc;
    if (off < 16) {
        FZ_CHECK(rc == HEAPFMT_E_ARG, "seek_block(%llu) gave %s",
                 (unsigned long long)off, fz_status_name(rc));
        return;
    }
    if (off > size) {
        FZ_CHECK(rc == HEAPFMT_E_IO, "seek_block past the end gave %s",
                 fz_status_name(rc));
        return;
    }
    FZ_CHECK(rc == HEAPFMT_OK, "seek_block(%llu) gave %s: %s",
             (unsigned long long)off, fz_status_name(rc),
             heapfmt_reader_error(rd)->message);
    pd->on = 1;
    heapfmt_record rec;
    uint64_t k = 0;
    for (;;) {
        rc = heapfmt_reader_next(rd, &rec);
        if (rc == HEAPFMT_OK) {
            FZ_CHECK(rec.index == k++, "record index %llu after a seek",
                     (unsigned long long)rec.index);
            project(pd, rd, &rec);
            continue;
        }
        if (rc == HEAPFMT_E_CORRUPT && heapfmt_reader_can_continue(rd))
            continue;
        break;
    }
    FZ_CHECK(rc == HEAPFMT_DONE || rc < 0, "after a seek, next gave %d", rc);
    *final = rc;
}

/* C differs from B at this entry: only an out-of-memory report may. */
static void c_diverges(fz_rd *c, const fz_buf *ec)
{
    int nomem_event = ec->len > 0 && ec->p[0] == FZ_E_ERROR &&
                      c->rc == HEAPFMT_E_NOMEM;
    FZ_CHECK(nomem_event || c->refs_nomem,
             "an allocation failure changed entry %llu (result %s) instead "
             "of giving HEAPFMT_E_NOMEM",
             (unsigned long long)c->delivered, fz_status_name(c->rc));
    fz_buf e = {0};
    if (c->refs_nomem) {
        /* the record came, its references could not: then NOMEM, sticky */
        FZ_CHECK(fz_rd_next(c, &e) == 1 && c->rc == HEAPFMT_E_NOMEM,
                 "after references failed for memory, next gave %s",
                 fz_status_name(c->rc));
    }
    FZ_CHECK(c->finished, "reader went on after HEAPFMT_E_NOMEM");
    fz_buf_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    for (size_t k = 0; k < 16 && k <= size; k++) {
        uint32_t want = (uint32_t)crc32(0, data + k, (uInt)(size - k));
        uint32_t got = hf_crc32(data + k, size - k);
        FZ_CHECK(got == want, "CRC32 of %zu bytes at +%zu: %08x, zlib %08x",
                 size - k, k, got, want);
    }
    fz_alloc ab, ac;
    fz_alloc_init(&ab, 0);
    fz_alloc_init(&ac, 0);

    /* A dry run with B's allocator alone counts B's allocations, so that C
     * can fail one of them. */
    {
        heapfmt_reader_options o = HEAPFMT_READER_OPTIONS_INIT;
        o.allocator = &ab.hooks;
        heapfmt_reader *r = NULL;
        int rc = heapfmt_reader_open_memory(&r, &o, data, size);
        if (rc == HEAPFMT_OK) {
            fz_rd d;
            fz_buf e = {0};
            fz_rd_init(&d, r, FZ_KEEP_GOING);
            while (fz_rd_next(&d, &e))
                ;
            fz_rd_free(&d);
            fz_buf_free(&e);
        }
        heapfmt_reader_free(r);
        FZ_CHECK(ab.live == 0, "%ld allocations leaked", ab.live);
        uint64_t calls = ab.calls;
        fz_alloc_init(&ab, 0);
        fz_alloc_init(&ac, calls ? 1 + (h >> 8) % calls : 0);
    }

    heapfmt_reader *ra = NULL, *rb = NULL, *rc = NULL;
    int orc[3];
    open_three(data, size, &ab, &ac, &ra, &rb, &rc, orc);
    check_open(orc[0], ra, "A");
    check_open(orc[1], rb, "B");
    check_open(orc[2], rc, "C");
    FZ_CHECK(orc[0] == orc[1], "open: %s with malloc, %s with hooks",
             fz_status_name(orc[0]), fz_status_name(orc[1]));
    FZ_CHECK(orc[2] == orc[1] || orc[2] == HEAPFMT_E_NOMEM,
             "open with a failing allocation gave %s, else %s",
             fz_status_name(orc[2]), fz_status_name(orc[1]));
    fz_buf ea = {0}, eb = {0}, ec = {0};
    fz_entry_open(&ea, orc[0], ra, FZ_DETAIL);
    fz_entry_open(&eb, orc[1], rb, FZ_DETAIL);
    FZ_CHECK(ea.len == eb.len && memcmp(ea.p, eb.p, ea.len) == 0,
             "open: different error detail with malloc and with hooks");

    if (orc[1] == HEAPFMT_OK) {
        /* D: where to move it, chosen before B reads */
        heapfmt_reader *rd = NULL;
        FZ_CHECK(heapfmt_reader_open_memory(&rd, NULL, data, size) ==
                     HEAPFMT_OK,
                 "a fourth open of the same bytes failed");
        const heapfmt_footer *df = NULL;
        int dfrc = heapfmt_reader_footer(rd, &df);
        uint64_t seek_off = 0;
        int seek_on = 0, from_index = 0;
        if (((h >> 20) & 3) == 0) {
            seek_off = (h >> 24) % (size + 32);
            seek_on = 1;
        } else if (dfrc == HEAPFMT_OK && df->nblocks > 0) {
            seek_off = df->blocks[(h >> 24) % df->nblocks].offset;
            seek_on = from_index = 1;
        }
        proj pb = {0, 0, seek_off, from_index}, pd = {0, 0, 0, 0};

        fz_rd a, b, c;
        fz_rd_init(&a, ra, FZ_DETAIL | FZ_KEEP_GOING);
        fz_rd_init(&b, rb, FZ_DETAIL | FZ_KEEP_GOING | FZ_TRACK_BLOCKS);
        b.hook = project;
        b.hook_ctx = &pb;
        int c_on = orc[2] == HEAPFMT_OK;
        if (c_on)
            fz_rd_init(&c, rc, FZ_DETAIL | FZ_KEEP_GOING);
        uint64_t footer_at = (h >> 40) % 5;
        int early_rc = HEAPFMT_E_STATE, early_called = 0;
        fz_buf early = {0}, last_b = {0};
        for (uint64_t k = 0;; k++) {
            if (k == footer_at && !a.finished) {
                const heapfmt_footer *f = NULL;
                early_rc = heapfmt_reader_footer(ra, &f);
                early_called = 1;
                FZ_CHECK(early_rc == HEAPFMT_OK ||
                             early_rc == HEAPFMT_E_NO_FOOTER ||
                             early_rc == HEAPFMT_E_CORRUPT ||
                             early_rc == HEAPFMT_E_TRUNCATED ||
                             early_rc == HEAPFMT_E_UNSUPPORTED,
                         "footer gave %s", fz_status_name(early_rc));
                FZ_CHECK(early_rc != HEAPFMT_OK || f != NULL,
                         "footer OK without a footer");
                FZ_CHECK(early_rc == HEAPFMT_OK || f == NULL,
                         "footer failed but gave a footer");
                fz_entry_footer(&early, early_rc, f, FZ_DETAIL);
            }
            int ha = fz_rd_next(&a, &ea);
            int hb = fz_rd_next(&b, &eb);
            FZ_CHECK(ha == hb, "entry %llu exists for one reader only",
                     (unsigned long long)k);
            if (!hb)
                break;
            if (ea.len != eb.len || memcmp(ea.p, eb.p, ea.len) != 0) {
                char why[512];
                fz_describe_diff(&ea, &eb, why, sizeof why);
                fz_fail("entry %llu differs after a footer call: %s",
                        (unsigned long long)k, why);
            }
            fz_buf_reset(&last_b);
            fz_put(&last_b, eb.p, eb.len);
            if (c_on) {
                FZ_CHECK(fz_rd_next(&c, &ec) == 1,
                         "with a failing allocation the walk ended early");
                if (ec.len != eb.len || memcmp(ec.p, eb.p, eb.len) != 0) {
                    c_diverges(&c, &ec);
                    c_on = 0;
                }
            }
        }
        if (c_on)
            FZ_CHECK(fz_rd_next(&c, &ec) == 0,
                     "with a failing allocation the walk went on");
        if (b.rc == HEAPFMT_DONE) {
            FZ_CHECK(early_rc == HEAPFMT_OK || !early_called,
                     "dump reads complete, yet its footer gave %s",
                     fz_status_name(early_rc));
            if (early_rc == HEAPFMT_OK)
                FZ_CHECK(early.len == last_b.len &&
                             memcmp(early.p, last_b.p, early.len) == 0,
                         "the footer read first differs from the one at "
                         "the end");
        }
        /* A footer call after the end must not change the final result. */
        const heapfmt_footer *f = NULL;
        int frc = heapfmt_reader_footer(ra, &f);
        if (a.rc == HEAPFMT_DONE)
            FZ_CHECK(frc == HEAPFMT_OK, "footer after DONE gave %s",
                     fz_status_name(frc));
        heapfmt_record rec;
        int again = heapfmt_reader_next(ra, &rec);
        FZ_CHECK(again == a.rc,
                 "walk ended with %s; after a footer call (%s) next gave %s",
                 fz_status_name(a.rc), fz_status_name(frc),
                 fz_status_name(again));
        /* Nor a refs call, which has no record to work on. */
        const uint64_t *ids;
        long n = heapfmt_reader_refs(ra, &ids);
        FZ_CHECK(n == HEAPFMT_E_STATE, "refs after the end gave %s",
                 fz_status_name((int)n));
        again = heapfmt_reader_next(ra, &rec);
        FZ_CHECK(again == a.rc,
                 "walk ended with %s; after a refs call next gave %s",
                 fz_status_name(a.rc), fz_status_name(again));
        if (seek_on) {
            int drc;
            seek_and_read(rd, seek_off, size, &pd, &drc);
            int read_by_b = 0;
            for (size_t i = 0; i < b.nblk; i++)
                read_by_b |= b.blk[i].offset == seek_off;
            if (b.rc == HEAPFMT_DONE && from_index && read_by_b) {
                FZ_CHECK(drc == HEAPFMT_DONE,
                         "read from the block at %llu: ended with %s: %s",
                         (unsigned long long)seek_off, fz_status_name(drc),
                         heapfmt_reader_error(rd)->message);
                FZ_CHECK(pd.n == pb.n && pd.h == pb.h,
                         "read from the block at %llu: %llu records, "
                         "%llu from a full read (or other records)",
                         (unsigned long long)seek_off,
                         (unsigned long long)pd.n, (unsigned long long)pb.n);
            }
        }
        heapfmt_reader_free(rd);
        fz_buf_free(&early);
        fz_buf_free(&last_b);
        fz_rd_free(&a);
        fz_rd_free(&b);
        if (orc[2] == HEAPFMT_OK)
            fz_rd_free(&c);
    }
    heapfmt_reader_free(ra);
    heapfmt_reader_free(rb);
    heapfmt_reader_free(rc);
    FZ_CHECK(ab.live == 0, "%ld allocations leaked", ab.live);
    FZ_CHECK(ac.live == 0, "%ld allocations leaked after allocation %llu "
             "failed", ac.live, (unsigned long long)ac.fail_at);
    fz_buf_free(&ea);
    fz_buf_free(&eb);
    fz_buf_free(&ec);
    return 0;
}
