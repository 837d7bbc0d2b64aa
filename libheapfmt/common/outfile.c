/* outfile.c -- a file that appears under its name only once it is whole
 * (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h> /* rename */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* The longest file name most file systems take (NAME_MAX). */
#define NAME_BYTES 255
/* ".", the name, ".", six characters, ".tmp" */
#define TEMP_EXTRA 12
#define TEMP_TRIES 64

/* EINTR goes to the caller: the Ruby gem returns to the VM on it, to run
 * the thread's interrupts while it waits for a FIFO's reader. */
static int open_cloexec(const char *path, int flags)
{
    return open(path, flags | O_CLOEXEC, 0666);
}

static int open_direct(hf_outfile *o, const char *path, int existed)
{
    o->temp = 0;
    o->created = !existed;
    o->fd = open_cloexec(path, O_WRONLY | O_CREAT | O_TRUNC);
    return o->fd < 0 ? -1 : 0;
}

/* splitmix64's finalizer: spreads the bits of a weak seed. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Six name characters that differ between processes, calls and tries
 * (O_EXCL makes a clash harmless; rand() would move the host's state). */
static void temp_suffix(char *out, const hf_outfile *o, unsigned attempt)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    struct timespec ts = {0, 0};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = mix((uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec ^
                     (uint64_t)ts.tv_sec << 40 ^ (uint64_t)(uintptr_t)o ^
                     (uint64_t)attempt * 0x9e3779b97f4a7c15ull);
    for (int i = 0; i < 6; i++, x /= 36)
        out[i] = digits[x % 36];
}

/* Creates the temporary beside o->final: "DIR/.NAME.XXXXXX.tmp", hidden,
 * so that a glob of the final names never picks it up. */
static int open_temp(hf_outfile *o, const struct stat *old)
{
    const char *slash = strrchr(o->final, '/');
    size_t dirlen = slash ? (size_t)(slash - o->final) + 1 : 0;
    const char *base = o->final + dirlen;
    size_t baselen = strlen(base);
    if (baselen > NAME_BYTES - TEMP_EXTRA)
        baselen = NAME_BYTES - TEMP_EXTRA;
    if (dirlen + baselen + TEMP_EXTRA + 1 > sizeof o->tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    char *p = o->tmp;
    memcpy(p, o->final, dirlen);
    p += dirlen;
    *p++ = '.';
    memcpy(p, base, baselen);
    p += baselen;
    *p++ = '.';
    char *suffix = p;
    memcpy(p + 6, ".tmp", 5);
    for (unsigned attempt = 0; attempt < TEMP_TRIES; attempt++) {
        temp_suffix(suffix, o, attempt);
        o->fd = open_cloexec(o->tmp, O_WRONLY | O_CREAT | O_EXCL);
        if (o->fd >= 0) {
            o->temp = 1;
            /* the file replaced keeps its permissions, as O_TRUNC did */
            if (old != NULL)
                (void)fchmod(o->fd, old->st_mode & 07777);
            return 0;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

int hf_outfile_open(hf_outfile *o, const char *path)
{
    o->fd = -1;
    o->temp = 0;
    o->created = 0;
    o->final[0] = o->tmp[0] = '\0';
    struct stat st;
    if (stat(path, &st) == 0) {
        /* a FIFO, a device: nothing to rename over */
        if (!S_ISREG(st.st_mode) || realpath(path, o->final) == NULL)
            return open_direct(o, path, 1);
        if (open_temp(o, &st) == 0)
            return 0;
        return open_direct(o, path, 1);
    }
    struct stat lst;
    if (lstat(path, &lst) == 0) /* a link to nothing: create its target */
        return open_direct(o, path, 1);
    size_t len = strlen(path);
    if (len >= sizeof o->final) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(o->final, path, len + 1);
    if (open_temp(o, NULL) == 0)
        return 0;
    /* no temporary possible: open(2) of the path itself says why */
    return open_direct(o, path, 0);
}

int hf_outfile_close(hf_outfile *o)
{
    if (o->fd < 0)
        return 0;
    int fd = o->fd;
    o->fd = -1;
    if (close(fd) == 0 || errno == EINTR)
        return 0;
    return -1;
}

void hf_outfile_discard(hf_outfile *o)
{
    int e = errno;
    hf_outfile_close(o);
    if (o->temp) {
        unlink(o->tmp);
        o->temp = 0;
    }
    errno = e;
}

int hf_outfile_commit(hf_outfile *o)
{
    if (hf_outfile_close(o) != 0) {
        hf_outfile_discard(o);
        return -1;
    }
    if (!o->temp)
        return 0;
    if (rename(o->tmp, o->final) != 0) {
        hf_outfile_discard(o);
        return -1;
    }
    o->temp = 0;
    return 0;
}
