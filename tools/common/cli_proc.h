/* cli_proc.h -- what /proc says about another process, read without
 * touching it (Linux).
 *
 * For the tools that attach to a live process: is it there, is it a
 * zombie, stopped or traced already, which threads does it have and what
 * are they blocked in, what is mapped where, which signals does it catch.
 * Every function returns 0, or -1 with errno set (ENOENT: no such process
 * or thread; EACCES/EPERM: not ours to read). */
#ifndef CLI_PROC_H
#define CLI_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* From /proc/PID/stat: the state letter (R, S, D, Z, T, t, X...) and the
 * command name (at most 15 bytes), of a process or of one of its threads
 * (tid = 0 for the process). */
int cli_proc_state(pid_t pid, pid_t tid, char *state, char *comm,
                   size_t commlen);

/* The value of field key ("Uid", "TracerPid", "SigCgt", "Seccomp"...) of
 * /proc/PID/status, without leading blanks; ENOENT when absent. */
int cli_proc_status(pid_t pid, const char *key, char *out, size_t len);

/* Whether the process catches signal sig (its SigCgt mask): 1, 0, or -1. */
int cli_proc_catches(pid_t pid, int sig);

/* The threads of pid, up to cap of them in tids; *n is how many there are
 * (more than cap when tids was too small). */
int cli_proc_threads(pid_t pid, pid_t *tids, size_t cap, size_t *n);

/* The system call thread tid blocks in, from /proc/PID/task/TID/syscall:
 * its number, or -1 when the thread runs in user space. */
int cli_proc_syscall(pid_t pid, pid_t tid, long *nr);

/* One line of /proc/PID/maps. */
typedef struct cli_map {
    uint64_t start, end, offset, inode;
    char perms[5];
    const char *path; /* "" for anonymous memory; valid during the callback */
} cli_map;

/* Calls fn for each mapping until it returns nonzero (which is returned). */
int cli_proc_maps(pid_t pid, int (*fn)(const cli_map *m, void *arg),
                  void *arg);

/* Reads or writes len bytes at addr of pid's memory (/proc/PID/mem: the
 * caller must be allowed to ptrace pid). 0, or -1 (EIO: not mapped). */
int cli_proc_read(pid_t pid, uint64_t addr, void *buf, size_t len);
int cli_proc_write(pid_t pid, uint64_t addr, const void *buf, size_t len);

/* Whether pid sees the same root directory as this process (not chrooted,
 * not in another mount namespace's root): 1, 0, or -1. */
int cli_proc_same_root(pid_t pid);

#endif /* CLI_PROC_H */
