/* target.h -- heapfmt-ruby: the Ruby process to dump, as /proc and the
 * files it mapped describe it, checked before anything touches it.
 *
 * target_probe reads only: the generic checks of cli_target.h (a live,
 * stoppable 64-bit process of ours in our root), then libruby (or a Ruby
 * linked into the executable) and libc, where it finds the functions the
 * injection calls, and a few bytes of memory (the Ruby version). Every
 * refusal is one line in err. */
#ifndef RUBY_TARGET_H
#define RUBY_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli_target.h"

typedef struct target {
    pid_t pid;
    char comm[32];
    uid_t uid;           /* its file-system ids: the files it writes are theirs */
    gid_t gid;
    char ruby_version[32];   /* RUBY_VERSION, "3.1.2" */
    int api[3];              /* ruby_api_version: 3, 1, 0 */
    char libruby[256];       /* its libruby's soname ("" when static) */
    /* Addresses in the target. */
    uint64_t register_one;   /* rb_postponed_job_register_one */
    uint64_t eval_string;    /* rb_eval_string */
    uint64_t native_thread_p; /* ruby_native_thread_p */
    uint64_t argv0;          /* &rb_argv0: set once the VM is up (after
                                ruby_setup: every core class exists) */
    uint64_t mmap, munmap;   /* libc's */
} target;

/* Fills *t for process pid. Returns 0, or an exit code (1) with the reason
 * in err. */
int target_probe(target *t, pid_t pid, char *err, size_t errlen);

#endif /* RUBY_TARGET_H */
