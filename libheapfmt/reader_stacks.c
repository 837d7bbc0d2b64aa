/* reader_stacks.c -- the reader's call-stack frames and stacks (format
 * 1.1). As strings and classes, entries live in the table arena, ids map
 * to dense slots, and an id used before its definition (or whose record
 * was lost) gets an "undefined" placeholder that a later definition
 * fills in. */
#include "reader_internal.h"

static int add_frame(heapfmt_reader *r, uint64_t id, heapfmt_rframe **out)
{
    int rc = HEAPFMT_OK;
    heapfmt_rframe *f = hf_table_alloc(r, sizeof *f, &rc);
    if (!f)
        return rc;
    *f = (heapfmt_rframe){(uint32_t)id, (uint32_t)r->nframes,
                          &r->empty_string, &r->empty_string, 0,
                          &r->empty_string, 0, 1};
    if ((rc = hf_table_slot(r, &r->frame_ids, (void **)&r->frames,
                            &r->cframes, r->nframes, sizeof *r->frames, id,
                            "frame")) != HEAPFMT_OK)
        return rc;
    r->frames[r->nframes++] = f;
    *out = f;
    return HEAPFMT_OK;
}

/* The frame with this id (1 .. HEAPFMT_MAX_ID, checked by the decoder),
 * a placeholder if it is not defined yet. */
static int frame_ref(heapfmt_reader *r, uint64_t id, heapfmt_rframe **out)
{
    uint32_t slot;
    if (hf_idtab_get(&r->frame_ids, id, &slot)) {
        *out = r->frames[slot];
        return HEAPFMT_OK;
    }
    return add_frame(r, id, out);
}

int hf_frame_define(heapfmt_reader *r, const hf_frame_rec *rec,
                    const heapfmt_rframe **out)
{
    heapfmt_rframe *f;
    int rc = frame_ref(r, rec->id, &f);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!f->undefined)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                        "FRAME id %llu defined twice",
                        (unsigned long long)rec->id);
    if ((rc = hf_string_ref(r, rec->function, 0, &f->function)) != HEAPFMT_OK ||
        (rc = hf_string_ref(r, rec->library, 0, &f->library)) != HEAPFMT_OK ||
        (rc = hf_string_ref(r, rec->file, 0, &f->file)) != HEAPFMT_OK)
        return rc;
    f->offset = rec->offset;
    f->line = rec->line;
    f->undefined = 0;
    *out = f;
    return HEAPFMT_OK;
}

static int add_stack(heapfmt_reader *r, uint64_t id, heapfmt_rstack **out)
{
    int rc = HEAPFMT_OK;
    heapfmt_rstack *s = hf_table_alloc(r, sizeof *s, &rc);
    if (!s)
        return rc;
    *s = (heapfmt_rstack){(uint32_t)id, (uint32_t)r->nstacks, 0, NULL, 1};
    if ((rc = hf_table_slot(r, &r->stack_ids, (void **)&r->stacks,
                            &r->cstacks, r->nstacks, sizeof *r->stacks, id,
                            "stack")) != HEAPFMT_OK)
        return rc;
    r->stacks[r->nstacks++] = s;
    *out = s;
    return HEAPFMT_OK;
}

static int stack_lookup(heapfmt_reader *r, uint64_t id, heapfmt_rstack **out)
{
    uint32_t slot;
    if (hf_idtab_get(&r->stack_ids, id, &slot)) {
        *out = r->stacks[slot];
        return HEAPFMT_OK;
    }
    return add_stack(r, id, out);
}

int hf_stack_define(heapfmt_reader *r, const hf_stack_rec *rec,
                    const heapfmt_rstack **out)
{
    heapfmt_rstack *s;
    int rc = stack_lookup(r, rec->id, &s);
    if (rc != HEAPFMT_OK)
        return rc;
    if (!s->undefined)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                        "STACK id %llu defined twice",
                        (unsigned long long)rec->id);
    const heapfmt_rframe **frames =
        hf_table_alloc(r, (size_t)rec->nframes * sizeof *frames, &rc);
    if (!frames)
        return rc;
    /* hf_stack_decode checked that nframes valid varints are there (and
     * the block payload is padded): the check below never fails. */
    const uint8_t *q = rec->frames;
    for (uint64_t i = 0; i < rec->nframes; i++) {
        uint64_t id = 0;
        heapfmt_rframe *f;
        if (hf_get_varint_padded(&q, &id) < 0 || id == 0 ||
            (rc = frame_ref(r, id, &f)) != HEAPFMT_OK)
            return rc != HEAPFMT_OK ? rc : HEAPFMT_E_CORRUPT;
        frames[i] = f;
    }
    s->frames = frames;
    s->nframes = (size_t)rec->nframes;
    s->undefined = 0;
    *out = s;
    return HEAPFMT_OK;
}

int hf_stack_ref(heapfmt_reader *r, uint64_t id, const heapfmt_rstack **out)
{
    heapfmt_rstack *s;
    int rc = stack_lookup(r, id, &s);
    if (rc == HEAPFMT_OK)
        *out = s;
    return rc;
}
