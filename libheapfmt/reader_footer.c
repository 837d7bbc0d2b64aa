/* reader_footer.c -- the footer: totals, block index, per-class summary. */
#include "reader_internal.h"

static int bad_footer(heapfmt_reader *r, uint64_t offset, const char *what)
{
    return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, offset,
                    "footer at offset %llu: %s", (unsigned long long)offset,
                    what);
}

static int parse_blocks(heapfmt_reader *r, const uint8_t *q, const uint8_t *qe,
                        uint64_t offset)
{
    uint64_t count, at = 0;
    const char *why = hf_blocks_count_decode(&q, qe, &count);
    if (why)
        return bad_footer(r, offset, why);
    if (hf_grow(&r->al, (void **)&r->fblocks, &r->cfblocks, (size_t)count,
                sizeof *r->fblocks) < 0)
        return hf_rfail(r, HEAPFMT_E_NOMEM, 0, offset,
                        "out of memory for the block index");
    for (uint64_t i = 0; i < count; i++)
        if ((why = hf_blocks_entry_decode(&q, qe, &at, &r->fblocks[i])))
            return bad_footer(r, offset, why);
    r->footer.nblocks = (size_t)count;
    return HEAPFMT_OK;
}

static int parse_summary(heapfmt_reader *r, const uint8_t *q,
                         const uint8_t *qe, uint64_t offset)
{
    hf_summary_rec s;
    const char *why = hf_summary_decode(q, qe, &s);
    if (why)
        return bad_footer(r, offset, why);
    size_t n = r->footer.nclasses;
    if (hf_grow(&r->al, (void **)&r->fclasses, &r->cfclasses, n + 1,
                sizeof *r->fclasses) < 0)
        return hf_rfail(r, HEAPFMT_E_NOMEM, 0, offset,
                        "out of memory for the class summary");
    char *name = NULL;
    if (s.name_len) {
        if (!(name = hf_arena_alloc(&r->footer_arena, s.name_len + 1)))
            return hf_rfail(r, HEAPFMT_E_NOMEM, 0, offset,
                            "out of memory for the class summary");
        memcpy(name, s.name, s.name_len);
        name[s.name_len] = '\0';
    }
    r->fclasses[n] = (heapfmt_class_summary){(uint32_t)s.index, s.id, s.flags,
                                             s.count, s.bytes, name,
                                             s.name_len};
    r->footer.nclasses = n + 1;
    return HEAPFMT_OK;
}

int hf_footer_parse(heapfmt_reader *r, const uint8_t *p, size_t len,
                    uint64_t offset)
{
    hf_arena_free(&r->footer_arena);
    memset(&r->footer, 0, sizeof r->footer);
    const uint8_t *end = p + len;
    int have_totals = 0, rc = HEAPFMT_OK;
    while (p < end && rc == HEAPFMT_OK) {
        unsigned tag = *p++;
        uint64_t rlen;
        if (hf_get_varint(&p, end, &rlen) < 0 || rlen > (uint64_t)(end - p))
            return bad_footer(r, offset, "record runs past the block");
        const uint8_t *q = p, *qe = p + rlen;
        p = qe;
        if (tag == HEAPFMT_TAG_TOTALS) {
            const char *why = hf_totals_decode(q, qe, r->minor, &r->footer.totals);
            if (why)
                return bad_footer(r, offset, why);
            have_totals = 1;
        } else if (tag == HEAPFMT_TAG_BLOCKS) {
            rc = parse_blocks(r, q, qe, offset);
        } else if (tag == HEAPFMT_TAG_SUMMARY) {
            rc = parse_summary(r, q, qe, offset);
        } else if (tag == 0) {
            return bad_footer(r, offset, "invalid record tag 0");
        }
    }
    if (rc != HEAPFMT_OK)
        return rc;
    if (!have_totals)
        return bad_footer(r, offset, "no TOTALS record");
    r->footer.blocks = r->fblocks;
    r->footer.classes = r->fclasses;
    r->footer.offset = offset;
    return HEAPFMT_OK;
}

