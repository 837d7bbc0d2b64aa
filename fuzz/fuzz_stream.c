/*
 * fuzz_stream.c -- streaming read through a callback, chunk sizes chosen
 * by the fuzzer, compared with a whole-buffer read of the same bytes.
 *
 * Input layout:
 *   byte 0      bits 0-3: n, the length of the chunk pattern (0: every
 *               read gets all it asks for);
 *               bit 4: a read fails with EIO, at the call given by the
 *               next byte (2 * byte + 1);
 *               bit 5: both readers get a small table memory limit
 *               (4 KiB + 64 * next byte), to reach HEAPFMT_E_LIMIT;
 *   [1 byte]    the failing read call, if bit 4
 *   [1 byte]    the table limit, if bit 5
 *   n bytes     the pattern, used in a cycle, one byte per read call:
 *               bits 0-6: the call returns at most (bits + 1) bytes, 128
 *               meaning all it asks for; bit 7: the call first returns
 *               -EINTR or -EAGAIN (the reader must retry)
 *   the rest    the dump
 *
 * Reader A pulls the dump through that callback (not seekable); reader B
 * reads it with heapfmt_reader_open_memory. Both keep going after corrupt
 * blocks. Every entry (records, references and their labels, call stacks
 * frame by frame, FRAME and STACK records, errors with offsets and
 * messages -- HEAPFMT_E_UNSUPPORTED for a codec of a later version among
 * them --, progress, the footer after DONE) must be identical -- up to the
 * injected read failure, after which A must stop with HEAPFMT_E_IO.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "heapfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct chunky {
    const uint8_t *data;
    size_t len, pos;
    const uint8_t *pattern;
    size_t npattern, next;
    int interrupted;
    uint64_t calls, fail_at;
} chunky;

static long chunky_read(void *opaque, void *buf, size_t len)
{
    chunky *s = opaque;
    s->calls++;
    FZ_CHECK(len > 0, "reader asked for 0 bytes");
    if (s->fail_at && s->calls >= s->fail_at) {
        FZ_CHECK(s->calls == s->fail_at,
                 "reader read again after its source failed");
        return -EIO;
    }
    size_t n = len;
    if (s->npattern) {
        uint8_t b = s->pattern[s->next % s->npattern];
        if ((b & 0x80) && !s->interrupted) {
            s->interrupted = 1;
            return (s->calls & 1) ? -EINTR : -EAGAIN;
        }
        s->interrupted = 0;
        s->next++;
        size_t max = (size_t)(b & 0x7f) + 1;
        if (max < 128 && n > max)
            n = max;
    }
    size_t left = s->len - s->pos;
    if (n > left)
        n = left;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    uint8_t ctl = fz_u8(&in);
    chunky src;
    memset(&src, 0, sizeof src);
    if (ctl & 0x10)
        src.fail_at = 2u * fz_u8(&in) + 1;
    heapfmt_reader_options opt = HEAPFMT_READER_OPTIONS_INIT;
    if (ctl & 0x20)
        opt.max_table_memory = 4096 + 64u * fz_u8(&in);
    src.pattern = fz_take(&in, ctl & 0x0f, &src.npattern);
    src.data = in.p;
    src.len = in.n;

    heapfmt_reader *ra = NULL, *rb = NULL;
    int oa = heapfmt_reader_open(&ra, &opt, chunky_read, NULL, &src);
    int ob = heapfmt_reader_open_memory(&rb, &opt, src.data, src.len);
    FZ_CHECK(ob != HEAPFMT_E_IO, "memory open gave an I/O error");
    fz_buf ea = {0}, eb = {0};
    fz_entry_open(&ea, oa, ra, FZ_DETAIL);
    fz_entry_open(&eb, ob, rb, FZ_DETAIL);
    int a_failed = oa == HEAPFMT_E_IO;
    if (a_failed) {
        FZ_CHECK(src.fail_at && src.calls == src.fail_at,
                 "open gave HEAPFMT_E_IO, no read failed");
        FZ_CHECK(heapfmt_reader_error(ra)->sys_errno == EIO,
                 "open: sys_errno %d after EIO",
                 heapfmt_reader_error(ra)->sys_errno);
    } else {
        FZ_CHECK(ea.len == eb.len && memcmp(ea.p, eb.p, ea.len) == 0,
                 "open: %s streaming, %s from memory (or other detail)",
                 fz_status_name(oa), fz_status_name(ob));
    }
    if (oa == HEAPFMT_OK && ob == HEAPFMT_OK) {
        fz_rd a, b;
        fz_rd_init(&a, ra, FZ_DETAIL | FZ_KEEP_GOING);
        fz_rd_init(&b, rb, FZ_DETAIL | FZ_KEEP_GOING);
        for (uint64_t k = 0;; k++) {
            int ha = a_failed ? 0 : fz_rd_next(&a, &ea);
            int hb = fz_rd_next(&b, &eb);
            if (!hb) {
                FZ_CHECK(!ha, "streaming gave more entries than memory");
                break;
            }
            if (a_failed)
                continue;
            FZ_CHECK(ha, "streaming gave fewer entries than memory");
            if (ea.len == eb.len && memcmp(ea.p, eb.p, ea.len) == 0)
                continue;
            if (a.rc == HEAPFMT_E_IO && src.fail_at &&
                src.calls >= src.fail_at) {
                FZ_CHECK(a.finished, "reader went on after HEAPFMT_E_IO");
                FZ_CHECK(heapfmt_reader_error(ra)->sys_errno == EIO,
                         "sys_errno %d after EIO",
                         heapfmt_reader_error(ra)->sys_errno);
                a_failed = 1;
                continue;
            }
            char why[512];
            fz_describe_diff(&ea, &eb, why, sizeof why);
            fz_fail("entry %llu: streaming and memory differ: %s",
                    (unsigned long long)k, why);
        }
        fz_rd_free(&a);
        fz_rd_free(&b);
    }
    heapfmt_reader_free(ra);
    heapfmt_reader_free(rb);
    fz_buf_free(&ea);
    fz_buf_free(&eb);
    return 0;
}
