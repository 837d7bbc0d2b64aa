/* v8.c -- V8 heap snapshots (.heapsnapshot) to heapfmt records.
 *
 * Three steps over one read of the input (v8.h says why): the snapshot's
 * meta gives the field layout; "nodes" and "edges" are kept compactly;
 * "strings" is read last, interning the names that classes and labels use
 * as they stream by; then every node is written as an OBJECT. A cut or a
 * corrupt byte ends the reading, and what was read before it is written
 * (the import is then incomplete), as for a cut ObjectSpace.dump_all. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "fit.h"
#include "jescape.h"
#include "meta.h"
#include "unique_ids.h"
#include "v8.h"
#include "v8scan.h"

#define V8_MAX_FIELDS VS_MAX_UINTS /* node or edge fields (V8 has 7, 3) */
#define V8_MAX_TYPES 255  /* node or edge types (a type index is a byte) */
#define V8_TYPE_UNKNOWN V8_MAX_TYPES /* a node type index beyond
                                        meta.node_types (older Chrome's
                                        snapshots use types their meta
                                        does not list): class "(unknown)" */
#define V8_MAX_NAME 256   /* bytes of a field or type name */
#define V8_NO_NAME UINT32_MAX /* a name index beyond what a u32 holds */

/* Class ids: one per node type for the classes DevTools names after the
 * type, and one per name string for constructors, above them. */
#define V8_CLASS_OF_TYPE(t) ((uint64_t)(t) + 1)
#define V8_CLASS_OF_NAME(i) ((uint64_t)(i) + 512)

/* sflag bits: why a string is kept when it streams by: interned as a
 * label or class name, or its first bytes kept as a value preview. */
enum { SF_LABEL = 1, SF_CLASS = 2, SF_VALUE = 4 };

#define V8_NO_VALUE UINT32_MAX /* pvo[i] of a string without a preview */

/* How an edge type's name_or_index is a label. */
enum { EK_INDEX, EK_FIELD, EK_WEAK, EK_OTHER };

/* A list of names from the meta (field names, type names). */
typedef struct v8_names {
    char *name[V8_MAX_TYPES];
    unsigned n;
} v8_names;

/* Where each field the importer uses is in a node or an edge; -1: absent. */
typedef struct v8_layout {
    unsigned node_fields, edge_fields;
    int n_type, n_name, n_id, n_self, n_edges;
    int e_type, e_name, e_to;
    v8_names node_types, edge_types;
    int node_types_at, edge_types_at; /* the element of *_types they were */
} v8_layout;

typedef struct v8 {
    heapfmt_writer *w;
    const import_options *opt;
    import_stats *st;
    vs_stream s;
    v8_layout lay;
    int have_meta;
    const char *section; /* the member being read, for messages */

    /* nodes, one entry per node read (structure of arrays) */
    uint64_t *nid, *nself;
    uint32_t *nname, *nedges;
    uint8_t *ntype;
    size_t nn, ncap;
    uint64_t edges_claimed; /* sum of the nodes' edge counts */

    /* edges: target node index, name or index, type */
    uint32_t *eto, *ename;
    uint8_t *etype;
    size_t ne, ecap;

    /* strings: a byte of SF_* per index that nodes and edges use (up to
     * what the bytes read so far can justify, beyond: sflag_beyond), and
     * the string id of each interned one */
    uint8_t *sflag;
    size_t nsflag;
    uint8_t sflag_beyond;
    uint32_t *sid;
    size_t ns, scap;
    /* value previews: pvo[i] is where string i's preview starts in pv (a
     * 2-byte length, then the bytes), or V8_NO_VALUE */
    uint32_t *pvo;
    size_t pvocap;
    char *pv;
    size_t pvlen, pvcap;
    uint64_t gc_roots; /* index of the string "(GC roots)", or UINT64_MAX */
    uint64_t ext_data; /* "system / ExternalStringData", or UINT64_MAX */
    uint64_t dom_trees; /* "(Document DOM trees)", or UINT64_MAX */
    uint64_t missing;  /* names referring past the strings read */

    /* per node type and edge type */
    uint32_t type_sid[V8_MAX_TYPES + 1];  /* [V8_TYPE_UNKNOWN] too */
    int type_by_name[V8_MAX_TYPES + 1]; /* class named by the node's name */
    int type_synthetic[V8_MAX_TYPES + 1];
    int type_value[V8_MAX_TYPES + 1]; /* the node's name is its value */
    uint64_t unknown_nodes;       /* nodes of a type beyond the meta */
    uint64_t moved;               /* nodes whose size went to their owner */
    uint64_t unknown_first;       /* the first such type index */
    int edge_kind[V8_MAX_TYPES];

    /* one object's references, sized by the largest edge count written */
    uint64_t *refs;
    heapfmt_label *labels;
    size_t rcap;

    int stopped;  /* reading ended early: cut or corrupt */
    char msg[512];
} v8;

/* ------------------------------------------------------------------ */
/* Diagnostics                                                         */
/* ------------------------------------------------------------------ */

#define say(m, kind, ...)                                                  \
    import_say((m)->opt, (m)->msg, sizeof (m)->msg, (kind), 0, __VA_ARGS__)

/* Reports why reading stopped (s's error, or IMP_SYNTAX with msg at the
 * current offset). Returns IMPORT_FAILED for what no salvage helps (a
 * read error, no memory) and with opt->strict, else IMPORT_INCOMPLETE:
 * what was read is still written. */
