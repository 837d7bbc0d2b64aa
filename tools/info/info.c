/* info.c -- heapfmt-info's summary of a dump.
 *
 * Output is a two-column table, one fact per line, label first:
 *
 *     file              demo.dump
 *     format            1.0
 *     status            complete
 *     meta.producer     heapfmt-gen 0.1.0
 *     ...
 *     objects           200,000
 *     object-bytes      24,987,654 (23.8 MiB)
 *     ...
 *     codecs            zstd
 *
 * Labels are single words, so `awk '$1 == "objects"'` finds a row; with
 * --plain the numbers carry no separators or units. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli_codec.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_native.h"
#include "cli_num.h"
#include "cli_dump.h"
#include "info.h"

typedef struct facts {
    heapfmt_totals t;
    uint64_t codecs;         /* bit c: a data block uses codec c; 0 unknown */
    int complete;            /* END, footer and trailer valid */
    int truncated;           /* input ended early */
    int stopped;             /* a corrupt block header ended the reading */
    int meta_lost;           /* footer fine, but the META block is not */
    uint64_t corrupt_blocks; /* skipped blocks */
    uint64_t file_size;
    int have_size;
} facts;

/* ---- reading ---- */

/* Counts classes defined so far: table slots other than "no class" whose
 * CLASS record was seen. */
static uint64_t defined_classes(const heapfmt_reader *r)
{
    uint64_t n = 0;
    size_t count = heapfmt_reader_class_count(r);
    for (size_t s = 0; s < count; s++) {
        const heapfmt_rclass *c = heapfmt_reader_class(r, s);
        if (c != NULL && c->index != 0 && !c->undefined)
            n++;
    }
    return n;
}

/* STRING and ROOT records: the footer counts them, a cut dump does not. */
typedef struct counts {
    uint64_t strings, roots;
} counts;

static int count_record(void *ctx, heapfmt_reader *r, const heapfmt_record *rec)
{
    counts *n = ctx;
    (void)r;
    if (rec->tag == HEAPFMT_TAG_STRING)
        n->strings++;
    else if (rec->tag == HEAPFMT_TAG_ROOT)
        n->roots++;
    return 0;
}

/* Reads the whole dump (the tools' scan policy, cli_dump.h), counting what
 * it holds. Returns 0, or -1 after a fatal error. */
static int scan(cli_dump *d, facts *f)
{
    heapfmt_reader *r = d->reader;
    counts n = {0, 0};
    cli_scan_report rep;
    int code = cli_scan_with(d, CLI_SCAN_KEEP_GOING, count_record, &n, &rep);
    uint64_t strings = n.strings, roots = n.roots;
    int fatal = code == CLI_EXIT_ERROR, ended = 0;
    f->corrupt_blocks = rep.skipped;
    f->truncated = rep.end == HEAPFMT_E_TRUNCATED;
    f->stopped = rep.end == HEAPFMT_E_CORRUPT;
    const heapfmt_footer *foot;
    if (code != CLI_EXIT_ERROR && rep.end == HEAPFMT_DONE &&
        heapfmt_reader_footer(r, &foot) == HEAPFMT_OK) {
        f->complete = f->corrupt_blocks == 0;
        f->t = foot->totals;
        ended = 1;
    }
    if (fatal)
        return -1;
    heapfmt_progress p;
    heapfmt_reader_progress(r, &p);
    f->codecs = p.codecs; /* of the blocks read: all of them, if complete */
    if (!f->complete) {
        f->t.objects = p.objects;
        f->t.bytes = p.bytes;
        f->t.records = p.records;
        f->t.classes = defined_classes(r);
        f->t.strings = strings;
        f->t.roots = roots;
        f->t.blocks = p.blocks;
        f->t.raw_bytes = p.raw_bytes;
    }
    if (!f->have_size && (f->complete || f->truncated || ended)) {
        f->file_size = p.offset; /* all of the input was consumed */
        f->have_size = 1;
    }
    return 0;
}

/* ---- printing ---- */

typedef struct table {
    FILE *out;
    int width;
    int plain;
} table;

static void row(const table *tb, const char *label, const char *fmt, ...)
    CLI_PRINTF(3, 4);

static void row(const table *tb, const char *label, const char *fmt, ...)
{
    va_list ap;
    fprintf(tb->out, "%-*s  ", tb->width, label);
    va_start(ap, fmt);
    vfprintf(tb->out, fmt, ap);
    va_end(ap);
    fputc('\n', tb->out);
}

static cli_num count(const table *tb, uint64_t v)
{
    return tb->plain ? cli_fmt_plain(v) : cli_fmt_count(v);
}

