/* cli_native.c -- a heapfmt-malloc dump's resident memory against its
 * live bytes. */
#include "cli_native.h"

#include <stdio.h>
#include <string.h>

#include "cli_num.h"

static int meta_u64(const heapfmt_reader *r, const char *key, uint64_t *v)
{
    const heapfmt_rmeta *m = heapfmt_reader_meta_get(r, key);
    if (m == NULL || m->type != HEAPFMT_META_UINT)
        return 0;
    *v = m->uint_value;
    return 1;
}

int cli_native_read(const heapfmt_reader *r, cli_native *n)
{
    memset(n, 0, sizeof *n);
    uint64_t rss, est = 0;
    if (!meta_u64(r, "rss", &rss) || !meta_u64(r, "malloc.live.bytes", &n->live))
        return 0;
    meta_u64(r, "malloc.tracker_bytes", &n->tracker);
    n->rss = rss > n->tracker ? rss - n->tracker : 0;
    n->estimated = meta_u64(r, "malloc.estimates", &est) && est != 0;
    n->have_free = meta_u64(r, "mallinfo2.fordblks", &n->arena_free);
    return 1;
}

double cli_native_overhead(const cli_native *n)
{
    return n->live ? (double)n->rss / (double)n->live : 0;
}

void cli_native_sentence(const cli_native *n, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "resident %s for %s%s live in "
                                  "malloc'd blocks",
                                  cli_fmt_bytes(n->rss).s,
                                  n->estimated ? "about " : "",
                                  cli_fmt_bytes(n->live).s);
    if (len >= cap || n->live == 0)
        return;
    double o = cli_native_overhead(n);
    len += (size_t)snprintf(buf + len, cap - len, ": %.1fx", o);
    if (len < cap && n->have_free && n->arena_free > 0)
        len += (size_t)snprintf(buf + len, cap - len, "; %s free inside "
                                "glibc's arenas",
                                cli_fmt_bytes(n->arena_free).s);
    /* a program's code and stacks are resident too: only a large gap is
     * the allocator's */
    if (len < cap && o >= 2 && n->rss - n->live >= (8u << 20))
        snprintf(buf + len, cap - len, " (memory the allocator keeps and "
                 "the program does not use: fragmentation or caches, not a "
                 "leak; heapfmt-replay compares allocators)");
}
