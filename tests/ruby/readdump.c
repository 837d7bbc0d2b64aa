/* readdump.c -- print a heapfmt dump as tab-separated lines, for the Ruby
 * extension's tests (the Ruby scripts in tests/ruby), which parse them.
 *
 * Usage: readdump [-r] FILE
 *   -r   list each object's references (otherwise only their count)
 *
 * One line per record, first column the kind:
 *   M  key  value
 *   C  class-id  flags  super-id  name           ("-" for anonymous)
 *   O  id  type  class-id  size  flags  file  line  generation  nrefs  refs
 *      value
 *   R  kind  nrefs  refs
 * Ids are hex without 0x; refs are comma-separated ("-" for none or when
 * not asked for); an absent file, line or generation is "-"; the value is
 * escaped (\t \n \\ \xNN) and "-" when absent. A class redefined later in
 * the dump gets a second C line: the last one wins.
 * Exit status: 0 for a complete dump, 1 otherwise (message on stderr). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "heapfmt.h"

static void put_escaped(const char *s, size_t n)
{
    if (n == 0) {
        fputc('-', stdout);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\t')
            fputs("\\t", stdout);
        else if (c == '\n')
            fputs("\\n", stdout);
        else if (c == '\\')
            fputs("\\\\", stdout);
        else if (c < 0x20 || c == 0x7f)
            printf("\\x%02x", c);
        else
            fputc(c, stdout);
    }
}

static void put_ids(const uint64_t *ids, long n)
{
    if (n <= 0) {
        fputc('-', stdout);
        return;
    }
    for (long i = 0; i < n; i++)
        printf(i ? ",%" PRIx64 : "%" PRIx64, ids[i]);
}

/* The references of the record just read; a negative count after saying
 * why (what: which record's they are). */
static long record_refs(heapfmt_reader *r, const uint64_t **ids,
                        const char *what)
{
    long n = heapfmt_reader_refs(r, ids);
    if (n < 0)
        fprintf(stderr, "readdump: bad %s: %s\n", what,
                heapfmt_reader_error(r)->message);
    return n;
}

int main(int argc, char **argv)
{
    int refs = 0, argi = 1;
    if (argi < argc && strcmp(argv[argi], "-r") == 0) {
        refs = 1;
        argi++;
    }
    if (argi + 1 != argc) {
        fprintf(stderr, "usage: readdump [-r] FILE\n");
        return 2;
    }
    heapfmt_reader *r;
    int rc = heapfmt_reader_open_path(&r, NULL, argv[argi]);
    if (rc != HEAPFMT_OK) {
        fprintf(stderr, "readdump: %s: %s\n", argv[argi],
                r ? heapfmt_reader_error(r)->message : heapfmt_strerror(rc));
        heapfmt_reader_free(r);
        return 1;
    }
    heapfmt_record rec;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        const uint64_t *ids = NULL;
        long n;
        switch (rec.tag) {
        case HEAPFMT_TAG_META: {
            const heapfmt_rmeta *m = rec.u.meta;
            printf("M\t%s\t", m->key);
            if (m->type == HEAPFMT_META_TEXT)
                put_escaped(m->text, m->text_len);
            else if (m->type == HEAPFMT_META_UINT)
                printf("%" PRIu64, m->uint_value);
            else
                printf("%" PRId64, m->int_value);
            fputc('\n', stdout);
            break;
        }
        case HEAPFMT_TAG_CLASS: {
            const heapfmt_rclass *c = rec.u.klass;
            printf("C\t%" PRIx64 "\t%" PRIu64 "\t%" PRIx64 "\t", c->id,
                   c->flags, c->super_id);
            if (c->name)
                put_escaped(c->name->ptr, c->name->len);
            else
                fputc('-', stdout);
            fputc('\n', stdout);
            break;
        }
        case HEAPFMT_TAG_OBJECT: {
            const heapfmt_robject *o = rec.u.object;
            printf("O\t%" PRIx64 "\t%s\t%" PRIx64 "\t%" PRIu64 "\t%" PRIx64
                   "\t", o->id, o->type->len ? o->type->ptr : "-",
                   o->klass->id, o->size, o->flags);
            if (o->fields & HEAPFMT_F_SITE) {
                put_escaped(o->file->ptr, o->file->len);
                printf("\t%" PRIu64 "\t", o->line);
            } else {
                fputs("-\t-\t", stdout);
            }
            if (o->fields & HEAPFMT_F_GENERATION)
                printf("%" PRIu64, o->generation);
            else
                fputc('-', stdout);
            printf("\t%" PRIu64 "\t", o->nrefs);
            /* The value stays valid until the next heapfmt_reader_next. */
            const char *value = o->value;
            size_t value_len = (o->fields & HEAPFMT_F_VALUE) ? o->value_len : 0;
            if (refs && o->nrefs) {
                if ((n = record_refs(r, &ids, "references")) < 0)
                    goto fail;
                put_ids(ids, n);
            } else {
                fputc('-', stdout);
            }
            fputc('\t', stdout);
            put_escaped(value, value_len);
            fputc('\n', stdout);
            break;
        }
        case HEAPFMT_TAG_ROOT: {
            if ((n = record_refs(r, &ids, "root")) < 0)
                goto fail;
            printf("R\t%s\t%ld\t", rec.u.root->kind->ptr, n);
            put_ids(ids, n);
            fputc('\n', stdout);
            break;
        }
        default:
            break;
        }
    }
    int ok = rc == HEAPFMT_DONE;
    if (!ok)
        fprintf(stderr, "readdump: %s: %s\n", argv[argi],
                heapfmt_reader_error(r)->message);
    heapfmt_reader_free(r);
    return ok ? 0 : 1;
fail:
    heapfmt_reader_free(r);
    return 1;
}
