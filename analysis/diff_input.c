/* diff_input.c -- one dump of a diff: reading it, and naming its classes. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_code.h"
#include "cli_search.h"
#include "cli_names.h"
#include "cli_stack.h"
#include "diff_input.h"
#include "diff_match.h"
#include "objset.h"

#define UNSET UINT32_MAX

/* Whether the footer's classes are sorted by index, so that a class's
 * final name can be found by binary search. */
static int sorted_by_index(const heapfmt_footer *f)
{
    for (size_t i = 1; i < f->nclasses; i++)
        if (f->classes[i - 1].index >= f->classes[i].index)
            return 0;
    return 1;
}

int input_open(input *in, const char *path, const diff_mem *mem,
               unsigned want, an_ctx *ctx)
{
    memset(in, 0, sizeof *in);
    in->mem = mem;
    in->ctx = ctx;
    in->name = path;
    in->alloc = diff_mem_heapfmt(mem);
    in->want = want;
    tuples_init(&in->lkinds, mem, OBJSET_MAX_KINDS);
    cli_strmap_init(&in->codes);
    heapfmt_reader_options opt = HEAPFMT_READER_OPTIONS_INIT;
    opt.allocator = &in->alloc;
    int rc = an_dump_open(&in->d, path, &opt, ctx);
    in->name = in->d.name;
    if (rc == AN_INCOMPLETE) {
        /* Cut inside its header: an incomplete dump with nothing in it
         * (the reason is said). */
        in->status = rc;
        return rc;
    }
    if (rc != AN_OK)
        return rc;
    const heapfmt_footer *f;
    /* Only a complete, seekable dump has a footer we can read now;
     * anything else simply goes without. */
    if (heapfmt_reader_footer(in->d.reader, &f) == HEAPFMT_OK) {
        in->footer = f;
        in->footer_names = sorted_by_index(f);
    }
    return AN_OK;
}

uint64_t input_footer_objects(const input *in)
{
    return in->footer != NULL ? in->footer->totals.objects : 0;
}

/* Objects between two looks at the clock for the progress line. */
#define PROGRESS_EVERY 65536u

typedef struct scan_ctx {
    input *in;
    input_sink sink;
    void *ctx;
    uint32_t tick;
    int v8;                 /* -1 until the first object, then whether the
                               dump is a V8 snapshot's (META vm.name) */
} scan_ctx;

/* Notes that objects of class slot with neither type nor site have local
 * kind lk, so that the next ones skip the hash table. Returns 0 or -1. */
/* Grows a per-class-slot array (*a, *n entries) to hold slot, the new
 * entries UNSET. Returns 0 or -1. */
static int slot_array_fit(input *in, uint32_t **a, size_t *n, uint32_t slot)
{
    if (slot < *n)
        return 0;
    size_t old = *n, cap = old;
    if (diff_mem_reserve(in->mem, (void **)a, &cap, (size_t)slot + 1,
                         sizeof **a) != 0)
        return -1;
    for (size_t i = old; i < cap; i++)
        (*a)[i] = UNSET;
    *n = cap;
    return 0;
}

static int remember_slot_kind(input *in, uint32_t slot, uint32_t lk)
{
    if (slot_array_fit(in, &in->slot_kind, &in->nslot_kind, slot) != 0)
        return -1;
    in->slot_kind[slot] = lk;
    return 0;
}

/* Notes the reader's stack of a stack slot, to name it at the end.
 * Returns 0 or -1. */
static int remember_stack(input *in, const heapfmt_rstack *s)
{
    if (s->slot >= in->nslot_stack) {
        size_t old = in->nslot_stack, cap = old;
        if (diff_mem_reserve(in->mem, (void **)&in->slot_stack, &cap,
                             (size_t)s->slot + 1, sizeof *in->slot_stack) != 0)
            return -1;
        for (size_t i = old; i < cap; i++)
            in->slot_stack[i] = NULL;
        in->nslot_stack = cap;
    }
    in->slot_stack[s->slot] = s;
    return 0;
}

