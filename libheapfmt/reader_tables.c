/* reader_tables.c -- the reader's strings, classes and META pairs.
 *
 * Entries live in an arena so pointers handed out stay valid; ids map to
 * dense slots through hf_idtab. Memory is capped by table_limit. */
#include "reader_internal.h"

static uint64_t table_bytes(const heapfmt_reader *r)
{
    return r->arena.total + hf_idtab_bytes(&r->string_ids) +
           hf_idtab_bytes(&r->class_ids) + hf_idtab_bytes(&r->frame_ids) +
           hf_idtab_bytes(&r->stack_ids) +
           (r->cstrings + r->cclasses + r->cframes + r->cstacks) *
               sizeof(void *) +
           r->cmeta * sizeof(heapfmt_rmeta);
}

int hf_table_nomem(heapfmt_reader *r, const char *what)
{
    return hf_rfail(r, HEAPFMT_E_NOMEM, 0, r->block_offset,
                    "out of memory for the %s table", what);
}

int hf_table_slot(heapfmt_reader *r, hf_idtab *ids, void **slots,
                  size_t *cap, size_t n, size_t elem, uint64_t id,
                  const char *what)
{
    if (hf_grow(&r->al, slots, cap, n + 1, elem) < 0 ||
        hf_idtab_put(ids, &r->al, id, (uint32_t)n) < 0)
        return hf_table_nomem(r, what);
    return HEAPFMT_OK;
}

void *hf_table_alloc(heapfmt_reader *r, size_t size, int *rc)
{
    if (table_bytes(r) + size > r->table_limit) {
        *rc = hf_rfail(r, HEAPFMT_E_LIMIT, 0, r->block_offset,
                       "string, class and stack tables exceed %llu bytes",
                       (unsigned long long)r->table_limit);
        return NULL;
    }
    void *p = hf_arena_alloc(&r->arena, size);
    if (!p)
        *rc = hf_table_nomem(r, "string");
    return p;
}

int hf_tables_init(heapfmt_reader *r)
{
    hf_arena_init(&r->arena, &r->al);
    hf_idtab_init(&r->string_ids);
    hf_idtab_init(&r->class_ids);
    hf_idtab_init(&r->frame_ids);
    hf_idtab_init(&r->stack_ids);
    r->empty_string = (heapfmt_rstring){"", 0, 0, 0, 0, 0};
    r->dropped_string = (heapfmt_rstring){"", 0, 0, 0, 0, 1};
    r->no_class = (heapfmt_rclass){0, 0, 0, 0, 0, NULL, 0};
    /* Slot 0 of each table is the "none" entry. */
    if (hf_grow(&r->al, (void **)&r->strings, &r->cstrings, 16,
                sizeof *r->strings) < 0 ||
        hf_grow(&r->al, (void **)&r->classes, &r->cclasses, 16,
                sizeof *r->classes) < 0)
        return HEAPFMT_E_NOMEM;
    r->strings[0] = &r->empty_string;
    r->classes[0] = &r->no_class;
    r->nstrings = r->nclasses = 1;
    return HEAPFMT_OK;
}

void hf_tables_free(heapfmt_reader *r)
{
    hf_arena_free(&r->arena);
    hf_idtab_free(&r->string_ids, &r->al);
    hf_idtab_free(&r->class_ids, &r->al);
    hf_idtab_free(&r->frame_ids, &r->al);
    hf_idtab_free(&r->stack_ids, &r->al);
    hf_free(&r->al, r->frames);
    hf_free(&r->al, r->stacks);
    r->frames = NULL;
    r->stacks = NULL;
    hf_free(&r->al, r->strings);
    hf_free(&r->al, r->scratch_text);
    r->scratch_text = NULL;
    hf_free(&r->al, r->classes);
    hf_free(&r->al, r->meta);
    r->strings = NULL;
    r->classes = NULL;
    r->meta = NULL;
}

/* Adds a string entry for id; text NULL makes an "undefined" placeholder. */
static int add_string(heapfmt_reader *r, uint64_t id, const uint8_t *text,
                      size_t len, heapfmt_rstring **out)
{
    int rc = HEAPFMT_OK;
    heapfmt_rstring *s = hf_table_alloc(r, sizeof *s + len + 1, &rc);
    if (!s)
        return rc;
    char *copy = (char *)(s + 1);
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    *s = (heapfmt_rstring){copy, len, (uint32_t)id, (uint32_t)r->nstrings,
                           text == NULL, 0};
    if ((rc = hf_table_slot(r, &r->string_ids, (void **)&r->strings,
                            &r->cstrings, r->nstrings, sizeof *r->strings, id,
                            "string")) != HEAPFMT_OK)
        return rc;
    r->strings[r->nstrings++] = s;
    *out = s;
    return HEAPFMT_OK;
}

