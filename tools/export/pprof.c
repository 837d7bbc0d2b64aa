/* pprof.c -- a dump as a gzip'd pprof heap profile (profile.proto).
 *
 * profile.proto, the fields written here (google/pprof, proto/profile.proto):
 *   Profile   1 sample_type (ValueType)  2 sample  3 mapping  4 location
 *             5 function  6 string_table  9 time_nanos  11 period_type
 *             12 period  13 comment (string indexes)  14 default_sample_type
 *   ValueType 1 type  2 unit (string indexes)
 *   Sample    1 location_id (packed, leaf first)  2 value (packed)
 *             3 label
 *   Label     1 key  2 str (string indexes)
 *   Mapping   1 id  2 memory_start  3 memory_limit  4 file_offset
 *             5 filename  7 has_functions  8 has_filenames
 *             9 has_line_numbers
 *   Location  1 id  2 mapping_id  3 address  4 line (Line)
 *   Line      1 function_id  2 line
 *   Function  1 id  2 name  3 system_name  4 filename
 * string_table[0] is "". Ids start at 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli_escape.h"
#include "cli_exit.h"
#include "cli_grow.h"
#include "cli_msg.h"
#include "cli_names.h"
#include "cli_num.h"
#include "cli_dump.h"
#include "cli_stack.h"
#include "cli_strmap.h"
#include "pb.h"
#include "pprof.h"

/* Profile fields */
enum {
    F_SAMPLE_TYPE = 1,
    F_SAMPLE = 2,
    F_MAPPING = 3,
    F_LOCATION = 4,
    F_FUNCTION = 5,
    F_STRING = 6,
    F_TIME_NANOS = 9,
    F_PERIOD_TYPE = 11,
    F_PERIOD = 12,
    F_COMMENT = 13,
    F_DEFAULT_SAMPLE_TYPE = 14
};

/* The encoded profile goes through zlib in pieces of about this size. */
#define CHUNK (256u << 10)

/* The longest text kept in the string table: names are cut there (at a
 * character boundary), as the JSON formats cut repeated names. */
#define MAX_TEXT 4096u

/* A sample's identity, the key of the sample table. */
typedef struct sample_key {
    uint32_t stack; /* stack slot + 1; 0: no stack */
    uint32_t file;  /* site's file string slot + 1; 0: no site */
    uint64_t line;
    uint32_t klass; /* class slot + 1; 0: none (allocations only) */
    uint32_t zero;
} sample_key;

typedef struct sample {
    const heapfmt_rstack *stack;
    const heapfmt_rstring *file; /* NULL: no site */
    uint64_t line;
    const heapfmt_rclass *klass; /* NULL: none */
    uint64_t count, bytes, allocs, alloc_bytes;
} sample;

typedef struct mapping {
    uint64_t filename; /* string index */
    uint64_t limit;    /* highest address + 1 */
    int files, lines;  /* some location has a file, a line */
} mapping;

typedef struct prof {
    cli_dump *d;
    const export_options *opt;
    jout *out;
    const char *out_name;
    int failed; /* out of memory */

    /* what the scan gathers */
    cli_strmap keys; /* sample_key -> sample index */
    sample *v;
    size_t n, cap;
    const heapfmt_rstack **stacks; /* by slot, as the STACK records came */
    size_t nstacks;
    size_t *first_sample; /* by stack slot: index + 1 of its first sample */
    size_t nfirst;
    int any_stack, any_site, allocs;

    /* what the profile names */
    cli_strmap strings;   /* text -> string index */
    cli_strmap functions; /* (name, filename) indexes -> function id - 1 */
    cli_strmap pseudo;    /* a location that is no frame -> index */
    uint64_t *pseudo_loc; /* by that index: location id */
    size_t npseudo_loc;
    uint64_t *frame_loc;  /* by frame slot: location id, 0: not yet */
    size_t nframe_loc;
    uint64_t *lib_map;    /* by library string slot: mapping id, 0: none */
    size_t nlib_map;
    mapping *maps;
    size_t nmaps, capmaps;
    uint64_t nlocs;
    char *text;           /* scratch for UTF-8 repairs */
    size_t textcap;
    char *site;           /* scratch for site names */
    size_t sitecap;
    uint64_t *ids;        /* scratch for a sample's location ids */
    size_t nids;
    cli_buf name;         /* scratch for frame names */

    /* the encoder: top-level fields in top, streamed through z; the
     * locations and functions wait in their own buffers */
    pb_buf top, msg, sub, locs, funcs;
    z_stream z;
    int z_open;
} prof;

