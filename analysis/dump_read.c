/* dump_read.c -- open a dump and read its records, for the engines. */
#include <errno.h>
#include <string.h>

#include "cli_file.h"
#include "dump_read.h"

int an_dump_open(an_dump *d, const char *path,
                 const heapfmt_reader_options *opt, an_ctx *c)
{
    d->path = path;
    d->name = cli_input_name(path);
    d->fd = -1;
    d->reader = NULL;
    memset(&d->undef, 0, sizeof d->undef);
    int err = cli_open_input_quiet(path, &d->fd);
    if (err != 0)
        return an_fail(c, AN_ERROR, path, "%s", strerror(err));
    errno = 0;
    int rc = heapfmt_reader_open_fd(&d->reader, opt, d->fd);
    if (rc != HEAPFMT_OK) {
        int st;
        if (d->reader != NULL)
            st = an_dump_fail(c, d, rc);
        else
            st = an_fail(c, an_dump_status(rc), d->name, "%s",
                         rc != HEAPFMT_E_NOMEM && errno != 0
                             ? strerror(errno)
                             : heapfmt_strerror(rc));
        an_dump_close(d);
        return st;
    }
    return AN_OK;
}

void an_dump_close(an_dump *d)
{
    heapfmt_reader_free(d->reader);
    d->reader = NULL;
    cli_close_input(d->fd);
    d->fd = -1;
}

int an_dump_status(int rc)
{
    return rc == HEAPFMT_E_TRUNCATED ? AN_INCOMPLETE : AN_ERROR;
}

const char *an_reader_message(const heapfmt_reader *r, int rc)
{
    const heapfmt_error *e = r != NULL ? heapfmt_reader_error(r) : NULL;
    if (e != NULL && e->code == rc && e->message[0] != '\0')
        return e->message;
    return heapfmt_strerror(rc);
}

int an_dump_fail(an_ctx *c, const an_dump *d, int rc)
{
    return an_fail(c, an_dump_status(rc), d->name, "%s",
                   an_reader_message(d->reader, rc));
}

/* A read error under the keep-going policy: a corrupt block is skipped
 * with a warning (1: go on); a cut or damaged end says what was kept. */
static int lenient(an_dump *d, int rc, an_scan_report *rep, int *st,
                   an_ctx *c)
{
    const heapfmt_error *e = heapfmt_reader_error(d->reader);
    if (rc == HEAPFMT_E_CORRUPT && heapfmt_reader_can_continue(d->reader)) {
        an_warn(c, d->name, "%s; skipped", e->message);
        rep->skipped++;
        return 1;
    }
    if (rc == HEAPFMT_E_CORRUPT || rc == HEAPFMT_E_TRUNCATED) {
        heapfmt_progress p;
        heapfmt_reader_progress(d->reader, &p);
        if (rep->skipped == 0 || rc == HEAPFMT_E_TRUNCATED)
            an_warn(c, d->name, "%s", e->message);
        an_warn(c, d->name,
                "incomplete dump: results cover %llu objects in %llu "
                "readable blocks",
                (unsigned long long)p.objects, (unsigned long long)p.blocks);
        *st = AN_INCOMPLETE;
        return 0;
    }
    an_dump_fail(c, d, rc);
    *st = AN_ERROR;
    return 0;
}

/* Ids used before their definition (or without one): said once, at the
 * end; the results show placeholders for them, so the dump counts as
 * damaged. */
static int undefined_ids(an_dump *d, int st, an_ctx *c)
{
    if (d->undef.count == 0 || st == AN_ERROR)
        return st;
    an_warn(c, d->name,
            "%llu use%s of ids that no record read defines before them, "
            "shown as placeholders (the first: %s)",
            (unsigned long long)d->undef.count,
            d->undef.count == 1 ? "" : "s", d->undef.first);
    return AN_INCOMPLETE;
}

int an_scan_with(an_dump *d, enum an_scan_policy policy, an_scan_fn fn,
                 void *user, an_scan_report *rep, an_ctx *c)
{
    an_scan_report own;
    if (rep == NULL)
        rep = &own;
    rep->skipped = 0;
    rep->end = HEAPFMT_DONE;
    rep->stopped = 0;
    heapfmt_record rec;
    for (;;) {
        int rc = heapfmt_reader_next(d->reader, &rec);
        if (rc == HEAPFMT_OK) {
            if (policy == AN_SCAN_KEEP_GOING && cli_undefined_maybe(&rec))
                cli_undefined_each(&rec, cli_undefined_note, &d->undef);
            int stop = fn(user, d->reader, &rec);
            if (stop != 0) {
                rep->stopped = 1;
                return stop;
            }
            continue;
        }
        if (rc == HEAPFMT_DONE)
            return policy == AN_SCAN_KEEP_GOING
                       ? undefined_ids(d, AN_OK, c)
                       : AN_OK;
        int st;
        if (policy == AN_SCAN_STRICT) {
            st = an_dump_fail(c, d, rc);
        } else if (lenient(d, rc, rep, &st, c)) {
            continue;
        } else {
            st = undefined_ids(d, st, c);
        }
        rep->end = rc;
        return st;
    }
}

int an_scan(an_dump *d, an_scan_fn fn, void *user, an_ctx *c)
{
    return an_scan_with(d, AN_SCAN_KEEP_GOING, fn, user, NULL, c);
}
