/*
 * test_export_rows.c -- the pieces of heapfmt-export's rows and pprof
 * formats: the protocol buffer encoder (against the wire format's
 * definition, worked by hand), the rows' ids (against snprintf), their
 * columns (jansson), and --time (against the C library's timegm).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "identity.h"
#include "pb.h"
#include "rows.h"
#include "tio.h"

/* ---- protocol buffers ---------------------------------------------------- */

static void expect_bytes(const pb_buf *b, const char *hex)
{
    char got[512] = "";
    for (size_t i = 0; i < b->len && 2 * i + 2 < sizeof got; i++)
        snprintf(got + 2 * i, 3, "%02x", b->p[i]);
    cr_assert_str_eq(got, hex);
    cr_assert_eq(b->failed, 0);
}

Test(pb, varints)
{
    /* base 128, low group first, the high bit saying more follow */
    static const struct {
        uint64_t v;
        const char *hex;
    } cases[] = {
        {0, "00"},
        {1, "01"},
        {127, "7f"},
        {128, "8001"},
        {300, "ac02"},
        {16383, "ff7f"},
        {16384, "808001"},
        {UINT64_C(1) << 63, "80808080808080808001"},
        {UINT64_MAX, "ffffffffffffffffff01"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pb_buf b = {0};
        pb_varint(&b, cases[i].v);
        expect_bytes(&b, cases[i].hex);
        cr_assert_eq(pb_varint_size(cases[i].v), strlen(cases[i].hex) / 2);
        pb_free(&b);
    }
}

Test(pb, fields)
{
    pb_buf b = {0}, m = {0};
    pb_uint_opt(&b, 1, 0);   /* proto3: a zero is left out */
    pb_uint_opt(&b, 1, 150); /* key 1<<3|0, then 150 */
    pb_uint_always(&b, 2, 0);
    pb_bytes(&b, 6, "hi", 2); /* key 6<<3|2 = 0x32, length, bytes */
    pb_bytes(&b, 6, "", 0);
    expect_bytes(&b, "0896011000" "32026869" "3200");
    pb_reset(&b);
    /* a message inside a message: key, length, its bytes */
    pb_uint_opt(&m, 1, 3);
    pb_uint_opt(&m, 2, 270);
    pb_message(&b, 4, &m);
    expect_bytes(&b, "2205" "0803" "108e02");
    pb_reset(&b);
    /* packed: one key, the length of all the varints, the varints */
    uint64_t v[] = {3, 270, 86942};
    pb_packed(&b, 1, v, 3);
    expect_bytes(&b, "0a06" "03" "8e02" "9ea705");
    pb_reset(&b);
    pb_packed(&b, 1, v, 0);
    cr_assert_eq(b.len, 0);
    /* a large field number: its key takes two bytes */
    pb_uint_opt(&b, 16, 1);
    expect_bytes(&b, "800101");
    pb_free(&b);
    pb_free(&m);
}

/* ---- rows ---------------------------------------------------------------- */

typedef struct mem {
    tsink sink;
    jout o;
} mem;

static char *render(rows *w, void (*fn)(rows *, jout *, const void *),
                    const void *arg)
{
    mem m;
    tsink_init(&m.sink);
    cr_assert_eq(jout_init(&m.o, 0, tsink_write, &m.sink), 0);
    fn(w, &m.o, arg);
    cr_assert_eq(jout_flush(&m.o), 0);
    char *s = malloc(m.sink.out.len + 1);
    memcpy(s, m.sink.out.data, m.sink.out.len);
    s[m.sink.out.len] = '\0';
    jout_free(&m.o);
    tsink_free(&m.sink);
    return s;
}

static heapfmt_rstring str(const char *s, uint32_t id)
{
    heapfmt_rstring r = {s, strlen(s), id, id, 0, 0};
    return r;
}

static void edge_to(rows *w, jout *o, const void *arg)
{
    const uint64_t *ids = arg;
    rows_reference(w, o, ids[0], NULL, ids[1], NULL);
}

/* The digits of member key in a row, as text. */
static void member_digits(const char *row, const char *key, char *out,
                          size_t cap)
{
    const char *p = strstr(row, key);
    cr_assert_not_null(p, "%s in %s", key, row);
    p += strlen(key);
    size_t n = strspn(p, "0123456789");
    cr_assert_lt(n, cap);
    memcpy(out, p, n);
    out[n] = '\0';
}

Test(rows, ids)
{
    /* ids of one dump share their digits above the last eight; the row
     * writer keeps those: every id, around every boundary, exact */
    static const uint64_t ids[] = {
        0, 1, 99999999, 100000000, 100000001, 140114781225000,
        140114781225040, 140114799999999, 140114800000000, 7,
        UINT64_C(18446744073709551615), UINT64_C(18446744073700000000),
        UINT64_C(10000000000000000000), 140114781225000};
    ident id = IDENT_INIT;
    ident_resolve(&id, NULL);
    rows w;
    cr_assert_eq(rows_init(&w, &id), 0);
    for (size_t i = 0; i + 1 < sizeof ids / sizeof ids[0]; i++) {
        uint64_t pair[2] = {ids[i], ids[i + 1]};
        char *row = render(&w, (void (*)(rows *, jout *, const void *))edge_to,
                           pair);
        char want[32], got[32];
        snprintf(want, sizeof want, "%" PRIu64, ids[i]);
        member_digits(row, "\"from_id\":", got, sizeof got);
        cr_assert_str_eq(got, want, "row %s", row);
        snprintf(want, sizeof want, "%" PRIu64, ids[i + 1]);
        member_digits(row, "\"to_id\":", got, sizeof got);
        cr_assert_str_eq(got, want, "row %s", row);
        free(row);
    }
    rows_free(&w);
}

static void object_row(rows *w, jout *o, const void *arg)
{
    const heapfmt_robject *ob = arg;
    rows_object(w, o, ob, ob->klass->name->ptr, ob->klass->name->len);
}

Test(rows, object_columns)
{
    ident id = IDENT_INIT;
    id.host = "web\t1";
    id.host_len = 5;
    id.pid = 42;
    id.given = IDENT_HOST | IDENT_PID;
    ident_resolve(&id, NULL); /* time and release: none, no reader */
    rows w;
    cr_assert_eq(rows_init(&w, &id), 0);
    heapfmt_rstring name = str("Caf\xc3\xa9\xff\"", 1);
    heapfmt_rstring none = {"", 0, 0, 0, 0, 0};
    heapfmt_rstring file = str("app/x.rb", 2);
    heapfmt_rclass k = {7, 3, 0x1000, 0, 0, &name, 0};
    heapfmt_robject ob = {0};
    ob.id = 0x7f0000001000;
    ob.klass = &k;
    ob.type = &none;
    ob.file = &file;
    ob.line = 12;
    ob.size = 40;
    ob.nrefs = 3;
    ob.fields = HEAPFMT_F_SITE;
    /* twice: the second row comes from the memos, and must be the same */
    char *first = render(&w, object_row, &ob);
    char *second = render(&w, object_row, &ob);
    cr_assert_str_eq(first, second);
    json_error_t err;
    json_t *j = json_loads(first, 0, &err);
    cr_assert_not_null(j, "%s: %s", first, err.text);
    cr_assert_str_eq(json_string_value(json_object_get(j, "host")), "web\t1");
    cr_assert_eq(json_integer_value(json_object_get(j, "pid")), 42);
    cr_assert_eq(json_integer_value(json_object_get(j, "time")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(j, "release")), "");
    cr_assert_eq(json_integer_value(json_object_get(j, "id")), 0x7f0000001000);
    cr_assert_str_eq(json_string_value(json_object_get(j, "class")),
                     "Caf\xc3\xa9\xef\xbf\xbd\"");
    cr_assert_str_eq(json_string_value(json_object_get(j, "type")), "");
    cr_assert_eq(json_integer_value(json_object_get(j, "bytes")), 40);
    cr_assert_eq(json_integer_value(json_object_get(j, "refs")), 3);
    cr_assert_str_eq(json_string_value(json_object_get(j, "file")), "app/x.rb");
    cr_assert_eq(json_integer_value(json_object_get(j, "line")), 12);
    cr_assert_eq(json_integer_value(json_object_get(j, "generation")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(j, "frame")), "");
    cr_assert_eq(json_object_size(j), 14); /* every column, no other */
    json_decref(j);
    free(first);
    free(second);
    rows_free(&w);
}

/* ---- --time ---------------------------------------------------------------- */

Test(identity, time)
{
    uint64_t t;
    cr_assert_eq(ident_parse_time("1795255200", &t), 0);
    cr_assert_eq(t, 1795255200u);
    static const char *dates[] = {
        "1970-01-01T00:00:00Z", "2026-11-21T10:00:00Z", "2026-11-21 10:00:00",
        "2024-02-29T23:59:59",  "2000-02-29T12:00:00Z", "2100-03-01T00:00:00Z",
        "1999-12-31T23:59:59Z"};
    for (size_t i = 0; i < sizeof dates / sizeof dates[0]; i++) {
        struct tm tm = {0};
        cr_assert_eq(sscanf(dates[i], "%d-%d-%d%*c%d:%d:%d", &tm.tm_year,
                            &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                            &tm.tm_sec),
                     6);
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        cr_assert_eq(ident_parse_time(dates[i], &t), 0, "%s", dates[i]);
        cr_assert_eq(t, (uint64_t)timegm(&tm), "%s", dates[i]);
    }
    static const char *bad[] = {
        "", "-1", "12s", "2023-02-29T00:00:00", "1900-02-29T00:00:00",
        "1969-12-31T23:59:59", "2026-13-01T00:00:00", "2026-11-31T00:00:00",
        "2026-11-21T24:00:00", "2026-11-21T10:00", "2026-11-21T10:00:00+01",
        "2026-11-21x10:00:00", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_neq(ident_parse_time(bad[i], &t), 0, "'%s'", bad[i]);
}
