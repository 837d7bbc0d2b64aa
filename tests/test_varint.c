/*
 * test_varint.c -- varint and zigzag coding (spec section 2).
 *
 * The internal helpers of libheapfmt/heapfmt_internal.h are tested
 * directly against the spec's worked examples and boundaries; the writer's
 * output is then checked to use the same canonical encoding, and values at
 * the boundaries must survive a round trip through writer and reader.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "heapfmt.h"
#include "heapfmt_internal.h"
#include "tassert.h"
#include "tio.h"
#include "tmodel.h"

typedef struct vcase {
    uint64_t value;
    size_t len;
    uint8_t bytes[10];
} vcase;

/* spec/FORMAT.md section 2, "Varint" table */
static const vcase spec_varints[] = {
    { 0, 1, { 0x00 } },
    { 1, 1, { 0x01 } },
    { 127, 1, { 0x7f } },
    { 128, 2, { 0x80, 0x01 } },
    { 300, 2, { 0xac, 0x02 } },
    { 16384, 3, { 0x80, 0x80, 0x01 } },
    { UINT64_MAX, 10,
      { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
};

Test(varint, spec_examples_encode)
{
    for (size_t i = 0; i < sizeof spec_varints / sizeof spec_varints[0]; i++) {
        const vcase *c = &spec_varints[i];
        uint8_t buf[16];
        memset(buf, 0xee, sizeof buf);
        uint8_t *end = hf_put_varint(buf, c->value);
        cr_assert_eq((size_t)(end - buf), c->len, "value %llu: %zu bytes",
                     (unsigned long long)c->value, (size_t)(end - buf));
        cr_assert_eq(memcmp(buf, c->bytes, c->len), 0, "value %llu bytes",
                     (unsigned long long)c->value);
        cr_assert_eq(buf[c->len], 0xee, "wrote past the varint");
        cr_assert_eq(hf_varint_len(c->value), c->len);
    }
}

Test(varint, spec_examples_decode)
{
    for (size_t i = 0; i < sizeof spec_varints / sizeof spec_varints[0]; i++) {
        const vcase *c = &spec_varints[i];
        const uint8_t *p = c->bytes;
        uint64_t v = 12345;
        cr_assert_eq(hf_get_varint(&p, c->bytes + c->len, &v), 0);
        cr_assert_eq(v, c->value);
        cr_assert_eq(p, c->bytes + c->len, "consumed %zu of %zu bytes",
                     (size_t)(p - c->bytes), c->len);
    }
}

/* every power of two, and one less: lengths are exactly ceil(bits/7) */
Test(varint, boundaries_round_trip)
{
    for (unsigned bit = 0; bit < 64; bit++) {
        uint64_t vals[3] = { (uint64_t)1 << bit, ((uint64_t)1 << bit) - 1,
                             ((uint64_t)1 << bit) + 1 };
        for (int k = 0; k < 3; k++) {
            uint64_t v = vals[k];
            unsigned bits = 0;
            for (uint64_t x = v; x; x >>= 1)
                bits++;
            size_t want = bits == 0 ? 1 : (bits + 6) / 7;
            uint8_t buf[16];
            uint8_t *end = hf_put_varint(buf, v);
            cr_assert_eq((size_t)(end - buf), want, "%llu: %zu bytes",
                         (unsigned long long)v, (size_t)(end - buf));
            cr_assert_eq(hf_varint_len(v), want);
            for (size_t j = 0; j + 1 < want; j++)
                cr_assert(buf[j] & 0x80, "continuation bit missing");
            cr_assert_eq(buf[want - 1] & 0x80, 0);
            const uint8_t *p = buf;
            uint64_t got = 0;
            cr_assert_eq(hf_get_varint(&p, end, &got), 0);
            cr_assert_eq(got, v);
            cr_assert_eq(p, end);
        }
    }
}

Test(varint, decode_rejects_truncated)
{
    static const uint8_t b[] = { 0x80, 0x80, 0x80 };
    for (size_t n = 0; n <= sizeof b; n++) {
        const uint8_t *p = b;
        uint64_t v;
        cr_assert_eq(hf_get_varint(&p, b + n, &v), -1,
                     "%zu continuation bytes accepted", n);
    }
    /* a valid 2-byte varint cut to 1 byte */
    static const uint8_t c[] = { 0xac, 0x02 };
    const uint8_t *p = c;
    uint64_t v;
    cr_assert_eq(hf_get_varint(&p, c + 1, &v), -1);
}

Test(varint, decode_rejects_over_64_bits)
{
    /* 10th byte must be 0 or 1 */
    uint8_t b[11];
    memset(b, 0xff, 9);
    for (unsigned last = 2; last < 0x80; last++) {
        b[9] = (uint8_t)last;
        const uint8_t *p = b;
        uint64_t v;
        cr_assert_eq(hf_get_varint(&p, b + 10, &v), -1, "10th byte %#x",
                     last);
    }
    /* 11 bytes */
    memset(b, 0x80, 10);
    b[10] = 0x00;
    const uint8_t *p = b;
    uint64_t v;
    cr_assert_eq(hf_get_varint(&p, b + 11, &v), -1, "11-byte varint");
    /* 10 bytes with the continuation bit on the 10th */
    memset(b, 0xff, 9);
    b[9] = 0x81;
    b[10] = 0x00;
    p = b;
    cr_assert_eq(hf_get_varint(&p, b + 11, &v), -1, "10th byte 0x81");
}

/* Writers MUST use the shortest encoding (spec 2); libheapfmt refuses a
 * longer one, in both decoders, so that every reader and heapfmt-info
 * --verify agree on it. */
Test(varint, decode_refuses_encodings_longer_than_the_shortest)
{
    static const uint8_t cases[][HF_VARINT_MAX] = {
        {0x80, 0x00},                   /* 0 in two bytes */
        {0xff, 0x00},                   /* 127 in two bytes */
        {0x80, 0x80, 0x00},             /* 0 in three */
        {0xac, 0x82, 0x00},             /* 300 in three */
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00},
    };
    static const size_t lens[] = {2, 2, 3, 3, 10};
    for (size_t c = 0; c < sizeof lens / sizeof lens[0]; c++) {
        uint8_t padded[HF_VARINT_MAX + 8];
        memset(padded, 0, sizeof padded);
        memcpy(padded, cases[c], lens[c]);
        const uint8_t *p = padded;
        uint64_t v;
        cr_assert_eq(hf_get_varint(&p, padded + lens[c], &v), HF_VARINT_LONG,
                     "case %zu", c);
        cr_assert_eq(p, padded, "case %zu: advanced", c);
        cr_assert_eq(hf_get_varint_padded(&p, &v), HF_VARINT_LONG,
                     "case %zu, padded", c);
    }
    /* a varint cut short by the end of its record is still "truncated" */
    static const uint8_t cut[HF_VARINT_MAX + 8] = {0x80, 0x80};
    cr_assert_str_eq(hf_padded_varint_why(HF_VARINT_LONG, cut, cut + 2),
                     "truncated field");
    cr_assert_str_eq(hf_padded_varint_why(HF_VARINT_LONG, cut, cut + 4),
                     "varint longer than its shortest encoding");
}

Test(varint, decode_stops_at_end_of_value)
{
    static const uint8_t b[] = { 0xac, 0x02, 0x7f, 0x00 };
    const uint8_t *p = b;
    uint64_t v;
    cr_assert_eq(hf_get_varint(&p, b + sizeof b, &v), 0);
    cr_assert_eq(v, 300);
    cr_assert_eq(hf_get_varint(&p, b + sizeof b, &v), 0);
    cr_assert_eq(v, 127);
    cr_assert_eq(hf_get_varint(&p, b + sizeof b, &v), 0);
    cr_assert_eq(v, 0);
    cr_assert_eq(p, b + sizeof b);
}

/* ---- zigzag ---------------------------------------------------------------- */

typedef struct zcase {
    int64_t n;
    uint64_t z;
} zcase;

/* spec section 2, "Zigzag" */
static const zcase spec_zigzag[] = {
    { 0, 0 },   { -1, 1 },  { 1, 2 },   { -2, 3 },
    { 2, 4 },   { 40, 80 }, { -40, 79 }, { 64, 128 },
    { INT64_MAX, UINT64_MAX - 1 },
    { INT64_MIN, UINT64_MAX },
    { -14000, 27999 },  /* spec section 11 */
    { 16000, 32000 },
};

Test(zigzag, spec_examples)
{
    for (size_t i = 0; i < sizeof spec_zigzag / sizeof spec_zigzag[0]; i++) {
        const zcase *c = &spec_zigzag[i];
        cr_assert_eq(hf_zigzag((uint64_t)c->n), c->z, "zigzag(%lld)",
                     (long long)c->n);
        cr_assert_eq(hf_unzigzag(c->z), (uint64_t)c->n, "unzigzag(%llu)",
                     (unsigned long long)c->z);
    }
}

Test(zigzag, spec_byte_examples)
{
    /* 40 -> 50, -40 -> 4f, 64 -> 80 01 */
    uint8_t buf[16];
    uint8_t *end = hf_put_varint(buf, hf_zigzag((uint64_t)(int64_t)40));
    cr_assert_eq(end - buf, 1);
    cr_assert_eq(buf[0], 0x50);
    end = hf_put_varint(buf, hf_zigzag((uint64_t)(int64_t)-40));
    cr_assert_eq(end - buf, 1);
    cr_assert_eq(buf[0], 0x4f);
    end = hf_put_varint(buf, hf_zigzag((uint64_t)(int64_t)64));
    cr_assert_eq(end - buf, 2);
    cr_assert_eq(buf[0], 0x80);
    cr_assert_eq(buf[1], 0x01);
}

Test(zigzag, random_round_trip_and_order)
{
    tprng r;
    tprng_seed(&r, 42);
    for (int i = 0; i < 100000; i++) {
        uint64_t x = tprng_next(&r) >> tprng_below(&r, 64);
        if (i & 1)
            x = (uint64_t)0 - x;
        cr_assert_eq(hf_unzigzag(hf_zigzag(x)), x);
        /* small magnitudes stay small: |n| <= 2^k -> z < 2^(k+1) */
        int64_t n = (int64_t)x;
        uint64_t mag = n < 0 ? (uint64_t)0 - x : x;
        if (mag < ((uint64_t)1 << 62))
            cr_assert(hf_zigzag(x) <= 2 * mag, "zigzag(%lld) too large",
                      (long long)n);
    }
}

/* ---- through the writer and reader ----------------------------------------- */

static int find_bytes(const tbuf *hay, const tbuf *needle)
{
    if (needle->len > hay->len)
        return 0;
    for (size_t i = 0; i + needle->len <= hay->len; i++)
        if (memcmp(hay->data + i, needle->data, needle->len) == 0)
            return 1;
    return 0;
}

static const uint64_t boundary_u[] = {
    0, 1, 127, 128, 300, 16383, 16384, (1ULL << 32) - 1, 1ULL << 32,
    (1ULL << 63) - 1, 1ULL << 63, UINT64_MAX - 1, UINT64_MAX,
};

static const int64_t boundary_i[] = {
    0, -1, 1, 63, -64, 64, -65, INT32_MIN, INT32_MAX,
    INT64_MAX, INT64_MIN, INT64_MIN + 1,
};

/* The writer must use the canonical (shortest) encoding: each META record
 * appears verbatim, as encoded here from the spec, in a level-0 dump. */
/* out holds the META record of a one-letter key whose value is encoded
 * as the bytes of value. */
static int has_meta_record(const tbuf *out, unsigned type, char key,
                           const tbuf *value)
{
    tbuf body = { 0 }, rec = { 0 };
    tbuf_u8(&body, type);
    tbuf_varint(&body, 1);
    tbuf_u8(&body, (unsigned char)key);
    tbuf_put(&body, value->data, value->len);
    tbuf_u8(&rec, HEAPFMT_TAG_META);
    tbuf_varint(&rec, body.len);
    tbuf_put(&rec, body.data, body.len);
    int found = find_bytes(out, &rec);
    tbuf_free(&body);
    tbuf_free(&rec);
    return found;
}

Test(varint, writer_uses_canonical_encoding)
{
    tsink s;
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.level = 0;
    heapfmt_writer *w = twriter_on_sink(&s, &opt);
    for (size_t i = 0; i < sizeof boundary_u / sizeof boundary_u[0]; i++)
        TASSERT_OK(heapfmt_write_meta_uint(w, "u", boundary_u[i]));
    for (size_t i = 0; i < sizeof boundary_i / sizeof boundary_i[0]; i++)
        TASSERT_OK(heapfmt_write_meta_int(w, "i", boundary_i[i]));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);

    for (size_t i = 0; i < sizeof boundary_u / sizeof boundary_u[0]; i++) {
        tbuf v = { 0 };
        tbuf_varint(&v, boundary_u[i]);
        cr_assert(has_meta_record(&s.out, HEAPFMT_META_UINT, 'u', &v),
                  "META uint %llu not found in canonical form",
                  (unsigned long long)boundary_u[i]);
        tbuf_free(&v);
    }
    for (size_t i = 0; i < sizeof boundary_i / sizeof boundary_i[0]; i++) {
        tbuf v = { 0 };
        tbuf_zigzag(&v, boundary_i[i]);
        cr_assert(has_meta_record(&s.out, HEAPFMT_META_INT, 'i', &v),
                  "META int %lld not found in canonical form",
                  (long long)boundary_i[i]);
        tbuf_free(&v);
    }
    tsink_free(&s);
}