static int stop(v8 *m, int rc, const char *msg)
{
    vs_stream *s = &m->s;
    if (msg) {
        s->err_off = vs_offset(s);
        s->err_msg = msg;
    }
    m->stopped = 1;
    if (rc == IMP_READ) {
        say(m, IMPORT_DIAG_ERROR, "read error: %s", strerror(s->sys_errno));
        return IMPORT_FAILED;
    }
    if (rc == IMP_NOMEM) {
        say(m, IMPORT_DIAG_ERROR, "out of memory");
        return IMPORT_FAILED;
    }
    if (rc == IMP_CUT) {
        m->st->truncated = 1;
        say(m, m->opt->strict ? IMPORT_DIAG_ERROR : IMPORT_DIAG_WARNING,
            "truncated snapshot: the input ends at byte %llu (in %s)",
            (unsigned long long)s->err_off, m->section);
    } else {
        m->st->malformed++;
        say(m, IMPORT_DIAG_ERROR, "byte %llu (in %s): %s",
            (unsigned long long)s->err_off, m->section, s->err_msg);
    }
    return m->opt->strict ? IMPORT_FAILED : IMPORT_INCOMPLETE;
}

/* Marks a problem at input offset off: returns IMP_SYNTAX. */
static int bad_at(vs_stream *s, uint64_t off, const char *msg)
{
    s->err_off = off;
    s->err_msg = msg;
    return IMP_SYNTAX;
}

/* Marks a problem at the current offset of s: returns IMP_SYNTAX. */
static int bad(vs_stream *s, const char *msg)
{
    return bad_at(s, vs_offset(s), msg);
}

/* Reports the writer's last error (a failure of the whole import). */
static int writer_failed(v8 *m, int rc)
{
    say(m, IMPORT_DIAG_ERROR, "cannot write the dump: %s",
        import_writer_message(m->w, rc));
    return IMPORT_FAILED;
}

/* ------------------------------------------------------------------ */
/* snapshot.meta                                                        */
/* ------------------------------------------------------------------ */

static int text_is(const vs_stream *s, const char *lit)
{
    return s->text_len == strlen(lit) && !s->text_cut &&
           memcmp(s->text, lit, s->text_len) == 0;
}

/* Reads an array of strings: each one's position in *fields, by name. */
static int read_fields(v8 *m, int node)
{
    vs_stream *s = &m->s;
    v8_layout *l = &m->lay;
    int rc, more;
    unsigned i = 0;
    if ((rc = vs_open(s, '[', &more)) != IMP_OK)
        return rc;
    for (; more; i++) {
        if (i == V8_MAX_FIELDS)
            return bad(s, "more than 64 fields");
        if ((rc = vs_string(s)) != IMP_OK)
            return rc;
        int at = (int)i;
        if (node) {
            if (text_is(s, "type")) l->n_type = at;
            else if (text_is(s, "name")) l->n_name = at;
            else if (text_is(s, "id")) l->n_id = at;
            else if (text_is(s, "self_size")) l->n_self = at;
            else if (text_is(s, "edge_count")) l->n_edges = at;
        } else {
            if (text_is(s, "type")) l->e_type = at;
            else if (text_is(s, "name_or_index")) l->e_name = at;
            else if (text_is(s, "to_node")) l->e_to = at;
        }
        if ((rc = vs_next_member(s, ']', &more)) != IMP_OK)
            return rc;
    }
    if (node)
        l->node_fields = i;
    else
        l->edge_fields = i;
    return IMP_OK;
}

/* Reads node_types or edge_types: an array with one element per field,
 * the type field's being the array of type names; keeps the first array
 * element and its position. */
static int read_types(v8 *m, v8_names *names, int *at)
{
    vs_stream *s = &m->s;
    int rc, c, more;
    if ((rc = vs_open(s, '[', &more)) != IMP_OK || !more)
        return rc;
    for (int i = 0;; i++) {
        if ((rc = vs_peek(s, &c)) != IMP_OK)
            return rc;
        if (c == '[' && *at < 0) {
            *at = i;
            if ((rc = vs_open(s, '[', &more)) != IMP_OK)
                return rc;
            while (more) {
                if (names->n == V8_MAX_TYPES)
                    return bad(s, "more than 255 types");
                if ((rc = vs_string(s)) != IMP_OK)
                    return rc;
                char *t = malloc(s->text_len + 1);
                if (!t)
                    return IMP_NOMEM;
                memcpy(t, s->text ? s->text : "", s->text_len);
                t[s->text_len] = '\0';
                names->name[names->n++] = t;
                if ((rc = vs_next_member(s, ']', &more)) != IMP_OK)
                    return rc;
            }
        } else if ((rc = vs_skip(s)) != IMP_OK) {
            return rc;
        }
        if ((rc = vs_next_member(s, ']', &more)) != IMP_OK)
            return rc;
        if (!more)
            return IMP_OK;
    }
}

static int read_meta(v8 *m)
{
    vs_stream *s = &m->s;
    int rc, more;
    if ((rc = vs_open(s, '{', &more)) != IMP_OK || !more)
        return rc;
    do {
        if ((rc = vs_string(s)) != IMP_OK || (rc = vs_expect(s, ':')) != IMP_OK)
            return rc;
        if (text_is(s, "node_fields"))
            rc = read_fields(m, 1);
        else if (text_is(s, "edge_fields"))
            rc = read_fields(m, 0);
        else if (text_is(s, "node_types"))
            rc = read_types(m, &m->lay.node_types, &m->lay.node_types_at);
        else if (text_is(s, "edge_types"))
            rc = read_types(m, &m->lay.edge_types, &m->lay.edge_types_at);
        else
            rc = vs_skip(s);
        if (rc != IMP_OK || (rc = vs_next_member(s, '}', &more)) != IMP_OK)
            return rc;
    } while (more);
    return IMP_OK;
}