/* Keeps a LIFESPAN record, and its stack to name it. Returns 0 or -1. */
static int keep_lifespan(input *in, const heapfmt_rlifespan *l)
{
    if (l->key != HEAPFMT_LIFESPAN_SITE && l->key != HEAPFMT_LIFESPAN_STACK)
        return 0; /* a stack at a site: no --by groups on that */
    if (diff_mem_reserve(in->mem, (void **)&in->life, &in->clife,
                         in->nlife + 1, sizeof *in->life) != 0)
        return -1;
    input_life *e = &in->life[in->nlife++];
    memset(e, 0, sizeof *e);
    e->key = l->key;
    if (l->key == HEAPFMT_LIFESPAN_STACK) {
        e->stack = l->stack->slot + 1;
        if ((l->stack->slot >= in->nslot_stack ||
             in->slot_stack[l->stack->slot] == NULL) &&
            remember_stack(in, l->stack) != 0)
            return -1;
    } else {
        e->file = l->file->slot;
        e->line = l->line;
    }
    e->life = (diff_life){l->allocs, l->frees, l->lifetime_us, l->oldest_us};
    return 0;
}

static int on_record(void *opaque, heapfmt_reader *r, const heapfmt_record *rec)
{
    scan_ctx *s = opaque;
    input *in = s->in;
    if (rec->tag == HEAPFMT_TAG_LIFESPAN) {
        if ((in->want & INPUT_LIFE) && keep_lifespan(in, rec->u.lifespan) != 0) {
            return an_no_memory(in->ctx, in->name);
        }
        return 0;
    }
    if (rec->tag == HEAPFMT_TAG_CLASS) {
        /* A (re)definition: the cached name of this slot may be stale. */
        uint32_t slot = rec->u.klass->slot;
        if (slot < in->nslot_class)
            in->slot_class[slot] = UNSET;
        return 0;
    }
    if (rec->tag != HEAPFMT_TAG_OBJECT)
        return 0;
    const heapfmt_robject *o = rec->u.object;
    if (s->v8 < 0) {
        const heapfmt_rmeta *vm = heapfmt_reader_meta_get(r, "vm.name");
        s->v8 = vm && vm->type == HEAPFMT_META_TEXT && vm->text_len == 2 &&
                memcmp(vm->text, "v8", 2) == 0;
    }
    /* DevTools' Comparison (and Summary) leave out the nodes of no size:
     * V8 numbers the (string), (number), (synthetic)... nodes of size 0
     * anew in every snapshot, and the nodes whose size DevTools gives to
     * their owner (heapfmt-import does the same) */
    if (s->v8 && o->size == 0) {
        in->v8_sizeless++;
        return 0;
    }
    uint32_t slot = o->klass->slot;
    tuple k = {.klass = slot};
    if (in->want & INPUT_TYPE)
        k.type = o->type->slot;
    if (o->fields & HEAPFMT_F_SITE) {
        in->with_site++;
        if (in->want & INPUT_SITE) {
            k.file = tuple_file_of_slot(o->file->slot);
            k.line = o->line;
        }
    }
    if ((o->fields & HEAPFMT_F_STACK) && o->stack != NULL) {
        in->with_stack++;
        if (in->want & (INPUT_STACK | INPUT_FRAME)) {
            k.stack = o->stack->slot + 1;
            if ((o->stack->slot >= in->nslot_stack ||
                 in->slot_stack[o->stack->slot] == NULL) &&
                remember_stack(in, o->stack) != 0) {
                return an_no_memory(in->ctx, in->name);
            }
        }
    }
    if (in->want & (INPUT_IMEMO | INPUT_ISEQ)) {
        char buf[CLI_CODE_MAX];
        const char *key;
        size_t len, i;
        if (cli_code_key(in->want & INPUT_IMEMO ? CLI_CODE_IMEMO
                                                : CLI_CODE_ISEQ,
                         o, buf, &key, &len)) {
            if (cli_strmap_add(&in->codes, key, len, &i) < 0) {
                return an_no_memory(in->ctx, in->name);
            }
            k.frame = (uint32_t)i + 1;
            in->with_code++;
        }
    }
    uint32_t lk;
    /* the class alone: the common case */
    int bare = k.type == 0 && k.file == 0 && k.stack == 0 && k.frame == 0;
    if (bare && slot < in->nslot_kind && in->slot_kind[slot] != UNSET) {
        lk = in->slot_kind[slot];
    } else {
        int rc = tuples_intern(&in->lkinds, &k, &lk);
        if (rc == 0 && bare)
            rc = remember_slot_kind(in, slot, lk);
        if (rc != 0) {
            return an_fail(in->ctx, AN_ERROR, in->name, "%s",
                           rc == -2
                               ? "too many distinct classes, types and sites"
                               : "out of memory");
        }
    }
    in->objects++;
    if (--s->tick == 0) {
        s->tick = PROGRESS_EVERY;
        heapfmt_progress p;
        heapfmt_reader_progress(r, &p);
        an_progress_tick(in->ctx, p.offset, in->objects);
    }
    return s->sink(s->ctx, o->id, lk, o->size);
}

