/* cli_target.c -- the checks every attach makes before touching a process. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_msg.h"
#include "cli_num.h"
#include "cli_proc.h"
#include "cli_target.h"

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int cli_target_is_libc(const char *name)
{
    size_t n = strlen(name);
    return strncmp(name, "libc.so", 7) == 0 ||
           (strncmp(name, "libc-", 5) == 0 && n > 8 &&
            strcmp(name + n - 3, ".so") == 0);
}

/* The ELF class of pid's executable: 1 (32-bit), 2 (64-bit), with its
 * machine; -1 when it cannot be read. */
static int exe_class(pid_t pid, unsigned *machine)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char h[20];
    ssize_t n = read(fd, h, sizeof h);
    int saved = errno;
    close(fd);
    errno = saved;
    if (n < (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0) {
        errno = EINVAL;
        return -1;
    }
    *machine = (unsigned)h[18] | (unsigned)h[19] << 8; /* little-endian */
    return h[EI_CLASS];
}

/* The file-system id (the 4th) of a Uid or Gid line. */
static int fs_id(pid_t pid, const char *key, unsigned long *out)
{
    char v[128];
    unsigned long r, e, s;
    if (cli_proc_status(pid, key, v, sizeof v) != 0 ||
        sscanf(v, "%lu %lu %lu %lu", &r, &e, &s, out) != 4)
        return -1;
    return 0;
}

static int exe_map(const cli_map *m, void *arg)
{
    cli_target *t = arg;
    if (m->offset == 0 && t->exe_start == 0 && strcmp(m->path, t->exe) == 0)
        t->exe_start = m->start;
    return 0;
}

int cli_target_probe(cli_target *t, pid_t pid, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->pid = pid;
    char state;
    if (cli_proc_state(pid, 0, &state, t->comm, sizeof t->comm) != 0) {
        snprintf(err, errlen, "no such process");
        return 1;
    }
    switch (state) {
    case 'Z':
        snprintf(err, errlen, "%s is a zombie: it has exited and waits for "
                              "its parent to collect its status",
                 t->comm);
        return 1;
    case 'X':
    case 'x':
        snprintf(err, errlen, "%s has exited", t->comm);
        return 1;
    case 'T':
        snprintf(err, errlen, "%s is stopped (SIGSTOP or job control): "
                              "resume it first (kill -CONT)",
                 t->comm);
        return 1;
    case 't':
        snprintf(err, errlen, "%s is stopped by a debugger", t->comm);
        return 1;
    default:
        break;
    }
    char tracer[32];
    if (cli_proc_status(pid, "TracerPid", tracer, sizeof tracer) == 0 &&
        strcmp(tracer, "0") != 0) {
        snprintf(err, errlen, "%s is traced by process %s (a debugger): "
                              "detach it first",
                 t->comm, tracer);
        return 1;
    }
    unsigned long uid = 0, gid = 0;
    if (fs_id(pid, "Uid", &uid) != 0 || fs_id(pid, "Gid", &gid) != 0) {
        snprintf(err, errlen, "cannot read its status");
        return 1;
    }
    t->uid = (uid_t)uid;
    t->gid = (gid_t)gid;
    char link[64];
    snprintf(link, sizeof link, "/proc/%ld/exe", (long)pid);
    ssize_t n = readlink(link, t->exe, sizeof t->exe - 1);
    if (n >= 0)
        t->exe[n] = '\0';
    if (n < 0 || cli_proc_maps(pid, exe_map, t) != 0) {
        if (errno == EACCES || errno == EPERM)
            snprintf(err, errlen,
                     "permission denied: %s runs as uid %lu; run %s as that "
                     "user or as root",
                     t->comm, uid, cli_progname());
        else if (errno == ENOENT || errno == ESRCH)
            snprintf(err, errlen, "%s has exited", t->comm);
        else
            snprintf(err, errlen, "cannot read its memory map: %s",
                     strerror(errno));
        return 1;
    }
    unsigned machine = 0;
    int cls = exe_class(pid, &machine);
    if (cls == ELFCLASS32) {
        snprintf(err, errlen, "%s is a 32-bit process: %s attaches to 64-bit "
                              "x86-64 processes",
                 t->comm, cli_progname());
        return 1;
    }
    if (cls == ELFCLASS64 && machine != EM_X86_64) {
        snprintf(err, errlen, "%s is not an x86-64 process (ELF machine %u)",
                 t->comm, machine);
        return 1;
    }
    if (cls < 0) {
        snprintf(err, errlen, "cannot read its executable: %s",
                 strerror(errno));
        return 1;
    }
    if (cli_proc_same_root(pid) == 0) {
        snprintf(err, errlen, "%s has another root directory (a container "
                              "or a chroot): run %s inside it",
                 t->comm, cli_progname());
        return 1;
    }
    return 0;
}