static void bytes_row(const table *tb, const char *label, uint64_t v)
{
    if (tb->plain)
        row(tb, label, "%s", cli_fmt_plain(v).s);
    else
        row(tb, label, "%s (%s)", cli_fmt_count(v).s, cli_fmt_bytes(v).s);
}

/* Text of a META value on one line: control characters become '?'. */
static void print_text(FILE *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, out);
    }
}

static int is_time_key(const char *key)
{
    return strcmp(key, "time") == 0 || strcmp(key, "process.start") == 0;
}

static int by_key_then_place(const void *a, const void *b)
{
    const heapfmt_rmeta *x = *(const heapfmt_rmeta *const *)a;
    const heapfmt_rmeta *y = *(const heapfmt_rmeta *const *)b;
    int c = strcmp(x->key, y->key);
    return c != 0 ? c : (x > y) - (x < y);
}

/* Marks in shadowed[i] the pairs whose key comes again later: the last
 * value of a key wins. Returns the array (to free), or NULL. */
static unsigned char *shadowed_pairs(const heapfmt_rmeta *m, size_t n)
{
    unsigned char *shadowed = calloc(n ? n : 1, 1);
    const heapfmt_rmeta **order = malloc((n ? n : 1) * sizeof *order);
    if (shadowed == NULL || order == NULL) {
        free(shadowed);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &m[i];
    qsort(order, n, sizeof *order, by_key_then_place);
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(order[i]->key, order[i + 1]->key) == 0)
            shadowed[order[i] - m] = 1;
    free(order);
    return shadowed;
}

static void meta_rows(const table *tb, const heapfmt_reader *r)
{
    size_t n;
    const heapfmt_rmeta *m = heapfmt_reader_meta(r, &n);
    unsigned char *shadowed = shadowed_pairs(m, n);
    char label[300];
    for (size_t i = 0; i < n; i++) {
        if (shadowed == NULL || shadowed[i])
            continue;
        snprintf(label, sizeof label, "meta.%s", m[i].key);
        fprintf(tb->out, "%-*s  ", tb->width, label);
        if (m[i].type == HEAPFMT_META_TEXT) {
            print_text(tb->out, m[i].text, m[i].text_len);
        } else if (m[i].type == HEAPFMT_META_UINT) {
            fprintf(tb->out, "%" PRIu64, m[i].uint_value);
            time_t t = (time_t)m[i].uint_value;
            struct tm tm;
            char when[64];
            if (!tb->plain && is_time_key(m[i].key) &&
                (uint64_t)t == m[i].uint_value && gmtime_r(&t, &tm) != NULL &&
                strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm) > 0)
                fprintf(tb->out, " (%s)", when);
        } else {
            fprintf(tb->out, "%" PRId64, m[i].int_value);
        }
        fputc('\n', tb->out);
    }
    free(shadowed);
}

static int label_width(const heapfmt_reader *r)
{
    int w = (int)strlen("bytes-per-object");
    size_t n;
    const heapfmt_rmeta *m = heapfmt_reader_meta(r, &n);
    for (size_t i = 0; i < n; i++) {
        int kw = (int)(strlen("meta.") + m[i].key_len);
        if (kw > w)
            w = kw;
    }
    return w > 32 ? 32 : w;
}

static void status_row(const table *tb, const facts *f)
{
    if (f->complete && !f->meta_lost) {
        row(tb, "status", "complete");
        return;
    }
    if (tb->plain) {
        row(tb, "status", "incomplete");
        return;
    }
    char why[160] = "";
    size_t len = 0;
    if (f->truncated)
        len += (size_t)snprintf(why + len, sizeof why - len, "%s",
                                "truncated");
    /* After skipped blocks the reader ends with a sticky error too; only
     * without them does a sticky error mean the reading stopped early. */
    if (f->stopped && f->corrupt_blocks == 0)
        len += (size_t)snprintf(why + len, sizeof why - len, "%s%s",
                                len ? ", " : "",
                                "reading stopped at corrupt data");
    if (f->corrupt_blocks > 0)
        len += (size_t)snprintf(why + len, sizeof why - len,
                                "%s%s corrupt block%s skipped",
                                len ? ", " : "",
                                cli_fmt_count(f->corrupt_blocks).s,
                                f->corrupt_blocks == 1 ? "" : "s");
    if (f->meta_lost)
        snprintf(why + len, sizeof why - len, "%s%s", len ? ", " : "",
                 "metadata block unreadable");
    row(tb, "status", "incomplete (%s; figures cover what could be read)",
        why);
}

