/*
 * test_import_lines.c -- the importer's line reader (tools/import/lines.c):
 * any chunking of the input gives the same lines, plain or gzip; long
 * lines grow the buffer or are skipped past max_line; a cut or damaged
 * gzip stream and read errors come after every line decoded before them.
 * The byte access the HPROF reader uses (lr_need, lr_take, lr_skip) gives
 * the same bytes, plain or gzip in members, with a buffer that grows only
 * with what is asked, and a prefix of a cut stream before its error.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gunzip.h"
#include "lines.h"
#include "tio.h"

/* Every reader of the tests inflates on a reading thread (gunzip.h), or
 * serially when this is set; the gzip tests run both ways. */
static int serial_gz;

/* ---- helpers ------------------------------------------------------------ */

typedef struct got {
    char **text;
    size_t *len;
    uint64_t *lineno;
    int *terminated;
    int *kind; /* LR_LINE or LR_LONG */
    size_t n, cap;
    int end;   /* LR_END or LR_ERROR */
    int error;
} got;

static void got_add(got *g, const lr *r, int kind)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->text = realloc(g->text, g->cap * sizeof *g->text);
        g->len = realloc(g->len, g->cap * sizeof *g->len);
        g->lineno = realloc(g->lineno, g->cap * sizeof *g->lineno);
        g->terminated = realloc(g->terminated, g->cap * sizeof *g->terminated);
        g->kind = realloc(g->kind, g->cap * sizeof *g->kind);
    }
    size_t i = g->n++;
    g->len[i] = kind == LR_LINE ? r->len : 0;
    g->text[i] = malloc(g->len[i] + 1);
    if (kind == LR_LINE) {
        cr_assert_eq(r->line[r->len], '\0', "line %llu not NUL-terminated",
                     (unsigned long long)r->lineno);
        memcpy(g->text[i], r->line, r->len + 1);
    } else {
        g->text[i][0] = '\0';
    }
    g->lineno[i] = r->lineno;
    g->terminated[i] = r->terminated;
    g->kind[i] = kind;
}

static void got_free(got *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->text[i]);
    free(g->text);
    free(g->len);
    free(g->lineno);
    free(g->terminated);
    free(g->kind);
    memset(g, 0, sizeof *g);
}

/* Reads everything through a tsource with the given policy. */
static void read_all(got *g, const void *data, size_t len, int policy,
                     uint64_t seed, size_t max_line, size_t initial_cap,
                     int *is_gzip)
{
    tsource src;
    tsource_init(&src, data, len, policy, seed);
    lr r;
    lr_init(&r, tsource_read, &src, max_line);
    r.serial = serial_gz;
    if (initial_cap)
        r.initial_cap = initial_cap;
    memset(g, 0, sizeof *g);
    for (;;) {
        int k = lr_next(&r);
        if (k == LR_LINE || k == LR_LONG) {
            got_add(g, &r, k);
            continue;
        }
        g->end = k;
        g->error = r.error;
        break;
    }
    /* sticky end */
    cr_assert_eq(lr_next(&r), g->end);
    if (is_gzip)
        *is_gzip = lr_is_gzip(&r);
    if (g->end == LR_END)
        cr_assert_eq(r.bytes_read, len);
    lr_free(&r);
}

static void same(const got *a, const got *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: %zu lines, expected %zu", what, a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        cr_assert_eq(a->kind[i], b->kind[i], "%s: kind of line %zu", what, i);
        cr_assert_eq(a->len[i], b->len[i], "%s: length of line %zu", what, i);
        cr_assert(memcmp(a->text[i], b->text[i], a->len[i]) == 0,
                  "%s: text of line %zu", what, i);
        cr_assert_eq(a->lineno[i], b->lineno[i], "%s: number of line %zu", what, i);
        cr_assert_eq(a->terminated[i], b->terminated[i], "%s: end of line %zu",
                     what, i);
    }
    cr_assert_eq(a->end, b->end, "%s: end", what);
}

