/*
 * test_import_v8.c -- heapfmt-import of V8 heap snapshots (tools/import/
 * v8.c) and its tokenizer (v8scan.c).
 *
 * The fixture tests/fixtures/import/v8_small.heapsnapshot is a snapshot
 * written by hand in V8's layout, its expected heap worked out from it by
 * hand below (the live check against Node is tests/cli/import_v8.sh). It
 * is imported whole, a byte per read and in random pieces, with a small
 * buffer; then cut at every byte (never a crash, never more than the
 * whole, IMPORT_OK only for the whole), and damaged in the ways the table
 * lists, each named with its byte offset.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapfmt.h"
#include "import.h"
#include "sniff.h"
#include "tio.h"
#include "v8scan.h"

#include "test_import_run.h"

static tbuf fixture(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/fixtures/import/%s", name);
    const char *path = tfind_repo_file(NULL, rel);
    cr_assert_not_null(path, "%s not found", rel);
    tbuf b = {0};
    cr_assert_eq(tread_file(path, &b.data, &b.len), 0, "%s", path);
    b.cap = b.len;
    return b;
}

/* What v8_small.heapsnapshot holds (the README of the fixtures lists it). */
static void expect_small(const heap *h)
{
    static const want_obj want[] = {
        {1, 0, "(synthetic)", "synthetic", NULL},  {3, 0, "(synthetic)", "synthetic", NULL},
        {5, 0, "(synthetic)", "synthetic", NULL},  {7, 40, "global", "object", NULL},
        {9, 32, "Foo", "object", NULL},            {11, 32, "Array", "object", NULL},
        /* the hidden node is the closure's alone: DevTools' shallow
         * sizes give its 16 bytes to the closure */
        {13, 24, "(string)", "string", NULL},      {15, 64 + 16, "(closure)", "closure", NULL},
        {17, 0, "(system)", "hidden", NULL},
    };
    expect_objects(h, want, 9); /* in node order */
    expect_ref(find(h, 1), 0, 3, HEAPFMT_LABEL_INDEX, 0, "1");
    expect_ref(find(h, 1), 1, 7, HEAPFMT_LABEL_FIELD, 0, "global");
    static const want_refs foo[] = {
        {9, 3, {{13, HEAPFMT_LABEL_FIELD, 0, "bar"},
                {15, HEAPFMT_LABEL_FIELD, 1, "weakling"},
                {7, HEAPFMT_LABEL_FIELD, 0, "map"}}},
    };
    expect_refs(h, foo, 1);
    expect_ref(find(h, 11), 0, 9, HEAPFMT_LABEL_INDEX, 0, "0");
    expect_ref(find(h, 11), 1, 9, HEAPFMT_LABEL_INDEX, 0, "1");
    expect_ref(find(h, 15), 0, 17, HEAPFMT_LABEL_INDEX, 0, "3");
    /* indexed (1.3) only where it writes fewer labels: the Array's
     * elements [0] [1] at positions 0 and 1; not [1] or [3] at 0 */
    cr_assert(find(h, 11)->fields & HEAPFMT_F_INDEXED);
    cr_assert(!(find(h, 1)->fields & HEAPFMT_F_INDEXED));
    cr_assert(!(find(h, 15)->fields & HEAPFMT_F_INDEXED));
    cr_assert(!(find(h, 9)->fields & HEAPFMT_F_INDEXED));
    cr_assert_eq(find(h, 13)->nrefs, 0);
    /* previews: a string's text (escapes decoded), a function's name;
     * none for objects */
    cr_assert_str_eq(find(h, 13)->value,
                     "hello \"world\" \xc3\xa9\xf0\x9f\x98\x80");
    cr_assert_str_eq(find(h, 15)->value, "f");
    cr_assert_str_empty(find(h, 9)->value);
    cr_assert_eq(h->nroots, 2);
    cr_assert_str_eq(h->roots[0], "v8:root");
    cr_assert(h->root_n[0] == 1 && h->root_ref[0][0] == 1);
    cr_assert_str_eq(h->roots[1], "(Stack roots)");
    cr_assert(h->root_n[1] == 1 && h->root_ref[1][0] == 9);
}