/* A heapfmt-malloc dump: resident memory against the live bytes. */
static void native_rows(const table *tb, const heapfmt_reader *r)
{
    cli_native n;
    if (!cli_native_read(r, &n))
        return;
    if (tb->plain) {
        row(tb, "native-rss", "%s", cli_fmt_plain(n.rss).s);
        row(tb, "native-live", "%s", cli_fmt_plain(n.live).s);
        row(tb, "native-overhead", "%.2f", cli_native_overhead(&n));
        if (n.have_free)
            row(tb, "native-free", "%s", cli_fmt_plain(n.arena_free).s);
        return;
    }
    row(tb, "native-rss", "%s (%s) resident, the tracker's %s taken off",
        cli_fmt_count(n.rss).s, cli_fmt_bytes(n.rss).s,
        cli_fmt_bytes(n.tracker).s);
    row(tb, "native-live", "%s (%s) in malloc'd blocks%s",
        cli_fmt_count(n.live).s, cli_fmt_bytes(n.live).s,
        n.estimated ? " (estimated from samples)" : "");
    row(tb, "native-overhead", "%.2f (resident / live; the rest is the "
        "program's code and stacks, and what the allocator keeps)",
        cli_native_overhead(&n));
    if (n.have_free)
        row(tb, "native-free", "%s (%s) free inside glibc's arenas "
            "(mallinfo2)", cli_fmt_count(n.arena_free).s,
            cli_fmt_bytes(n.arena_free).s);
}

static void print_facts(const cli_dump *d, const facts *f, int plain,
                        FILE *out)
{
    const heapfmt_reader *r = d->reader;
    table tb = {out, label_width(r), plain};
    int major, minor;
    heapfmt_reader_version(r, &major, &minor);

    row(&tb, "file", "%s", d->name);
    row(&tb, "format", "%d.%d", major, minor);
    status_row(&tb, f);
    meta_rows(&tb, r);
    if (f->have_size)
        bytes_row(&tb, "file-size", f->file_size);
    row(&tb, "objects", "%s", count(&tb, f->t.objects).s);
    bytes_row(&tb, "object-bytes", f->t.bytes);
    row(&tb, "records", "%s", count(&tb, f->t.records).s);
    row(&tb, "classes", "%s", count(&tb, f->t.classes).s);
    row(&tb, "strings", "%s", count(&tb, f->t.strings).s);
    row(&tb, "roots", "%s", count(&tb, f->t.roots).s);
    row(&tb, "blocks", "%s", count(&tb, f->t.blocks).s);
    bytes_row(&tb, "raw-bytes", f->t.raw_bytes);
    if (f->codecs != 0)
        row(&tb, "codecs", "%s", cli_codec_list(f->codecs).s);
    if (f->have_size && f->file_size > 0)
        row(&tb, "compression", "%.2f%s",
            (double)f->t.raw_bytes / (double)f->file_size,
            plain ? "" : " (decoded record bytes / file size)");
    if (f->have_size && f->t.objects > 0)
        row(&tb, "bytes-per-object", "%.1f%s",
            (double)f->file_size / (double)f->t.objects,
            plain ? "" : " in the file");
    native_rows(&tb, r);
}

int info_show(cli_dump *d, const info_options *opt, FILE *out)
{
    facts f;
    memset(&f, 0, sizeof f);
    struct stat st;
    if (fstat(d->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        f.file_size = (uint64_t)st.st_size;
        f.have_size = 1;
    }

    /* Every block is read, file or pipe alike: META may come in any
     * block (a producer that learns something at the end), and the last
     * value of a key wins (spec 6.1), so the footer alone cannot say. The
     * figures then come from the footer met at the end. */
    const heapfmt_footer *foot;
    int rc = heapfmt_reader_footer(d->reader, &foot);
    if (rc == HEAPFMT_OK) {
        if (scan(d, &f) != 0)
            return CLI_EXIT_ERROR;
    } else if (rc == HEAPFMT_E_NO_FOOTER || rc == HEAPFMT_E_CORRUPT) {
        /* No footer: an incomplete dump, or a pipe. A damaged footer is
         * reported, and the blocks are read instead. */
        if (rc == HEAPFMT_E_CORRUPT)
            cli_dump_error(d, rc);
        if (scan(d, &f) != 0)
            return CLI_EXIT_ERROR;
        if (rc == HEAPFMT_E_CORRUPT)
            f.complete = 0;
    } else {
        cli_dump_error(d, rc);
        return CLI_EXIT_ERROR;
    }

    print_facts(d, &f, opt->plain, out);
    return f.complete && !f.meta_lost ? CLI_EXIT_OK : CLI_EXIT_INCOMPLETE;
}