static void gz(tbuf *out, const void *data, size_t len, int level)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    cr_assert_eq(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8,
                              Z_DEFAULT_STRATEGY), Z_OK);
    size_t bound = deflateBound(&z, (uLong)len) + 64;
    size_t at = out->len;
    for (size_t i = 0; i < bound; i++)
        tbuf_u8(out, 0);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = out->data + at;
    z.avail_out = (uInt)bound;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    out->len = at + z.total_out;
    deflateEnd(&z);
}

/* A text with short, empty, CRLF and very long lines, and an unterminated
 * last line. */
static void sample(tbuf *t, size_t long_len, int final_newline)
{
    const char *head = "first\n\nthird\r\n{\"a\":1}\n";
    tbuf_put(t, head, strlen(head));
    for (size_t i = 0; i < long_len; i++)
        tbuf_u8(t, (unsigned char)('a' + i % 26));
    tbuf_u8(t, '\n');
    for (int i = 0; i < 500; i++) {
        char tmp[64];
        int n = snprintf(tmp, sizeof tmp, "line %d with some text\n", i);
        tbuf_put(t, tmp, (size_t)n);
    }
    tbuf_put(t, "last", 4);
    if (final_newline)
        tbuf_u8(t, '\n');
}

/* ---- tests --------------------------------------------------------------- */

Test(import_lines, any_chunking_gives_the_same_lines, .timeout = 30)
{
    tbuf t = {0};
    sample(&t, 3u << 20, 0);
    got ref;
    read_all(&ref, t.data, t.len, TSRC_WHOLE, 1, 0, 0, NULL);
    cr_assert_eq(ref.n, 506);
    cr_assert_eq(ref.end, LR_END);
    cr_assert_str_eq(ref.text[0], "first");
    cr_assert_eq(ref.len[1], 0);
    cr_assert_str_eq(ref.text[2], "third\r");
    cr_assert_eq(ref.len[4], 3u << 20);
    cr_assert_str_eq(ref.text[505], "last");
    cr_assert_eq(ref.terminated[505], 0);
    cr_assert_eq(ref.terminated[504], 1);
    cr_assert_eq(ref.lineno[505], 506);

    for (uint64_t seed = 1; seed <= 4; seed++) {
        got g;
        read_all(&g, t.data, t.len, TSRC_RANDOM, seed, 0, 16, NULL);
        same(&g, &ref, "random chunks, tiny buffer");
        got_free(&g);
    }
    tbuf_free(&t);
    /* one byte at a time, on a smaller text */
    sample(&t, 5000, 1);
    got small_ref, g;
    read_all(&small_ref, t.data, t.len, TSRC_WHOLE, 1, 0, 0, NULL);
    read_all(&g, t.data, t.len, TSRC_BYTE, 1, 0, 16, NULL);
    same(&g, &small_ref, "bytes");
    cr_assert_eq(small_ref.terminated[small_ref.n - 1], 1);
    got_free(&g);
    got_free(&small_ref);
    got_free(&ref);
    tbuf_free(&t);
}

Test(import_lines, edges)
{
    got g;
    read_all(&g, "", 0, TSRC_WHOLE, 1, 0, 0, NULL);
    cr_assert_eq(g.n, 0);
    cr_assert_eq(g.end, LR_END);
    got_free(&g);

    read_all(&g, "x", 1, TSRC_WHOLE, 1, 0, 0, NULL);
    cr_assert_eq(g.n, 1);
    cr_assert_str_eq(g.text[0], "x");
    cr_assert_eq(g.terminated[0], 0);
    got_free(&g);

    read_all(&g, "\n\n", 2, TSRC_BYTE, 1, 0, 0, NULL);
    cr_assert_eq(g.n, 2);
    cr_assert_eq(g.len[0] + g.len[1], 0);
    got_free(&g);

    /* one byte of the gzip magic is plain text */
    int is_gz = 1;
    read_all(&g, "\x1f", 1, TSRC_WHOLE, 1, 0, 0, &is_gz);
    cr_assert_eq(is_gz, 0);
    cr_assert_eq(g.n, 1);
    got_free(&g);

    /* NUL bytes inside a line are kept (the scanner refuses them) */
    read_all(&g, "a\0b\n", 4, TSRC_WHOLE, 1, 0, 0, NULL);
    cr_assert_eq(g.n, 1);
    cr_assert_eq(g.len[0], 3);
    cr_assert(memcmp(g.text[0], "a\0b", 3) == 0);
    got_free(&g);
}

