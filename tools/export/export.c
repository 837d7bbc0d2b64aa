/* export.c -- read a dump once and write it out as JSON documents. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_search.h"
#include "dump_read.h"
#include "cli_exit.h"
#include "cli_msg.h"
#include "cli_names.h"
#include "cli_dump.h"
#include "export.h"
#include "idset.h"
#include "pprof.h"
#include "rows.h"
#include "spool.h"

/* cli_scan callbacks return exit codes; this private one means "the
 * reader of our output went away": stop, quietly, with success. */
#define STOP_PIPE (-1)

typedef struct exporter {
    const export_options *opt;
    cli_dump *d;
    const heapfmt_record *rec; /* the record being exported */
    jout *out;
    const char *out_name;
    unsigned records;
    doc_style st;
    int json;               /* the json format's framing */
    uint64_t objects_written; /* json: elements of "objects" so far */
    spool roots, edges;     /* json: the parts written after "objects" */
    int spool_errno;        /* a spool failed: its errno */
    uint64_t *count;        /* per class slot: objects exported */
    uint64_t *bytes;        /* per class slot: their sizes */
    size_t nslots;
    uint64_t root_no;       /* ROOT records seen */
    /* Final class names from the footer of a complete, seekable dump, by
     * class index (NULL where the footer has none). */
    const heapfmt_class_summary **final;
    size_t nfinal;
    /* The last lookups in final, direct-mapped by class index: most
     * objects are of a few classes, and the search mispredicts. */
    struct final_hit {
        uint32_t index;
        int valid;
        const heapfmt_class_summary *summary; /* NULL: not in final */
    } final_hits[256];
    idset ids;              /* mongo: object ids met, for unique _ids */
    int ids_failed;         /* it ran out of memory */
    doc_memo memo;          /* class and type members written before */
    int rows;               /* the rows format (rows.h) */
    rows rw;                /* its row writer, once the identity is known */
    int ident_ready;        /* the identity was resolved (identity.h) */
    ident id;               /* the options', completed from META */
    char *ident_members;    /* other formats, with --host &c.: st.ident */
} exporter;

unsigned export_default_records(int format)
{
    if (format == EXPORT_JSON)
        return RECORDS_OBJECTS | RECORDS_ROOTS | RECORDS_CLASSES |
               RECORDS_META;
    return RECORDS_OBJECTS;
}

