/* reader_check.c -- heapfmt_reader_check_blocks: are the data blocks the
 * footer's block index describes there, whole, before anyone presents the
 * footer's numbers as the dump's? (Two writers of one path, a file cut and
 * patched, a disk that lost a page: the footer may be intact while the
 * blocks are not.) */
#include "reader_internal.h"

/* The footer's own figures agree with each other. */
static int check_footer_sums(heapfmt_reader *r)
{
    const heapfmt_footer *f = &r->footer;
    uint64_t objects = 0, records = 0, count = 0, bytes = 0;
    for (size_t i = 0; i < f->nblocks; i++) {
        objects += f->blocks[i].objects;
        records += f->blocks[i].records;
    }
    for (size_t i = 0; i < f->nclasses; i++) {
        count += f->classes[i].count;
        bytes += f->classes[i].bytes;
    }
    const char *what = NULL;
    if (f->nblocks != f->totals.blocks)
        what = "the block index and the totals count different blocks";
    else if (f->nblocks == 0 || f->blocks[0].offset != HF_HEADER_SIZE)
        what = "the block index does not start at the first block";
    else if (objects != f->totals.objects)
        what = "the block index and the totals count different objects";
    else if (records != f->totals.records + 1) /* the index counts END */
        what = "the block index and the totals count different records";
    else if (count != f->totals.objects || bytes != f->totals.bytes)
        what = "the class summary and the totals disagree";
    if (what)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->footer.offset,
                        "footer at offset %llu: %s",
                        (unsigned long long)r->footer.offset, what);
    return HEAPFMT_OK;
}

/* Block i of the index, at offset, must end where end says. */
static int check_block(heapfmt_reader *r, size_t i, uint64_t offset,
                       uint64_t end, int level, uint8_t **buf, size_t *cap)
{
    if (r->seek(r->opaque, (int64_t)offset, 0) != (int64_t)offset)
        return hf_rfail(r, HEAPFMT_E_IO, 0, offset,
                        "cannot seek to offset %llu",
                        (unsigned long long)offset);
    r->pos = offset;
    hf_block_header b;
    size_t got;
    int fatal;
    int rc = hf_block_read_header(r, offset, &b, &got, &fatal);
    if (rc == HEAPFMT_E_TRUNCATED)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block %zu of the block index (offset %llu) is cut "
                        "short", i, (unsigned long long)offset);
    /* a codec this build cannot decode: the header is still whole, and
     * says where the block ends */
    if (rc == HEAPFMT_E_UNSUPPORTED && level == HEAPFMT_CHECK_HEADERS)
        rc = HEAPFMT_OK;
    if (rc != HEAPFMT_OK)
        return rc; /* the message names the offset */
    if (b.kind != HF_KIND_DATA ||
        offset + HF_BLOCK_HEADER_SIZE + b.stored_len != end)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block %zu of the block index (offset %llu) %s",
                        i, (unsigned long long)offset,
                        b.kind != HF_KIND_DATA
                            ? "is not a data block"
                            : "does not end where the next block starts");
    if (level != HEAPFMT_CHECK_PAYLOADS)
        return HEAPFMT_OK;
    rc = hf_block_payload(r, &b, offset, buf, cap);
    if (rc == HEAPFMT_E_TRUNCATED)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                        "block %zu of the block index (offset %llu) is cut "
                        "short", i, (unsigned long long)offset);
    return rc;
}

int heapfmt_reader_check_blocks(heapfmt_reader *r, int level)
{
    if (!r || (level != HEAPFMT_CHECK_HEADERS &&
               level != HEAPFMT_CHECK_PAYLOADS))
        return HEAPFMT_E_ARG;
    if (!r->have_footer)
        return hf_rfail(r, HEAPFMT_E_NO_FOOTER, 0, 0,
                        "the footer was not read");
    if (!r->seek)
        return hf_rfail(r, HEAPFMT_E_NO_FOOTER, 0, 0,
                        "input is not seekable");
    int rc = check_footer_sums(r);
    if (rc != HEAPFMT_OK)
        return rc;
    uint64_t saved = r->pos;
    uint8_t *buf = NULL;
    size_t cap = 0;
    const heapfmt_footer *f = &r->footer;
    for (size_t i = 0; i < f->nblocks && rc == HEAPFMT_OK; i++) {
        uint64_t end = i + 1 < f->nblocks ? f->blocks[i + 1].offset
                                          : r->footer.offset;
        rc = check_block(r, i, f->blocks[i].offset, end, level, &buf, &cap);
    }
    hf_free(&r->al, buf);
    if (r->seek(r->opaque, (int64_t)saved, 0) != (int64_t)saved) {
        return hf_rfatal(r, HEAPFMT_E_IO, 0, saved,
                         "cannot seek back in the input");
    }
    r->pos = saved;
    return rc;
}