Test(import_lines, lines_past_max_line_are_skipped)
{
    tbuf t = {0};
    const char *a = "short\n";
    tbuf_put(&t, a, strlen(a));
    for (int i = 0; i < 5000; i++)
        tbuf_u8(&t, 'L');
    tbuf_u8(&t, '\n');
    tbuf_put(&t, "exactly100", 10);
    for (int i = 0; i < 90; i++)
        tbuf_u8(&t, '.');
    tbuf_u8(&t, '\n');
    tbuf_put(&t, "after\n", 6);
    for (int i = 0; i < 300; i++)
        tbuf_u8(&t, 'T');
    for (int k = 0; k < 6; k++) {
        int policy = k % 3;
        size_t cap = k < 3 ? 16 : 0; /* tiny buffer, or one holding it all */
        got g;
        read_all(&g, t.data, t.len, policy, 3, 100, cap, NULL);
        cr_assert_eq(g.n, 5);
        cr_assert_eq(g.kind[0], LR_LINE);
        cr_assert_eq(g.kind[1], LR_LONG);
        cr_assert_eq(g.lineno[1], 2);
        cr_assert_eq(g.kind[2], LR_LINE);
        cr_assert_eq(g.len[2], 100);
        cr_assert_str_eq(g.text[3], "after");
        cr_assert_eq(g.lineno[3], 4);
        cr_assert_eq(g.kind[4], LR_LONG);
        cr_assert_eq(g.terminated[4], 0);
        cr_assert_eq(g.end, LR_END);
        got_free(&g);
    }
    tbuf_free(&t);
}

static void gzip_gives_the_same_lines(void)
{
    tbuf t = {0}, z = {0};
    sample(&t, 1u << 20, 0);
    got ref;
    read_all(&ref, t.data, t.len, TSRC_WHOLE, 1, 0, 0, NULL);
    gz(&z, t.data, t.len, 6);
    for (int policy = TSRC_WHOLE; policy <= TSRC_RANDOM; policy++) {
        if (policy == TSRC_BYTE)
            continue; /* covered below on a smaller input */
        got g;
        int is_gz = 0;
        read_all(&g, z.data, z.len, policy, 9, 0, 16, &is_gz);
        cr_assert(is_gz);
        same(&g, &ref, "gzip");
        got_free(&g);
    }
    /* two members, as gzip -c a b writes: one text */
    tbuf two = {0};
    size_t half = t.len / 2;
    gz(&two, t.data, half, 1);
    gz(&two, t.data + half, t.len - half, 9);
    got g;
    read_all(&g, two.data, two.len, TSRC_RANDOM, 5, 0, 0, NULL);
    same(&g, &ref, "two gzip members");
    got_free(&g);
    tbuf_free(&two);
    got_free(&ref);
    tbuf_free(&t);
    tbuf_free(&z);

    /* byte by byte */
    sample(&t, 3000, 1);
    gz(&z, t.data, t.len, 6);
    read_all(&ref, t.data, t.len, TSRC_WHOLE, 1, 0, 0, NULL);
    read_all(&g, z.data, z.len, TSRC_BYTE, 1, 0, 16, NULL);
    same(&g, &ref, "gzip bytes");
    got_free(&g);
    got_free(&ref);
    tbuf_free(&t);
    tbuf_free(&z);
}