Test(import_v8, small_snapshot_whole_and_in_pieces)
{
    tbuf in = fixture("v8_small.heapsnapshot");
    static const int policies[] = {TSRC_WHOLE, TSRC_BYTE, TSRC_RANDOM};
    for (size_t p = 0; p < 3; p++) {
        run R;
        import_mem(&R, in.data, in.len, policies[p], SNIFF_AUTO, 0);
        cr_assert_eq(R.result, IMPORT_OK, "policy %d: %s", policies[p], R.log);
        cr_assert_eq(R.finish, HEAPFMT_OK);
        cr_assert_str_empty(R.log);
        cr_assert_eq(R.st.objects, 9);
        cr_assert_eq(R.st.roots, 2);
        cr_assert_eq(R.st.refs, 11 + 2);
        cr_assert_eq(R.st.bytes_read, in.len);
        heap h;
        read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
        expect_small(&h);
        tsink_free(&R.sink);
    }
    tbuf_free(&in);
}

Test(import_v8, node_types_beyond_the_meta_are_unknown)
{
    /* older Chrome: nodes of type 12 (symbol) under a meta of 12 types; the
     * import goes on, as DevTools does, with class "(unknown)" */
    tbuf in = fixture("v8_unknown_type.heapsnapshot");
    static const int policies[] = {TSRC_WHOLE, TSRC_BYTE, TSRC_RANDOM};
    for (size_t p = 0; p < 3; p++) {
        run R;
        import_mem(&R, in.data, in.len, policies[p], SNIFF_AUTO, 0);
        cr_assert_eq(R.result, IMPORT_OK, "policy %d: %s", policies[p], R.log);
        cr_assert(strstr(R.log, "warning: 2 nodes of a type beyond "
                         "snapshot.meta.node_types (the first of type 12; "
                         "the meta lists 12)"), "%s", R.log);
        cr_assert_eq(R.st.objects, 6);
        cr_assert_eq(R.st.refs, 5 + 1);
        heap h;
        read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
        static const want_obj want[] = {
            {1, 0, "(synthetic)", "synthetic", NULL}, {3, 0, "(synthetic)", "synthetic", NULL},
            {5, 32, "Foo", "object", NULL},           {7, 16, "(unknown)", "unknown", NULL},
            {9, 16, "(unknown)", "unknown", NULL},    {11, 24, "(string)", "string", NULL},
        };
        expect_objects(&h, want, 6);
        /* the edges after the unknown nodes are all there */
        static const want_refs foo[] = {
            {5, 3, {{7, HEAPFMT_LABEL_FIELD, 0, "a"},
                    {9, HEAPFMT_LABEL_FIELD, 0, "b"},
                    {11, HEAPFMT_LABEL_FIELD, 0, "map"}}},
        };
        expect_refs(&h, foo, 1);
        cr_assert_str_eq(find(&h, 11)->value, "text");
        cr_assert_str_empty(find(&h, 7)->value); /* no preview: type unknown */
        tsink_free(&R.sink);
    }
    tbuf_free(&in);
}

Test(import_v8, previews_follow_the_preview_option)
{
    tbuf in = fixture("v8_small.heapsnapshot");
    static const struct {
        size_t preview;
        const char *string, *closure;
    } cases[] = {
        {0, "", ""},
        {1, "h", "f"},
        {15, "hello \"world\" ", "f"}, /* not half of the e-acute */
        {16, "hello \"world\" \xc3\xa9", "f"},
        {19, "hello \"world\" \xc3\xa9", "f"}, /* nor 3/4 of the emoji */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        preview = cases[i].preview;
        run R;
        import_mem(&R, in.data, in.len, TSRC_WHOLE, SNIFF_AUTO, 0);
        preview = IMPORT_PREVIEW;
        cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
        heap h;
        read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
        cr_assert_str_eq(find(&h, 13)->value, cases[i].string, "case %zu", i);
        cr_assert_str_eq(find(&h, 15)->value, cases[i].closure, "case %zu", i);
        tsink_free(&R.sink);
    }
    tbuf_free(&in);
}

