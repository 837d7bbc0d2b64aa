/* target.c -- heapfmt-ruby: is PID a Ruby we can dump, and where are the
 * functions the injection calls. Reads only. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_elf.h"
#include "cli_proc.h"
#include "target.h"

/* The mappings that matter, by file: offset 0 of each. */
typedef struct found {
    char exe[PATH_MAX];
    uint64_t exe_start;
    char ruby[PATH_MAX];
    uint64_t ruby_start, ruby_end, ruby_inode;
    char libc[PATH_MAX];
    uint64_t libc_start, libc_end, libc_inode;
} found;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int is_libc(const char *name)
{
    size_t n = strlen(name);
    return strncmp(name, "libc.so", 7) == 0 ||
           (strncmp(name, "libc-", 5) == 0 && n > 8 &&
            strcmp(name + n - 3, ".so") == 0);
}

static int map_i(const cli_map *m, void *arg)
{
    found *f = arg;
    if (m->offset != 0 || m->path[0] != '/')
        return 0;
    const char *name = base_name(m->path);
    if (strcmp(m->path, f->exe) == 0 && f->exe_start == 0) {
        f->exe_start = m->start;
    } else if (strncmp(name, "libruby", 7) == 0 && f->ruby[0] == '\0') {
        snprintf(f->ruby, sizeof f->ruby, "%s", m->path);
        f->ruby_start = m->start;
        f->ruby_end = m->end;
        f->ruby_inode = m->inode;
    } else if (is_libc(name) && f->libc[0] == '\0') {
        snprintf(f->libc, sizeof f->libc, "%s", m->path);
        f->libc_start = m->start;
        f->libc_end = m->end;
        f->libc_inode = m->inode;
    }
    return 0;
}

/* Opens the file a mapping came from: by its path when that still names
 * the same file, else through /proc/PID/map_files (a file replaced on
 * disk since it was mapped: a package upgrade). */
