/* cli_target.h -- a live process to attach to, as /proc and the files it
 * mapped describe it, checked before anything touches it (heapfmt-ruby,
 * heapfmt-malloc -p).
 *
 * cli_target_probe reads /proc/PID/{stat,status,maps} and the header of
 * its executable: it refuses, with one line, a process that is missing,
 * a zombie, stopped, traced, not ours to read, 32-bit or not x86-64, or
 * in another root directory. cli_target_find then locates a mapped file
 * (libc, libruby...) and cli_target_symbol the address of one of its
 * symbols in the process. cli_target_safe_thread picks a thread, and
 * cli_target_stop_failure says why one could not be stopped. */
#ifndef CLI_TARGET_H
#define CLI_TARGET_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli_elf.h"

/* --timeout SECS of heapfmt-ruby and heapfmt-malloc -p/--detach (how long
 * to wait for a thread of the process at a safe point): 1 to 86400
 * seconds, stored in milliseconds. Returns 0, or -1 after the usage error
 * of cli_option_u64. */
int cli_option_attach_timeout(const char *arg, unsigned *ms);

typedef struct cli_mapped {
    char path[PATH_MAX];
    uint64_t start, end, inode; /* the mapping of file offset 0 */
} cli_mapped;

typedef struct cli_target {
    pid_t pid;
    char comm[32];
    uid_t uid; /* its file-system ids: the files it writes are theirs */
    gid_t gid;
    char exe[PATH_MAX];
    uint64_t exe_start;
} cli_target;

/* Returns 0, or 1 with the reason in err. */
int cli_target_probe(cli_target *t, pid_t pid, char *err, size_t errlen);

/* The first file mapped at offset 0 whose base name is accepted by match.
 * Returns 0, or -1 (none, or the map cannot be read). */
int cli_target_find(const cli_target *t, int (*match)(const char *base),
                    cli_mapped *out);

/* Opens a mapped file (through /proc/PID/map_files when it was replaced
 * on disk) and computes its load bias. Returns 0, or -1 with err. */
int cli_target_open(const cli_target *t, const cli_mapped *m, cli_elf **e,
                    uint64_t *bias, char *err, size_t errlen);

/* The address in the process of symbol name of an open mapped file;
 * 0 on success, -1 when the file does not define it. */
int cli_target_symbol(const cli_elf *e, uint64_t bias, const char *name,
                      uint64_t *addr, uint64_t *size);

/* Matchers for cli_target_find. */
int cli_target_is_libc(const char *base);

/* Whether the process is still there (not a zombie). */
int cli_target_alive(pid_t pid);

/* err: why thread stopping failed (errno as cli_tracee_stop left it):
 * permission (naming seccomp when this program runs under a filter),
 * the process gone, or why. */
void cli_target_stop_failure(pid_t pid, const char *why, char *err,
                             size_t errlen);

#endif /* CLI_TARGET_H */