static void oom(prof *p)
{
    p->failed = 1;
}

/* ------------------------------------------------------------------ */
/* Gathering: the samples                                              */
/* ------------------------------------------------------------------ */

/* The sample of key k, made on first use from its parts. NULL when out
 * of memory. */
static sample *sample_for(prof *p, const sample_key *k,
                          const heapfmt_rstack *stack,
                          const heapfmt_rstring *file, uint64_t line,
                          const heapfmt_rclass *klass)
{
    if (GROW(p->v, p->cap, p->n) != 0) /* room first: nothing to undo */
        return NULL;
    size_t i;
    int added = cli_strmap_add(&p->keys, (const char *)k, sizeof *k, &i);
    if (added < 0)
        return NULL;
    if (added) {
        p->v[i] = (sample){stack, file, line, klass, 0, 0, 0, 0};
        p->n = i + 1;
    }
    return &p->v[i];
}

static int add_object(prof *p, const heapfmt_robject *ob)
{
    sample_key k = {0};
    const heapfmt_rstack *stack =
        (ob->fields & HEAPFMT_F_STACK) ? ob->stack : NULL;
    const heapfmt_rstring *file =
        (ob->fields & HEAPFMT_F_SITE) ? ob->file : NULL;
    if (stack != NULL) {
        k.stack = stack->slot + 1;
        p->any_stack = 1;
    }
    if (file != NULL) {
        k.file = file->slot + 1;
        k.line = ob->line;
        p->any_site = 1;
    }
    k.klass = ob->klass->slot + 1;
    sample *s = sample_for(p, &k, stack, file, file ? ob->line : 0,
                           ob->klass);
    if (s == NULL)
        return -1;
    s->count++;
    s->bytes = s->bytes + ob->size < s->bytes ? UINT64_MAX
                                              : s->bytes + ob->size;
    if (stack != NULL) {
        if (cli_grow_zeroed((void **)&p->first_sample, &p->nfirst,
                            stack->slot + 1, sizeof *p->first_sample) != 0)
            return -1;
        if (p->first_sample[stack->slot] == 0)
            p->first_sample[stack->slot] = (size_t)(s - p->v) + 1;
    }
    return 0;
}

static int on_record(void *ctx, heapfmt_reader *r, const heapfmt_record *rec)
{
    (void)r;
    prof *p = ctx;
    int rc = 0;
    if (rec->tag == HEAPFMT_TAG_OBJECT) {
        rc = add_object(p, rec->u.object);
    } else if (rec->tag == HEAPFMT_TAG_STACK) {
        const heapfmt_rstack *s = rec->u.stack;
        rc = cli_grow_zeroed((void **)&p->stacks, &p->nstacks, s->slot + 1,
                             sizeof *p->stacks);
        if (rc == 0)
            p->stacks[s->slot] = s;
    }
    if (rc != 0) {
        cli_error(p->d->name, "out of memory");
        return CLI_EXIT_ERROR;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Gathering: allocations per stack (exact heapfmt-malloc dumps)       */
/* ------------------------------------------------------------------ */

/* Parses "ALLOCS FREES ALLOC_BYTES FREE_BYTES" (heapfmt-malloc(1)).
 * Returns 0, or -1 when the text is not that. */
static int parse_counts(const char *s, uint64_t v[4])
{
    for (int i = 0; i < 4; i++) {
        if (i > 0 && *s++ != ' ')
            return -1;
        if (*s < '0' || *s > '9')
            return -1;
        uint64_t x = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (x > (UINT64_MAX - 9) / 10)
                return -1;
            x = x * 10 + (uint64_t)(*s - '0');
        }
        v[i] = x;
    }
    return *s == '\0' ? 0 : -1;
}

/* Whether the dump counts every allocation: an exact-mode heapfmt-malloc
 * dump (META malloc.estimates 0). Sampled dumps count sampled calls
 * only, and their sizes would not match the estimates of inuse_space. */
static int counts_every_allocation(const heapfmt_reader *r)
{
    const heapfmt_rmeta *m = heapfmt_reader_meta_get(r, "malloc.estimates");
    return m != NULL && m->type == HEAPFMT_META_UINT && m->uint_value == 0;
}

/* Adds the META malloc.stack.ID counts to the samples of those stacks.
 * Returns 0 or -1 (out of memory). */
static int add_allocations(prof *p)
{
    heapfmt_reader *r = p->d->reader;
    if (!counts_every_allocation(r))
        return 0;
    hf_map by_id; /* stack id -> slot */
    hf_map_init(&by_id);
    int rc = 0;
    for (size_t slot = 0; slot < p->nstacks && rc == 0; slot++)
        if (p->stacks[slot] != NULL && slot <= UINT32_MAX &&
            hf_map_put(&by_id, hf_default_allocator(), p->stacks[slot]->id,
                       (uint32_t)slot) != 0)
            rc = -1;
    size_t n;
    const heapfmt_rmeta *m = heapfmt_reader_meta(r, &n);
    static const char prefix[] = "malloc.stack.";
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint64_t id, c[4];
        uint32_t slot;
        if (m[i].type != HEAPFMT_META_TEXT ||
            m[i].key_len <= sizeof prefix - 1 ||
            memcmp(m[i].key, prefix, sizeof prefix - 1) != 0 ||
            cli_parse_u64(m[i].key + sizeof prefix - 1, &id) != 0 ||
            parse_counts(m[i].text, c) != 0 || !hf_map_get(&by_id, id, &slot))
            continue;
        sample *s;
        if (slot < p->nfirst && p->first_sample[slot] != 0) {
            s = &p->v[p->first_sample[slot] - 1];
        } else { /* every block of the stack was freed */
            sample_key k = {.stack = slot + 1};
            s = sample_for(p, &k, p->stacks[slot], NULL, 0, NULL);
            if (s == NULL) {
                rc = -1;
                break;
            }
        }
        /* a META key repeats (the last wins): set, not add */
        s->allocs = c[0];
        s->alloc_bytes = c[2];
        p->allocs = 1;
        p->any_stack = 1;
    }
    hf_map_free(&by_id, hf_default_allocator());
    return rc;
}