/* Boundary values in every varint/zdelta field survive writer -> reader. */
Test(varint, boundaries_through_reader)
{
    tmodel m;
    tmodel_init(&m);
    tsink s;
    heapfmt_writer *w = twriter_on_sink(&s, NULL);
    size_t nu = sizeof boundary_u / sizeof boundary_u[0];
    for (size_t i = 0; i < nu; i++)
        TASSERT_OK(tmodel_meta_uint(&m, w, "u", boundary_u[i]));
    for (size_t i = 0; i < sizeof boundary_i / sizeof boundary_i[0]; i++)
        TASSERT_OK(tmodel_meta_int(&m, w, "i", boundary_i[i]));
    uint32_t file;
    TASSERT_OK(tmodel_string(&m, w, "f.rb", 4, &file));
    for (size_t i = 0; i < nu; i++) {
        uint64_t refs[4] = { boundary_u[i], boundary_u[nu - 1 - i], 0,
                             boundary_u[i] };
        heapfmt_object o = { 0 };
        o.id = boundary_u[nu - 1 - i];
        o.class_id = boundary_u[i] ? boundary_u[i] : 1;
        o.size = boundary_u[i];
        o.fields = HEAPFMT_F_BASIC;
        o.flags = boundary_u[i];
        o.file = file;
        o.line = boundary_u[nu - 1 - i];
        o.generation = boundary_u[i];
        o.refs = refs;
        o.nrefs = 4;
        TASSERT_OK(tmodel_object(&m, w, &o));
        TASSERT_OK(tmodel_root(&m, w, file, refs, 4));
    }
    TASSERT_OK(tmodel_finish(&m, w));
    heapfmt_writer_free(w);
    cr_assert_eq(m.bad, 0, "%s", m.why);

    tcapture c;
    tcapture_memory(&c, s.out.data, s.out.len, 0);
    TASSERT_CAPTURE_DONE(&c);
    char why[512];
    cr_assert_eq(treclist_equal(&m.exp, &c.recs, TCMP_INDEX, why, sizeof why),
                 0, "%s", why);
    tcapture_free(&c);
    tmodel_free(&m);
    tsink_free(&s);
}