/* Checks the layout and derives what each type means. Returns IMP_OK, or
 * IMP_SYNTAX with the reason in s.err_msg. */
static int use_meta(v8 *m)
{
    v8_layout *l = &m->lay;
    const char *why = NULL;
    if (l->n_type < 0 || l->n_name < 0 || l->n_id < 0 || l->n_self < 0 ||
        l->n_edges < 0)
        why = "snapshot.meta.node_fields lacks one of type, name, id, "
              "self_size, edge_count";
    else if (l->e_type < 0 || l->e_name < 0 || l->e_to < 0)
        why = "snapshot.meta.edge_fields lacks one of type, name_or_index, "
              "to_node";
    else if (l->node_types_at != l->n_type || l->node_types.n == 0)
        why = "snapshot.meta.node_types has no list of type names";
    else if (l->edge_types_at != l->e_type || l->edge_types.n == 0)
        why = "snapshot.meta.edge_types has no list of type names";
    if (why)
        return bad(&m->s, why);
    for (unsigned t = 0; t < l->node_types.n; t++) {
        const char *n = l->node_types.name[t];
        m->type_by_name[t] = strcmp(n, "object") == 0 || strcmp(n, "native") == 0;
        m->type_synthetic[t] = strcmp(n, "synthetic") == 0;
        /* names that are the value itself (a string's text, a number, a
         * function's or a regexp's source name) make the preview */
        m->type_value[t] = strcmp(n, "string") == 0 ||
                           strcmp(n, "concatenated string") == 0 ||
                           strcmp(n, "sliced string") == 0 ||
                           strcmp(n, "closure") == 0 ||
                           strcmp(n, "regexp") == 0 ||
                           strcmp(n, "number") == 0 ||
                           strcmp(n, "symbol") == 0 ||
                           strcmp(n, "bigint") == 0;
    }
    for (unsigned t = 0; t < l->edge_types.n; t++) {
        const char *n = l->edge_types.name[t];
        m->edge_kind[t] =
            strcmp(n, "element") == 0 || strcmp(n, "hidden") == 0 ? EK_INDEX
            : strcmp(n, "weak") == 0                               ? EK_WEAK
            : strcmp(n, "property") == 0 || strcmp(n, "internal") == 0 ||
                    strcmp(n, "context") == 0 || strcmp(n, "shortcut") == 0
                ? EK_FIELD
                : EK_OTHER;
    }
    m->have_meta = 1;
    return IMP_OK;
}

/* The "snapshot" member: meta, and counts we do not need (and must not
 * trust: the arrays say how many there are). */
static int read_snapshot(v8 *m)
{
    vs_stream *s = &m->s;
    int rc, more;
    if ((rc = vs_open(s, '{', &more)) != IMP_OK)
        return rc;
    while (more) {
        if ((rc = vs_string(s)) != IMP_OK || (rc = vs_expect(s, ':')) != IMP_OK)
            return rc;
        if (text_is(s, "meta")) {
            if ((rc = read_meta(m)) != IMP_OK || (rc = use_meta(m)) != IMP_OK)
                return rc;
        } else if ((rc = vs_skip(s)) != IMP_OK) {
            return rc;
        }
        if ((rc = vs_next_member(s, '}', &more)) != IMP_OK)
            return rc;
    }
    if (!m->have_meta)
        return bad(s, "\"snapshot\" has no \"meta\"");
    return IMP_OK;
}

/* ------------------------------------------------------------------ */
/* nodes, edges, strings                                               */
/* ------------------------------------------------------------------ */

/* Notes that string index i is needed for why (SF_*). The flag array only
 * grows as far as the bytes read so far justify (a string takes at least 3
 * bytes, so a real index is below the input's size); an index past that
 * marks every later string instead of allocating for it. */
static int need_string(v8 *m, uint64_t i, uint8_t why)
{
    if (i >= m->nsflag) {
        if (i > vs_offset(&m->s) + 65536) {
            m->sflag_beyond |= why;
            return 0;
        }
        if (cli_grow_zeroed((void **)&m->sflag, &m->nsflag, i + 1, 1) != 0)
            return -1;
    }
    m->sflag[i] |= why;
    return 0;
}

/* Reads the "nodes" array. A node cut by the end of the array or of the
 * input is dropped. */