static void cut_gzip_gives_a_prefix_then_an_error(void)
{
    tbuf t = {0}, z = {0};
    sample(&t, 200000, 1);
    gz(&z, t.data, t.len, 6);
    got ref;
    read_all(&ref, t.data, t.len, TSRC_WHOLE, 1, 0, 0, NULL);
    size_t cuts[] = {3, 10, 100, z.len / 3, z.len / 2, z.len - 9, z.len - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        got g;
        read_all(&g, z.data, cuts[c], TSRC_RANDOM, c, 0, 0, NULL);
        cr_assert_eq(g.end, LR_ERROR, "cut at %zu", cuts[c]);
        cr_assert_eq(g.error, IMP_CUT, "cut at %zu: error %d", cuts[c],
                     g.error);
        cr_assert_leq(g.n, ref.n);
        for (size_t i = 0; i < g.n; i++) {
            /* every line is a line of the text, the last maybe cut short */
            if (g.terminated[i]) {
                cr_assert_eq(g.len[i], ref.len[i]);
            } else {
                cr_assert_eq(i, g.n - 1);
                cr_assert_leq(g.len[i], ref.len[i]);
            }
            cr_assert(memcmp(g.text[i], ref.text[i], g.len[i]) == 0);
        }
        got_free(&g);
    }
    got_free(&ref);
    tbuf_free(&t);
    tbuf_free(&z);
}

static void damaged_gzip_is_an_error(void)
{
    tbuf t = {0}, z = {0};
    sample(&t, 100000, 1);
    gz(&z, t.data, t.len, 6);
    /* damage the middle of the deflate data, then the CRC in the trailer */
    size_t spots[] = {z.len / 2, z.len - 8};
    for (size_t s = 0; s < 2; s++) {
        tbuf bad = {0};
        tbuf_put(&bad, z.data, z.len);
        bad.data[spots[s]] ^= 0x55;
        got g;
        read_all(&g, bad.data, bad.len, TSRC_WHOLE, 1, 0, 0, NULL);
        cr_assert_eq(g.end, LR_ERROR, "damage at %zu", spots[s]);
        cr_assert_eq(g.error, IMP_CORRUPT);
        got_free(&g);
        tbuf_free(&bad);
    }
    /* garbage after a complete member */
    tbuf_put(&z, "garbage", 7);
    got g;
    read_all(&g, z.data, z.len, TSRC_WHOLE, 1, 0, 0, NULL);
    cr_assert_eq(g.end, LR_ERROR);
    cr_assert_eq(g.error, IMP_CORRUPT);
    got_free(&g);
    tbuf_free(&t);
    tbuf_free(&z);
}

Test(import_lines, read_errors_and_eintr)
{
    tbuf t = {0};
    sample(&t, 100, 1);
    tsource src;
    tsource_init(&src, t.data, t.len, TSRC_RANDOM, 4);
    src.eintr_every = 3;
    lr r;
    lr_init(&r, tsource_read, &src, 0);
    r.chunk = 64;
    size_t n = 0;
    int k;
    while ((k = lr_next(&r)) == LR_LINE)
        n++;
    cr_assert_eq(k, LR_END);
    cr_assert_eq(n, 506);
    lr_free(&r);

    tsource_init(&src, t.data, t.len, TSRC_RANDOM, 4);
    src.fail_at = 20;
    src.fail_errno = EIO;
    lr_init(&r, tsource_read, &src, 0);
    r.chunk = 64;
    n = 0;
    while ((k = lr_next(&r)) == LR_LINE)
        n++;
    cr_assert_eq(k, LR_ERROR);
    cr_assert_eq(r.error, IMP_READ);
    cr_assert_eq(r.sys_errno, EIO);
    cr_assert_gt(n, 0);
    cr_assert_lt(n, 506);
    cr_assert_eq(lr_next(&r), LR_ERROR, "errors are sticky");
    lr_free(&r);
    lr_free(&r); /* twice is harmless */
    tbuf_free(&t);
}

