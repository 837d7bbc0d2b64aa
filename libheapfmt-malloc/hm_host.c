/* hm_host.c -- the tracker as a guest: the program's descriptors stay the
 * program's.
 *
 * A program's descriptor table is its own business: a daemon closes every
 * descriptor above 2, dup2s over numbers, and reuses them, so a number the
 * tracker held may name the program's pipe a moment later. Reading or
 * writing it then steals or corrupts the program's data; closing it closes
 * the program's file; and merely opening one takes the lowest free number,
 * the one the program's next open() expected (close(0) then
 * open("/dev/null") is how a daemon detaches its stdin).
 *
 * So the tracker keeps no descriptor in that table. Dumps are written by a
 * thread whose table is a private one, empty from the start
 * (close_range(CLOSE_RANGE_UNSHARE), Linux 5.9; or unshare(CLONE_FILES)
 * and a close of everything it copied): what it opens the program cannot
 * close, see, inherit across fork or exec, or have its numbers taken by.
 * Where the kernel refuses both (an old kernel, a seccomp filter), the
 * thread shares the program's table and every write and close is checked
 * first: the descriptor must still name the file the tracker opened (its
 * device and inode), or the dump stops rather than touch what the program
 * put under that number.
 *
 * The log line (--verbose) goes to the standard error the program had at
 * start, and only while descriptor 2 is still that file. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hm.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

/* Closes every descriptor of the calling thread's table, a private copy
 * of the program's: close_range(2) where there is one, else each
 * descriptor /proc/thread-self/fd lists (a loop to RLIMIT_NOFILE would
 * be a million calls under a high limit), else that loop. */
static void close_all(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 0u, ~0u, 0u) == 0)
        return;
#endif
    DIR *d = opendir("/proc/thread-self/fd");
    if (d != NULL) {
        int closed;
        do { /* closing while listing may skip entries: list again */
            closed = 0;
            rewinddir(d);
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                int fd = atoi(e->d_name);
                if (e->d_name[0] != '.' && fd != dirfd(d) && close(fd) == 0)
                    closed = 1;
            }
        } while (closed);
        closedir(d);
        return;
    }
    struct rlimit rl;
    rlim_t top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                     ? rl.rlim_cur : 65536;
    for (rlim_t fd = 0; fd < top && fd <= (rlim_t)~0u >> 1; fd++)
        close((int)fd);
}

int hm_fd_private(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 0u, ~0u, CLOSE_RANGE_UNSHARE) == 0)
        return 1;
#endif
    if (unshare(CLONE_FILES) != 0)
        return 0;
    close_all();
    return 1;
}

/* ---- a file of the tracker's, checked before each use ---- */

static int same_file(int fd, dev_t dev, ino_t ino) {
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

int hm_file_adopt(hm_file *f, int fd) {
    struct stat st;
    f->fd = -1;
    f->lost = 0;
    f->bytes = 0;
    if (fd < 0 || fstat(fd, &st) != 0)
        return -1;
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return 0;
}

int hm_file_open(hm_file *f, const char *path, int exclusive) {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY;
    int fd = open(path, flags | O_EXCL, 0666);
    int created = fd >= 0;
    if (fd < 0 && errno == EEXIST && !exclusive)
        fd = open(path, flags | O_TRUNC, 0666);
    if (fd < 0) {
        f->fd = -1;
        return -1;
    }
    /* In a shared table the program may have closed fd and opened its own
     * file under the number already: the file at path must be this one. */
    struct stat at;
    if (hm_file_adopt(f, fd) != 0 || stat(path, &at) != 0 ||
        at.st_dev != f->dev || at.st_ino != f->ino) {
        f->fd = -1;
        errno = EBADF;
        return -1;
    }
    /* A umask that takes the owner's read bit (umask 777) would leave a
     * dump nobody can read: the owner keeps read and write. The umask is
     * not read (umask(2) sets it, process-wide); the file's mode is. */
    struct stat st;
    if (created && fstat(fd, &st) == 0 && (st.st_mode & 0600) != 0600)
        (void)fchmod(fd, (st.st_mode & 07777) | 0600);
    return 0;
}

int hm_file_same(hm_file *f) {
    if (f->fd < 0 || f->lost)
        return 0;
    if (!same_file(f->fd, f->dev, f->ino)) {
        f->lost = 1;
        return 0;
    }
    return 1;
}

long hm_file_write(void *opaque, const void *buf, size_t len) {
    hm_file *f = opaque;
    if (!hm_file_same(f))
        return -EBADF;
    ssize_t n = write(f->fd, buf, len);
    if (n > 0) {
        f->bytes += (uint64_t)n;
        return (long)n;
    }
    return n == 0 ? -EIO : -errno;
}

int hm_file_close(hm_file *f) {
    int rc = 0;
    if (hm_file_same(f)) {
        rc = close(f->fd);
        if (rc != 0 && errno == EINTR)
            rc = 0;
    } else if (f->fd >= 0) {
        errno = EBADF; /* the program closed it: its number is not ours */
        rc = -1;
    }
    f->fd = -1;
    return rc;
}

/* ---- SIGXFSZ: a write past RLIMIT_FSIZE raises it in the writing
 * thread, and its default kills the process ---- */

void hm_xfsz_hold(hm_xfsz *h) {
    sigset_t xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz, &h->mask);
    sigset_t pending;
    sigpending(&pending);
    h->was_pending = sigismember(&pending, SIGXFSZ);
}

void hm_xfsz_release(hm_xfsz *h) {
    sigset_t xfsz, pending;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    sigpending(&pending);
    if (sigismember(&pending, SIGXFSZ) && !h->was_pending) {
        const struct timespec now = {0, 0};
        sigtimedwait(&xfsz, NULL, &now); /* ours: taken, not delivered */
    }
    pthread_sigmask(SIG_SETMASK, &h->mask, NULL);
}

/* ---- standard error, as the program had it at start ---- */

static dev_t err_dev;
static ino_t err_ino;
static int err_known;

void hm_stderr_note(void) {
    struct stat st;
    err_known = fstat(STDERR_FILENO, &st) == 0;
    err_dev = st.st_dev;
    err_ino = st.st_ino;
}

int hm_stderr_write(const void *buf, size_t len) {
    if (!err_known || !same_file(STDERR_FILENO, err_dev, err_ino))
        return -1;
    hm_xfsz h;
    hm_xfsz_hold(&h);
    ssize_t n = write(STDERR_FILENO, buf, len);
    hm_xfsz_release(&h);
    return n == (ssize_t)len ? 0 : -1;
}