/* The size of a regular input file, for the progress line; 0 if unknown. */
static uint64_t input_size(const input *in)
{
    struct stat st;
    if (fstat(in->d.fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        return (uint64_t)st.st_size;
    return 0;
}

int input_scan(input *in, input_sink sink, void *ctx)
{
    if (in->d.reader == NULL) /* cut inside its header */
        return in->status = AN_INCOMPLETE;
    scan_ctx s;
    memset(&s, 0, sizeof s);
    s.in = in;
    s.sink = sink;
    s.ctx = ctx;
    s.tick = PROGRESS_EVERY;
    s.v8 = -1;
    an_progress_begin(in->ctx, in->name, input_size(in));
    in->status = an_scan(&in->d, on_record, &s, in->ctx);
    an_progress_end(in->ctx);
    ident_capture(&in->id, in->d.reader);
    return in->status;
}

/* The summary entry of class index, or NULL. */
static const heapfmt_class_summary *footer_class(const heapfmt_footer *f,
                                                 uint32_t index)
{
    size_t lo;
    CLI_LOWER_BOUND(lo, f->nclasses, i, f->classes[i].index < index);
    return lo < f->nclasses && f->classes[lo].index == index ? &f->classes[lo]
                                                              : NULL;
}

/* Whether a class's name may still change: it has none yet, or its name
 * or the class itself was never defined (a lost block). */
static int provisional(const heapfmt_rclass *c)
{
    return c->index != 0 &&
           (c->undefined || c->name == NULL || c->name->len == 0 ||
            c->name->undefined);
}

/* The class name id of class slot, or DIFF_MATCH_DEFER; -1 if out of memory. */
static int slot_class(input *in, cli_strmap *t, uint32_t slot, int final,
                      uint32_t *out)
{
    if (slot < in->nslot_class && in->slot_class[slot] != UNSET) {
        *out = in->slot_class[slot];
        return 0;
    }
    const heapfmt_rclass *c = heapfmt_reader_class(in->d.reader, slot);
    if (c == NULL) /* cannot happen: the slot came from the reader */
        return -1;
    cli_name buf;
    const char *name = NULL;
    size_t len = 0;
    const heapfmt_class_summary *s =
        in->footer_names && c->index != 0
            ? footer_class(in->footer, c->index)
            : NULL;
    if (s != NULL) {
        name = cli_summary_shown(s, &buf, &len);
    } else if (!final && provisional(c)) {
        *out = DIFF_MATCH_DEFER; /* not cached: asked again next time */
        return 0;
    } else {
        name = cli_class_shown(c, &buf, &len);
    }
    uint32_t id;
    if (nameid_get(t, name, len, &id) != 0)
        return -1;
    if (slot_array_fit(in, &in->slot_class, &in->nslot_class, slot) != 0)
        return -1;
    in->slot_class[slot] = id;
    *out = id;
    return 0;
}

int input_classes(input *in, cli_strmap *t, int final)
{
    size_t n = tuples_count(&in->lkinds);
    if (diff_mem_reserve(in->mem, (void **)&in->lkind_class, &in->clkind_class, n,
                    sizeof *in->lkind_class) != 0)
        return -1;
    for (size_t lk = 0; lk < n; lk++)
        if (slot_class(in, t, tuples_get(&in->lkinds, (uint32_t)lk)->klass, final,
                       &in->lkind_class[lk]) != 0)
            return -1;
    return 0;
}

/* The name id of the type or site file in reader string slot: its text,
 * or the placeholders histo(1) prints too: "#<undefined string N>" when
 * its STRING record was lost, and for an empty file name "(no file)".
 * An absent type (slot 0) is DIFF_NONE. */
static int string_name(input *in, cli_strmap *t, uint32_t slot, int is_file,
                       uint32_t *out)
{
    const heapfmt_rstring *s = heapfmt_reader_string(in->d.reader, slot);
    cli_name buf;
    const char *text;
    size_t len;
    if (s == NULL || (!is_file && (slot == 0 || s->len == 0))) {
        *out = DIFF_NONE;
        return 0;
    }
    if (s->undefined) {
        snprintf(buf.s, sizeof buf.s, "#<undefined string %u>",
                 (unsigned)s->id);
        text = buf.s;
        len = strlen(buf.s);
    } else if (slot == 0 || s->len == 0) {
        text = "(no file)";
        len = strlen(text);
    } else {
        text = cli_name_cut(s->ptr, s->len, &buf, &len);
    }
    return nameid_get(t, text, len, out);
}

/* The reader's stack of local stack part lstack (the stack slot + 1, 0
 * for none), or NULL. */
static const heapfmt_rstack *stack_of(const input *in, uint32_t lstack)
{
    return lstack != 0 && lstack - 1 < in->nslot_stack
               ? in->slot_stack[lstack - 1]
               : NULL;
}

int input_stacks(input *in, cli_strmap *t)
{
    size_t n = tuples_count(&in->lkinds);
    if (n <= in->nlkind_stack)
        return 0;
    if (diff_mem_reserve(in->mem, (void **)&in->lkind_stack,
                         &in->clkind_stack, n, sizeof *in->lkind_stack) != 0)
        return -1;
    size_t had = in->cslot_stack_name;
    if (diff_mem_reserve(in->mem, (void **)&in->slot_stack_name,
                         &in->cslot_stack_name, in->nslot_stack + 1,
                         sizeof *in->slot_stack_name) != 0)
        return -1;
    for (size_t i = had; i < in->cslot_stack_name; i++)
        in->slot_stack_name[i] = UNSET;
    cli_buf b = {0};
    int rc = 0;
    for (size_t lk = in->nlkind_stack; lk < n && rc == 0; lk++) {
        uint32_t lstack = tuples_get(&in->lkinds, (uint32_t)lk)->stack;
        const heapfmt_rstack *s = stack_of(in, lstack);
        in->lkind_stack[lk] = DIFF_NONE;
        if (s == NULL)
            continue;
        in->lost_stacks |= s->undefined;
        uint32_t *name = &in->slot_stack_name[lstack];
        if (*name == UNSET &&
            (cli_stack_name(&b, s, CLI_STACK_TEXT) != 0 ||
             nameid_get(t, b.s, b.len, name) != 0))
            rc = -1;
        in->lkind_stack[lk] = *name;
    }
    cli_buf_free(&b);
    if (rc == 0)
        in->nlkind_stack = n;
    return rc;
}

/* The name id of the top frame of local stack part lstack, DIFF_NONE for
 * no stack. b is scratch room. */
static int frame_name(input *in, cli_strmap *t, uint32_t lstack, cli_buf *b,
                      uint32_t *out)
{
    const heapfmt_rstack *s = stack_of(in, lstack);
    *out = DIFF_NONE;
    if (s == NULL)
        return 0;
    if (cli_stack_top_name(b, s, CLI_STACK_TEXT) != 0)
        return -1;
    return nameid_get(t, b->s, b->len, out);
}

int input_resolve(input *in, cli_strmap *t, tuples *kinds, uint32_t **map)
{
    /* No object comes after this: the local index can go before the
     * shared table grows. */
    tuples_drop_index(&in->lkinds);
    size_t n = tuples_count(&in->lkinds);
    uint32_t *m = diff_mem_alloc(in->mem, (n > 0 ? n : 1) * sizeof *m);
    if (m == NULL)
        return -1;
    /* The first dump's kinds are all new: room for them at once, rather
     * than growing (and rehashing) in steps. For later dumps most kinds
     * exist already, and reserving n would mostly waste memory. */
    if (tuples_count(kinds) == 0 && tuples_reserve(kinds, n) != 0) {
        diff_mem_free(in->mem, m);
        return -1;
    }
    if ((in->want & INPUT_STACK) && input_stacks(in, t) != 0) {
        diff_mem_free(in->mem, m);
        return -1;
    }
    cli_buf b = {0};
    for (size_t lk = 0; lk < n; lk++) {
        const tuple *l = tuples_get(&in->lkinds, (uint32_t)lk);
        tuple k = {.line = l->line};
        int rc = slot_class(in, t, l->klass, 1, &k.klass);
        if (rc == 0)
            rc = string_name(in, t, l->type, 0, &k.type);
        if (rc == 0 && l->file != 0)
            rc = string_name(in, t, tuple_slot_of_file(l), 1, &k.file);
        if (in->want & INPUT_STACK)
            k.stack = in->lkind_stack[lk];
        if (rc == 0 && (in->want & INPUT_FRAME))
            rc = frame_name(in, t, l->stack, &b, &k.frame);
        if (rc == 0 && l->frame != 0) { /* INPUT_IMEMO, ISEQ */
            size_t len;
            const char *s = cli_strmap_key(&in->codes, l->frame - 1, &len);
            rc = nameid_get(t, s, len, &k.frame);
        }
        if (rc == 0)
            rc = tuples_intern(kinds, &k, &m[lk]);
        if (rc != 0) {
            cli_buf_free(&b);
            diff_mem_free(in->mem, m);
            return rc;
        }
    }
    cli_buf_free(&b);
    *map = m;
    return 0;
}

int input_lifespans(input *in, cli_strmap *t, unsigned by,
                    diff_life_entry **out, size_t *n, size_t *cap)
{
    cli_buf b = {0};
    int rc = 0;
    for (size_t i = 0; i < in->nlife && rc == 0; i++) {
        const input_life *e = &in->life[i];
        tuple kind = {0};
        if (by == DIFF_BY_SITE && e->key == HEAPFMT_LIFESPAN_SITE) {
            kind.line = e->line;
            rc = string_name(in, t, e->file, 1, &kind.file);
        } else if (by == DIFF_BY_STACK && e->key == HEAPFMT_LIFESPAN_STACK) {
            const heapfmt_rstack *st = stack_of(in, e->stack);
            kind.stack = DIFF_NONE;
            if (st != NULL)
                rc = cli_stack_name(&b, st, CLI_STACK_TEXT) != 0 ||
                             nameid_get(t, b.s, b.len, &kind.stack) != 0
                         ? -1
                         : 0;
        } else if (by == DIFF_BY_FRAME && e->key == HEAPFMT_LIFESPAN_STACK) {
            rc = frame_name(in, t, e->stack, &b, &kind.frame);
        } else {
            continue;
        }
        if (rc == 0 && diff_mem_reserve(in->mem, (void **)out, cap, *n + 1,
                                        sizeof **out) != 0)
            rc = -1;
        if (rc == 0) {
            (*out)[*n].key = summary_group_key(&kind, by);
            (*out)[*n].life = e->life;
            (*n)++;
        }
    }
    cli_buf_free(&b);
    return rc;
}

void input_close(input *in)
{
    an_dump_close(&in->d);
    in->footer = NULL;
    tuples_free(&in->lkinds);
    cli_strmap_free(&in->codes);
    DIFF_MEM_DROP(in->mem, in->slot_class);
    DIFF_MEM_DROP(in->mem, in->slot_kind);
    DIFF_MEM_DROP(in->mem, in->lkind_class);
    DIFF_MEM_DROP(in->mem, in->slot_stack);
    DIFF_MEM_DROP(in->mem, in->lkind_stack);
    DIFF_MEM_DROP(in->mem, in->slot_stack_name);
    in->cslot_stack_name = 0;
    DIFF_MEM_DROP(in->mem, in->life);
    in->nlife = in->clife = 0;
    in->nslot_class = in->nslot_kind = in->clkind_class = 0;
    in->nslot_stack = in->nlkind_stack = in->clkind_stack = 0;
}