Test(import_v8, blank_space_and_byte_order_mark_are_allowed)
{
    tbuf in = fixture("v8_small.heapsnapshot");
    tbuf b = {0};
    tbuf_put(&b, "\xef\xbb\xbf \n{ \"snapshot\" :", 19);
    tbuf_put(&b, in.data + 12, in.len - 12);
    cr_assert(sniff_is_v8((const char *)b.data, b.len));
    run R;
    import_mem(&R, b.data, b.len, TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    heap h;
    read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
    expect_small(&h);
    tsink_free(&R.sink);
    tbuf_free(&b);
    tbuf_free(&in);
}

Test(import_v8, cut_at_every_byte)
{
    tbuf in = fixture("v8_small.heapsnapshot");
    size_t nodes_end = (size_t)(strstr((char *)in.data, "\"edges\"") -
                                (char *)in.data);
    for (size_t cut = 0; cut < in.len; cut++) {
        run R;
        import_mem(&R, in.data, cut, TSRC_WHOLE, SNIFF_AUTO, 0);
        /* only the final newline may go; before '{"snapshot":' is whole,
         * the input is not recognised as a snapshot */
        int v8 = cut >= 12;
        if (cut == in.len - 1) {
            cr_assert_eq(R.result, IMPORT_OK);
        } else {
            cr_assert_neq(R.result, IMPORT_OK, "cut at %zu", cut);
            cr_assert(!v8 || strstr(R.log, "byte ") != NULL, "cut at %zu: %s",
                      cut, R.log);
        }
        /* a failure says why, also when the cut itself is a warning
         * (fuzz/crashes/fuzz_import/v8-cut-in-meta-fails-silently) */
        if (R.result == IMPORT_FAILED)
            cr_assert_gt(R.errors, 0, "cut at %zu: %s", cut, R.log);
        if (v8 && R.result != IMPORT_FAILED) {
            cr_assert_eq(R.finish, HEAPFMT_OK);
            heap h;
            read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
            cr_assert_leq(h.no, 9);
        }
        /* past the nodes, every node is there */
        if (cut > nodes_end && cut < in.len - 1) {
            cr_assert_eq(R.result, IMPORT_INCOMPLETE, "cut at %zu", cut);
            cr_assert_eq(R.st.objects, 9, "cut at %zu", cut);
            cr_assert(R.st.truncated);
        }
        tsink_free(&R.sink);
        /* --strict fails every cut one */
        if (cut < in.len - 1) {
            import_mem(&R, in.data, cut, TSRC_WHOLE, SNIFF_AUTO, 1);
            cr_assert_eq(R.result, IMPORT_FAILED);
            tsink_free(&R.sink);
        }
    }
    tbuf_free(&in);
}

/* ---- damaged snapshots ------------------------------------------------- */

/* A snapshot made of a meta, nodes, edges and strings (each NULL for the
 * default: v8_small's node and edge types, two nodes with one edge). */
static char *snapshot(const char *meta, const char *nodes, const char *edges,
                      const char *strings)
{
    static const char def_meta[] =
        "{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
        "\"node_types\":[[\"hidden\",\"object\",\"synthetic\"],\"string\","
        "\"number\",\"number\",\"number\"],"
        "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
        "\"edge_types\":[[\"element\",\"property\",\"weak\"],"
        "\"string_or_number\",\"node\"]}";
    char *s = malloc(4096);
    snprintf(s, 4096,
             "{\"snapshot\":{\"meta\":%s,\"node_count\":2},\n"
             "\"nodes\":[%s],\n\"edges\":[%s],\n\"strings\":[%s]}\n",
             meta ? meta : def_meta, nodes ? nodes : "2,0,1,0,1,1,1,3,8,0",
             edges ? edges : "1,1,5", strings ? strings : "\"\",\"A\"");
    return s;
}

Test(import_v8, the_default_damage_case_is_fine)
{
    char *s = snapshot(NULL, NULL, NULL, NULL);
    run R;
    import_mem(&R, s, strlen(s), TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    cr_assert_eq(R.st.objects, 2);
    tsink_free(&R.sink);
    free(s);
}

Test(import_v8, damage_is_named_with_its_offset)
{
    static const struct {
        const char *meta, *nodes, *edges, *strings;
        const char *at;     /* the text the offset must point to */
        const char *what;   /* in the message */
        int result;
    } cases[] = {
        {NULL, "2,0,1,0,1,1,1,3,-8,0", NULL, NULL, "-8", "negative", IMPORT_INCOMPLETE},
        {NULL, "2,0,1,0,1,1,1,3,8.5,0", NULL, NULL, "8.5", "integer", IMPORT_INCOMPLETE},
        {NULL, "2,0,1,0,1,1,1,3,08,0", NULL, NULL, "08", "leading zero", IMPORT_INCOMPLETE},
        {NULL, "2,0,1,0,1,1,1,3,18446744073709551616,0", NULL, NULL,
         "18446744073709551616", "2^64", IMPORT_INCOMPLETE},
        {NULL, "2,0,1,0,1,1,1,3,8", NULL, NULL, "]", "lacks fields", IMPORT_INCOMPLETE},
        {NULL, NULL, "1,1,4", NULL, "4]", "to_node", IMPORT_INCOMPLETE},
        {NULL, NULL, "1,1,10", NULL, "10]", "to_node", IMPORT_INCOMPLETE},
        {NULL, NULL, "9,1,5", NULL, "9,1,5", "edge type", IMPORT_INCOMPLETE},
        {NULL, NULL, "1,1,5,1,1,5", NULL, "1,1,5]", "more edges", IMPORT_INCOMPLETE},
        {NULL, NULL, "1,4294967296,5", NULL, "4294967296", "2^32", IMPORT_INCOMPLETE},
        {NULL, NULL, NULL, "\"\",\"A\001\"", "\001", "control", IMPORT_INCOMPLETE},
        {NULL, NULL, NULL, "\"\",\"A\\q\"", "q\"", "escape", IMPORT_INCOMPLETE},
        {NULL, NULL, NULL, "\"\",\"A\\u12G4\"", "u12G4", "\\u escape", IMPORT_INCOMPLETE},
        {NULL, NULL, NULL, "\"\" \"A\"", "\"A\"]", "expected ','", IMPORT_INCOMPLETE},
        {"{}", NULL, NULL, NULL, "}", "node_fields", IMPORT_FAILED},
        {"{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
         "\"node_types\":[\"x\",[\"object\"]],"
         "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
         "\"edge_types\":[[\"element\"]]}",
         NULL, NULL, NULL, "}", "node_types", IMPORT_FAILED},
        {"[[[[]]]}", NULL, NULL, NULL, "[[[[", "expected '{'", IMPORT_FAILED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = snapshot(cases[i].meta, cases[i].nodes, cases[i].edges,
                           cases[i].strings);
        const char *at = strstr(s, cases[i].at);
        if (strcmp(cases[i].at, "}") == 0) /* after the meta */
            at = strstr(s, "},\"node_count\"") + 1;
        if (strcmp(cases[i].at, "]") == 0)
            at = strstr(s, "],\n\"edges\"");
        if (strcmp(cases[i].at, "[[[[") == 0)
            at = strstr(s, "[[[[");
        cr_assert_not_null(at, "case %zu", i);
        /* byte by byte, the numbers take the scanner's general path; read
         * whole, its fast path, which finds a field's offset again */
        for (int policy = TSRC_WHOLE; policy <= TSRC_BYTE; policy++) {
            run R;
            import_mem(&R, s, strlen(s), policy, SNIFF_AUTO, 0);
            cr_assert_eq(R.result, cases[i].result, "case %zu/%d: %s", i,
                         policy, R.log);
            char where[64];
            snprintf(where, sizeof where, "byte %zu ", (size_t)(at - s));
            cr_assert(strstr(R.log, where) != NULL, "case %zu/%d: want %s in %s",
                      i, policy, where, R.log);
            cr_assert(strstr(R.log, cases[i].what) != NULL,
                      "case %zu/%d: want %s in %s", i, policy, cases[i].what,
                      R.log);
            cr_assert_eq(R.st.malformed, 1, "case %zu/%d", i, policy);
            tsink_free(&R.sink);
        }
        free(s);
    }
}

/* A snapshot of nodes typed t[] with self sizes z[] and the edges e[]
 * (type, name, target node), for the shallow sizes. */
static char *sized(size_t n, const char *const *t, const unsigned *z,
                   const unsigned *edges_of, size_t ne, const unsigned (*e)[3])
{
    static const char meta[] =
        "{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
        "\"node_types\":[[\"hidden\",\"array\",\"object\",\"synthetic\",\"native\"],"
        "\"string\",\"number\",\"number\",\"number\"],"
        "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
        "\"edge_types\":[[\"element\",\"property\",\"weak\"],"
        "\"string_or_number\",\"node\"]}";
    static const char *const types[] = {"hidden", "array", "object", "synthetic",
                                        "native"};
    char nodes[1024] = "", edges[1024] = "";
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned ty = 0;
        while (strcmp(types[ty], t[i]) != 0)
            ty++;
        o += (size_t)snprintf(nodes + o, sizeof nodes - o, "%s%u,1,%zu,%u,%u",
                              i ? "," : "", ty, 2 * i + 1, z[i], edges_of[i]);
    }
    o = 0;
    for (size_t i = 0; i < ne; i++)
        o += (size_t)snprintf(edges + o, sizeof edges - o, "%s%u,%u,%u",
                              i ? "," : "", e[i][0], e[i][1], 5 * e[i][2]);
    return snapshot(meta, nodes, edges, "\"\",\"A\"");
}

Test(import_v8, sizes_are_devtools_shallow_sizes)
{
    /* root -> A (object) -> H1 (hidden, 8) -> H2 (array, 16); A and B
     * (object) -> S (array, 32, shared); B -weak-> W (hidden, 4); A -> C
     * (array, 2) <- H1: C is A's through H1 too */
    static const char *const t[] = {"synthetic", "object", "hidden", "array",
                                    "object", "array", "hidden", "array"};
    static const unsigned z[] = {0, 40, 8, 16, 24, 32, 4, 2};
    static const unsigned edges_of[] = {2, 3, 2, 0, 2, 0, 0, 0};
    static const unsigned e[][3] = {
        {1, 1, 1}, {1, 1, 4},            /* root -> A, B */
        {1, 1, 2}, {1, 1, 5}, {1, 1, 7}, /* A -> H1, S, C */
        {0, 0, 3}, {0, 1, 7},            /* H1 -> H2, C */
        {1, 1, 5}, {2, 1, 6},            /* B -> S, B -weak-> W */
    };
    char *s = sized(8, t, z, edges_of, 9, e);
    run R;
    import_mem(&R, s, strlen(s), TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    heap h;
    read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
    static const uint64_t want[] = {0, 40 + 8 + 16 + 2, 0, 0, 24, 32, 4, 0};
    for (size_t i = 0; i < 8; i++)
        cr_assert_eq(h.o[i].size, want[i], "node %zu: %llu", i,
                     (unsigned long long)h.o[i].size);
    tsink_free(&R.sink);
    free(s);
    /* a root that holds only synthetic nodes (a snapshot exposing V8's
     * internals): sizes as V8 wrote them */
    static const char *const t2[] = {"synthetic", "synthetic", "hidden"};
    static const unsigned z2[] = {0, 0, 8}, edges_of2[] = {1, 1, 0};
    static const unsigned e2[][3] = {{1, 1, 1}, {1, 1, 2}};
    s = sized(3, t2, z2, edges_of2, 2, e2);
    import_mem(&R, s, strlen(s), TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
    cr_assert_eq(h.o[2].size, 8);
    tsink_free(&R.sink);
    free(s);
}

Test(import_v8, members_out_of_order_or_missing)
{
    static const struct {
        const char *text, *what;
    } cases[] = {
        {"{\"nodes\":[],\"snapshot\":{}}", "\"nodes\" before \"snapshot\""},
        {"{\"snapshot\":{\"x\":1}}", "no \"meta\""},
        {"{\"snapshot\":1}", "expected '{'"},
        {"{\"snapshot\":{\"meta\":{}}}\n", "node_fields"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run R;
        import_mem(&R, cases[i].text, strlen(cases[i].text), TSRC_WHOLE,
                   SNIFF_V8, 0);
        cr_assert_eq(R.result, IMPORT_FAILED, "case %zu", i);
        cr_assert(strstr(R.log, cases[i].what) != NULL, "case %zu: %s", i, R.log);
    }
    /* strings before edges, edges missing: the nodes still come out */
    char *s = snapshot(NULL, NULL, NULL, NULL);
    char *e = strstr(s, "\"edges\"");
    memcpy(e, "\"edgez\"", 7);
    run R;
    import_mem(&R, s, strlen(s), TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "\"strings\" before \"edges\"") != NULL, "%s", R.log);
    cr_assert_eq(R.st.objects, 2);
    tsink_free(&R.sink);
    /* trailing data */
    s[strlen(s) - 1] = 'x';
    memcpy(e, "\"edges\"", 7);
    import_mem(&R, s, strlen(s), TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "after the end") != NULL, "%s", R.log);
    tsink_free(&R.sink);
    free(s);
}

/* Nodes that repeat an id (issue 31): a snapshot whose Foo and Array
 * nodes both take the global's id 7. Each repeat gets a new id from the
 * top of the range down, the import says so, its output verifies
 * (import_mem runs heapfmt-info --verify), and the edges to a renamed
 * node (the Array's elements are Foo) follow it. */
Test(import_v8, repeated_ids_get_new_ones_and_edges_follow)
{
    tbuf in = fixture("v8_small.heapsnapshot");
    static const char *const from[] = {",3,3,9,32,3,0,0", ",3,6,11,32,2,0,0"};
    static const char *const to[] = {",3,3,7,32,3,0,0", ",3,6,7,32,2,0,0"};
    tbuf b = {0};
    tbuf_put(&b, in.data, in.len);
    tbuf_u8(&b, 0); /* a C string, for strstr */
    for (size_t k = 0; k < 2; k++) {
        char *at = strstr((char *)b.data, from[k]);
        cr_assert_not_null(at);
        size_t n = strlen(from[k]), m = strlen(to[k]);
        memmove(at + m, at + n, strlen(at + n) + 1);
        memcpy(at, to[k], m);
    }
    b.len = strlen((char *)b.data);
    run R;
    import_mem(&R, b.data, b.len, TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_OK, "%s", R.log);
    cr_assert(strstr(R.log, "warning: 2 nodes repeat the id of an earlier "
                            "node (the first: node 4, id 7)") != NULL,
              "%s", R.log);
    cr_assert_eq(R.st.ids_renamed, 2);
    heap h;
    read_heap(&h, &R.sink.out, "v8.heapsnapshot", 1);
    cr_assert_str_eq(find(&h, 7)->cls, "global");
    const obj *foo = find(&h, UINT64_MAX), *arr = find(&h, UINT64_MAX - 1);
    cr_assert_str_eq(foo->cls, "Foo");
    cr_assert_str_eq(arr->cls, "Array");
    expect_ref(arr, 0, UINT64_MAX, HEAPFMT_LABEL_INDEX, 0, "0");
    expect_ref(arr, 1, UINT64_MAX, HEAPFMT_LABEL_INDEX, 0, "1");
    expect_ref(foo, 2, 7, HEAPFMT_LABEL_FIELD, 0, "map");
    tsink_free(&R.sink);
    tbuf_free(&b);
    tbuf_free(&in);
}

Test(import_v8, huge_indexes_do_not_allocate)
{
    /* names and to_node past anything read: no allocation by them (the
     * test's 64-byte buffer and ASan keep it honest), names left out */
    char *s = snapshot(NULL, "2,18446744073709551615,1,0,1,1,4000000000,3,8,0",
                       "1,4000000000,5", NULL);
    run R;
    import_mem(&R, s, strlen(s), TSRC_WHOLE, SNIFF_AUTO, 0);
    cr_assert_eq(R.result, IMPORT_INCOMPLETE, "%s", R.log);
    cr_assert(strstr(R.log, "names refer past") != NULL, "%s", R.log);
    cr_assert_eq(R.st.objects, 2);
    tsink_free(&R.sink);
    /* with --strict the loss is the error that fails the import
     * (fuzz/crashes/fuzz_import/v8-strict-names-missing-fails-silently) */
    import_mem(&R, s, strlen(s), TSRC_WHOLE, SNIFF_AUTO, 1);
    cr_assert_eq(R.result, IMPORT_FAILED);
    cr_assert_gt(R.errors, 0, "%s", R.log);
    tsink_free(&R.sink);
    free(s);
}

/* ---- the tokenizer ----------------------------------------------------- */

static void scan_open(vs_stream *s, tsource *src, const char *text, int policy)
{
    tsource_init(src, text, strlen(text), policy, 7);
    cr_assert_eq(vs_init(s, tsource_read, src, 64, 16), IMP_OK);
}

Test(import_v8_scan, numbers)
{
    const char *text = " 0,\n18446744073709551615 ,42\n,7]";
    for (int policy = TSRC_WHOLE; policy <= TSRC_RANDOM; policy++) {
        vs_stream s;
        tsource src;
        scan_open(&s, &src, text, policy);
        uint64_t v;
        int more;
        cr_assert_eq(vs_uint(&s, &v), IMP_OK);
        cr_assert_eq(v, 0);
        cr_assert_eq(s.tok_off, 1);
        cr_assert_eq(vs_next_member(&s, ']', &more), IMP_OK);
        cr_assert_eq(vs_uint(&s, &v), IMP_OK);
        cr_assert_eq(v, UINT64_MAX);
        cr_assert_eq(s.tok_off, 4);
        cr_assert_eq(vs_next_member(&s, ']', &more), IMP_OK);
        cr_assert_eq(vs_uint(&s, &v), IMP_OK);
        cr_assert_eq(v, 42);
        cr_assert_eq(vs_next_member(&s, ']', &more), IMP_OK);
        cr_assert_eq(more, 1);
        cr_assert_eq(vs_uint(&s, &v), IMP_OK);
        cr_assert_eq(v, 7);
        cr_assert_eq(vs_next_member(&s, ']', &more), IMP_OK);
        cr_assert_eq(more, 0);
        cr_assert_eq(vs_at_end(&s), IMP_OK);
        cr_assert_eq(vs_offset(&s), strlen(text));
        cr_assert_eq(vs_uint(&s, &v), IMP_CUT);
        vs_free(&s);
    }
}

Test(import_v8_scan, strings_and_escapes)
{
    const char *text = "\"plain\" \"a\\\"b\\\\c\\/\\n\\u00e9\\ud83d\\ude00\" "
                       "\"\\ud800x\" \"0123456789abcdefXYZ\" \"\"";
    for (int policy = TSRC_WHOLE; policy <= TSRC_RANDOM; policy++) {
        vs_stream s;
        tsource src;
        scan_open(&s, &src, text, policy);
        cr_assert_eq(vs_string(&s), IMP_OK);
        cr_assert_str_eq(s.text, "plain");
        cr_assert_eq(vs_string(&s), IMP_OK);
        cr_assert_eq(s.text_len, 13);
        cr_assert_eq(memcmp(s.text, "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80", 13), 0);
        cr_assert_eq(vs_string(&s), IMP_OK); /* a lone surrogate: 3 bytes */
        cr_assert_eq(memcmp(s.text, "\xed\xa0\x80x", 4), 0);
        cr_assert_eq(vs_string(&s), IMP_OK); /* kept: text_max 16 bytes */
        cr_assert_eq(s.text_len, 16);
        cr_assert(s.text_cut);
        cr_assert_eq(vs_string(&s), IMP_OK);
        cr_assert_eq(s.text_len, 0);
        cr_assert(!s.text_cut);
        cr_assert_eq(vs_string(&s), IMP_CUT);
        vs_free(&s);
    }
}

Test(import_v8_scan, skip_checks_brackets)
{
    static const struct {
        const char *text;
        int rc;
    } cases[] = {
        {"[1,[2,{\"a\":[true,null,-1.5e3]}],\"]\"] 9", IMP_OK},
        {"{}", IMP_OK},
        {"[1,{]", IMP_SYNTAX},
        {"[1,2", IMP_CUT},
        {"]", IMP_SYNTAX},
        {"\"abc", IMP_CUT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_stream s;
        tsource src;
        scan_open(&s, &src, cases[i].text, TSRC_BYTE);
        cr_assert_eq(vs_skip(&s), cases[i].rc, "case %zu", i);
        vs_free(&s);
    }
    /* deep nesting is refused, not recursed into */
    size_t n = VS_MAX_DEPTH + 10;
    char *deep = malloc(n + 1);
    memset(deep, '[', n);
    deep[n] = '\0';
    vs_stream s;
    tsource src;
    scan_open(&s, &src, deep, TSRC_WHOLE);
    cr_assert_eq(vs_skip(&s), IMP_SYNTAX);
    cr_assert_str_eq(s.err_msg, "nested too deeply");
    vs_free(&s);
    free(deep);
}

/* One policy with the dump_all scanner (jescape.h): UTF-8 is checked,
 * whatever buffer boundary splits a sequence; a sequence cut by the end
 * of the input is a cut input; escapes are refused with the same words. */
Test(import_v8_scan, utf8_and_escapes_as_dump_all)
{
    static const struct {
        const char *text;
        int rc;
        const char *msg; /* NULL: IMP_OK */
    } cases[] = {
        {"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", IMP_OK, NULL},
        {"\"a\xff\"", IMP_SYNTAX, "invalid UTF-8"},
        {"\"a\xc3(\"", IMP_SYNTAX, "invalid UTF-8"},
        {"\"\xed\xa0\x80\"", IMP_SYNTAX, "invalid UTF-8"}, /* a surrogate */
        {"\"\xc0\xaf\"", IMP_SYNTAX, "invalid UTF-8"},     /* overlong */
        {"\"a\xe2\x82", IMP_CUT, NULL},
        {"\"a\\q\"", IMP_SYNTAX, "invalid escape"},
        {"\"a\\u12G4\"", IMP_SYNTAX, "invalid \\u escape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int policy = TSRC_WHOLE; policy <= TSRC_RANDOM; policy++) {
            vs_stream s;
            tsource src;
            scan_open(&s, &src, cases[i].text, policy);
            cr_assert_eq(vs_string(&s), cases[i].rc, "case %zu, policy %d",
                         i, policy);
            if (cases[i].rc == IMP_OK)
                cr_assert_eq(memcmp(s.text, cases[i].text + 1, s.text_len), 0);
            if (cases[i].msg)
                cr_assert_str_eq(s.err_msg, cases[i].msg, "case %zu", i);
            if (cases[i].rc == IMP_CUT) /* the offset: the input's end */
                cr_assert_eq(s.err_off, strlen(cases[i].text), "case %zu", i);
            vs_free(&s);
        }
}