static int read_nodes(v8 *m)
{
    vs_stream *s = &m->s;
    const v8_layout *l = &m->lay;
    uint64_t f[V8_MAX_FIELDS];
    int rc, more;
    if ((rc = vs_open(s, '[', &more)) != IMP_OK)
        return rc;
    while (more) {
        if ((rc = vs_uints(s, l->node_fields, f, "the last node lacks fields",
                           &more)) != IMP_OK)
            return rc;
        uint64_t type = f[l->n_type], edges = f[l->n_edges], name = f[l->n_name];
        if (type >= l->node_types.n) {
            /* DevTools goes on too (its class name is then "(undefined)") */
            if (m->unknown_nodes++ == 0)
                m->unknown_first = type;
            type = V8_TYPE_UNKNOWN;
        }
        if (edges > UINT32_MAX || m->nn == UINT32_MAX)
            return bad_at(s, vs_uints_offset(s, l->n_edges),
                          "more edges or nodes than V8 can have");
        if (m->nn == m->ncap) {
            size_t cap = m->ncap, need = m->nn + 1;
            if (cli_grow((void **)&m->nid, &cap, need, sizeof *m->nid) ||
                (cap = m->ncap, cli_grow((void **)&m->nself, &cap, need, 8)) ||
                (cap = m->ncap, cli_grow((void **)&m->nname, &cap, need, 4)) ||
                (cap = m->ncap, cli_grow((void **)&m->nedges, &cap, need, 4)) ||
                (cap = m->ncap, cli_grow((void **)&m->ntype, &cap, need, 1)))
                return IMP_NOMEM;
            m->ncap = cap;
        }
        m->nid[m->nn] = f[l->n_id];
        m->nself[m->nn] = f[l->n_self];
        m->nname[m->nn] = name >= V8_NO_NAME ? V8_NO_NAME : (uint32_t)name;
        m->nedges[m->nn] = (uint32_t)edges;
        m->ntype[m->nn] = (uint8_t)type;
        m->nn++;
        m->edges_claimed += edges;
        uint8_t why = m->type_by_name[type]    ? SF_CLASS
                      : m->type_synthetic[type] ? SF_LABEL
                      : m->type_value[type] && m->opt->preview > 0 ? SF_VALUE
                                                : 0;
        if (why && name < V8_NO_NAME && need_string(m, name, why) != 0)
            return IMP_NOMEM;
    }
    return IMP_OK;
}

/* Reads the "edges" array. Targets are checked here, against the nodes
 * read: an edge to a node that is not there is corrupt. */
static int read_edges(v8 *m)
{
    vs_stream *s = &m->s;
    const v8_layout *l = &m->lay;
    uint64_t f[V8_MAX_FIELDS];
    uint64_t nodes_len = (uint64_t)m->nn * l->node_fields;
    uint32_t nf32 = l->node_fields;
    if (nodes_len > UINT32_MAX)
        nodes_len = UINT32_MAX; /* edges cannot reach further */
    int rc, more;
    if ((rc = vs_open(s, '[', &more)) != IMP_OK)
        return rc;
    while (more) {
        if ((rc = vs_uints(s, l->edge_fields, f, "the last edge lacks fields",
                           &more)) != IMP_OK)
            return rc;
        uint64_t type = f[l->e_type], name = f[l->e_name], to = f[l->e_to];
        if (type >= l->edge_types.n)
            return bad_at(s, vs_uints_offset(s, l->e_type),
                          "an edge type beyond snapshot.meta.edge_types");
        /* nodes_len < 2^32 (V8 counts nodes in an int): a 32-bit
         * division, several times cheaper than a 64-bit one */
        uint32_t node = to < nodes_len ? (uint32_t)to / nf32 : 0;
        if (to >= nodes_len || node * nf32 != to)
            return bad_at(s, vs_uints_offset(s, l->e_to),
                          "an edge to_node that is not a node's position");
        if (m->ne >= m->edges_claimed)
            return bad_at(s, vs_uints_offset(s, 0),
                          "more edges than the nodes' edge_count say");
        if (name > UINT32_MAX)
            return bad_at(s, vs_uints_offset(s, l->e_name),
                          "an edge name_or_index beyond 2^32");
        if (m->ne == m->ecap) {
            size_t cap = m->ecap, need = m->ne + 1;
            if (cli_grow((void **)&m->eto, &cap, need, 4) ||
                (cap = m->ecap, cli_grow((void **)&m->ename, &cap, need, 4)) ||
                (cap = m->ecap, cli_grow((void **)&m->etype, &cap, need, 1)))
                return IMP_NOMEM;
            m->ecap = cap;
        }
        m->eto[m->ne] = node;
        m->ename[m->ne] = (uint32_t)name;
        m->etype[m->ne] = (uint8_t)type;
        m->ne++;
        if (m->edge_kind[type] != EK_INDEX && need_string(m, name, SF_LABEL) != 0)
            return IMP_NOMEM;
    }
    return IMP_OK;
}

/* Keeps the first opt->preview bytes of string i (text, len) as its value
 * preview. Returns 0, or -1 when memory runs out. */
static int keep_value(v8 *m, size_t i, const char *text, size_t len)
{
    size_t n = jescape_cut(text, len, m->opt->preview);
    if (m->pvlen + n + 2 > UINT32_MAX)
        return 0; /* no preview past 4 GiB of them */
    if (cli_grow((void **)&m->pv, &m->pvcap, m->pvlen + n + 2, 1) != 0)
        return -1;
    m->pvo[i] = (uint32_t)m->pvlen;
    m->pv[m->pvlen] = (char)(n & 0xff);
    m->pv[m->pvlen + 1] = (char)(n >> 8);
    if (n)
        memcpy(m->pv + m->pvlen + 2, text, n);
    m->pvlen += n + 2;
    return 0;
}

/* A string as it streams by: interned if a class or a label uses it, and
 * the class it names defined. */
