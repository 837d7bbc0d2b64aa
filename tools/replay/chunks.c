/* chunks.c -- streams of chunks in one temporary file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_grow.h"
#include "chunks.h"

int chunkfile_open(chunkfile *f)
{
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == 0)
        dir = "/tmp";
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/heapfmt-replay-XXXXXX", dir) >=
        sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    f->fd = mkostemp(path, O_CLOEXEC);
    if (f->fd < 0)
        return -1;
    unlink(path);
    f->size = 0;
    return 0;
}

void chunkfile_close(chunkfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

int chunk_append(chunkfile *f, const void *p, size_t len, chunk *c)
{
    if (len > UINT32_MAX) {
        errno = EFBIG;
        return -1;
    }
    c->off = f->size;
    c->len = (uint32_t)len;
    const uint8_t *b = p;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(f->fd, b + done, len - done,
                           (off_t)(f->size + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        done += (size_t)n;
    }
    f->size += len;
    return 0;
}

int chunk_read(const chunkfile *f, const chunk *c, void *buf)
{
    uint8_t *b = buf;
    size_t done = 0;
    while (done < c->len) {
        ssize_t n = pread(f->fd, b + done, c->len - done,
                          (off_t)(c->off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; /* the file is ours: shorter means damage */
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int chunklist_push(chunklist *l, chunk c)
{
    if (GROW(l->v, l->cap, l->n) != 0)
        return -1;
    l->v[l->n++] = c;
    return 0;
}

void chunklist_free(chunklist *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}