/* ------------------------------------------------------------------ */
/* Names: the string table, functions, locations, mappings             */
/* ------------------------------------------------------------------ */

static char *scratch(prof *p, size_t n)
{
    if (n > p->textcap) {
        size_t cap = p->textcap ? p->textcap : 256;
        while (cap < n)
            cap *= 2;
        char *t = realloc(p->text, cap);
        if (t == NULL)
            return NULL;
        p->text = t;
        p->textcap = cap;
    }
    return p->text;
}

/* The string index of a text: cut at MAX_TEXT bytes, each byte that
 * starts no valid UTF-8 sequence replaced by U+FFFD (protobuf strings are
 * UTF-8). 0 (the empty string) when out of memory. */
static uint64_t str(prof *p, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && i < MAX_TEXT) {
        size_t u = cli_utf8_len(s + i, len - i);
        if (u == 0 || i + u > MAX_TEXT)
            break;
        i += u;
    }
    if (i < len) { /* cut or repaired: build the text */
        char *t = scratch(p, 3 * MAX_TEXT);
        if (t == NULL) {
            oom(p);
            return 0;
        }
        size_t o = 0, j = 0;
        while (j < len && o + 3 <= 3 * MAX_TEXT && j < MAX_TEXT) {
            size_t u = cli_utf8_len(s + j, len - j);
            if (u > 0 && j + u <= MAX_TEXT) {
                memcpy(t + o, s + j, u);
                o += u;
                j += u;
            } else if (u > 0) {
                break; /* a character that would cross the cut */
            } else {
                memcpy(t + o, "\xef\xbf\xbd", 3);
                o += 3;
                j++;
            }
        }
        s = t;
        len = o;
    }
    size_t index;
    if (cli_strmap_add(&p->strings, s, len, &index) < 0) {
        oom(p);
        return 0;
    }
    return index;
}

static uint64_t rstr(prof *p, const heapfmt_rstring *s)
{
    if (s == NULL || s->id == 0 || s->undefined)
        return 0;
    return str(p, s->ptr, s->len);
}

/* Whether an interned string is there and not empty. */
static int known(const heapfmt_rstring *s)
{
    return s != NULL && s->id != 0 && !s->undefined && s->len > 0;
}

/* The function (name, filename): its id, written to funcs on first use.
 * A frame's function has its name as system_name too, so that pprof
 * demangles and simplifies it as it does every native profile's; a
 * pseudo function (a site, a class) has none: pprof then shows its name
 * as it is, not cut at "<" or "(" as if it were C++. */
