/* histo_collect.c -- one dump into one column of the table: from the
 * footer summary, or by reading every object.
 *
 * The scan adds each object to an array indexed by its class's (or type
 * string's) dense slot: no lookup, no allocation, no name in the loop.
 * Names are resolved once at the end, when the reader knows every class's
 * final name. References are never decoded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_file.h"
#include "cli_names.h"
#include "histo.h"

/* Objects between two looks at the clock for the progress line. */
#define TICK_OBJECTS 65536u

typedef struct scan {
    histo_acc acc;
    uint64_t tick;  /* objects left before the next progress tick */
    an_ctx *ctx;
    const char *name;
} scan;

static int out_of_memory(const scan *s)
{
    return an_no_memory(s->ctx, s->name);
}

static int on_object(void *ctx, heapfmt_reader *r, const heapfmt_record *rec)
{
    scan *s = ctx;
    if (rec->tag == HEAPFMT_TAG_LIFESPAN)
        return histo_acc_add_lifespan(&s->acc, rec->u.lifespan) != 0
                   ? out_of_memory(s)
                   : 0;
    if (rec->tag != HEAPFMT_TAG_OBJECT)
        return 0;
    if (histo_acc_add(&s->acc, rec->u.object) != 0)
        return out_of_memory(s);
    if (--s->tick == 0) {
        s->tick = TICK_OBJECTS;
        heapfmt_progress p;
        heapfmt_reader_progress(r, &p);
        an_progress_tick(s->ctx, p.offset, p.objects);
    }
    return 0;
}

const char *histo_type_name(const heapfmt_rstring *s, cli_name *buf,
                            size_t *len)
{
    if (s->undefined) {
        snprintf(buf->s, sizeof buf->s, "#<undefined string %u>",
                 (unsigned)s->id);
    } else if (s->slot == 0 || s->len == 0) {
        snprintf(buf->s, sizeof buf->s, "(no type)");
    } else {
        return cli_name_cut(s->ptr, s->len, buf, len);
    }
    *len = strlen(buf->s);
    return buf->s;
}

static int add_or_fail(histo_table *t, size_t d, const scan *s,
                       const char *name, size_t len, const histo_total *a)
{
    if (a->count == 0)
        return 0;
    if (histo_table_add(t, d, name, len, a->count, a->bytes) != 0)
        return out_of_memory(s);
    return 0;
}

/* Moves the scan's numbers into the table, by name. */
static int scan_to_table(histo_table *t, size_t d, scan *s,
                         heapfmt_reader *r, const histo_options *opt)
{
    size_t len;
    int rc = 0;
    if (opt->by == HISTO_BY_CLASS) {
        size_t n = heapfmt_reader_class_count(r);
        for (size_t slot = 0; slot < s->acc.cap && slot < n && rc == 0; slot++) {
            cli_name buf;
            const char *name =
                cli_class_shown(heapfmt_reader_class(r, slot), &buf, &len);
            rc = add_or_fail(t, d, s, name, len, &s->acc.v[slot]);
        }
    } else if (opt->by == HISTO_BY_STACK || opt->by == HISTO_BY_FRAME) {
        if (histo_stacks_to_table(t, d, &s->acc, opt, NULL, NULL) != 0)
            rc = out_of_memory(s);
    } else if (opt->by == HISTO_BY_IMEMO || opt->by == HISTO_BY_ISEQ) {
        const char *none =
            opt->by == HISTO_BY_IMEMO ? CLI_NOT_IMEMO : CLI_NO_ISEQ;
        rc = add_or_fail(t, d, s, none, strlen(none), &s->acc.no_code);
        for (size_t i = 0; i < cli_strmap_count(&s->acc.codes) && rc == 0;
             i++) {
            const char *name = cli_strmap_key(&s->acc.codes, i, &len);
            rc = add_or_fail(t, d, s, name, len, &s->acc.code[i]);
        }
    } else if (opt->by == HISTO_BY_TYPE) {
        size_t n = heapfmt_reader_string_count(r);
        for (size_t slot = 0; slot < s->acc.cap && slot < n && rc == 0; slot++) {
            cli_name buf;
            const char *name = histo_type_name(heapfmt_reader_string(r, slot),
                                               &buf, &len);
            rc = add_or_fail(t, d, s, name, len, &s->acc.v[slot]);
        }
    } else {
        char *buf = NULL;
        size_t cap = 0;
        rc = add_or_fail(t, d, s, HISTO_NO_SITE, strlen(HISTO_NO_SITE),
                         &s->acc.no_site);
        for (size_t i = 0; i < histo_sites_count(&s->acc.sites) && rc == 0;
             i++) {
            uint32_t slot;
            uint64_t line;
            const histo_total *e = histo_sites_get(&s->acc.sites, i, &slot,
                                                   &line);
            const heapfmt_rstring *file = heapfmt_reader_string(r, slot);
            if (file == NULL)
                continue; /* cannot happen: slots come from the reader */
            if (cli_site_name(&buf, &cap, file, line, &len) != 0 ||
                histo_table_add_row(t, d, buf, len, e,
                                    histo_sites_life(&s->acc.sites, i)) != 0)
                rc = out_of_memory(s);
        }
        free(buf);
    }
    return rc;
}

