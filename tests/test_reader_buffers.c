/*
 * test_reader_buffers.c -- the buffers a huge record needed (its
 * references and labels) are given back at the next record, not held
 * for the reader's life; every record around it still decodes to what
 * was written, one decoded twice too.
 *
 * The dump is built from the spec (traw.c), not by the library.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "heapfmt.h"
#include "talloc.h"
#include "traw.h"

#define HUGE_REFS 300000 /* 2.4 MB of ids, 7.2 MB of labels decoded */

static void object(traw *d, uint64_t id, size_t n, uint64_t *refs,
                   heapfmt_label *labels)
{
    for (size_t i = 0; i < n; i++) {
        refs[i] = 0x1000 + 16 * ((id + i) % 1000);
        labels[i] = (heapfmt_label){HEAPFMT_LABEL_FIELD, i % 3 == 0, 1};
    }
    heapfmt_object o = {0};
    o.id = id;
    o.class_id = 1;
    o.size = 40;
    o.fields = HEAPFMT_F_LABELS;
    o.refs = refs;
    o.nrefs = n;
    o.labels = labels;
    traw_object(d, &o);
}

static void check(heapfmt_reader *r, uint64_t id, size_t n)
{
    for (int twice = 0; twice < 2; twice++) {
        const uint64_t *ids;
        const heapfmt_rlabel *l;
        cr_assert_eq(heapfmt_reader_refs(r, &ids), (long)n);
        cr_assert_eq(heapfmt_reader_labels(r, &l), (long)n);
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(ids[i], 0x1000 + 16 * ((id + i) % 1000),
                         "object %#llx reference %zu",
                         (unsigned long long)id, i);
            cr_assert_eq(l[i].weak, (uint32_t)(i % 3 == 0));
            cr_assert_str_eq(l[i].name->ptr, "f");
        }
    }
}

Test(reader_buffers, huge_record_between_small_ones)
{
    uint64_t *refs = malloc(HUGE_REFS * sizeof *refs);
    heapfmt_label *labels = malloc(HUGE_REFS * sizeof *labels);
    cr_assert(refs && labels);
    traw d;
    traw_begin(&d, 1, 1, 0, 0);
    traw_string(&d, 1, "f");
    traw_class(&d, 1, 0x100, 1, 0, 0);
    static const size_t sizes[] = {5, HUGE_REFS, 7, HUGE_REFS, HUGE_REFS, 3};
    const size_t nsizes = sizeof sizes / sizeof *sizes;
    for (size_t k = 0; k < nsizes; k++) {
        object(&d, 0x10000 + 64 * k, sizes[k], refs, labels);
        traw_flush(&d); /* a block each: the huge ones fill one */
    }
    traw_finish(&d);
    talloc a;
    talloc_init(&a, 0);
    heapfmt_reader_options ro = HEAPFMT_READER_OPTIONS_INIT;
    ro.allocator = &a.hooks;
    heapfmt_reader *r;
    cr_assert_eq(heapfmt_reader_open_memory(&r, &ro, d.out.data, d.out.len),
                 HEAPFMT_OK);
    heapfmt_record rec;
    size_t k = 0, small = 0;
    int rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        if (rec.tag == HEAPFMT_TAG_OBJECT) {
            cr_assert_lt(k, nsizes);
            /* after a huge one, a small one holds what the first did,
             * give or take its block (all blocks but the huge ones' are
             * alike) */
            if (k == 0)
                small = a.live_bytes;
            else if (sizes[k] < 100)
                cr_assert_lt(a.live_bytes, small + 1024 * 1024,
                             "object %zu: %zu bytes live, %zu at the first",
                             k, a.live_bytes, small);
            check(r, rec.u.object->id, sizes[k++]);
        }
    cr_assert_eq(rc, HEAPFMT_DONE, "%s", heapfmt_reader_error(r)->message);
    cr_assert_eq(k, nsizes);
    heapfmt_reader_free(r);
    traw_free(&d);
    free(refs);
    free(labels);
}
