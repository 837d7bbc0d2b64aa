/* extmem_file.c -- the temporary files of dominators --temp-dir.
 *
 * Shaped by the disk: streams, never random reads (596 MB/s read and 192
 * MB/s written in streams on this VM, against 4,176 random 4 KiB reads a
 * second: docs/performance.md). Every file is written once through a
 * 1 MiB buffer and read back in order, or used as a stack whose top
 * moves by whole halves of the in-memory ring (extmem_dfs.c). A file has
 * no name (O_TMPFILE), so that a crash, a kill or an error leaves nothing
 * in the directory and nothing shows there while it runs; the kernel
 * frees its blocks when the descriptor closes. Where the file system
 * cannot make one, it is created with a name and unlinked at once. */
#define _GNU_SOURCE /* mkostemp, O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extmem.h"

static void grew(xfile *f, uint64_t bytes)
{
    f->size += bytes;
    f->x->disk += bytes;
    if (f->x->disk > f->x->disk_peak)
        f->x->disk_peak = f->x->disk;
}

static void shrank(xfile *f, uint64_t bytes)
{
    f->size -= bytes;
    f->x->disk -= bytes;
}

/* A descriptor of a file in dir that has no name, or -1 with errno. */
static int open_unnamed(extmem *x, const char *what)
{
#ifdef O_TMPFILE
    int fd = open(x->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    /* EISDIR, EOPNOTSUPP or EINVAL: a kernel or file system without it */
    if (fd >= 0 || (errno != EISDIR && errno != EOPNOTSUPP && errno != EINVAL))
        return fd;
#endif
    size_t n = strlen(x->dir) + strlen(what) + 32;
    char *name = diff_mem_alloc(x->mem, n);
    if (name == NULL) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(name, n, "%s/heapfmt-%s-XXXXXX", x->dir, what);
    int fd2 = mkostemp(name, O_CLOEXEC);
    int e = errno;
    if (fd2 >= 0)
        unlink(name);
    diff_mem_free(x->mem, name);
    errno = e;
    return fd2;
}

int xfile_open(xfile *f, extmem *x, const char *what, size_t cap)
{
    memset(f, 0, sizeof *f);
    f->x = x;
    f->fd = open_unnamed(x, what);
    if (f->fd < 0) {
        int e = errno;
        if (e == ENOMEM)
            an_no_memory(x->ctx, x->dir);
        else
            an_fail(x->ctx, AN_ERROR, x->dir, "cannot create a temporary file: %s", strerror(e));
        return -1;
    }
    f->cap = cap;
    f->buf = diff_mem_alloc(x->mem, cap);
    if (f->buf == NULL) {
        an_no_memory(x->ctx, x->dir);
        xfile_close(f);
        return -1;
    }
    return 0;
}

void xfile_close(xfile *f)
{
    if (f->x == NULL)
        return;
    if (f->fd >= 0)
        close(f->fd);
    f->x->disk -= f->size;
    diff_mem_free(f->x->mem, f->buf);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

/* Writes n bytes at the file's end. A write that makes no progress is a
 * full disk. */
static int write_at_end(xfile *f, const unsigned char *p, size_t n)
{
    if (f->err != 0)
        return -1;
    while (n > 0) {
        ssize_t w = pwrite(f->fd, p, n, (off_t)f->size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            f->err = w < 0 ? errno : ENOSPC;
            return -1;
        }
        grew(f, (uint64_t)w);
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int xfile_flush(xfile *f)
{
    if (f->reading)
        return f->err != 0 ? -1 : 0;
    if (write_at_end(f, f->buf, f->len) != 0)
        return -1;
    f->len = 0;
    return 0;
}

int xfile_put_big(xfile *f, const void *p, size_t n)
{
    return xfile_flush(f) != 0 ? -1 : write_at_end(f, p, n);
}

int xfile_rewind(xfile *f)
{
    if (xfile_flush(f) != 0)
        return -1;
    f->off = 0;
    f->pos = f->len = 0;
    f->reading = 1;
    return 0;
}

/* Reads n bytes at offset off. Returns 0, 1 (the file ends first), -1. */
static int read_at(xfile *f, uint64_t off, unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = pread(f->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            f->err = errno;
            return -1;
        }
        if (r == 0)
            return 1;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

int xfile_get(xfile *f, void *p, size_t n)
{
    unsigned char *out = p;
    if (f->err != 0)
        return -1;
    while (n > 0) {
        if (f->pos == f->len) {
            uint64_t left = f->size - f->off;
            if (left == 0)
                return 1;
            size_t want = left < f->cap ? (size_t)left : f->cap;
            int rc = read_at(f, f->off, f->buf, want);
            if (rc != 0)
                return rc;
            f->off += want;
            f->pos = 0;
            f->len = want;
        }
        size_t k = f->len - f->pos < n ? f->len - f->pos : n;
        memcpy(out, f->buf + f->pos, k);
        f->pos += k;
        out += k;
        n -= k;
    }
    return 0;
}

int xfile_push_raw(xfile *f, const void *p, size_t n)
{
    return write_at_end(f, p, n);
}

int xfile_pop_raw(xfile *f, void *p, size_t n)
{
    if (f->err != 0 || n > f->size)
        return -1;
    int rc = read_at(f, f->size - n, p, n);
    if (rc != 0)
        return -1;
    shrank(f, n);
    /* give the blocks back: the stack's file never holds more than its
     * deepest point */
    if (ftruncate(f->fd, (off_t)f->size) != 0) {
        f->err = errno;
        return -1;
    }
    return 0;
}

int xfile_error(const xfile *f)
{
    return an_fail(f->x->ctx, AN_ERROR, f->x->dir,
                   "cannot write or read a temporary file: %s", strerror(f->err != 0 ? f->err : EIO));
    return AN_ERROR;
}
