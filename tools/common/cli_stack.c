/* cli_stack.c -- allocation call stacks as the tools show them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_names.h"
#include "cli_stack.h"

void cli_buf_free(cli_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* Makes room for more bytes and the NUL. Returns 0 or -1. */
static int reserve(cli_buf *b, size_t more)
{
    if (more > SIZE_MAX / 2 - b->len)
        return -1;
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 128;
    while (cap < need)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (s == NULL)
        return -1;
    b->s = s;
    b->cap = cap;
    return 0;
}

/* Appends len bytes; in the folded style ';' becomes ',' and control
 * bytes '?', so that a name never splits a frame or a line. */
static int put(cli_buf *b, const char *s, size_t len,
               enum cli_stack_style style)
{
    if (reserve(b, len) != 0)
        return -1;
    char *d = b->s + b->len;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (style == CLI_STACK_FOLDED && c == ';')
            c = ',';
        else if (style == CLI_STACK_FOLDED && (c < 0x20 || c == 0x7f))
            c = '?';
        d[i] = (char)c;
    }
    b->len += len;
    b->s[b->len] = '\0';
    return 0;
}

static int put_str(cli_buf *b, const char *s, enum cli_stack_style style)
{
    return put(b, s, strlen(s), style);
}

/* Appends printf output made only of our own characters (numbers and
 * placeholders: nothing to replace). */
static int putf(cli_buf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    return put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1,
               CLI_STACK_TEXT);
}

/* Whether a frame's string is present: defined and not empty. An
 * undefined one is present too: its placeholder says what was lost. */
static int present(const heapfmt_rstring *s)
{
    return s != NULL && (s->undefined || (s->slot != 0 && s->len > 0));
}

/* Cuts *p (len bytes) to the part after its last '/': a library's
 * basename. */
static void basename_of(const char **p, size_t *len)
{
    for (size_t i = *len; i > 0; i--) {
        if ((*p)[i - 1] == '/') {
            *p += i;
            *len -= i;
            return;
        }
    }
}

/* Appends a string of a frame, or its placeholder when its STRING record
 * was lost. base: only the part after the last '/' (a library's path). */
static int put_string(cli_buf *b, const heapfmt_rstring *s, int base,
                      enum cli_stack_style style)
{
    if (s->undefined)
        return putf(b, "#<undefined string %u>", (unsigned)s->id);
    const char *p = s->ptr;
    size_t len = s->len;
    if (base)
        basename_of(&p, &len);
    cli_name cut;
    p = cli_name_cut(p, len, &cut, &len);
    return put(b, p, len, style);
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

static int library_is_allocator(const heapfmt_rstring *lib)
{
    static const char *const prefixes[] = {"libc.so", "libc-", "ld-linux",
                                           "libheapfmt-malloc"};
    if (!present(lib) || lib->undefined)
        return 0;
    const char *p = lib->ptr;
    size_t len = lib->len;
    basename_of(&p, &len);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts_with(p, len, prefixes[i]))
            return 1;
    return 0;
}

static int function_is_allocator(const heapfmt_rstring *fn)
{
    static const char *const names[] = {
        "malloc",  "calloc",        "realloc",       "reallocarray",
        "free",    "posix_memalign", "aligned_alloc", "memalign",
        "valloc",  "pvalloc"};
    /* C++ operator new and delete, every variant (sized, aligned,
     * nothrow), mangled or demangled. */
    static const char *const prefixes[] = {"_Znw", "_Zna", "_Zdl", "_Zda",
                                           "operator new",
                                           "operator delete"};
    if (!present(fn) || fn->undefined)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (fn->len == strlen(names[i]) &&
            memcmp(fn->ptr, names[i], fn->len) == 0)
            return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts_with(fn->ptr, fn->len, prefixes[i]))
            return 1;
    return 0;
}

int cli_frame_is_allocator(const heapfmt_rframe *f)
{
    return !f->undefined &&
           (library_is_allocator(f->library) ||
            function_is_allocator(f->function));
}

long cli_stack_top(const heapfmt_rstack *s)
{
    if (s == NULL || s->undefined || s->nframes == 0)
        return -1;
    for (size_t i = 0; i < s->nframes; i++)
        if (!cli_frame_is_allocator(s->frames[i]))
            return (long)i;
    return (long)s->nframes - 1;
}

/* Appends the name of f. */
static int append_frame(cli_buf *b, const heapfmt_rframe *f,
                        enum cli_stack_style style)
{
    if (f->undefined)
        return putf(b, "#<undefined frame %u>", (unsigned)f->id);
    int fn = present(f->function), rc = 0;
    if (fn) {
        rc = put_string(b, f->function, 0, style);
        if (rc == 0)
            rc = put_str(b, " (", style);
    }
    if (rc == 0 && present(f->library)) {
        rc = put_string(b, f->library, 1, style);
        if (rc == 0)
            rc = putf(b, "+0x%llx", (unsigned long long)f->offset);
    } else if (rc == 0) {
        rc = putf(b, "0x%llx", (unsigned long long)f->offset);
    }
    if (rc == 0 && fn)
        rc = put_str(b, ")", style);
    if (rc == 0 && present(f->file)) {
        rc = put_str(b, " ", style);
        if (rc == 0)
            rc = put_string(b, f->file, 0, style);
        if (rc == 0 && f->line != 0)
            rc = putf(b, ":%llu", (unsigned long long)f->line);
    }
    return rc;
}

static void clear(cli_buf *b)
{
    b->len = 0;
    if (b->s != NULL)
        b->s[0] = '\0';
}

int cli_frame_name(cli_buf *b, const heapfmt_rframe *f,
                   enum cli_stack_style style)
{
    clear(b);
    return append_frame(b, f, style);
}

/* The placeholder of a stack without frames, or NULL. */
static const char *placeholder(const heapfmt_rstack *s)
{
    if (s == NULL)
        return CLI_NO_STACK;
    if (s->undefined || s->nframes == 0)
        return CLI_UNKNOWN_STACK;
    return NULL;
}

int cli_stack_name(cli_buf *b, const heapfmt_rstack *s,
                   enum cli_stack_style style)
{
    clear(b);
    const char *ph = placeholder(s);
    if (ph != NULL)
        return put_str(b, ph, style);
    int folded = style == CLI_STACK_FOLDED;
    for (size_t i = 0; i < s->nframes; i++) {
        if (i > 0 && put_str(b, folded ? ";" : " < ", CLI_STACK_TEXT) != 0)
            return -1;
        const heapfmt_rframe *f = s->frames[folded ? s->nframes - 1 - i : i];
        if (append_frame(b, f, style) != 0)
            return -1;
    }
    return 0;
}

int cli_stack_top_name(cli_buf *b, const heapfmt_rstack *s,
                       enum cli_stack_style style)
{
    clear(b);
    const char *ph = placeholder(s);
    if (ph != NULL)
        return put_str(b, ph, style);
    return append_frame(b, s->frames[cli_stack_top(s)], style);
}
