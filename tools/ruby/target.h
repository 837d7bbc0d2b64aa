/* target.h -- heapfmt-ruby: the Ruby process to dump, as /proc and the
 * files it mapped describe it, checked before anything touches it.
 *
 * target_probe reads only: /proc/PID/{stat,status,maps}, the ELF files of
 * its executable, libruby and libc, and a few bytes of its memory (the
 * Ruby version). It finds the addresses of the functions the injection
 * calls. Every refusal (no such process, a zombie, stopped, traced, not
 * ours, 32-bit, not Ruby, another root directory) is one line in err. */
#ifndef RUBY_TARGET_H
#define RUBY_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct target {
    pid_t pid;
    char comm[32];
    uid_t uid;           /* its effective ids: the files it writes are theirs */
    gid_t gid;
    char ruby_version[32];   /* RUBY_VERSION, "3.1.2" */
    int api[3];              /* ruby_api_version: 3, 1, 0 */
    char libruby[256];       /* its libruby's soname ("" when static) */
    /* Addresses in the target. */
    uint64_t register_one;   /* rb_postponed_job_register_one */
    uint64_t eval_string;    /* rb_eval_string */
    uint64_t native_thread_p; /* ruby_native_thread_p */
    uint64_t has_gvl_p;      /* ruby_thread_has_gvl_p, 0 when absent */
    uint64_t argv0;          /* &rb_argv0: set once the VM is up (after
                                ruby_setup: every core class exists) */
    uint64_t mmap, munmap;   /* libc's */
} target;

/* Fills *t for process pid. Returns 0, or an exit code (1) with the reason
 * in err. */
int target_probe(target *t, pid_t pid, char *err, size_t errlen);

#endif /* RUBY_TARGET_H */
