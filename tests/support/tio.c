/*
 * tio.c -- test helpers: PRNG, byte buffer, memory sink and memory source.
 */
#include "tio.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

void *txrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL) {
        fprintf(stderr, "heapfmt tests: out of memory (%zu bytes)\n", n);
        abort();
    }
    return q;
}

/* ---- PRNG ---------------------------------------------------------------- */

void tprng_seed(tprng *p, uint64_t seed)
{
    p->state = seed ^ 0x5eed5eed5eed5eedULL;
}

uint64_t tprng_next(tprng *p)
{
    uint64_t z = (p->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t tprng_below(tprng *p, uint64_t n)
{
    return n ? tprng_next(p) % n : 0;
}

uint64_t tfib_inverse(uint64_t odd)
{
    uint64_t inv = odd; /* Newton: correct to 3 bits, each step doubles */
    for (int n = 0; n < 5; n++)
        inv *= 2 - odd * inv;
    return inv;
}

uint64_t tsplitmix_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* x from y = x ^ x >> s */
static uint64_t unshift(uint64_t y, unsigned s)
{
    uint64_t x = y;
    for (unsigned i = 0; i < 64 / s + 1; i++)
        x = y ^ (x >> s);
    return x;
}

uint64_t tsplitmix_unmix(uint64_t y)
{
    uint64_t x = unshift(y, 31) * tfib_inverse(0x94d049bb133111ebull);
    x = unshift(x, 27) * tfib_inverse(0xbf58476d1ce4e5b9ull);
    return unshift(x, 30);
}

uint64_t tfib_collider(uint64_t i)
{
    return i * tfib_inverse(0x9e3779b97f4a7c15ull);
}

double tcpu_seconds(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
        return 0;
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void tflood_keys(size_t n, uint64_t (*crafted)(uint64_t i), uint64_t **bad,
                 uint64_t **rnd)
{
    *bad = malloc((n ? n : 1) * sizeof **bad);
    *rnd = malloc((n ? n : 1) * sizeof **rnd);
    if (*bad == NULL || *rnd == NULL)
        abort();
    tprng r;
    tprng_seed(&r, 31);
    for (size_t i = 0; i < n; i++) {
        (*bad)[i] = crafted(i + 1);
        (*rnd)[i] = tprng_next(&r);
    }
}

/* ---- tbuf ---------------------------------------------------------------- */

void tbuf_put(tbuf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->data = txrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void tbuf_u8(tbuf *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    tbuf_put(b, &c, 1);
}

void tbuf_u16le(tbuf *b, uint16_t v)
{
    unsigned char c[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
    tbuf_put(b, c, 2);
}

void tbuf_u32le(tbuf *b, uint32_t v)
{
    unsigned char c[4];
    for (int i = 0; i < 4; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    tbuf_put(b, c, 4);
}

void tbuf_u64le(tbuf *b, uint64_t v)
{
    unsigned char c[8];
    for (int i = 0; i < 8; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    tbuf_put(b, c, 8);
}

void tbuf_varint(tbuf *b, uint64_t v)
{
    unsigned char c[10];
    size_t n = 0;
    do {
        unsigned char byte = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            byte |= 0x80;
        c[n++] = byte;
    } while (v);
    tbuf_put(b, c, n);
}

uint64_t tzigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void tbuf_zigzag(tbuf *b, int64_t v)
{
    tbuf_varint(b, tzigzag(v));
}

void tbuf_zdelta(tbuf *b, uint64_t x, uint64_t base)
{
    tbuf_zigzag(b, (int64_t)(x - base));
}

void tbuf_free(tbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

uint32_t tget_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

uint64_t tget_u64le(const unsigned char *p)
{
    return (uint64_t)tget_u32le(p) | (uint64_t)tget_u32le(p + 4) << 32;
}

/* ---- sink ---------------------------------------------------------------- */

void tsink_init(tsink *s)
{
    memset(s, 0, sizeof *s);
    tprng_seed(&s->rng, 1);
}

void tsink_free(tsink *s)
{
    tbuf_free(&s->out);
}

long tsink_write(void *opaque, const void *buf, size_t len)
{
    tsink *s = opaque;
    unsigned long call = ++s->calls;

    if (len == 0)
        s->empty_calls++;
    if (s->fail_at &&
        (call == s->fail_at || (!s->fail_once && call > s->fail_at))) {
        s->failures++;
        return -(long)(s->fail_errno ? s->fail_errno : EIO);
    }
    if (s->eintr_every && call % s->eintr_every == 0)
        return -EINTR;
    size_t n = len;
    if (s->max_per_call && n > s->max_per_call)
        n = s->max_per_call;
    if (s->random_sizes && n > 1)
        n = 1 + (size_t)tprng_below(&s->rng, n);
    if (n > LONG_MAX)
        n = LONG_MAX;
    tbuf_put(&s->out, buf, n);
    return (long)n;
}

/* ---- source -------------------------------------------------------------- */

void tsource_init(tsource *s, const void *data, size_t len, int policy,
                  uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->data = data;
    s->len = len;
    s->policy = policy;
    s->seekable = 1;
    tprng_seed(&s->rng, seed);
}

long tsource_read(void *opaque, void *buf, size_t len)
{
    tsource *s = opaque;
    unsigned long call = ++s->reads;

    if (s->fail_at &&
        (call == s->fail_at || (!s->fail_once && call > s->fail_at)))
        return -(long)(s->fail_errno ? s->fail_errno : EIO);
    if (s->eintr_every && call % s->eintr_every == 0)
        return -EINTR;
    size_t avail = s->len - s->pos;
    size_t n = len < avail ? len : avail;
    if (n > 1) {
        if (s->policy == TSRC_BYTE) {
            n = 1;
        } else if (s->policy == TSRC_RANDOM) {
            /* mostly small pieces, sometimes large ones */
            size_t cap = tprng_below(&s->rng, 8) == 0 ? 65536 : 48;
            if (cap < n)
                n = cap;
            n = 1 + (size_t)tprng_below(&s->rng, n);
        }
    }
    if (n > LONG_MAX)
        n = LONG_MAX;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long)n;
}

int64_t tsource_seek(void *opaque, int64_t offset, int from_end)
{
    tsource *s = opaque;
    int64_t target;

    s->seeks++;
    if (from_end) {
        if (offset > 0 || (uint64_t)(-offset) > s->len)
            return -EINVAL;
        target = (int64_t)s->len + offset;
    } else {
        if (offset < 0 || (uint64_t)offset > s->len)
            return -EINVAL;
        target = offset;
    }
    s->pos = (size_t)target;
    return target;
}

int tsource_open(heapfmt_reader **out, const heapfmt_reader_options *opt,
                 tsource *s)
{
    return heapfmt_reader_open(out, opt, tsource_read,
                               s->seekable ? tsource_seek : NULL, s);
}

/* ---- files --------------------------------------------------------------- */

static void write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            perror("tio: write");
            abort();
        }
        p += n;
        len -= (size_t)n;
    }
}

int ttemp_path(char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/heapfmt-test-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("tio: mkstemp");
        abort();
    }
    return fd;
}

char *tmemdup(const void *p, size_t n)
{
    char *q = txrealloc(NULL, n + 1);
    if (n)
        memcpy(q, p, n);
    q[n] = '\0';
    return q;
}

char *ttemp_file(const void *data, size_t len)
{
    char *path = txrealloc(NULL, 4096);
    int fd = ttemp_path(path, 4096);
    write_all(fd, data, len);
    close(fd);
    return path;
}

int ttemp_fd(const void *data, size_t len)
{
    char path[4096];
    int fd = ttemp_path(path, sizeof path);
    unlink(path);
    write_all(fd, data, len);
    if (lseek(fd, 0, SEEK_SET) != 0) {
        perror("tio: lseek");
        abort();
    }
    return fd;
}

int tpipe_fd(const void *data, size_t len, int *child)
{
    int p[2];
    if (pipe(p) != 0) {
        perror("tio: pipe");
        abort();
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("tio: fork");
        abort();
    }
    if (pid == 0) {
        close(p[0]);
        const unsigned char *q = data;
        while (len) {
            ssize_t n = write(p[1], q, len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(1);
            q += n;
            len -= (size_t)n;
        }
        close(p[1]);
        _exit(0);
    }
    close(p[1]);
    *child = (int)pid;
    return p[0];
}

void twait_child(int child)
{
    int status;
    while (waitpid((pid_t)child, &status, 0) < 0 && errno == EINTR)
        ;
}

int tverify(const void *data, size_t len, char *msg, size_t cap)
{
    const char *bin = getenv("BIN");
    if (bin == NULL || *bin == '\0')
        return -1;
    char err[4200], cmd[12800];
    char *path = ttemp_file(data, len);
    snprintf(err, sizeof err, "%s.err", path);
    snprintf(cmd, sizeof cmd, "'%s/heapfmt-info' --verify '%s' >/dev/null 2>'%s'",
             bin, path, err);
    int st = system(cmd);
    msg[0] = '\0';
    FILE *f = fopen(err, "r");
    if (f != NULL) {
        if (fgets(msg, (int)cap, f) == NULL)
            msg[0] = '\0';
        fclose(f);
    }
    unlink(path);
    unlink(err);
    free(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int tread_file(const char *path, unsigned char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    tbuf b = { 0 };
    unsigned char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tbuf_put(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        tbuf_free(&b);
        return -1;
    }
    if (b.data == NULL)
        b.data = txrealloc(NULL, 1);
    *data = b.data;
    *len = b.len;
    return 0;
}

const char *tfind_repo_file(const char *env, const char *rel)
{
    static char path[4096];
    const char *e = env ? getenv(env) : NULL;
    if (e && *e) {
        if (access(e, R_OK) == 0) {
            snprintf(path, sizeof path, "%s", e);
            return path;
        }
    }
    static const char *const prefixes[] = { "", "../", "../../" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        snprintf(path, sizeof path, "%s%s", prefixes[i], rel);
        if (access(path, R_OK) == 0)
            return path;
    }
    return NULL;
}

int tcontains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) ==
                   tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}