static uint64_t input_size(const an_dump *dump)
{
    struct stat st;
    if (fstat(dump->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        return (uint64_t)st.st_size;
    return 0;
}

/* A complete dump read by class: its footer's per-class summary must say
 * what the blocks held, as its totals must (the reader checks those).
 * Returns AN_OK, or AN_INCOMPLETE after a warning. */
static int check_summary(an_dump *dump, scan *s)
{
    const heapfmt_footer *f;
    if (heapfmt_reader_footer(dump->reader, &f) != HEAPFMT_OK)
        return AN_OK;
    size_t n = heapfmt_reader_class_count(dump->reader);
    if (n > s->acc.cap)
        n = s->acc.cap;
    histo_class_total *v = malloc((n ? n : 1) * sizeof *v);
    if (v == NULL)
        return out_of_memory(s);
    for (size_t slot = 0; slot < n; slot++)
        v[slot] = (histo_class_total){
            heapfmt_reader_class(dump->reader, slot)->index, s->acc.v[slot].count,
            s->acc.v[slot].bytes};
    char why[256];
    int rc = histo_summary_check(f, v, n, why, sizeof why);
    free(v);
    if (rc < 0)
        return out_of_memory(s);
    if (rc == 0)
        return AN_OK;
    an_warn(s->ctx, dump->name, "%s", why);
    an_warn(s->ctx, dump->name,
            "incomplete dump: the footer disagrees with the blocks; "
            "results are what the blocks hold");
    return AN_INCOMPLETE;
}

/* --by=stack, frame: whether any object had a stack (or any lifespan
 * named one). */
static int has_stacks(const histo_acc *a)
{
    for (size_t slot = 0; slot < a->cap; slot++)
        if (a->v[slot].count > 0)
            return 1;
    return a->has_life;
}

static int collect_scan(histo_table *t, size_t d, an_dump *dump,
                        const histo_options *opt)
{
    scan s;
    memset(&s, 0, sizeof s);
    histo_acc_init(&s.acc, opt->by);
    s.name = dump->name;
    s.ctx = opt->ctx;
    s.tick = TICK_OBJECTS;
    if (opt->progress)
        an_progress_begin(opt->ctx, dump->name, input_size(dump));
    int rc = an_scan(dump, on_object, &s, opt->ctx);
    if (opt->progress)
        an_progress_end(opt->ctx);
    if (rc == AN_OK && opt->by == HISTO_BY_CLASS)
        rc = check_summary(dump, &s);
    if (rc == AN_OK || rc == AN_INCOMPLETE) {
        if (opt->by == HISTO_BY_SITE && histo_sites_count(&s.acc.sites) == 0 &&
            s.acc.no_site.count > 0 && !opt->empty_ok) {
            rc = an_fail(opt->ctx, AN_ERROR, dump->name,
                         "no allocation sites in this dump (its writer did "
                         "not record them), so --by=site has nothing to "
                         "show");
        } else if ((opt->by == HISTO_BY_STACK || opt->by == HISTO_BY_FRAME) &&
                   s.acc.no_stack.count > 0 && !has_stacks(&s.acc) &&
                   !opt->empty_ok) {
            rc = an_fail(opt->ctx, AN_ERROR, dump->name,
                         "no call stacks in this dump (its writer did not "
                         "record them), so --by=%s has nothing to show",
                         histo_by_word(opt->by));
        } else if ((opt->by == HISTO_BY_IMEMO || opt->by == HISTO_BY_ISEQ) &&
                   cli_strmap_count(&s.acc.codes) == 0 &&
                   s.acc.no_code.count > 0 && !opt->empty_ok) {
            rc = an_fail(opt->ctx, AN_ERROR, dump->name, "%s",
                         opt->by == HISTO_BY_IMEMO
                             ? "no T_IMEMO objects in this dump (it is not "
                               "a Ruby heap), so --by=imemo has nothing to "
                               "show"
                             : "no instruction sequences or Procs with a "
                               "code location in this dump (a Ruby heap "
                               "written by HeapFmt.dump has them), so "
                               "--by=iseq has nothing to show");
        } else if (scan_to_table(t, d, &s, dump->reader, opt) != 0) {
            rc = AN_ERROR;
        }
    }
    histo_acc_free(&s.acc);
    return rc;
}

static int collect_footer(histo_table *t, size_t d, const an_dump *dump,
                          const heapfmt_footer *f, an_ctx *ctx)
{
    for (size_t i = 0; i < f->nclasses; i++) {
        const heapfmt_class_summary *c = &f->classes[i];
        if (c->count == 0)
            continue;
        cli_name buf;
        size_t len;
        const char *name = cli_summary_shown(c, &buf, &len);
        if (histo_table_add(t, d, name, len, c->count, c->bytes) != 0)
            return an_no_memory(ctx, dump->name);
    }
    return AN_OK;
}

/* The native heap's resident memory and live bytes (heapfmt-malloc
 * dumps), from META: all of it after a scan; from the pairs the dump
 * starts with when the counts came from elsewhere (the footer, other
 * readers), which is where heapfmt-malloc writes them. */
static void note_native(histo_dump *hd, an_dump *dump, int scanned)
{
    if (!scanned) {
        heapfmt_record rec;
        while (heapfmt_reader_next(dump->reader, &rec) == HEAPFMT_OK &&
               rec.tag == HEAPFMT_TAG_META)
            ;
    }
    hd->native_known = cli_native_read(dump->reader, &hd->native);
}

static int collect_dump(histo_table *t, size_t d, an_dump *dump,
                        const histo_options *opt, int *scanned);

/* The footer answers only for blocks that are there: every block of its
 * index is checked by its header first (a few microseconds a block: 5 ms
 * for the 1,219 blocks of 10M objects, where checking every payload's CRC
 * took 1 s, a decode of the dump; --scan does that). A footer that does
 * not describe its blocks (two writers of one file interleaved, a patched
 * file) is not shown: the blocks are read instead, with a warning, and
 * the dump counts as damaged. */
static int collect_checked_footer(histo_table *t, size_t d, an_dump *dump,
                                  const heapfmt_footer *f,
                                  const histo_options *opt, int *scanned)
{
    int rc = heapfmt_reader_check_blocks(dump->reader, HEAPFMT_CHECK_HEADERS);
    if (rc == HEAPFMT_OK) {
        t->dumps[d].from_footer = 1;
        return collect_footer(t, d, dump, f, opt->ctx);
    }
    if (rc != HEAPFMT_E_CORRUPT) {
        an_dump_fail(opt->ctx, dump, rc);
        return AN_ERROR;
    }
    an_warn(opt->ctx, dump->name, "%s",
            heapfmt_reader_error(dump->reader)->message);
    an_warn(opt->ctx, dump->name,
            "the footer does not describe the blocks: reading them instead");
    *scanned = 1;
    rc = collect_scan(t, d, dump, opt);
    return rc == AN_OK ? AN_INCOMPLETE : rc;
}

int histo_collect_dump(histo_table *t, size_t d, an_dump *dump,
                       const histo_options *opt)
{
    int scanned = 0;
    int rc = collect_dump(t, d, dump, opt, &scanned);
    if (rc != AN_ERROR)
        note_native(&t->dumps[d], dump, scanned);
    return rc;
}

static int collect_dump(histo_table *t, size_t d, an_dump *dump,
                        const histo_options *opt, int *scanned)
{
    histo_dump *hd = &t->dumps[d];
    hd->path = dump->path;
    hd->name = dump->name;
    hd->from_footer = 0;
    const heapfmt_footer *f = NULL;
    if ((opt->by == HISTO_BY_CLASS && !opt->scan) || opt->jobs > 1) {
        int rc = heapfmt_reader_footer(dump->reader, &f);
        if (rc != HEAPFMT_OK)
            f = NULL;
        if (rc == HEAPFMT_OK && opt->by == HISTO_BY_CLASS && !opt->scan)
            return hd->status = collect_checked_footer(t, d, dump, f, opt,
                                                       scanned);
        /* No footer (a pipe, an incomplete dump) or a damaged one: read
         * the blocks, which also says what is wrong. For a scan the footer
         * only offers the parallel path: whatever is wrong with it, the
         * one-thread scan says what -j1 says. */
        int footer_only = opt->by == HISTO_BY_CLASS && !opt->scan;
        if (rc != HEAPFMT_OK && rc != HEAPFMT_E_NO_FOOTER &&
            rc != HEAPFMT_E_CORRUPT && footer_only) {
            an_dump_fail(opt->ctx, dump, rc);
            return hd->status = AN_ERROR;
        }
    }
    if (f != NULL && opt->jobs > 1) { /* parallel block decode */
        int rc = histo_collect_jobs(t, d, dump->path, f, opt);
        if (rc != HISTO_JOBS_FALLBACK)
            return hd->status = rc;
    }
    *scanned = 1;
    return hd->status = collect_scan(t, d, dump, opt);
}

int histo_collect(histo_table *t, size_t d, const char *path,
                  const histo_options *opt)
{
    an_dump dump;
    int rc = an_dump_open(&dump, path, NULL, opt->ctx);
    if (rc != AN_OK) {
        /* Cut inside the file header: an incomplete dump with nothing
         * readable, still a column of the table. */
        t->dumps[d].path = path;
        t->dumps[d].name = cli_input_name(path);
        return t->dumps[d].status = rc;
    }
    rc = histo_collect_dump(t, d, &dump, opt);
    an_dump_close(&dump);
    return rc;
}