static uint64_t function_id(prof *p, uint64_t name, int pseudo,
                            uint64_t filename)
{
    uint64_t key[3] = {name, filename, (uint64_t)pseudo};
    size_t i;
    int added = cli_strmap_add(&p->functions, (const char *)key, sizeof key,
                               &i);
    if (added < 0) {
        oom(p);
        return 0;
    }
    uint64_t id = (uint64_t)i + 1;
    if (added) {
        pb_reset(&p->msg);
        pb_uint_opt(&p->msg, 1, id);
        pb_uint_opt(&p->msg, 2, name);
        pb_uint_opt(&p->msg, 3, pseudo ? 0 : name);
        pb_uint_opt(&p->msg, 4, filename);
        pb_message(&p->funcs, F_FUNCTION, &p->msg);
    }
    return id;
}

/* Writes a Location (its next id) to locs: mapping 0 for none, function
 * 0 for a location without a line. Returns the id. */
static uint64_t write_location(prof *p, uint64_t map_id, uint64_t address,
                               uint64_t function, uint64_t line)
{
    uint64_t id = ++p->nlocs;
    pb_reset(&p->msg);
    pb_uint_opt(&p->msg, 1, id);
    pb_uint_opt(&p->msg, 2, map_id);
    pb_uint_opt(&p->msg, 3, address);
    if (function != 0) {
        pb_reset(&p->sub);
        pb_uint_opt(&p->sub, 1, function);
        pb_uint_opt(&p->sub, 2, line > INT64_MAX ? 0 : line);
        pb_message(&p->msg, 4, &p->sub);
    }
    pb_message(&p->locs, F_LOCATION, &p->msg);
    return id;
}

/* The mapping of a library (by its string), made on first use. */
static mapping *map_of(prof *p, const heapfmt_rstring *lib,
                           uint64_t *id)
{
    *id = 0;
    if (cli_grow_zeroed((void **)&p->lib_map, &p->nlib_map, lib->slot + 1,
                        sizeof *p->lib_map) != 0) {
        oom(p);
        return NULL;
    }
    if (p->lib_map[lib->slot] == 0) {
        if (GROW(p->maps, p->capmaps, p->nmaps) != 0) {
            oom(p);
            return NULL;
        }
        p->maps[p->nmaps] = (mapping){rstr(p, lib), 0, 0, 0};
        p->lib_map[lib->slot] = ++p->nmaps;
    }
    *id = p->lib_map[lib->slot];
    return &p->maps[*id - 1];
}

/* The location of a frame, made on first use: its mapping (library), its
 * offset as the address, its function (named as histo names a frame
 * without one) and source line. */
static uint64_t frame_location(prof *p, const heapfmt_rframe *f)
{
    if (cli_grow_zeroed((void **)&p->frame_loc, &p->nframe_loc, f->slot + 1,
                        sizeof *p->frame_loc) != 0) {
        oom(p);
        return 0;
    }
    if (p->frame_loc[f->slot] != 0)
        return p->frame_loc[f->slot];
    uint64_t map_id = 0, address = f->offset;
    if (!f->undefined && known(f->library)) {
        mapping *m = map_of(p, f->library, &map_id);
        if (m != NULL) {
            if (address >= m->limit)
                m->limit = address == UINT64_MAX ? address : address + 1;
            m->files |= known(f->file);
            m->lines |= f->line != 0;
        }
    }
    uint64_t name;
    if (!f->undefined && known(f->function)) {
        name = rstr(p, f->function);
    } else if (cli_frame_name(&p->name, f, CLI_STACK_TEXT) == 0 &&
               p->name.s != NULL) {
        name = str(p, p->name.s, p->name.len);
    } else {
        oom(p);
        name = 0;
    }
    uint64_t fn = function_id(p, name, 0, f->undefined ? 0 : rstr(p, f->file));
    uint64_t id = write_location(p, map_id, address, fn,
                                 f->undefined ? 0 : f->line);
    p->frame_loc[f->slot] = id;
    return id;
}

/* A location that stands for no frame -- a site, a class, "(no stack)"
 * -- made on first use: a function of that name (with file and line for
 * a site). */
