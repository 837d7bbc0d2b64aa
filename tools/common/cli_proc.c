/* cli_proc.c -- reading /proc/PID of another process. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_proc.h"

/* Reads the whole of a small /proc file into buf (NUL-terminated).
 * Returns the length, or -1 with errno. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

static void task_path(char *out, size_t len, pid_t pid, pid_t tid,
                      const char *file)
{
    if (tid > 0)
        snprintf(out, len, "/proc/%ld/task/%ld/%s", (long)pid, (long)tid, file);
    else
        snprintf(out, len, "/proc/%ld/%s", (long)pid, file);
}

int cli_proc_state(pid_t pid, pid_t tid, char *state, char *comm,
                   size_t commlen)
{
    char path[64], buf[1024];
    task_path(path, sizeof path, pid, tid, "stat");
    if (slurp(path, buf, sizeof buf) < 0)
        return -1;
    /* "PID (COMM) S ...": the name may hold ')' and spaces; the state
     * follows the last ')'. */
    char *open_paren = strchr(buf, '(');
    char *close_paren = strrchr(buf, ')');
    if (open_paren == NULL || close_paren == NULL || close_paren < open_paren ||
        close_paren[1] != ' ' || close_paren[2] == '\0') {
        errno = EINVAL;
        return -1;
    }
    *state = close_paren[2];
    if (comm != NULL && commlen > 0) {
        size_t n = (size_t)(close_paren - open_paren - 1);
        if (n >= commlen)
            n = commlen - 1;
        memcpy(comm, open_paren + 1, n);
        comm[n] = '\0';
    }
    return 0;
}

int cli_proc_status(pid_t pid, const char *key, char *out, size_t len)
{
    char path[64], buf[8192];
    task_path(path, sizeof path, pid, 0, "status");
    if (slurp(path, buf, sizeof buf) < 0)
        return -1;
    size_t klen = strlen(key);
    for (char *line = buf; line != NULL && *line;) {
        char *next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            const char *v = line + klen + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            snprintf(out, len, "%s", v);
            return 0;
        }
        line = next;
    }
    errno = ENOENT;
    return -1;
}

int cli_proc_catches(pid_t pid, int sig)
{
    char v[64];
    if (sig < 1 || sig > 64 || cli_proc_status(pid, "SigCgt", v, sizeof v) != 0)
        return -1;
    char *end;
    errno = 0;
    unsigned long long mask = strtoull(v, &end, 16);
    if (errno != 0 || end == v)
        return -1;
    return (int)((mask >> (sig - 1)) & 1);
}

int cli_proc_threads(pid_t pid, pid_t *tids, size_t cap, size_t *n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    *n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char *end;
        long t = strtol(de->d_name, &end, 10);
        if (end == de->d_name || *end != '\0' || t <= 0)
            continue;
        if (*n < cap)
            tids[*n] = (pid_t)t;
        (*n)++;
    }
    closedir(d);
    return 0;
}

int cli_proc_syscall(pid_t pid, pid_t tid, long *nr)
{
    char path[64], buf[256];
    task_path(path, sizeof path, pid, tid, "syscall");
    if (slurp(path, buf, sizeof buf) < 0)
        return -1;
    if (strncmp(buf, "running", 7) == 0) {
        *nr = -1;
        return 0;
    }
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf) {
        errno = EINVAL;
        return -1;
    }
    *nr = v; /* -1 also when blocked outside a system call (a fault) */
    return 0;
}

int cli_proc_maps(pid_t pid, int (*fn)(const cli_map *m, void *arg),
                  void *arg)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    char line[PATH_MAX + 256];
    int r = 0;
    /* A maps line longer than the buffer (a path near PATH_MAX) is read
     * in pieces; only the first piece holds the fields. */
    int at_start = 1;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t len = strlen(line);
        int whole = len > 0 && line[len - 1] == '\n';
        if (whole)
            line[--len] = '\0';
        int first = at_start;
        at_start = whole;
        if (!first)
            continue;
        cli_map m;
        unsigned dev_major, dev_minor;
        int pos = 0;
        uint64_t inode;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 "%n",
                   &m.start, &m.end, m.perms, &m.offset, &dev_major,
                   &dev_minor, &inode, &pos) < 7)
            continue;
        m.inode = inode;
        const char *p = line + pos;
        while (*p == ' ')
            p++;
        m.path = p;
        if ((r = fn(&m, arg)) != 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad && r == 0) {
        errno = EIO;
        return -1;
    }
    return r;
}

static int mem_io(pid_t pid, uint64_t addr, void *buf, size_t len, int write)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/mem", (long)pid);
    int fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write ? pwrite(fd, (char *)buf + done, len - done,
                                   (off_t)(addr + done))
                          : pread(fd, (char *)buf + done, len - done,
                                  (off_t)(addr + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : EIO;
            close(fd);
            errno = saved;
            return -1;
        }
        done += (size_t)n;
    }
    close(fd);
    return 0;
}

int cli_proc_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    if (addr > (uint64_t)INT64_MAX) { /* beyond what an off_t can say */
        errno = EIO;
        return -1;
    }
    return mem_io(pid, addr, buf, len, 0);
}

int cli_proc_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
    if (addr > (uint64_t)INT64_MAX) {
        errno = EIO;
        return -1;
    }
    return mem_io(pid, addr, (void *)buf, len, 1);
}

int cli_proc_same_root(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/root/", (long)pid);
    struct stat theirs, ours;
    if (stat(path, &theirs) != 0 || stat("/", &ours) != 0)
        return -1;
    return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}