static int take_string(v8 *m, int *wrc)
{
    const vs_stream *s = &m->s;
    size_t i = m->ns;
    if (GROW(m->sid, m->scap, i) != 0)
        return IMP_NOMEM;
    m->sid[i] = 0;
    m->ns++;
    const char *t = s->text ? s->text : "";
    if (m->gc_roots == UINT64_MAX && text_is(s, "(GC roots)"))
        m->gc_roots = i;
    if (m->ext_data == UINT64_MAX && text_is(s, "system / ExternalStringData"))
        m->ext_data = i;
    if (m->dom_trees == UINT64_MAX && text_is(s, "(Document DOM trees)"))
        m->dom_trees = i;
    uint8_t why = i < m->nsflag ? m->sflag[i] : m->sflag_beyond;
    if (m->opt->preview > 0) {
        if (GROW(m->pvo, m->pvocap, i) != 0)
            return IMP_NOMEM;
        m->pvo[i] = V8_NO_VALUE;
        if ((why & SF_VALUE) && keep_value(m, i, t, s->text_len) != 0)
            return IMP_NOMEM;
    }
    if ((why & (SF_LABEL | SF_CLASS)) == 0)
        return IMP_OK;
    int rc = heapfmt_write_string(m->w, t, s->text_len, &m->sid[i]);
    if (rc == HEAPFMT_OK && (why & SF_CLASS)) {
        heapfmt_class k = {0};
        k.id = V8_CLASS_OF_NAME(i);
        k.name = t;
        k.name_len = s->text_len;
        if ((rc = heapfmt_write_class(m->w, &k)) == HEAPFMT_OK)
            m->st->classes++;
    }
    if (rc != HEAPFMT_OK) {
        *wrc = rc;
        return IMP_SYNTAX;
    }
    return IMP_OK;
}

static int read_strings(v8 *m, int *wrc)
{
    vs_stream *s = &m->s;
    int rc, more;
    if ((rc = vs_open(s, '[', &more)) != IMP_OK)
        return rc;
    while (more) {
        if ((rc = vs_string(s)) != IMP_OK || (rc = take_string(m, wrc)) != IMP_OK ||
            (rc = vs_next_member(s, ']', &more)) != IMP_OK)
            return rc;
    }
    return IMP_OK;
}

/* Reads the whole snapshot object. Returns IMPORT_OK, IMPORT_INCOMPLETE
 * (stopped early, reported) or IMPORT_FAILED (reported). */