/* ---- byte access (the HPROF reader's) ----------------------------------- */

/* Takes the input back through lr_need/lr_take/lr_skip in steps chosen by
 * seed (taking some, skipping others), plain or gzip: the bytes taken are
 * the input's at those offsets, lr_offset counts both, and the buffer
 * never grows past twice the largest step asked (plus the first size). */
static void bytes_back(const tbuf *in, const tbuf *src, int policy,
                       uint64_t seed, size_t initial_cap)
{
    tsource s;
    tsource_init(&s, src->data, src->len, policy, seed);
    lr r;
    lr_init(&r, tsource_read, &s, 0);
    r.serial = serial_gz;
    r.initial_cap = initial_cap;
    tprng p;
    tprng_seed(&p, seed);
    uint64_t off = 0;
    size_t largest = 0;
    while (off < in->len) {
        size_t want = 1 + (size_t)tprng_below(&p, 4096);
        if (want > largest)
            largest = want;
        if (tprng_below(&p, 4) == 0) {
            uint64_t skipped = lr_skip(&r, want);
            uint64_t left = in->len - off;
            cr_assert_eq(skipped, want < left ? want : left);
            off += skipped;
        } else {
            size_t have = lr_need(&r, want);
            size_t left = (size_t)(in->len - off);
            cr_assert_geq(have, want < left ? want : left, "at %llu",
                          (unsigned long long)off);
            size_t n = want < have ? want : have;
            cr_assert_eq(memcmp(lr_bytes(&r), in->data + off, n), 0,
                         "bytes at %llu", (unsigned long long)off);
            lr_take(&r, n);
            off += n;
        }
        cr_assert_eq(lr_offset(&r), off);
    }
    cr_assert_eq(lr_need(&r, 1), 0, "nothing after the end");
    cr_assert_eq(lr_skip(&r, 10), 0);
    cr_assert_eq(r.error, IMP_OK);
    /* the slabs of the reading thread are a fixed size; what grows is
     * the own buffer */
    size_t held = r.own ? r.own_cap : r.cap;
    cr_assert_leq(held, 2 * (largest + initial_cap), "buffer %zu", held);
    lr_free(&r);
}

static void bytes_taken_and_skipped_plain_and_gzip(void)
{
    tbuf t = {0}, z = {0};
    tprng p;
    tprng_seed(&p, 3);
    for (int i = 0; i < 200000; i++)
        tbuf_u8(&t, (unsigned)tprng_below(&p, 256));
    gz(&z, t.data, t.len / 3, 1); /* two members */
    gz(&z, t.data + t.len / 3, t.len - t.len / 3, 6);
    for (int policy = TSRC_WHOLE; policy <= TSRC_RANDOM; policy++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            bytes_back(&t, &t, policy, seed, 64);
            bytes_back(&t, &z, policy, seed, 64);
        }
    tbuf_free(&t);
    tbuf_free(&z);
}

/* Reads z (its first zlen bytes; the read fails at call fail_at unless
 * 0) through lr_need for all of t: a prefix of t, then error. Returns
 * the prefix's length. */
static size_t prefix_then(const tbuf *t, const tbuf *z, size_t zlen,
                          int policy, unsigned long fail_at, int error)
{
    tsource s;
    tsource_init(&s, z->data, zlen, policy, 2);
    s.fail_at = fail_at;
    s.fail_errno = EIO;
    lr r;
    lr_init(&r, tsource_read, &s, 0);
    r.serial = serial_gz;
    size_t have = lr_need(&r, t->len);
    cr_assert_lt(have, t->len);
    cr_assert_gt(have, 0);
    cr_assert_eq(memcmp(lr_bytes(&r), t->data, have), 0, "a prefix");
    cr_assert_eq(r.error, error);
    if (error == IMP_READ)
        cr_assert_eq(r.sys_errno, EIO);
    cr_assert_eq(gz_threaded(r.gz), !serial_gz && gz_cores() >= 2);
    lr_free(&r);
    return have;
}