static uint64_t pseudo_location(prof *p, const char *name, size_t len,
                                const heapfmt_rstring *file, uint64_t line)
{
    uint64_t n = str(p, name, len);
    uint64_t f = rstr(p, file);
    uint64_t key[3] = {n, f, line};
    size_t i;
    int added = cli_strmap_add(&p->pseudo, (const char *)key, sizeof key,
                               &i);
    if (added < 0 ||
        cli_grow_zeroed((void **)&p->pseudo_loc, &p->npseudo_loc, i + 1,
                        sizeof *p->pseudo_loc) != 0) {
        oom(p);
        return 0;
    }
    if (added)
        p->pseudo_loc[i] = write_location(p, 0, 0, function_id(p, n, 1, f),
                                          line);
    return p->pseudo_loc[i];
}

/* The name histo --by=site gives a site, "file:line", in p->site.
 * Returns its length; 0 when out of memory. */
static size_t site_name(prof *p, const heapfmt_rstring *file, uint64_t line)
{
    size_t len;
    if (cli_site_name(&p->site, &p->sitecap, file, line, &len) != 0) {
        oom(p);
        return 0;
    }
    return len;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/* Compresses len bytes to the output; finish ends the gzip stream.
 * Returns 0, or -1 when zlib fails (out of memory). A failed output is
 * left to the caller (jout_failed). */
static int zwrite(prof *p, const uint8_t *data, size_t len, int finish)
{
    unsigned char buf[64u << 10];
    for (;;) {
        size_t piece = len > (1u << 30) ? (1u << 30) : len;
        p->z.next_in = (Bytef *)(uintptr_t)data;
        p->z.avail_in = (uInt)piece;
        int last = finish && piece == len;
        int zr;
        do {
            p->z.next_out = buf;
            p->z.avail_out = sizeof buf;
            zr = deflate(&p->z, last ? Z_FINISH : Z_NO_FLUSH);
            if (zr == Z_STREAM_ERROR)
                return -1;
            jout_raw(p->out, buf, sizeof buf - p->z.avail_out);
            if (jout_failed(p->out))
                return 0;
        } while (p->z.avail_out == 0 || (last && zr != Z_STREAM_END));
        data += piece;
        len -= piece;
        if (len == 0)
            return 0;
    }
}

/* Sends what top holds through zlib once it is big. */
static int flush_top(prof *p, int always)
{
    if (!always && p->top.len < CHUNK)
        return 0;
    int rc = zwrite(p, p->top.p, p->top.len, 0);
    pb_reset(&p->top);
    return rc;
}

static void value_type(prof *p, unsigned field, const char *type,
                       const char *unit)
{
    pb_reset(&p->msg);
    pb_uint_opt(&p->msg, 1, str(p, type, strlen(type)));
    pb_uint_opt(&p->msg, 2, str(p, unit, strlen(unit)));
    pb_message(&p->top, field, &p->msg);
}

/* A label {key, str}, in sub, added to msg (a Sample). */
static void label(prof *p, const char *key, uint64_t value)
{
    pb_reset(&p->sub);
    pb_uint_opt(&p->sub, 1, str(p, key, strlen(key)));
    pb_uint_opt(&p->sub, 2, value);
    pb_message(&p->msg, 3, &p->sub);
}

/* Appends a location id to p->ids at i. */
static int put_id(prof *p, size_t i, uint64_t id)
{
    if (cli_grow_zeroed((void **)&p->ids, &p->nids, i + 1,
                        sizeof *p->ids) != 0) {
        oom(p);
        return -1;
    }
    p->ids[i] = id;
    return 0;
}

/* The location ids of a sample, leaf first, in p->ids; returns how many. */
static size_t sample_locations(prof *p, const sample *s)
{
    uint64_t id;
    if (p->any_stack) {
        long top = cli_stack_top(s->stack);
        if (top < 0) {
            const char *t = s->stack == NULL ? CLI_NO_STACK
                                             : CLI_UNKNOWN_STACK;
            id = pseudo_location(p, t, strlen(t), NULL, 0);
            return put_id(p, 0, id) == 0;
        }
        size_t n = 0;
        for (size_t f = (size_t)top; f < s->stack->nframes; f++)
            if (put_id(p, n++, frame_location(p, s->stack->frames[f])) != 0)
                return 0;
        return n;
    }
    if (p->any_site) {
        if (s->file == NULL) {
            static const char none[] = "(no site)";
            id = pseudo_location(p, none, sizeof none - 1, NULL, 0);
        } else {
            size_t len = site_name(p, s->file, s->line);
            id = pseudo_location(p, p->site, len, s->file, s->line);
        }
        return put_id(p, 0, id) == 0;
    }
    cli_name buf;
    size_t len = 0;
    const char *name = s->klass != NULL ? cli_class_name(s->klass, &buf, &len)
                                        : "";
    id = pseudo_location(p, name, len, NULL, 0);
    return put_id(p, 0, id) == 0;
}

static int64_t clamp(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static void write_sample(prof *p, const sample *s)
{
    size_t n = sample_locations(p, s);
    uint64_t values[4];
    size_t nv = 0;
    if (p->allocs) {
        values[nv++] = (uint64_t)clamp(s->allocs);
        values[nv++] = (uint64_t)clamp(s->alloc_bytes);
    }
    values[nv++] = (uint64_t)clamp(s->count);
    values[nv++] = (uint64_t)clamp(s->bytes);
    pb_reset(&p->msg);
    pb_packed(&p->msg, 1, p->ids, n);
    pb_packed(&p->msg, 2, values, nv);
    if (s->klass != NULL) {
        cli_name buf;
        size_t len;
        const char *name = cli_class_name(s->klass, &buf, &len);
        label(p, "class", str(p, name, len));
    }
    if (p->any_stack && s->file != NULL) {
        size_t len = site_name(p, s->file, s->line);
        label(p, "site", str(p, p->site, len));
    }
    pb_message(&p->top, F_SAMPLE, &p->msg);
}

static void write_mappings(prof *p)
{
    for (size_t i = 0; i < p->nmaps; i++) {
        const mapping *m = &p->maps[i];
        pb_reset(&p->msg);
        pb_uint_opt(&p->msg, 1, i + 1);
        pb_uint_opt(&p->msg, 3, m->limit);
        pb_uint_opt(&p->msg, 5, m->filename);
        pb_uint_opt(&p->msg, 7, 1); /* every location has a function */
        pb_uint_opt(&p->msg, 8, (uint64_t)m->files);
        pb_uint_opt(&p->msg, 9, (uint64_t)m->lines);
        pb_message(&p->top, F_MAPPING, &p->msg);
    }
}

/* A comment line, formatted, as a string index. */
static uint64_t comment(prof *p, const char *fmt, const char *a, size_t alen)
{
    size_t need = strlen(fmt) + (alen > MAX_TEXT ? MAX_TEXT : alen) + 1;
    char *t = malloc(need);
    if (t == NULL) {
        oom(p);
        return 0;
    }
    int n = snprintf(t, need, fmt, (int)(alen > MAX_TEXT ? MAX_TEXT : alen),
                     a);
    uint64_t s = n > 0 ? str(p, t, (size_t)n) : 0;
    free(t);
    return s;
}

/* The whole profile, after the scan. Returns 0, or -1 out of memory (an
 * output failure shows in p->out). */
static int write_profile(prof *p)
{
    heapfmt_reader *r = p->d->reader;
    if (deflateInit2(&p->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    p->z_open = 1;
    str(p, "", 0); /* string_table[0] */
    if (p->allocs) {
        value_type(p, F_SAMPLE_TYPE, "alloc_objects", "count");
        value_type(p, F_SAMPLE_TYPE, "alloc_space", "bytes");
    }
    value_type(p, F_SAMPLE_TYPE, "inuse_objects", "count");
    value_type(p, F_SAMPLE_TYPE, "inuse_space", "bytes");
    for (size_t i = 0; i < p->n && !p->failed; i++) {
        write_sample(p, &p->v[i]);
        if (flush_top(p, 0) != 0 || jout_failed(p->out))
            return jout_failed(p->out) ? 0 : -1;
    }
    write_mappings(p);

    /* the strings the tail names, before the string table */
    ident id = p->opt->id;
    ident_resolve(&id, r);
    uint64_t comments[6];
    size_t nc = 0;
    comments[nc++] = str(p, "heapfmt-export " HEAPFMT_LIB_VERSION_STRING,
                         strlen("heapfmt-export " HEAPFMT_LIB_VERSION_STRING));
    const heapfmt_rmeta *m = heapfmt_reader_meta_get(r, "producer");
    if (m != NULL && m->type == HEAPFMT_META_TEXT)
        comments[nc++] = comment(p, "producer %.*s", m->text, m->text_len);
    if (id.host_len > 0)
        comments[nc++] = comment(p, "host %.*s", id.host, id.host_len);
    char num[64];
    snprintf(num, sizeof num, "pid %llu time %llu",
             (unsigned long long)id.pid, (unsigned long long)id.time);
    comments[nc++] = str(p, num, strlen(num));
    if (id.release_len > 0)
        comments[nc++] = comment(p, "release %.*s", id.release,
                                 id.release_len);
    uint64_t dump = p->opt->tag != NULL
                        ? comment(p, "dump %.*s", p->opt->tag,
                                  strlen(p->opt->tag))
                        : 0;
    const heapfmt_rmeta *rate = heapfmt_reader_meta_get(r,
                                                          "malloc.sample_bytes");
    uint64_t period = 0;
    if (rate != NULL && rate->type == HEAPFMT_META_UINT &&
        !counts_every_allocation(r))
        period = rate->uint_value;
    uint64_t space = str(p, "space", 5), bytes = str(p, "bytes", 5);
    uint64_t inuse_space = str(p, "inuse_space", 11);

    if (flush_top(p, 1) != 0 ||
        zwrite(p, p->locs.p, p->locs.len, 0) != 0 ||
        zwrite(p, p->funcs.p, p->funcs.len, 0) != 0)
        return -1;
    if (p->failed || p->locs.failed || p->funcs.failed)
        return -1;
    size_t ns = cli_strmap_count(&p->strings);
    for (size_t i = 0; i < ns; i++) {
        size_t len;
        const char *t = cli_strmap_key(&p->strings, i, &len);
        pb_bytes(&p->top, F_STRING, t, len);
        if (flush_top(p, 0) != 0)
            return -1;
    }
    if (id.time != 0 && id.time <= (uint64_t)INT64_MAX / 1000000000u)
        pb_uint_opt(&p->top, F_TIME_NANOS, id.time * 1000000000u);
    if (period != 0) {
        pb_reset(&p->msg);
        pb_uint_opt(&p->msg, 1, space);
        pb_uint_opt(&p->msg, 2, bytes);
        pb_message(&p->top, F_PERIOD_TYPE, &p->msg);
        pb_uint_opt(&p->top, F_PERIOD, (uint64_t)clamp(period));
    }
    if (dump != 0)
        comments[nc++] = dump;
    pb_packed(&p->top, F_COMMENT, comments, nc);
    pb_uint_opt(&p->top, F_DEFAULT_SAMPLE_TYPE, inuse_space);
    if (p->top.failed || p->msg.failed || p->sub.failed)
        return -1;
    return zwrite(p, p->top.p, p->top.len, 1);
}

static void prof_free(prof *p)
{
    cli_strmap_free(&p->keys);
    cli_strmap_free(&p->strings);
    cli_strmap_free(&p->functions);
    cli_strmap_free(&p->pseudo);
    free(p->v);
    free(p->stacks);
    free(p->first_sample);
    free(p->frame_loc);
    free(p->pseudo_loc);
    free(p->lib_map);
    free(p->maps);
    free(p->text);
    free(p->site);
    free(p->ids);
    cli_buf_free(&p->name);
    pb_free(&p->top);
    pb_free(&p->msg);
    pb_free(&p->sub);
    pb_free(&p->locs);
    pb_free(&p->funcs);
    if (p->z_open)
        deflateEnd(&p->z);
}

int pprof_export(cli_dump *d, const export_options *opt, jout *out,
                 const char *out_name)
{
    prof p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.opt = opt;
    p.out = out;
    p.out_name = out_name;
    cli_strmap_init(&p.keys);
    cli_strmap_init(&p.strings);
    cli_strmap_init(&p.functions);
    cli_strmap_init(&p.pseudo);
    int rc = cli_scan(d, on_record, &p);
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INCOMPLETE) {
        if (add_allocations(&p) != 0 || write_profile(&p) != 0 ||
            p.failed) {
            cli_error(d->name, "out of memory");
            rc = CLI_EXIT_ERROR;
        } else if (jout_flush(out) != 0) {
            if (out->err != EPIPE) {
                cli_error(out_name, "%s", strerror(out->err));
                rc = CLI_EXIT_ERROR;
            } else {
                rc = CLI_EXIT_OK;
            }
        }
    }
    prof_free(&p);
    return rc;
}