int export_parse_format(const char *name, int *format)
{
    static const struct {
        const char *name;
        int format;
    } formats[] = {
        {"ndjson", EXPORT_NDJSON},
        {"json", EXPORT_JSON},
        {"mongo", EXPORT_MONGO},
        {"rows", EXPORT_ROWS},
        {"pprof", EXPORT_PPROF},
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (strcmp(name, formats[i].name) == 0) {
            *format = formats[i].format;
            return 0;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Framing                                                             */
/* ------------------------------------------------------------------ */

/* Starts an element of a json array that already holds n elements (the
 * caller counts), or does nothing for line formats. */
static void item_begin(const exporter *x, jout *o, uint64_t n)
{
    if (x->json) {
        if (n > 0)
            jout_char(o, ',');
        jout_char(o, '\n');
    }
}

/* Ends a document: a newline for line formats. */
static void item_end(const exporter *x, jout *o)
{
    if (!x->json)
        jout_char(o, '\n');
}

/* The output of a kind that streams while reading: the main output, or in
 * the json format a spool. */
static jout *stream_for(exporter *x, spool *s)
{
    return x->json ? &s->out : x->out;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* Reports a failed output write; returns the code to stop with. */
static int output_failed(exporter *x)
{
    int err = x->out->err;
    if (err == EPIPE)
        return STOP_PIPE;
    cli_error(x->out_name, "%s", strerror(err));
    return CLI_EXIT_ERROR;
}

static int spool_failed(exporter *x, int err)
{
    if (x->spool_errno == 0)
        x->spool_errno = err != 0 ? err : EIO;
    cli_error(NULL, "temporary file: %s", strerror(x->spool_errno));
    return CLI_EXIT_ERROR;
}

/* Checks every output after a record; returns 0 or a stop code. */
static int check_outputs(exporter *x)
{
    if (jout_failed(x->out))
        return output_failed(x);
    if (x->json) {
        if (x->roots.file != NULL && jout_failed(&x->roots.out))
            return spool_failed(x, x->roots.out.err);
        if (x->edges.file != NULL && jout_failed(&x->edges.out))
            return spool_failed(x, x->edges.out.err);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Identity                                                            */
/* ------------------------------------------------------------------ */

/* Resolves the dump's identity from the options and the META seen so far
 * (META comes first), before the first row or document that carries it.
 * Returns 0, or an exit code after a message (out of memory). */
static int identity_ready(exporter *x)
{
    if (x->ident_ready)
        return 0;
    x->ident_ready = 1;
    x->id = x->opt->id;
    ident_resolve(&x->id, x->d->reader);
    int rc = 0;
    if (x->rows) {
        rc = rows_init(&x->rw, &x->id);
    } else if (x->id.given) {
        rc = rows_ident_members(&x->id, x->st.mongo, &x->ident_members,
                                &x->st.ident_len);
        x->st.ident = x->ident_members;
    }
    if (rc != 0) {
        cli_error(x->d->name, "out of memory");
        return CLI_EXIT_ERROR;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

/* Counts an object of class slot `slot`. Returns 0, or -1 out of memory. */
static int tally(exporter *x, heapfmt_reader *r, uint32_t slot,
                 uint64_t size)
{
    if (slot >= x->nslots) {
        size_t n = heapfmt_reader_class_count(r);
        if (n <= slot)
            n = (size_t)slot + 1;
        if (n < 2 * x->nslots)
            n = 2 * x->nslots;
        uint64_t *c = realloc(x->count, n * sizeof *c);
        if (c == NULL)
            return -1;
        x->count = c;
        uint64_t *b = realloc(x->bytes, n * sizeof *b);
        if (b == NULL)
            return -1;
        x->bytes = b;
        memset(c + x->nslots, 0, (n - x->nslots) * sizeof *c);
        memset(b + x->nslots, 0, (n - x->nslots) * sizeof *b);
        x->nslots = n;
    }
    x->count[slot]++;
    x->bytes[slot] += size;
    return 0;
}

/* Decodes the references of the last record. When they do not decode the
 * reader skips the rest of the block; the record is still exported, with
 * no references and refs_truncated. Returns the count decoded. */
static uint64_t get_refs(exporter *x, heapfmt_reader *r, uint64_t nrefs,
                         const uint64_t **refs)
{
    *refs = NULL;
    if (nrefs == 0)
        return 0;
    long n = heapfmt_reader_refs(r, refs);
    if (n < 0) {
        cli_warn(x->d->name, "%s; rest of the block skipped",
                 an_reader_message(r, (int)n));
        *refs = NULL;
        return 0;
    }
    return (uint64_t)n;
}

/* Decodes the labels of the last record, when it has them and its n
 * references were all decoded. Returns them, or NULL: no labels, or (after
 * a warning; the reader then skips the rest of the block) labels that do
 * not decode, in which case the record is exported without them. */
static const heapfmt_rlabel *get_labels(exporter *x, heapfmt_reader *r,
                                        uint64_t n)
{
    const heapfmt_rlabel *labels = NULL;
    if (n == 0)
        return NULL;
    long got = heapfmt_reader_labels(r, &labels);
    if (got < 0) {
        cli_warn(x->d->name, "%s; labels left out, rest of the block skipped",
                 an_reader_message(r, (int)got));
        return NULL;
    }
    /* a label's name never defined is a placeholder: said at the end */
    cli_undefined_labels(x->rec, labels, (size_t)got, cli_undefined_note,
                         &x->d->undef);
    return (uint64_t)got == n ? labels : NULL;
}

/* The display name of an object's class: the final one when the footer
 * gave it, else the one known at this point of the dump. */
static const char *class_name(exporter *x, const heapfmt_rclass *k,
                              cli_name *buf, size_t *len)
{
    if (x->nfinal == 0)
        return cli_class_name(k, buf, len);
    struct final_hit *h =
        &x->final_hits[k->index % (sizeof x->final_hits / sizeof *h)];
    if (!h->valid || h->index != k->index) {
        /* final is sorted by index: a binary search, so that its memory
         * is the classes the footer holds, whatever their indexes claim */
        size_t lo;
        CLI_LOWER_BOUND(lo, x->nfinal, i, x->final[i]->index < k->index);
        h->valid = 1;
        h->index = k->index;
        h->summary = lo < x->nfinal && x->final[lo]->index == k->index
                         ? x->final[lo]
                         : NULL;
    }
    return h->summary ? cli_summary_name(h->summary, buf, len)
                      : cli_class_name(k, buf, len);
}

static int summary_by_index(const void *a, const void *b)
{
    const heapfmt_class_summary *x = *(const heapfmt_class_summary *const *)a;
    const heapfmt_class_summary *y = *(const heapfmt_class_summary *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Reads the final class names from the footer, when the dump is complete
 * and seekable: a class first met anonymous and named later in the dump
 * then has its name in every object document, as histo shows it. Returns
 * 0, or -1 out of memory. Without a footer (a pipe, an incomplete dump)
 * objects carry the names known when they were read. */
static int load_final_names(exporter *x)
{
    const heapfmt_footer *f;
    if (heapfmt_reader_footer(x->d->reader, &f) != HEAPFMT_OK)
        return 0;
    if (f->nclasses == 0)
        return 0;
    x->final = calloc(f->nclasses, sizeof *x->final);
    if (x->final == NULL)
        return -1;
    x->nfinal = f->nclasses;
    for (size_t i = 0; i < f->nclasses; i++)
        x->final[i] = &f->classes[i];
    qsort(x->final, x->nfinal, sizeof *x->final, summary_by_index);
    return 0;
}

/* An object in the rows format: its row, and its references' rows. The
 * references are decoded only for those. */
static void rows_object_record(exporter *x, heapfmt_reader *r,
                               const heapfmt_robject *ob)
{
    if (x->records & RECORDS_OBJECTS) {
        cli_name buf;
        size_t len;
        const char *name = class_name(x, ob->klass, &buf, &len);
        rows_object(&x->rw, x->out, ob, name, len);
        item_end(x, x->out);
    }
    if (x->records & RECORDS_EDGES) {
        const uint64_t *ids;
        uint64_t n = get_refs(x, r, ob->nrefs, &ids);
        const heapfmt_rlabel *labels =
            n == ob->nrefs ? get_labels(x, r, n) : NULL;
        for (uint64_t k = 0; k < n && !jout_failed(x->out); k++) {
            rows_reference(&x->rw, x->out, ob->id, NULL, ids[k],
                           labels != NULL ? &labels[k] : NULL);
            item_end(x, x->out);
        }
    }
}

static void object_record(exporter *x, heapfmt_reader *r,
                          const heapfmt_robject *ob)
{
    if (x->rows) {
        rows_object_record(x, r, ob);
        return;
    }
    doc_refs refs;
    refs.n = get_refs(x, r, ob->nrefs, &refs.ids);
    refs.labels = refs.n == ob->nrefs ? get_labels(x, r, refs.n) : NULL;
    refs.repeat = 0;
    if (x->st.mongo) {
        refs.repeat = idset_add(&x->ids, ob->id);
        x->ids_failed |= refs.repeat == 0;
    }
    if (x->records & RECORDS_OBJECTS) {
        jout *o = x->out;
        cli_name buf;
        size_t len;
        const char *name = class_name(x, ob->klass, &buf, &len);
        item_begin(x, o, x->objects_written++);
        if (refs.n < ob->nrefs) {
            /* references lost: say so the way truncation does */
            doc_style lost = x->st;
            lost.max_refs = 0;
            doc_refs none = {NULL, NULL, ob->nrefs, refs.repeat};
            doc_object(o, &lost, ob, name, len, &none);
        } else {
            doc_object(o, &x->st, ob, name, len, &refs);
        }
        item_end(x, o);
    }
    if (x->records & RECORDS_EDGES) {
        jout *o = stream_for(x, &x->edges);
        /* Each edge is a document: a closed output stops the work after
         * the one that failed, not after the record's last edge. */
        for (uint64_t k = 0; k < refs.n && !jout_failed(o); k++) {
            item_begin(x, o, x->edges.items++);
            doc_edge(o, &x->st, ob->id, refs.repeat, k, refs.ids[k],
                     refs.labels != NULL ? &refs.labels[k] : NULL);
            item_end(x, o);
        }
    }
}

/* A root in the rows format: its row, and its references' rows. */
static void rows_root_record(exporter *x, heapfmt_reader *r,
                             const heapfmt_rroot *root)
{
    if (x->records & RECORDS_ROOTS) {
        rows_root(&x->rw, x->out, root);
        item_end(x, x->out);
    }
    if (x->records & RECORDS_EDGES) {
        const uint64_t *ids;
        uint64_t n = get_refs(x, r, root->nrefs, &ids);
        const heapfmt_rlabel *labels =
            n == root->nrefs && root->labeled ? get_labels(x, r, n) : NULL;
        for (uint64_t k = 0; k < n && !jout_failed(x->out); k++) {
            rows_reference(&x->rw, x->out, 0, root->kind, ids[k],
                           labels != NULL ? &labels[k] : NULL);
            item_end(x, x->out);
        }
    }
}

static void root_record(exporter *x, heapfmt_reader *r,
                        const heapfmt_rroot *root)
{
    uint64_t no = x->root_no++;
    if (!(x->records & (RECORDS_ROOTS | RECORDS_EDGES)))
        return;
    if (x->rows) {
        rows_root_record(x, r, root);
        return;
    }
    doc_refs refs;
    refs.repeat = 0;
    refs.n = get_refs(x, r, root->nrefs, &refs.ids);
    refs.labels = refs.n == root->nrefs && root->labeled
                      ? get_labels(x, r, refs.n)
                      : NULL;
    if (x->records & RECORDS_ROOTS) {
        jout *o = stream_for(x, &x->roots);
        item_begin(x, o, x->roots.items++);
        if (refs.n < root->nrefs) {
            doc_style lost = x->st;
            lost.max_refs = 0;
            doc_refs none = {NULL, NULL, root->nrefs, 0};
            doc_root(o, &lost, root, no, &none);
        } else {
            doc_root(o, &x->st, root, no, &refs);
        }
        item_end(x, o);
    }
    if (x->records & RECORDS_EDGES) {
        jout *o = stream_for(x, &x->edges);
        for (uint64_t k = 0; k < refs.n && !jout_failed(o); k++) {
            item_begin(x, o, x->edges.items++);
            doc_root_edge(o, &x->st, root->kind, no, k, refs.ids[k],
                          refs.labels != NULL ? &refs.labels[k] : NULL);
            item_end(x, o);
        }
    }
}

static int on_record(void *ctx, heapfmt_reader *r, const heapfmt_record *rec)
{
    exporter *x = ctx;
    x->rec = rec;
    switch (rec->tag) {
    case HEAPFMT_TAG_OBJECT: {
        const heapfmt_robject *ob = rec->u.object;
        int rc = identity_ready(x);
        if (rc != 0)
            return rc;
        if (tally(x, r, ob->klass->slot, ob->size) != 0) {
            cli_error(x->d->name, "out of memory");
            return CLI_EXIT_ERROR;
        }
        if (x->records & (RECORDS_OBJECTS | RECORDS_EDGES))
            object_record(x, r, ob);
        break;
    }
    case HEAPFMT_TAG_ROOT: {
        int rc = identity_ready(x);
        if (rc != 0)
            return rc;
        root_record(x, r, rec->u.root);
        break;
    }
    default:
        return 0; /* META, STRING, CLASS: the reader keeps them for us */
    }
    if (x->ids_failed) {
        cli_error(x->d->name, "out of memory");
        return CLI_EXIT_ERROR;
    }
    return check_outputs(x);
}

/* ------------------------------------------------------------------ */
/* After the last record: classes and meta                             */
/* ------------------------------------------------------------------ */

static void write_classes(exporter *x)
{
    heapfmt_reader *r = x->d->reader;
    size_t n = heapfmt_reader_class_count(r);
    uint64_t written = 0;
    for (size_t slot = 0; slot < n; slot++) {
        const heapfmt_rclass *c = heapfmt_reader_class(r, slot);
        uint64_t count = slot < x->nslots ? x->count[slot] : 0;
        uint64_t bytes = slot < x->nslots ? x->bytes[slot] : 0;
        if (c == NULL || (c->index == 0 && count == 0))
            continue; /* "no class" only matters when objects have it */
        item_begin(x, x->out, written++);
        if (x->rows)
            rows_class(&x->rw, x->out, c, count, bytes);
        else
            doc_class(x->out, &x->st, c, count, bytes);
        item_end(x, x->out);
        if (jout_failed(x->out))
            return;
    }
}

/* A META key with its position, for finding the last pair of each key. */
typedef struct meta_key {
    const char *key;
    size_t len;
    size_t index;
} meta_key;

/* Orders META keys by text, then by position. */
static int meta_order(const void *pa, const void *pb)
{
    const meta_key *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->key, b->key, n);
    if (c == 0 && a->len != b->len)
        c = a->len < b->len ? -1 : 1;
    if (c == 0)
        c = a->index < b->index ? -1 : (a->index > b->index);
    return c;
}

/* The META pairs, last value of each key, in dump order. Returns 0 or -1
 * out of memory. */
static int write_meta(exporter *x)
{
    size_t n;
    const heapfmt_rmeta *m = heapfmt_reader_meta(x->d->reader, &n);
    if (n == 0) {
        if (x->json)
            JOUT_LIT(x->out, "{}");
        return 0;
    }
    meta_key *order = malloc(n * sizeof *order);
    unsigned char *keep = malloc(n);
    if (order == NULL || keep == NULL) {
        free(order);
        free(keep);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        order[i].key = m[i].key;
        order[i].len = m[i].key_len;
        order[i].index = i;
        keep[i] = 0;
    }
    qsort(order, n, sizeof *order, meta_order);
    for (size_t k = 0; k < n; k++) {
        int last = k + 1 == n || order[k + 1].len != order[k].len ||
                   memcmp(order[k + 1].key, order[k].key, order[k].len) != 0;
        keep[order[k].index] = (unsigned char)last;
    }
    free(order);
    jout *o = x->out;
    if (x->json)
        jout_char(o, '{');
    uint64_t written = 0;
    for (size_t i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        if (x->json) {
            item_begin(x, o, written++);
            jout_str(o, m[i].key, m[i].key_len, HEAPFMT_MAX_KEY);
            jout_char(o, ':');
            doc_meta_value(o, &x->st, &m[i]);
        } else {
            if (x->rows)
                rows_meta(&x->rw, o, &m[i]);
            else
                doc_meta(o, &x->st, &m[i]);
            item_end(x, o);
        }
    }
    if (x->json)
        JOUT_LIT(o, "\n}");
    free(keep);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The json format's frame                                             */
/* ------------------------------------------------------------------ */

static void json_head(exporter *x)
{
    jout *o = x->out;
    JOUT_LIT(o, "{\"format\":\"heapfmt-export\",\"version\":1");
    if (x->opt->tag != NULL) {
        JOUT_LIT(o, ",\"dump\":");
        jout_str(o, x->opt->tag, strlen(x->opt->tag), DOC_MAX_TAG);
    }
    if (x->records & RECORDS_OBJECTS)
        JOUT_LIT(o, ",\n\"objects\":[");
}

/* Closes "objects" and appends a spooled array. Returns 0 or a stop code. */
static int json_spooled(exporter *x, spool *s, const char *name)
{
    jout *o = x->out;
    JOUT_LIT(o, ",\n\"");
    jout_put(o, name, strlen(name));
    JOUT_LIT(o, "\":[");
    if (spool_copy(s, o) != 0)
        return spool_failed(x, errno);
    JOUT_LIT(o, "\n]");
    return 0;
}

/* Everything after the last record. Returns 0 or a stop code. */
static int write_tail(exporter *x, int complete)
{
    jout *o = x->out;
    int rc;
    if ((rc = identity_ready(x)) != 0)
        return rc;
    if (x->json && (x->records & RECORDS_OBJECTS))
        JOUT_LIT(o, "\n]");
    if (x->json && (x->records & RECORDS_ROOTS) &&
        (rc = json_spooled(x, &x->roots, "roots")) != 0)
        return rc;
    if (x->json && (x->records & RECORDS_EDGES) &&
        (rc = json_spooled(x, &x->edges, "edges")) != 0)
        return rc;
    if (x->records & RECORDS_CLASSES) {
        if (x->json)
            JOUT_LIT(o, ",\n\"classes\":[");
        write_classes(x);
        if (x->json)
            JOUT_LIT(o, "\n]");
    }
    if (x->records & RECORDS_META) {
        if (x->json)
            JOUT_LIT(o, ",\n\"meta\":");
        if (write_meta(x) != 0) {
            cli_error(x->d->name, "out of memory");
            return CLI_EXIT_ERROR;
        }
    }
    if (x->json) {
        if (complete)
            JOUT_LIT(o, ",\n\"complete\":true}\n");
        else
            JOUT_LIT(o, ",\n\"complete\":false}\n");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

static int run(exporter *x)
{
    if ((x->records & RECORDS_OBJECTS) && load_final_names(x) != 0) {
        cli_error(x->d->name, "out of memory");
        return CLI_EXIT_ERROR;
    }
    if (x->json) {
        if ((x->records & RECORDS_ROOTS) && spool_open(&x->roots) != 0)
            return spool_failed(x, errno);
        if ((x->records & RECORDS_EDGES) && spool_open(&x->edges) != 0)
            return spool_failed(x, errno);
        json_head(x);
    }
    int rc = cli_scan(x->d, on_record, x);
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_INCOMPLETE)
        return rc; /* an output failure or a fatal read error */
    int stop = write_tail(x, rc == CLI_EXIT_OK);
    if (stop == 0)
        stop = check_outputs(x);
    if (stop == 0 && jout_flush(x->out) != 0)
        stop = output_failed(x);
    return stop != 0 ? stop : rc;
}

int export_dump(cli_dump *d, const export_options *opt, jout *out,
                const char *out_name)
{
    if (opt->format == EXPORT_PPROF)
        return pprof_export(d, opt, out, out_name);
    exporter x;
    memset(&x, 0, sizeof x);
    x.opt = opt;
    x.d = d;
    x.out = out;
    x.out_name = out_name;
    x.records = opt->records != 0 ? opt->records
                                  : export_default_records(opt->format);
    x.json = opt->format == EXPORT_JSON;
    x.rows = opt->format == EXPORT_ROWS;
    x.st.mongo = opt->format == EXPORT_MONGO;
    x.st.tag = x.json ? NULL : opt->tag; /* json: once, at the top */
    x.st.record_field = !x.json && records_several(x.records);
    x.st.max_refs = opt->max_refs;
    x.st.memo = &x.memo;
    x.roots.fd = x.edges.fd = -1;

    int rc = run(&x);
    if (rc == STOP_PIPE)
        rc = CLI_EXIT_OK;
    else if (rc == CLI_EXIT_ERROR)
        jout_flush(out); /* keep what was written, for what it is worth */
    spool_close(&x.roots);
    spool_close(&x.edges);
    free(x.count);
    free(x.bytes);
    free(x.final);
    idset_free(&x.ids);
    rows_free(&x.rw);
    free(x.ident_members);
    return rc;
}
