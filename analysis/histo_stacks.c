/* histo_stacks.c -- histo --by=stack and --by=frame: stacks counted by
 * the reader's stack slot (objects, and lifespans) become rows named by
 * cli_stack.h (folded names for -f folded, which
 * tools/histo/histo_print_folded.c prints).
 *
 * Names are made once per distinct stack, at the end of the scan, from
 * the reader's table entries as they are then (a stack defined after an
 * object used it, or never, is named as the reader finally knows it).
 * Several stacks with one top frame fall into one --by=frame row because
 * histo_table_add sums rows of the same name. */
#include <string.h>

#include "cli_stack.h"
#include "histo.h"

int histo_stacks_to_table(histo_table *t, size_t d, const histo_acc *a,
                          const histo_options *opt,
                          histo_stack_resolver resolve, void *ctx)
{
    enum cli_stack_style style = opt->format == HISTO_FORMAT_FOLDED
                                     ? CLI_STACK_FOLDED
                                     : CLI_STACK_TEXT;
    cli_buf b = {0};
    int rc = 0;
    if (a->no_stack.count > 0)
        rc = histo_table_add(t, d, CLI_NO_STACK, strlen(CLI_NO_STACK),
                             a->no_stack.count, a->no_stack.bytes);
    for (size_t slot = 0; slot < a->cap && rc == 0; slot++) {
        const histo_life *life = a->life != NULL ? &a->life[slot] : NULL;
        if (a->v[slot].count == 0 &&
            (life == NULL || (life->allocs == 0 && life->oldest_us == 0)))
            continue;
        const heapfmt_rstack *s = a->stack_of[slot];
        if (resolve != NULL && (s = resolve(ctx, s)) == NULL) {
            rc = -1;
            break;
        }
        rc = opt->by == HISTO_BY_FRAME ? cli_stack_top_name(&b, s, style)
                                       : cli_stack_name(&b, s, style);
        if (rc == 0)
            rc = histo_table_add_row(t, d, b.s, b.len, &a->v[slot], life);
    }
    cli_buf_free(&b);
    return rc;
}