/* A STRING the caller does not keep, delivered from the scratch entry
 * (its text valid until the next record). */
static int deliver_dropped(heapfmt_reader *r, uint64_t id, uint32_t slot,
                           const uint8_t *text, size_t len,
                           const heapfmt_rstring **out)
{
    if (hf_grow(&r->al, (void **)&r->scratch_text, &r->scratch_cap, len + 1,
                1) < 0)
        return hf_table_nomem(r, "string");
    if (len)
        memcpy(r->scratch_text, text, len);
    r->scratch_text[len] = '\0';
    r->scratch_string =
        (heapfmt_rstring){r->scratch_text, len, (uint32_t)id, slot, 0, 1};
    *out = &r->scratch_string;
    return HEAPFMT_OK;
}

int hf_string_define(heapfmt_reader *r, uint64_t id, const uint8_t *text,
                     size_t len, const heapfmt_rstring **out)
{
    uint32_t slot;
    if (id == 0 || id > HEAPFMT_MAX_ID)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                        "STRING id %llu out of range", (unsigned long long)id);
    int keep = r->keep_string == NULL ||
               r->keep_string(r->keep_string_user, (uint32_t)id);
    if (hf_idtab_get(&r->string_ids, id, &slot)) {
        heapfmt_rstring *s =
            slot != HF_STRING_DROPPED ? r->strings[slot] : NULL;
        if (s == NULL || !s->undefined)
            return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                            "STRING id %llu defined twice",
                            (unsigned long long)id);
        if (!keep) { /* the placeholder stays without its text */
            s->undefined = 0;
            s->dropped = 1;
            return deliver_dropped(r, id, slot, text, len, out);
        }
        /* A placeholder made for an earlier use: give it its text. */
        int rc = HEAPFMT_OK;
        char *copy = hf_table_alloc(r, len + 1, &rc);
        if (!copy)
            return rc;
        memcpy(copy, text, len);
        copy[len] = '\0';
        s->ptr = copy;
        s->len = len;
        s->undefined = 0;
        *out = s;
        return HEAPFMT_OK;
    }
    if (!keep) {
        if (hf_idtab_put(&r->string_ids, &r->al, id, HF_STRING_DROPPED) < 0)
            return hf_table_nomem(r, "string");
        return deliver_dropped(r, id, 0, text, len, out);
    }
    heapfmt_rstring *s;
    int rc = add_string(r, id, text ? text : (const uint8_t *)"", len, &s);
    if (rc == HEAPFMT_OK)
        *out = s;
    return rc;
}

int hf_string_ref(heapfmt_reader *r, uint64_t id, int shared,
                  const heapfmt_rstring **out)
{
    uint32_t slot;
    if (id == 0) {
        *out = &r->empty_string;
        return HEAPFMT_OK;
    }
    int dropped = 0;
    if (hf_idtab_get(&r->string_ids, id, &slot)) {
        if (slot != HF_STRING_DROPPED) {
            *out = r->strings[slot];
            return HEAPFMT_OK;
        }
        if (shared) {
            *out = &r->dropped_string;
            return HEAPFMT_OK;
        }
        dropped = 1; /* its own entry from now on, without text */
    }
    if (id > HEAPFMT_MAX_ID)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                        "string id %llu out of range", (unsigned long long)id);
    heapfmt_rstring *s;
    int rc = add_string(r, id, NULL, 0, &s);
    if (rc == HEAPFMT_OK) {
        s->undefined = !dropped;
        s->dropped = dropped;
        *out = s;
    }
    return rc;
}

static int add_class(heapfmt_reader *r, uint64_t index, heapfmt_rclass **out)
{
    int rc = HEAPFMT_OK;
    heapfmt_rclass *c = hf_table_alloc(r, sizeof *c, &rc);
    if (!c)
        return rc;
    *c = (heapfmt_rclass){(uint32_t)index, (uint32_t)r->nclasses, 0, 0, 0,
                          NULL, 1};
    if ((rc = hf_table_slot(r, &r->class_ids, (void **)&r->classes,
                            &r->cclasses, r->nclasses, sizeof *r->classes,
                            index, "class")) != HEAPFMT_OK)
        return rc;
    r->classes[r->nclasses++] = c;
    *out = c;
    return HEAPFMT_OK;
}

