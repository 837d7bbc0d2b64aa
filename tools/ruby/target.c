/* target.c -- heapfmt-ruby: is PID a Ruby we can dump, and where are the
 * functions the injection calls. Reads only. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_elf.h"
#include "cli_proc.h"
#include "target.h"

static int is_libruby(const char *base)
{
    return strncmp(base, "libruby", 7) == 0;
}

/* Opens the VM: libruby's file, or the executable of a static Ruby.
 * Returns 0, or 1 with err. */
static int open_vm(const cli_target *c, target *t, cli_elf **ruby,
                   uint64_t *bias, char *err, size_t errlen)
{
    cli_mapped m;
    if (cli_target_find(c, is_libruby, &m) == 0) {
        if (cli_target_open(c, &m, ruby, bias, err, errlen) != 0)
            return 1;
        const char *so = cli_elf_soname(*ruby);
        const char *slash = strrchr(m.path, '/');
        snprintf(t->libruby, sizeof t->libruby, "%.255s",
                 so != NULL ? so : slash ? slash + 1 : m.path);
        return 0;
    }
    char why[128];
    uint64_t v;
    if (c->exe_start != 0 && cli_elf_open(ruby, c->exe, why, sizeof why) == 0 &&
        cli_elf_symbol(*ruby, "rb_postponed_job_register_one", &v, NULL) == 0 &&
        cli_elf_bias(*ruby, c->exe_start, bias) == 0)
        return 0;
    int starting = 0; /* just executed: the loader has not mapped it */
    for (size_t i = 0; *ruby != NULL && cli_elf_needed(*ruby, i); i++)
        starting |= is_libruby(cli_elf_needed(*ruby, i));
    cli_elf_close(*ruby);
    *ruby = NULL;
    if (starting)
        snprintf(err, errlen, "%s is starting (its libruby is not loaded "
                              "yet): try again",
                 t->comm);
    else
        snprintf(err, errlen, "%s is not a Ruby process (no libruby in its "
                              "memory, no Ruby VM in %.3000s)",
                 t->comm, c->exe);
    return 1;
}

int target_probe(target *t, pid_t pid, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    cli_target c;
    if (cli_target_probe(&c, pid, err, errlen) != 0)
        return 1;
    t->pid = pid;
    snprintf(t->comm, sizeof t->comm, "%s", c.comm);
    t->uid = c.uid;
    t->gid = c.gid;

    cli_elf *ruby = NULL;
    uint64_t bias = 0;
    if (open_vm(&c, t, &ruby, &bias, err, errlen) != 0)
        return 1;
    uint64_t api_addr, api_size, ver_addr, ver_size;
    int missing =
        cli_target_symbol(ruby, bias, "ruby_api_version", &api_addr, &api_size) ||
        cli_target_symbol(ruby, bias, "ruby_version", &ver_addr, &ver_size) ||
        cli_target_symbol(ruby, bias, "rb_postponed_job_register_one",
                          &t->register_one, NULL) ||
        cli_target_symbol(ruby, bias, "rb_eval_string", &t->eval_string, NULL) ||
        cli_target_symbol(ruby, bias, "ruby_native_thread_p",
                          &t->native_thread_p, NULL) ||
        cli_target_symbol(ruby, bias, "rb_argv0", &t->argv0, NULL);
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

    cli_mapped libc;
    cli_elf *e = NULL;
    uint64_t lbias;
    if (cli_target_find(&c, cli_target_is_libc, &libc) != 0 ||
        cli_target_open(&c, &libc, &e, &lbias, err, errlen) != 0) {
        snprintf(err, errlen, "%s has no GNU C library mapped", t->comm);
        return 1;
    }
    missing = cli_target_symbol(e, lbias, "mmap", &t->mmap, NULL) ||
              cli_target_symbol(e, lbias, "munmap", &t->munmap, NULL);
    cli_elf_close(e);
    if (missing) {
        snprintf(err, errlen, "%s: no mmap in %.3000s", t->comm, libc.path);
        return 1;
    }
    return 0;
}