typedef struct find_ctx {
    int (*match)(const char *base);
    cli_mapped *out;
    int found;
} find_ctx;

static int find_map(const cli_map *m, void *arg)
{
    find_ctx *f = arg;
    if (m->offset != 0 || m->path[0] != '/' || !f->match(base_name(m->path)))
        return 0;
    snprintf(f->out->path, sizeof f->out->path, "%s", m->path);
    f->out->start = m->start;
    f->out->end = m->end;
    f->out->inode = m->inode;
    f->found = 1;
    return 1;
}

int cli_target_find(const cli_target *t, int (*match)(const char *base),
                    cli_mapped *out)
{
    find_ctx f = {match, out, 0};
    memset(out, 0, sizeof *out);
    int rc = cli_proc_maps(t->pid, find_map, &f);
    return rc < 0 || !f.found ? -1 : 0;
}

int cli_target_open(const cli_target *t, const cli_mapped *m, cli_elf **e,
                    uint64_t *bias, char *err, size_t errlen)
{
    struct stat st;
    char why[128];
    *e = NULL;
    if (!(stat(m->path, &st) == 0 && (uint64_t)st.st_ino == m->inode &&
          cli_elf_open(e, m->path, why, sizeof why) == 0)) {
        char alt[96];
        snprintf(alt, sizeof alt, "/proc/%ld/map_files/%llx-%llx",
                 (long)t->pid, (unsigned long long)m->start,
                 (unsigned long long)m->end);
        if (cli_elf_open(e, alt, why, sizeof why) != 0) {
            snprintf(err, errlen, "cannot read %.3000s: %s", m->path, why);
            return -1;
        }
    }
    if (cli_elf_bias(*e, m->start, bias) != 0) {
        cli_elf_close(*e);
        *e = NULL;
        snprintf(err, errlen, "%.3000s: no segment at offset 0", m->path);
        return -1;
    }
    return 0;
}

int cli_target_symbol(const cli_elf *e, uint64_t bias, const char *name,
                      uint64_t *addr, uint64_t *size)
{
    uint64_t v;
    if (cli_elf_symbol(e, name, &v, size) != 0)
        return -1;
    *addr = v + bias;
    return 0;
}

int cli_target_alive(pid_t pid)
{
    char state;
    return cli_proc_state(pid, 0, &state, NULL, 0) == 0 && state != 'Z' &&
           state != 'X';
}

void cli_target_stop_failure(pid_t pid, const char *why, char *err,
                             size_t errlen)
{
    int e = errno;
    if (e == EPERM || e == EACCES) {
        char sec[16] = "0";
        cli_proc_status(getpid(), "Seccomp", sec, sizeof sec);
        snprintf(err, errlen, "cannot attach (%s): %s", why,
                 strcmp(sec, "0") != 0
                     ? "this program runs under a seccomp filter that "
                       "forbids ptrace"
                     : "ptrace is not allowed (another user's process, "
                       "kernel.yama.ptrace_scope, or no CAP_SYS_PTRACE)");
    } else if (!cli_target_alive(pid)) {
        snprintf(err, errlen, "the process exited during the attach");
    } else {
        snprintf(err, errlen, "cannot attach: %s", why);
    }
}

int cli_option_attach_timeout(const char *arg, unsigned *ms)
{
    uint64_t v;
    if (cli_option_u64("--timeout", arg, 1, 86400, &v) != 0)
        return -1;
    *ms = (unsigned)v * 1000;
    return 0;
}
