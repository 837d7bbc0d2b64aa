/* cli_undefined.c -- ids a record uses that no record defined before it
 * (cli_undefined.h). */
#include <inttypes.h>
#include <stdio.h>

#include "cli_undefined.h"

static size_t use(const heapfmt_record *rec, cli_undef_fn fn, void *ctx,
                  int kind, uint32_t id, uint32_t slot, const char *role)
{
    cli_undef_use u = {kind, id, slot, role};
    fn(ctx, rec, &u);
    return 1;
}

/* A string the record refers to, if it is not defined (id 0 is "none"). */
static size_t string_use(const heapfmt_record *rec, cli_undef_fn fn,
                         void *ctx, const heapfmt_rstring *s, const char *role)
{
    if (s == NULL || s->id == 0 || !s->undefined)
        return 0;
    return use(rec, fn, ctx, CLI_UNDEF_STRING, s->id, s->slot, role);
}

static size_t frame_uses(const heapfmt_record *rec, cli_undef_fn fn,
                         void *ctx, const heapfmt_rframe *f)
{
    return string_use(rec, fn, ctx, f->function, "function string") +
           string_use(rec, fn, ctx, f->library, "library string") +
           string_use(rec, fn, ctx, f->file, "file string");
}

static size_t object_uses(const heapfmt_record *rec, cli_undef_fn fn,
                          void *ctx)
{
    const heapfmt_robject *o = rec->u.object;
    size_t n = 0;
    if (o->klass->index != 0 && o->klass->undefined)
        n += use(rec, fn, ctx, CLI_UNDEF_CLASS, o->klass->index,
                 o->klass->slot, "class index");
    n += string_use(rec, fn, ctx, o->type, "type string");
    if (o->fields & HEAPFMT_F_SITE)
        n += string_use(rec, fn, ctx, o->file, "file string");
    if ((o->fields & HEAPFMT_F_STACK) && o->stack != NULL &&
        o->stack->undefined)
        n += use(rec, fn, ctx, CLI_UNDEF_STACK, o->stack->id,
                 o->stack->slot, "stack");
    return n;
}

size_t cli_undefined_each(const heapfmt_record *rec, cli_undef_fn fn,
                          void *ctx)
{
    switch (rec->tag) {
    case HEAPFMT_TAG_OBJECT:
        return object_uses(rec, fn, ctx);
    case HEAPFMT_TAG_CLASS:
        return string_use(rec, fn, ctx, rec->u.klass->name,
                          "class name string");
    case HEAPFMT_TAG_ROOT:
        return string_use(rec, fn, ctx, rec->u.root->kind, "root kind string");
    case HEAPFMT_TAG_FRAME:
        return frame_uses(rec, fn, ctx, rec->u.frame);
    case HEAPFMT_TAG_STACK: {
        size_t n = 0;
        const heapfmt_rstack *s = rec->u.stack;
        for (size_t i = 0; i < s->nframes; i++)
            if (s->frames[i]->undefined)
                n += use(rec, fn, ctx, CLI_UNDEF_FRAME, s->frames[i]->id,
                         s->frames[i]->slot, "frame");
        return n;
    }
    case HEAPFMT_TAG_LIFESPAN: {
        const heapfmt_rlifespan *l = rec->u.lifespan;
        size_t n = 0;
        if (l->stack != NULL && l->stack->undefined)
            n += use(rec, fn, ctx, CLI_UNDEF_STACK, l->stack->id,
                     l->stack->slot, "stack");
        return n + string_use(rec, fn, ctx, l->file, "file string");
    }
    default:
        return 0;
    }
}

size_t cli_undefined_labels(const heapfmt_record *rec,
                            const heapfmt_rlabel *labels, size_t n,
                            cli_undef_fn fn, void *ctx)
{
    size_t found = 0;
    for (size_t i = 0; i < n; i++)
        if (labels[i].kind != HEAPFMT_LABEL_NONE &&
            labels[i].kind != HEAPFMT_LABEL_INDEX)
            found += string_use(rec, fn, ctx, labels[i].name, "label string");
    return found;
}

const char *cli_undef_record_name(int kind)
{
    switch (kind) {
    case CLI_UNDEF_CLASS:
        return "CLASS";
    case CLI_UNDEF_FRAME:
        return "FRAME";
    case CLI_UNDEF_STACK:
        return "STACK";
    default:
        return "STRING";
    }
}

const char *cli_undef_where(const heapfmt_record *rec, char *buf, size_t cap)
{
    static const char *const tags[] = {
        "", "META", "STRING", "CLASS", "OBJECT", "ROOT",
        "END", "FRAME", "STACK", "LIFESPAN", "EVENTS"};
    if (rec->tag == HEAPFMT_TAG_OBJECT)
        snprintf(buf, cap, "record %" PRIu64 " (object %#" PRIx64 ")",
                 rec->index, rec->u.object->id);
    else
        snprintf(buf, cap, "record %" PRIu64 " (%s)", rec->index,
                 rec->tag > 0 && rec->tag <= HEAPFMT_TAG_EVENTS
                     ? tags[rec->tag]
                     : "?");
    return buf;
}

void cli_undefined_note(void *ctx, const heapfmt_record *rec,
                        const cli_undef_use *u)
{
    cli_undefined *un = ctx;
    if (un->count++ == 0) {
        char where[64];
        snprintf(un->first, sizeof un->first, "%s: %s %" PRIu32,
                 cli_undef_where(rec, where, sizeof where), u->role, u->id);
    }
}