int hf_class_define(heapfmt_reader *r, uint64_t index, uint64_t id,
                    const heapfmt_rstring *name, uint64_t super_id,
                    uint64_t flags, const heapfmt_rclass **out)
{
    if (index == 0 || index > HEAPFMT_MAX_ID)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                        "CLASS index %llu out of range",
                        (unsigned long long)index);
    uint32_t slot;
    heapfmt_rclass *c;
    if (hf_idtab_get(&r->class_ids, index, &slot)) {
        c = r->classes[slot];
    } else {
        int rc = add_class(r, index, &c);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    c->id = id;
    c->name = name;
    c->super_id = super_id;
    c->flags = flags;
    c->undefined = 0;
    *out = c;
    return HEAPFMT_OK;
}

int hf_class_ref(heapfmt_reader *r, uint64_t index, const heapfmt_rclass **out)
{
    uint32_t slot;
    if (index == 0) {
        *out = &r->no_class;
        return HEAPFMT_OK;
    }
    if (hf_idtab_get(&r->class_ids, index, &slot)) {
        *out = r->classes[slot];
        return HEAPFMT_OK;
    }
    if (index > HEAPFMT_MAX_ID)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, r->block_offset,
                        "class index %llu out of range",
                        (unsigned long long)index);
    heapfmt_rclass *c;
    int rc = add_class(r, index, &c);
    if (rc == HEAPFMT_OK)
        *out = c;
    return rc;
}

int hf_meta_add(heapfmt_reader *r, const hf_meta *in,
                const heapfmt_rmeta **out)
{
    unsigned type = in->type;
    const uint8_t *key = in->key, *text = in->text;
    size_t klen = in->key_len, tlen = in->text_len;
    uint64_t num = in->num;
    int rc = HEAPFMT_OK;
    char *k = hf_table_alloc(r, klen + 1 + tlen + 1, &rc);
    if (!k)
        return rc;
    memcpy(k, key, klen);
    k[klen] = '\0';
    char *t = k + klen + 1;
    if (tlen)
        memcpy(t, text, tlen);
    t[tlen] = '\0';
    if (hf_grow(&r->al, (void **)&r->meta, &r->cmeta, r->nmeta + 1,
                sizeof *r->meta) < 0)
        return hf_table_nomem(r, "META");
    heapfmt_rmeta *m = &r->meta[r->nmeta++];
    memset(m, 0, sizeof *m);
    m->key = k;
    m->key_len = klen;
    m->type = (int)type;
    m->text = type == HEAPFMT_META_TEXT ? t : "";
    m->text_len = type == HEAPFMT_META_TEXT ? tlen : 0;
    if (type == HEAPFMT_META_UINT)
        m->uint_value = num;
    if (type == HEAPFMT_META_INT)
        m->int_value = (int64_t)hf_unzigzag(num);
    *out = m;
    return HEAPFMT_OK;
}

/* ---- public table access ---- */

const heapfmt_rmeta *heapfmt_reader_meta(const heapfmt_reader *r, size_t *n)
{
    if (n)
        *n = r ? r->nmeta : 0;
    return r ? r->meta : NULL;
}

const heapfmt_rmeta *heapfmt_reader_meta_get(const heapfmt_reader *r,
                                             const char *key)
{
    if (!r || !key)
        return NULL;
    for (size_t i = r->nmeta; i-- > 0;)
        if (strcmp(r->meta[i].key, key) == 0)
            return &r->meta[i];
    return NULL;
}

size_t heapfmt_reader_class_count(const heapfmt_reader *r)
{
    return r ? r->nclasses : 0;
}

const heapfmt_rclass *heapfmt_reader_class(const heapfmt_reader *r, size_t slot)
{
    return r && slot < r->nclasses ? r->classes[slot] : NULL;
}

size_t heapfmt_reader_string_count(const heapfmt_reader *r)
{
    return r ? r->nstrings : 0;
}

const heapfmt_rstring *heapfmt_reader_string(const heapfmt_reader *r,
                                             size_t slot)
{
    return r && slot < r->nstrings ? r->strings[slot] : NULL;
}
