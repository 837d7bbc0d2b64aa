/* heap_roundtrip.c -- the whole libheapfmt API a VM needs, in one program.
 *
 * Writes a tiny heap the way a VM's heap walker would (META, classes,
 * objects with labeled references, a root), then reads it back and prints
 * every record. `make test` builds and runs it (tests/cli/example.sh);
 * heapfmt(3) walks through it.
 *
 * Usage: heap_roundtrip FILE
 * Build: cc -Ilibheapfmt heap_roundtrip.c build/lib/libheapfmt.a \
 *           -lzstd -lz -pthread
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "heapfmt.h"

/* One error path for the writer: its message says what and where. */
static int writer_failed(heapfmt_writer *w, int rc)
{
    const heapfmt_error *e = heapfmt_writer_error(w);
    fprintf(stderr, "heap_roundtrip: write: %s\n",
            e != NULL ? e->message : heapfmt_strerror(rc));
    heapfmt_writer_free(w);
    return 1;
}

/* The heap: a global $cache (a Hash) holds two Strings by key. */
static int write_heap(const char *path)
{
    heapfmt_writer *w;
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.codec = HEAPFMT_CODEC_ZSTD; /* the default, said for the reader */
    int rc = heapfmt_writer_open_path(&w, &opt, path);
    if (rc != HEAPFMT_OK) {
        perror(path);
        return 1;
    }
    /* Strings are interned: an id per distinct text, written once. */
    uint32_t t_hash, t_string, k_a, k_b, global, cache_name;
    if ((rc = heapfmt_write_meta_text(w, "vm.name", "examplevm")) ||
        (rc = heapfmt_write_meta_uint(w, "pid", 4242)) ||
        (rc = heapfmt_write_string(w, "T_HASH", 6, &t_hash)) ||
        (rc = heapfmt_write_string(w, "T_STRING", 8, &t_string)) ||
        (rc = heapfmt_write_string(w, "a", 1, &k_a)) ||
        (rc = heapfmt_write_string(w, "b", 1, &k_b)) ||
        (rc = heapfmt_write_string(w, "global_tbl", 10, &global)) ||
        (rc = heapfmt_write_string(w, "$cache", 6, &cache_name)))
        return writer_failed(w, rc);
    /* A class is known by its id (the class object's address). */
    heapfmt_class hash = {0x1000, "Hash", 4, 0, 0};
    heapfmt_class string = {0x1028, "String", 6, 0, 0};
    if ((rc = heapfmt_write_class(w, &hash)) ||
        (rc = heapfmt_write_class(w, &string)))
        return writer_failed(w, rc);
    /* The Hash references its two values, labeled by their keys. */
    uint64_t values[] = {0x2028, 0x2050};
    heapfmt_label keys[] = {{HEAPFMT_LABEL_KEY, 0, k_a},
                            {HEAPFMT_LABEL_KEY, 0, k_b}};
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = 0x2000;
    o.class_id = hash.id;
    o.type = t_hash;
    o.size = 160;
    o.refs = values;
    o.nrefs = 2;
    o.fields = HEAPFMT_F_LABELS;
    o.labels = keys;
    if ((rc = heapfmt_write_object(w, &o)))
        return writer_failed(w, rc);
    for (int i = 0; i < 2; i++) {
        memset(&o, 0, sizeof o);
        o.id = values[i];
        o.class_id = string.id;
        o.type = t_string;
        o.size = 40;
        o.fields = HEAPFMT_F_VALUE;
        o.value = i == 0 ? "alpha" : "beta";
        o.value_len = strlen(o.value);
        if ((rc = heapfmt_write_object(w, &o)))
            return writer_failed(w, rc);
    }
    /* The root: the global variable table holds the Hash as $cache. */
    uint64_t held[] = {0x2000};
    heapfmt_label as[] = {{HEAPFMT_LABEL_GLOBAL, 0, cache_name}};
    if ((rc = heapfmt_write_root_labeled(w, global, held, as, 1)))
        return writer_failed(w, rc);
    /* Success only once every byte is written: check finish. */
    if ((rc = heapfmt_writer_finish(w)) != HEAPFMT_OK)
        return writer_failed(w, rc);
    heapfmt_writer_free(w);
    return 0;
}

/* Prints the references (and their labels) of the record just read. */
static int print_refs(heapfmt_reader *r)
{
    const uint64_t *ids;
    const heapfmt_rlabel *labels;
    long n = heapfmt_reader_refs(r, &ids);
    if (n < 0)
        return (int)n;
    long nl = heapfmt_reader_labels(r, &labels);
    if (nl < 0)
        return (int)nl;
    for (long i = 0; i < n; i++) {
        printf("    -> 0x%" PRIx64, ids[i]);
        if (nl > 0 && labels[i].kind != HEAPFMT_LABEL_NONE)
            printf(" via %s", labels[i].name->ptr);
        printf("\n");
    }
    return HEAPFMT_OK;
}

static int read_heap(const char *path)
{
    heapfmt_reader *r;
    int rc = heapfmt_reader_open_path(&r, NULL, path);
    if (rc != HEAPFMT_OK) {
        fprintf(stderr, "heap_roundtrip: %s: %s\n", path,
                r != NULL ? heapfmt_reader_error(r)->message
                          : heapfmt_strerror(rc));
        heapfmt_reader_free(r);
        return 1;
    }
    heapfmt_record rec;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK) {
        if (rec.tag == HEAPFMT_TAG_OBJECT) {
            const heapfmt_robject *o = rec.u.object;
            printf("object 0x%" PRIx64 " %s %s %" PRIu64 " bytes",
                   o->id, o->klass->name ? o->klass->name->ptr : "?",
                   o->type->ptr, o->size);
            if (o->fields & HEAPFMT_F_VALUE)
                printf(" \"%.*s\"", (int)o->value_len, o->value);
            printf("\n");
            rc = print_refs(r);
        } else if (rec.tag == HEAPFMT_TAG_ROOT) {
            printf("root %s\n", rec.u.root->kind->ptr);
            rc = print_refs(r);
        }
        if (rc != HEAPFMT_OK)
            break;
    }
    /* DONE: the dump was complete, every check passed. Anything else is
     * an error that says how much was read (a cut dump still gave all
     * its complete blocks). */
    if (rc != HEAPFMT_DONE) {
        fprintf(stderr, "heap_roundtrip: %s: %s\n", path,
                heapfmt_reader_error(r)->message);
        heapfmt_reader_free(r);
        return 1;
    }
    const heapfmt_rmeta *vm = heapfmt_reader_meta_get(r, "vm.name");
    printf("complete dump of %s\n", vm != NULL ? vm->text : "?");
    heapfmt_reader_free(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: heap_roundtrip FILE\n");
        return 2;
    }
    if (write_heap(argv[1]) != 0)
        return 1;
    return read_heap(argv[1]);
}