static int read_all(v8 *m)
{
    vs_stream *s = &m->s;
    int rc, more, wrc = HEAPFMT_OK;
    enum { SEEN_NODES = 1, SEEN_EDGES = 2, SEEN_STRINGS = 4 } seen = 0;
    m->section = "the snapshot";
    if ((rc = vs_skip_bom(s)) != IMP_OK || (rc = vs_expect(s, '{')) != IMP_OK)
        return stop(m, rc, NULL);
    do {
        m->section = "the snapshot";
        if ((rc = vs_string(s)) != IMP_OK || (rc = vs_expect(s, ':')) != IMP_OK)
            return stop(m, rc, NULL);
        if (text_is(s, "snapshot") && !m->have_meta) {
            m->section = "\"snapshot\"";
            rc = read_snapshot(m);
        } else if (text_is(s, "nodes") && !(seen & SEEN_NODES)) {
            m->section = "\"nodes\"";
            if (!m->have_meta)
                return stop(m, IMP_SYNTAX, "\"nodes\" before \"snapshot\"");
            seen |= SEEN_NODES;
            rc = read_nodes(m);
        } else if (text_is(s, "edges") && !(seen & SEEN_EDGES)) {
            m->section = "\"edges\"";
            if (!(seen & SEEN_NODES))
                return stop(m, IMP_SYNTAX, "\"edges\" before \"nodes\"");
            seen |= SEEN_EDGES;
            rc = read_edges(m);
        } else if (text_is(s, "strings") && !(seen & SEEN_STRINGS)) {
            m->section = "\"strings\"";
            if (!(seen & SEEN_EDGES))
                return stop(m, IMP_SYNTAX, "\"strings\" before \"edges\"");
            seen |= SEEN_STRINGS;
            rc = read_strings(m, &wrc);
        } else {
            rc = vs_skip(s);
        }
        if (rc == IMP_SYNTAX && wrc != HEAPFMT_OK)
            return writer_failed(m, wrc);
        if (rc != IMP_OK || (rc = vs_next_member(s, '}', &more)) != IMP_OK)
            return stop(m, rc, NULL);
    } while (more);
    m->section = "the end of the input";
    if ((rc = vs_at_end(s)) != IMP_OK)
        return stop(m, rc, NULL);
    if (seen != (SEEN_NODES | SEEN_EDGES | SEEN_STRINGS)) {
        m->section = "the snapshot";
        return stop(m, IMP_SYNTAX, "a member of nodes, edges, strings is missing");
    }
    return IMPORT_OK;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* ids_stable: V8 gives an object its id when a snapshot or the heap
 * profiler first sees it and keeps it while the object lives
 * (HeapObjectsMap), which DevTools' Comparison view relies on. */
static int write_meta(v8 *m)
{
    int rc = meta_write(m->w, "v8", "v8.heapsnapshot", m->opt->source);
    return rc != HEAPFMT_OK ? rc : heapfmt_write_meta_uint(m->w, "ids_stable", 1);
}

/* Type names and the classes named after a type (DevTools' names). */
static int write_types(v8 *m)
{
    const v8_names *t = &m->lay.node_types;
    for (unsigned i = 0; i < t->n; i++) {
        int rc = heapfmt_write_string(m->w, t->name[i], strlen(t->name[i]),
                                      &m->type_sid[i]);
        if (rc != HEAPFMT_OK)
            return rc;
        if (m->type_by_name[i])
            continue;
        char name[V8_MAX_NAME + 3];
        if (strcmp(t->name[i], "hidden") == 0)
            snprintf(name, sizeof name, "(system)");
        else if (strcmp(t->name[i], "code") == 0)
            snprintf(name, sizeof name, "(compiled code)");
        else
            snprintf(name, sizeof name, "(%.*s)", V8_MAX_NAME, t->name[i]);
        heapfmt_class k = {0};
        k.id = V8_CLASS_OF_TYPE(i);
        k.name = name;
        k.name_len = strlen(name);
        if ((rc = heapfmt_write_class(m->w, &k)) != HEAPFMT_OK)
            return rc;
        m->st->classes++;
    }
    if (m->unknown_nodes > 0) {
        int rc = heapfmt_write_string(m->w, "unknown", 7,
                                      &m->type_sid[V8_TYPE_UNKNOWN]);
        heapfmt_class k = {0};
        k.id = V8_CLASS_OF_TYPE(V8_TYPE_UNKNOWN);
        k.name = "(unknown)";
        k.name_len = 9;
        if (rc != HEAPFMT_OK || (rc = heapfmt_write_class(m->w, &k)) != HEAPFMT_OK)
            return rc;
        m->st->classes++;
    }
    return HEAPFMT_OK;
}

/* The string id of name index i, 0 when it was not read. */
static uint32_t string_id(v8 *m, uint64_t i)
{
    if (i < m->ns && m->sid[i] != 0)
        return m->sid[i];
    m->missing++;
    return 0;
}

/* Fills refs/labels with the n edges from e on; *indexed says whether
 * the indexed form of 1.3 (HEAPFMT_F_INDEXED) writes fewer labels than
 * the plain one: it leaves out an index label, not weak, whose index
 * minus its position is the previous index label's (0 before the first),
 * as an array's elements in order have, but writes a reference without
 * a label, which the plain form leaves out. Either form reads back as the
 * same labels. */
static int fill_refs(v8 *m, size_t e, size_t n, int *indexed)
{
    if (fit_refs_room(&m->refs, &m->labels, &m->rcap, n) != HEAPFMT_OK)
        return HEAPFMT_E_NOMEM;
    size_t implied = 0, unlabeled = 0;
    uint64_t rel = 0; /* index - position of the previous index label */
    for (size_t j = 0; j < n; j++, e++) {
        heapfmt_label *lb = &m->labels[j];
        m->refs[j] = m->nid[m->eto[e]];
        int kind = m->edge_kind[m->etype[e]];
        lb->weak = kind == EK_WEAK;
        if (kind == EK_INDEX) {
            lb->kind = HEAPFMT_LABEL_INDEX;
            lb->value = m->ename[e];
            uint64_t r = lb->value - (uint64_t)j;
            implied += r == rel && !lb->weak;
            rel = r;
        } else {
            lb->value = string_id(m, m->ename[e]);
            lb->kind = lb->value == 0       ? HEAPFMT_LABEL_NONE
                       : kind == EK_OTHER ? HEAPFMT_LABEL_OTHER
                                          : HEAPFMT_LABEL_FIELD;
            unlabeled += lb->kind == HEAPFMT_LABEL_NONE && !lb->weak;
        }
    }
    *indexed = !m->opt->listed_indexes && implied > unlabeled;
    return HEAPFMT_OK;
}

/* A root category under "(GC roots)": a ROOT named after it. */
static int write_category(v8 *m, size_t node, size_t e, size_t n)
{
    /* its name was interned with the synthetic nodes' names */
    uint32_t name = m->nname[node];
    uint32_t kind = name < m->ns ? m->sid[name] : 0;
    int rc, indexed; /* a ROOT has no indexed form */
    if (kind == 0 &&
        (rc = heapfmt_write_string(m->w, "v8:gc_roots", 11, &kind)) != HEAPFMT_OK)
        return rc;
    if (n > HEAPFMT_MAX_REFS)
        n = HEAPFMT_MAX_REFS;
    if ((rc = fill_refs(m, e, n, &indexed)) != HEAPFMT_OK ||
        (rc = heapfmt_write_root_labeled(m->w, kind, m->refs, m->labels, n)) !=
            HEAPFMT_OK)
        return rc;
    m->st->roots++;
    m->st->refs += n;
    return HEAPFMT_OK;
}

static int write_node(v8 *m, size_t i, size_t e, size_t n)
{
    heapfmt_object o = {0};
    unsigned t = m->ntype[i];
    o.id = m->nid[i];
    o.class_id = m->type_by_name[t] ? V8_CLASS_OF_NAME(m->nname[i])
                                    : V8_CLASS_OF_TYPE(t);
    o.type = m->type_sid[t];
    o.size = m->nself[i];
    uint32_t name = m->nname[i];
    if (m->type_value[t] && name < m->ns && m->pvo && m->pvo[name] != V8_NO_VALUE) {
        const unsigned char *v = (const unsigned char *)m->pv + m->pvo[name];
        o.fields |= HEAPFMT_F_VALUE;
        o.value_len = (size_t)v[0] | (size_t)v[1] << 8;
        o.value = (const char *)v + 2;
    }
    if (n > HEAPFMT_MAX_REFS)
        n = HEAPFMT_MAX_REFS; /* all fit_write_object can keep */
    int indexed;
    int rc = fill_refs(m, e, n, &indexed);
    if (rc != HEAPFMT_OK)
        return rc;
    o.refs = m->refs;
    o.labels = m->labels;
    if (n)
        o.fields |= HEAPFMT_F_LABELS | (indexed ? HEAPFMT_F_INDEXED : 0);
    return fit_write_object(m->w, &o, n, m->st);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The node indexes of the root categories (the targets of "(GC roots)",
 * a target of node 0), sorted, in a new array; *n their count. */
static int find_categories(v8 *m, uint32_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (m->nn == 0 || m->gc_roots == UINT64_MAX)
        return HEAPFMT_OK;
    size_t gc = SIZE_MAX;
    for (size_t e = 0; e < m->nedges[0] && e < m->ne; e++)
        if (m->nname[m->eto[e]] == m->gc_roots) {
            gc = m->eto[e];
            break;
        }
    if (gc == SIZE_MAX)
        return HEAPFMT_OK;
    uint64_t start = 0;
    for (size_t i = 0; i < gc; i++)
        start += m->nedges[i];
    size_t count = 0;
    while (count < m->nedges[gc] && start + count < m->ne)
        count++;
    if (count == 0)
        return HEAPFMT_OK;
    uint32_t *c = malloc(count * sizeof *c);
    if (!c)
        return HEAPFMT_E_NOMEM;
    for (size_t j = 0; j < count; j++)
        c[j] = m->eto[start + j];
    qsort(c, count, sizeof *c, cmp_u32);
    *out = c;
    *n = count;
    return HEAPFMT_OK;
}

/* The node type index named name, or V8_TYPE_UNKNOWN. */
static unsigned type_named(const v8 *m, const char *name)
{
    for (unsigned t = 0; t < m->lay.node_types.n; t++)
        if (strcmp(m->lay.node_types.name[t], name) == 0)
            return t;
    return V8_TYPE_UNKNOWN;
}

/* DevTools' shallow sizes (JSHeapSnapshot.calculateShallowSizes, Chrome
 * 120 and later): the size of a "hidden" or "array" node (or a native
 * "system / ExternalStringData") that one object owns, alone, through
 * strong edges (directly or through other such nodes) moves to that
 * object, and the node's becomes 0. An array's elements, an object's
 * property store, a function's internals then count in the object's own
 * size, as DevTools shows it. Not done when the root holds only
 * synthetic nodes (a snapshot that exposes V8's internals: DevTools
 * shows the sizes as they are). Memory: 4 bytes per node, and a work
 * list of at most 2 entries per node. */
static int devtools_sizes(v8 *m)
{
    const uint32_t unvisited = UINT32_MAX, shared = UINT32_MAX - 1;
    unsigned hidden = type_named(m, "hidden"), array = type_named(m, "array");
    unsigned native = type_named(m, "native");
    unsigned synthetic = type_named(m, "synthetic");
    size_t nn = m->nn;
    if (nn == 0 || nn >= shared)
        return HEAPFMT_OK;
    int user_roots = 0;
    for (size_t e = 0; e < m->nedges[0] && e < m->ne && !user_roots; e++) {
        size_t t = m->eto[e];
        user_roots = m->ntype[t] != synthetic ||
                     (m->dom_trees != UINT64_MAX && m->nname[t] == m->dom_trees);
    }
    if (!user_roots)
        return HEAPFMT_OK;
    uint32_t *owner = malloc(nn * sizeof *owner);
    uint64_t *first = malloc((nn + 1) * sizeof *first);
    uint32_t *work = malloc(2 * nn * sizeof *work);
    if (!owner || !first || !work) {
        free(owner);
        free(first);
        free(work);
        return HEAPFMT_E_NOMEM;
    }
    size_t nwork = 0;
    uint64_t e = 0;
    for (size_t i = 0; i < nn; i++) {
        first[i] = e;
        e += m->nedges[i];
        if (e > m->ne)
            e = m->ne; /* cut short: the edges read */
        unsigned t = m->ntype[i];
        if (t == hidden || t == array ||
            (t == native && m->ext_data != UINT64_MAX &&
             m->nname[i] == m->ext_data)) {
            owner[i] = unvisited;
        } else {
            owner[i] = (uint32_t)i;
            work[nwork++] = (uint32_t)i;
        }
    }
    first[nn] = e;
    while (nwork > 0) {
        uint32_t i = work[--nwork], own = owner[i];
        for (uint64_t k = first[i]; k < first[i + 1]; k++) {
            if (m->edge_kind[m->etype[k]] == EK_WEAK)
                continue;
            uint32_t t = m->eto[k];
            if (owner[t] == unvisited) {
                owner[t] = own;
                work[nwork++] = t;
            } else if (owner[t] != t && owner[t] != own && owner[t] != shared) {
                /* a node turns shared once: at most two visits each */
                owner[t] = shared;
                work[nwork++] = t;
            }
        }
    }
    for (size_t i = 0; i < nn; i++) {
        uint32_t own = owner[i];
        if (own == unvisited || own == shared || own == i || own == 0 ||
            m->ntype[own] == synthetic)
            continue;
        m->nself[own] += m->nself[i];
        m->nself[i] = 0;
        m->moved++;
    }
    free(owner);
    free(first);
    free(work);
    return HEAPFMT_OK;
}

static int write_all(v8 *m)
{
    int rc;
    uint32_t kind;
    if ((rc = devtools_sizes(m)) != HEAPFMT_OK ||
        (rc = write_types(m)) != HEAPFMT_OK)
        return rc;
    if (m->nn > 0) {
        if ((rc = heapfmt_write_string(m->w, "v8:root", 7, &kind)) != HEAPFMT_OK ||
            (rc = heapfmt_write_root(m->w, kind, &m->nid[0], 1)) != HEAPFMT_OK)
            return rc;
        m->st->roots++;
        m->st->refs++;
    }
    uint32_t *cats;
    size_t ncats, next = 0;
    if ((rc = find_categories(m, &cats, &ncats)) != HEAPFMT_OK)
        return rc;
    size_t e = 0;
    for (size_t i = 0; i < m->nn && rc == HEAPFMT_OK; i++) {
        /* a node's edges may be cut off by the end of the input */
        size_t n = m->nedges[i];
        if (n > m->ne - e)
            n = m->ne - e;
        rc = write_node(m, i, e, n);
        for (; rc == HEAPFMT_OK && next < ncats && cats[next] == i; next++)
            if (next == 0 || cats[next - 1] != i)
                rc = write_category(m, i, e, n);
        e += n;
    }
    free(cats);
    return rc;
}

/* ------------------------------------------------------------------ */

static void v8_free(v8 *m)
{
    vs_free(&m->s);
    for (unsigned i = 0; i < m->lay.node_types.n; i++)
        free(m->lay.node_types.name[i]);
    for (unsigned i = 0; i < m->lay.edge_types.n; i++)
        free(m->lay.edge_types.name[i]);
    free(m->nid);
    free(m->nself);
    free(m->nname);
    free(m->nedges);
    free(m->ntype);
    free(m->eto);
    free(m->ename);
    free(m->etype);
    free(m->sflag);
    free(m->sid);
    free(m->pvo);
    free(m->pv);
    free(m->refs);
    free(m->labels);
    free(m);
}

int v8_run(heapfmt_writer *w, lr_read_fn read, void *opaque,
           const import_options *opt, import_stats *st)
{
    v8 *m = calloc(1, sizeof *m);
    if (!m || vs_init(&m->s, read, opaque, opt->buffer, HEAPFMT_MAX_STRING) !=
                  IMP_OK) {
        if (m)
            v8_free(m);
        return import_nomem(opt);
    }
    m->w = w;
    m->opt = opt;
    m->st = st;
    m->gc_roots = m->ext_data = m->dom_trees = UINT64_MAX;
    v8_layout *l = &m->lay;
    l->n_type = l->n_name = l->n_id = l->n_self = l->n_edges = -1;
    l->e_type = l->e_name = l->e_to = -1;
    l->node_types_at = l->edge_types_at = -1;

    int result, rc = write_meta(m);
    if (rc != HEAPFMT_OK) {
        result = writer_failed(m, rc);
        goto out;
    }
    result = read_all(m);
    st->bytes_read = st->bytes_json = vs_offset(&m->s);
    if (result == IMPORT_FAILED)
        goto out;
    if (m->nn == 0) {
        /* a cut before the first node was only a warning so far: the
         * failure must say why too (found by fuzz_import) */
        say(m, IMPORT_DIAG_ERROR, m->stopped
                                      ? "no node before that: nothing to import"
                                      : "the snapshot has no nodes");
        result = IMPORT_FAILED;
        goto out;
    }
    /* Edges name nodes by index: a repeated id is renamed here, before
     * any node is written, so that the edges to the node follow it. */
    uint64_t first_id = 0;
    size_t first_at = 0;
    long renamed = unique_ids_fix(m->nid, m->nn, &first_id, &first_at);
    if (renamed < 0) {
        say(m, IMPORT_DIAG_ERROR, "out of memory");
        result = IMPORT_FAILED;
        goto out;
    }
    if (renamed > 0)
        say(m, IMPORT_DIAG_WARNING,
            "%ld node%s repeat%s the id of an earlier node (the first: node "
            "%zu, id %llu): each has a new id, counting down from %#llx; "
            "the edges to it follow it",
            renamed, renamed == 1 ? "" : "s", renamed == 1 ? "s" : "",
            first_at, (unsigned long long)first_id,
            (unsigned long long)UINT64_MAX);
    st->ids_renamed = (uint64_t)renamed;
    st->ids = NULL; /* unique now, and fit_write_object need not keep them */
    if ((rc = write_all(m)) != HEAPFMT_OK) {
        result = writer_failed(m, rc);
        goto out;
    }
    /* data lost: a warning, or with --strict the reason of the failure
     * (found by fuzz_import) */
    int lost = opt->strict ? IMPORT_DIAG_ERROR : IMPORT_DIAG_WARNING;
    if (m->ne < m->edges_claimed && !m->stopped) {
        say(m, lost,
            "the nodes claim %llu edges, \"edges\" has %zu: references lost",
            (unsigned long long)m->edges_claimed, m->ne);
        result = IMPORT_INCOMPLETE;
    }
    if (m->missing > 0) {
        say(m, lost,
            "%llu names refer past the %zu strings read: left unnamed",
            (unsigned long long)m->missing, m->ns);
        if (!m->stopped)
            result = IMPORT_INCOMPLETE;
    }
    if (m->unknown_nodes > 0)
        say(m, IMPORT_DIAG_WARNING,
            "%llu nodes of a type beyond snapshot.meta.node_types (the first "
            "of type %llu; the meta lists %u): class \"(unknown)\", type "
            "\"unknown\"", (unsigned long long)m->unknown_nodes,
            (unsigned long long)m->unknown_first, m->lay.node_types.n);
    if (m->stopped)
        say(m, IMPORT_DIAG_WARNING,
            "written what came before: %zu nodes, %zu edges, %zu strings",
            m->nn, m->ne, m->ns);
    if (st->refs_dropped > 0) {
        say(m, lost,
            "%llu references left out to fit the format's limits",
            (unsigned long long)st->refs_dropped);
        if (result == IMPORT_OK)
            result = IMPORT_INCOMPLETE;
    }
    if (result != IMPORT_OK && opt->strict)
        result = IMPORT_FAILED;
out:
    v8_free(m);
    return result;
}
