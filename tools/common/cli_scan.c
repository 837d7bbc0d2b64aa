/* cli_scan.c -- read every record of an open dump, keeping what survives. */
#include "cli_scan.h"

#include "cli_exit.h"
#include "cli_msg.h"

/* A read error under the keep-going policy: a corrupt block is skipped
 * with a warning (1: go on); a cut or damaged end says what was kept. */
static int lenient(cli_dump *d, int rc, cli_scan_report *rep, int *code)
{
    const heapfmt_error *e = heapfmt_reader_error(d->reader);
    if (rc == HEAPFMT_E_CORRUPT && heapfmt_reader_can_continue(d->reader)) {
        cli_warn(d->name, "%s; skipped", e->message);
        rep->skipped++;
        return 1;
    }
    if (rc == HEAPFMT_E_CORRUPT || rc == HEAPFMT_E_TRUNCATED) {
        heapfmt_progress p;
        heapfmt_reader_progress(d->reader, &p);
        if (rep->skipped == 0 || rc == HEAPFMT_E_TRUNCATED)
            cli_warn(d->name, "%s", e->message);
        cli_warn(d->name,
                 "incomplete dump: results cover %llu objects in %llu "
                 "readable blocks",
                 (unsigned long long)p.objects, (unsigned long long)p.blocks);
        *code = CLI_EXIT_INCOMPLETE;
        return 0;
    }
    cli_dump_error(d, rc);
    *code = CLI_EXIT_ERROR;
    return 0;
}

/* Ids used before their definition (or without one): said once, at the
 * end; the results show placeholders for them, so the dump counts as
 * damaged. */
static int undefined_ids(cli_dump *d, int code)
{
    if (d->undef.count == 0 || code == CLI_EXIT_ERROR)
        return code;
    cli_warn(d->name,
             "%llu use%s of ids that no record read defines before them, "
             "shown as placeholders (the first: %s)",
             (unsigned long long)d->undef.count,
             d->undef.count == 1 ? "" : "s", d->undef.first);
    return CLI_EXIT_INCOMPLETE;
}

int cli_scan_with(cli_dump *d, enum cli_scan_policy policy, cli_scan_fn fn,
                  void *ctx, cli_scan_report *rep)
{
    cli_scan_report own;
    if (rep == NULL)
        rep = &own;
    rep->skipped = 0;
    rep->end = HEAPFMT_DONE;
    heapfmt_record rec;
    for (;;) {
        int rc = heapfmt_reader_next(d->reader, &rec);
        if (rc == HEAPFMT_OK) {
            if (policy == CLI_SCAN_KEEP_GOING && cli_undefined_maybe(&rec))
                cli_undefined_each(&rec, cli_undefined_note, &d->undef);
            int stop = fn(ctx, d->reader, &rec);
            if (stop != 0)
                return stop;
            continue;
        }
        if (rc == HEAPFMT_DONE)
            return policy == CLI_SCAN_KEEP_GOING
                       ? undefined_ids(d, CLI_EXIT_OK)
                       : CLI_EXIT_OK;
        int code;
        if (policy == CLI_SCAN_STRICT) {
            cli_dump_error(d, rc);
            code = cli_dump_exit_code(rc);
        } else if (lenient(d, rc, rep, &code)) {
            continue;
        } else {
            code = undefined_ids(d, code);
        }
        rep->end = rc;
        return code;
    }
}

int cli_scan(cli_dump *d, cli_scan_fn fn, void *ctx)
{
    return cli_scan_with(d, CLI_SCAN_KEEP_GOING, fn, ctx, NULL);
}