static int no_footer(heapfmt_reader *r, const char *why)
{
    return hf_rfail(r, HEAPFMT_E_NO_FOOTER, 0, 0, "%s", why);
}

/* Seeks to an absolute offset; returns 0 or -1. */
static int seek_to(heapfmt_reader *r, uint64_t off)
{
    return r->seek(r->opaque, (int64_t)off, 0) == (int64_t)off ? 0 : -1;
}

static int load_footer(heapfmt_reader *r, uint64_t size, uint8_t **buf,
                       size_t *cap)
{
    uint8_t t[HF_TRAILER_SIZE];
    size_t got;
    uint64_t tpos = size - HF_TRAILER_SIZE;
    hf_trailer tr;
    if (seek_to(r, tpos) < 0)
        return no_footer(r, "cannot seek in the input");
    if (hf_read_full(r, t, sizeof t, &got) != HEAPFMT_OK || got < sizeof t ||
        hf_trailer_decode(t, 0, &tr) != NULL)
        return no_footer(r, "no valid trailer: the dump is incomplete");
    uint64_t fo = tr.footer_offset;
    if (fo < HF_HEADER_SIZE || fo > tpos - HF_BLOCK_HEADER_SIZE)
        return bad_footer(r, fo, "trailer points outside the file");
    if (seek_to(r, fo) < 0)
        return no_footer(r, "cannot seek in the input");
    hf_block_header b;
    int fatal;
    int rc = hf_block_read_header(r, fo, &b, &got, &fatal);
    if (rc == HEAPFMT_E_TRUNCATED)
        return bad_footer(r, fo, "footer block header cut short");
    if (rc != HEAPFMT_OK)
        return rc;
    if (b.kind != HF_KIND_FOOTER ||
        fo + HF_BLOCK_HEADER_SIZE + b.stored_len != tpos)
        return bad_footer(r, fo, "trailer does not point at the footer");
    rc = hf_block_payload(r, &b, fo, buf, cap);
    if (rc == HEAPFMT_E_TRUNCATED)
        return bad_footer(r, fo, "footer block cut short");
    if (rc != HEAPFMT_OK)
        return rc;
    return hf_footer_parse(r, *buf, b.raw_len, fo);
}

int heapfmt_reader_footer(heapfmt_reader *r, const heapfmt_footer **out)
{
    if (!r || !out)
        return HEAPFMT_E_ARG;
    *out = NULL;
    if (r->have_footer) {
        *out = &r->footer;
        return HEAPFMT_OK;
    }
    if (!r->seek)
        return no_footer(r, "input is not seekable");
    if (r->state == HF_R_FAILED && r->failure.code != HEAPFMT_E_CORRUPT &&
        r->failure.code != HEAPFMT_E_TRUNCATED) {
        r->err = r->failure;
        return r->err.code;
    }
    int64_t size = r->seek(r->opaque, 0, 1);
    if (size < 0)
        return no_footer(r, "cannot seek in the input");
    uint64_t saved = r->pos;
    int rc;
    if ((uint64_t)size < HF_HEADER_SIZE + HF_BLOCK_HEADER_SIZE + HF_TRAILER_SIZE) {
        rc = no_footer(r, "no valid trailer: the dump is incomplete");
    } else {
        uint8_t *buf = NULL;
        size_t cap = 0;
        rc = load_footer(r, (uint64_t)size, &buf, &cap);
        hf_free(&r->al, buf);
    }
    /* Go back to where sequential reading was. */
    if (seek_to(r, saved) < 0)
        return hf_rfatal(r, HEAPFMT_E_IO, 0, saved,
                         "cannot seek back in the input");
    r->pos = saved;
    if (rc != HEAPFMT_OK) {
        memset(&r->footer, 0, sizeof r->footer);
        return rc;
    }
    r->have_footer = 1;
    *out = &r->footer;
    return HEAPFMT_OK;
}
