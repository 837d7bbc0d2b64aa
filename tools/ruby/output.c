/* output.c -- heapfmt-ruby: the temporary files and the dump's name. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_file.h"
#include "cli_msg.h"
#include "output.h"

static int make(char *path, uid_t uid, gid_t gid, int *chowned)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        cli_error(path, "%s", strerror(errno));
        return -1;
    }
    if (uid != geteuid() || gid != getegid()) {
        if (fchown(fd, uid, gid) != 0) {
            int e = errno;
            close(fd);
            unlink(path);
            cli_error(path, "cannot give it to the process's user (uid %lu): %s",
                      (unsigned long)uid, strerror(e));
            return -1;
        }
        *chowned = 1;
    }
    close(fd);
    return 0;
}

int output_prepare(output *o, const char *path, uid_t uid, gid_t gid)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    char dir[PATH_MAX], base[PATH_MAX];
    if (strcmp(path, "-") == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s", t && t[0] ? t : "/tmp");
        snprintf(base, sizeof base, "stdout");
    } else {
        char a[PATH_MAX], b[PATH_MAX];
        if (strlen(path) >= sizeof a) {
            cli_error(path, "name too long");
            return 1;
        }
        strcpy(a, path);
        strcpy(b, path);
        if (realpath(dirname(a), dir) == NULL) {
            cli_error(path, "%s", strerror(errno));
            return 1;
        }
        snprintf(base, sizeof base, "%s", basename(b));
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            cli_error(path, "is a directory");
            return 1;
        }
        if (snprintf(o->final, sizeof o->final, "%s/%s", dir, base) >=
            (int)sizeof o->final) {
            cli_error(path, "name too long");
            return 1;
        }
    }
    long me = (long)getpid();
    if (snprintf(o->tmp, sizeof o->tmp, "%s/.%.64s.heapfmt-ruby-%ld.tmp", dir,
                 base, me) >= (int)sizeof o->tmp ||
        snprintf(o->status, sizeof o->status, "%s/.%.64s.heapfmt-ruby-%ld.status",
                 dir, base, me) >= (int)sizeof o->status) {
        cli_error(path, "name too long");
        return 1;
    }
    if (make(o->tmp, uid, gid, &o->chowned) != 0)
        return 1;
    o->made_tmp = 1;
    if (make(o->status, uid, gid, &o->chowned) != 0) {
        output_discard(o);
        return 1;
    }
    o->made_status = 1;
    return 0;
}

static int copy_out(const char *from)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        cli_error(from, "%s", strerror(errno));
        return 1;
    }
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_error(from, "%s", strerror(errno));
            close(in);
            return 1;
        }
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(STDOUT_FILENO, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                cli_error(cli_output_name("-"), "%s", strerror(errno));
                close(in);
                return 1;
            }
            off += w;
        }
    }
    close(in);
    return 0;
}

int output_publish(output *o)
{
    if (o->chowned && chown(o->tmp, geteuid(), getegid()) != 0) {
        cli_error(o->tmp, "%s", strerror(errno));
        return 1;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(o->tmp, 0666 & ~mask) != 0) {
        cli_error(o->tmp, "%s", strerror(errno));
        return 1;
    }
    if (o->final[0] == '\0') {
        if (copy_out(o->tmp) != 0)
            return 1;
    } else if (rename(o->tmp, o->final) != 0) {
        cli_error(o->path, "%s", strerror(errno));
        return 1;
    } else {
        o->made_tmp = 0;
    }
    output_discard(o);
    return 0;
}

void output_discard(output *o)
{
    if (o->made_tmp)
        unlink(o->tmp);
    if (o->made_status)
        unlink(o->status);
    o->made_tmp = o->made_status = 0;
}