static int open_mapped(cli_elf **e, pid_t pid, const char *path,
                       uint64_t start, uint64_t end, uint64_t inode,
                       char *err, size_t errlen)
{
    struct stat st;
    char why[128];
    if (stat(path, &st) == 0 && (uint64_t)st.st_ino == inode &&
        cli_elf_open(e, path, why, sizeof why) == 0)
        return 0;
    char alt[96];
    snprintf(alt, sizeof alt, "/proc/%ld/map_files/%llx-%llx", (long)pid,
             (unsigned long long)start, (unsigned long long)end);
    if (cli_elf_open(e, alt, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "cannot read %s: %s", path, why);
    return -1;
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

static int ids(pid_t pid, const char *key, unsigned long *out)
{
    char v[128];
    if (cli_proc_status(pid, key, v, sizeof v) != 0)
        return -1;
    /* real, effective, saved, file system: the last decides file access */
    unsigned long r, e, s, fs;
    if (sscanf(v, "%lu %lu %lu %lu", &r, &e, &s, &fs) != 4)
        return -1;
    *out = fs;
    return 0;
}

static int lookup(const cli_elf *e, uint64_t bias, const char *name,
                  uint64_t *addr, uint64_t *size)
{
    uint64_t v;
    if (cli_elf_symbol(e, name, &v, size) != 0)
        return -1;
    *addr = v + bias;
    return 0;
}

int target_probe(target *t, pid_t pid, char *err, size_t errlen)
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
    if (ids(pid, "Uid", &uid) != 0 || ids(pid, "Gid", &gid) != 0) {
        snprintf(err, errlen, "cannot read its status");
        return 1;
    }
    t->uid = (uid_t)uid;
    t->gid = (gid_t)gid;

    found f;
    memset(&f, 0, sizeof f);
    char link[64];
    snprintf(link, sizeof link, "/proc/%ld/exe", (long)pid);
    ssize_t n = readlink(link, f.exe, sizeof f.exe - 1);
    if (n < 0 || cli_proc_maps(pid, map_i, &f) != 0) {
        if (errno == EACCES || errno == EPERM)
            snprintf(err, errlen,
                     "permission denied: %s runs as uid %lu; run "
                     "heapfmt-ruby as that user or as root",
                     t->comm, uid);
        else if (errno == ENOENT || errno == ESRCH)
            snprintf(err, errlen, "%s has exited", t->comm);
        else
            snprintf(err, errlen, "cannot read its memory map: %s",
                     strerror(errno));
        return 1;
    }
    f.exe[n] = '\0';

    unsigned machine = 0;
    int cls = exe_class(pid, &machine);
    if (cls == ELFCLASS32) {
        snprintf(err, errlen, "%s is a 32-bit process: heapfmt-ruby attaches "
                              "to 64-bit x86-64 processes",
                 t->comm);
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
    int same = cli_proc_same_root(pid);
    if (same == 0) {
        snprintf(err, errlen, "%s has another root directory (a container "
                              "or a chroot): run heapfmt-ruby inside it",
                 t->comm);
        return 1;
    }

    /* The VM: libruby's file, else the executable (a static Ruby). */
    cli_elf *ruby = NULL;
    uint64_t bias = 0;
    if (f.ruby[0]) {
        if (open_mapped(&ruby, pid, f.ruby, f.ruby_start, f.ruby_end,
                        f.ruby_inode, err, errlen) != 0)
            return 1;
        const char *so = cli_elf_soname(ruby);
        snprintf(t->libruby, sizeof t->libruby, "%.255s",
                 so != NULL ? so : base_name(f.ruby));
        if (cli_elf_bias(ruby, f.ruby_start, &bias) != 0) {
            cli_elf_close(ruby);
            snprintf(err, errlen, "%s: no segment at offset 0", f.ruby);
            return 1;
        }
    } else {
        char why[128];
        uint64_t v;
        if (f.exe_start == 0 || cli_elf_open(&ruby, link, why, sizeof why) != 0 ||
            cli_elf_symbol(ruby, "rb_postponed_job_register_one", &v, NULL) != 0 ||
            cli_elf_bias(ruby, f.exe_start, &bias) != 0) {
            int starting = 0; /* just executed: the loader has not mapped it */
            for (size_t i = 0; ruby != NULL && cli_elf_needed(ruby, i); i++)
                starting |= strncmp(cli_elf_needed(ruby, i), "libruby", 7) == 0;
            cli_elf_close(ruby);
            if (starting)
                snprintf(err, errlen, "%s is starting (its libruby is not "
                                      "loaded yet): try again",
                         t->comm);
            else
                snprintf(err, errlen, "%s is not a Ruby process (no libruby "
                                      "in its memory, no Ruby VM in %s)",
                         t->comm, f.exe);
            return 1;
        }
    }
    uint64_t api_addr, api_size, ver_addr, ver_size;
    int missing =
        lookup(ruby, bias, "ruby_api_version", &api_addr, &api_size) ||
        lookup(ruby, bias, "ruby_version", &ver_addr, &ver_size) ||
        lookup(ruby, bias, "rb_postponed_job_register_one", &t->register_one, NULL) ||
        lookup(ruby, bias, "rb_eval_string", &t->eval_string, NULL) ||
        lookup(ruby, bias, "ruby_native_thread_p", &t->native_thread_p, NULL) ||
        lookup(ruby, bias, "rb_argv0", &t->argv0, NULL);
    if (lookup(ruby, bias, "ruby_thread_has_gvl_p", &t->has_gvl_p, NULL) != 0)
        t->has_gvl_p = 0;
    cli_elf_close(ruby);
    if (missing) {
        snprintf(err, errlen, "%s: this Ruby lacks the functions heapfmt-ruby "
                              "calls (an unsupported version)",
                 t->comm);
        return 1;
    }
    if (cli_proc_read(pid, api_addr, t->api, sizeof t->api) != 0) {
        snprintf(err, errlen, errno == EACCES || errno == EPERM
                                  ? "permission denied reading its memory "
                                    "(ptrace is not allowed)"
                                  : "cannot read its memory: %s",
                 strerror(errno));
        return 1;
    }
    size_t vlen = ver_size > 0 && ver_size < sizeof t->ruby_version
                      ? (size_t)ver_size
                      : sizeof t->ruby_version - 1;
    if (cli_proc_read(pid, ver_addr, t->ruby_version, vlen) != 0)
        snprintf(t->ruby_version, sizeof t->ruby_version, "%d.%d.%d",
                 t->api[0], t->api[1], t->api[2]);
    t->ruby_version[sizeof t->ruby_version - 1] = '\0';
    for (char *p = t->ruby_version; *p; p++)
        if (*p < ' ' || *p > '~')
            *p = '?';

    cli_elf *libc = NULL;
    if (f.libc[0] == '\0' ||
        open_mapped(&libc, pid, f.libc, f.libc_start, f.libc_end,
                    f.libc_inode, err, errlen) != 0) {
        snprintf(err, errlen, "%s has no GNU C library mapped", t->comm);
        return 1;
    }
    uint64_t lbias;
    missing = cli_elf_bias(libc, f.libc_start, &lbias) ||
              lookup(libc, lbias, "mmap", &t->mmap, NULL) ||
              lookup(libc, lbias, "munmap", &t->munmap, NULL);
    cli_elf_close(libc);
    if (missing) {
        snprintf(err, errlen, "%s: no mmap in %s", t->comm, f.libc);
        return 1;
    }
    return 0;
}