static void bytes_of_a_cut_gzip_stream_then_an_error(void)
{
    tbuf t = {0}, z = {0};
    for (int i = 0; i < 50000; i++)
        tbuf_u8(&t, (unsigned)(i * 7));
    gz(&z, t.data, t.len, 6);
    prefix_then(&t, &z, z.len / 2, TSRC_WHOLE, 0, IMP_CUT);
    tbuf_free(&t);
    tbuf_free(&z);
}

/* ---- the gzip tests, serially and with the reading thread --------------- */

static void both_ways(void (*test)(void))
{
    for (serial_gz = 1; serial_gz >= 0; serial_gz--)
        test();
    serial_gz = 0;
}

Test(import_lines, gzip_gives_the_same_lines, .timeout = 60)
{
    both_ways(gzip_gives_the_same_lines);
}

Test(import_lines, cut_gzip_gives_a_prefix_then_an_error, .timeout = 60)
{
    both_ways(cut_gzip_gives_a_prefix_then_an_error);
}

Test(import_lines, damaged_gzip_is_an_error, .timeout = 60)
{
    both_ways(damaged_gzip_is_an_error);
}

Test(import_lines, bytes_taken_and_skipped_plain_and_gzip, .timeout = 60)
{
    both_ways(bytes_taken_and_skipped_plain_and_gzip);
}

Test(import_lines, bytes_of_a_cut_gzip_stream_then_an_error, .timeout = 60)
{
    both_ways(bytes_of_a_cut_gzip_stream_then_an_error);
}

/* A read error inside a gzip stream: the bytes before it, then the error,
 * the same with the thread as without. */
Test(import_lines, gzip_read_error_after_the_bytes_before_it, .timeout = 60)
{
    tbuf t = {0}, z = {0};
    tprng p;
    tprng_seed(&p, 11);
    for (int i = 0; i < 3000000; i++) /* several slabs, hard to compress */
        tbuf_u8(&t, (unsigned)tprng_below(&p, 16));
    gz(&z, t.data, t.len, 1);
    size_t got_bytes[2];
    for (serial_gz = 0; serial_gz <= 1; serial_gz++)
        got_bytes[serial_gz] = prefix_then(&t, &z, z.len, TSRC_RANDOM, 20,
                                           IMP_READ);
    /* what the stream held before the failed read, both ways */
    cr_assert_eq(got_bytes[0], got_bytes[1]);
    serial_gz = 0;
    tbuf_free(&t);
    tbuf_free(&z);
}

static long fd_read(void *opaque, void *buf, size_t len)
{
    ssize_t n = read(*(int *)opaque, buf, len);
    return n < 0 ? -(long)errno : (long)n;
}

/* The reader stops early (a parser that met a bad record) while the
 * thread waits in read() on a pipe whose writer is idle: lr_free returns
 * all the same. */
Test(import_lines, free_while_the_thread_waits_on_a_pipe, .timeout = 30)
{
    tbuf t = {0}, z = {0};
    for (int i = 0; i < 200000; i++)
        tbuf_u8(&t, (unsigned)(i % 251));
    gz(&z, t.data, t.len, 6);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    size_t part = z.len / 2; /* fits the pipe's buffer */
    cr_assert_eq(write(fds[1], z.data, part), (ssize_t)part);
    lr r;
    lr_init(&r, fd_read, &fds[0], 0);
    cr_assert_geq(lr_need(&r, 2), 0); /* detects gzip, starts the thread */
    cr_assert(lr_is_gzip(&r));
    int threaded = gz_threaded(r.gz);
    usleep(100000); /* the thread is in read() now */
    lr_free(&r);
    close(fds[0]);
    close(fds[1]);
    tbuf_free(&t);
    tbuf_free(&z);
    if (gz_cores() < 2)
        cr_skip_test("one core: no reading thread");
    cr_assert_eq(threaded, 1);
}
