/* cli_scan.c -- read every record of an open dump, keeping what survives. */
#include "cli_scan.h"

#include "cli_exit.h"
#include "cli_msg.h"

int cli_scan(cli_dump *d, cli_scan_fn fn, void *ctx)
{
    heapfmt_record rec;
    int lost = 0;
    for (;;) {
        int rc = heapfmt_reader_next(d->reader, &rec);
        if (rc == HEAPFMT_OK) {
            int stop = fn(ctx, d->reader, &rec);
            if (stop != 0)
                return stop;
            continue;
        }
        if (rc == HEAPFMT_DONE)
            return CLI_EXIT_OK;
        const heapfmt_error *e = heapfmt_reader_error(d->reader);
        if (rc == HEAPFMT_E_CORRUPT && heapfmt_reader_can_continue(d->reader)) {
            cli_warn(d->name, "%s; skipped", e->message);
            lost = 1;
            continue;
        }
        if (rc == HEAPFMT_E_CORRUPT || rc == HEAPFMT_E_TRUNCATED) {
            heapfmt_progress p;
            heapfmt_reader_progress(d->reader, &p);
            if (!lost || rc == HEAPFMT_E_TRUNCATED)
                cli_warn(d->name, "%s", e->message);
            cli_warn(d->name,
                     "incomplete dump: results cover %llu objects in %llu "
                     "readable blocks",
                     (unsigned long long)p.objects,
                     (unsigned long long)p.blocks);
            return CLI_EXIT_INCOMPLETE;
        }
        cli_dump_error(d, rc);
        return CLI_EXIT_ERROR;
    }
}
