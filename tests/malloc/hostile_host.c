/* hostile_host.c -- programs that do to the malloc tracker what
 * production programs do to their own process: a daemon closing every
 * descriptor and reusing the numbers, dup2 over them, tiny rlimits, a
 * umask of 777, every signal blocked, a thousand forks, exec in the middle
 * of a dump, standard error closed and reopened, chdir, running out of
 * memory. Each checks what it can see itself (its data, its descriptor
 * numbers, its signal dispositions) and exits 0 only when all is as it
 * would be without the tracker; tests/cli/malloc_host.sh runs each with
 * and without the tracker and checks the dumps. Built without sanitizers:
 * the tracker is its malloc. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "heapfmt_malloc.h"

#pragma weak heapfmt_malloc_dump
#pragma weak heapfmt_malloc_tracking

static void *volatile *keep;
static char start_dir[4096];

static int under_tracker(void) {
    return heapfmt_malloc_tracking && heapfmt_malloc_tracking();
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A function without unwind information (no CFI) that calls malloc: a
 * stack through it makes libunwind guess the frame from the frame pointer
 * and check the memory it reads, which it does with a pipe of its own. */
#if defined(__x86_64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl nocfi_malloc\n"
        ".type nocfi_malloc, @function\n"
        "nocfi_malloc:\n"
        "\tpushq %rbp\n"
        "\tmovq %rsp, %rbp\n"
        "\tcall malloc@PLT\n"
        "\tpopq %rbp\n"
        "\tret\n"
        ".size nocfi_malloc, .-nocfi_malloc\n");
void *nocfi_malloc(size_t n);
#else
static void *nocfi_malloc(size_t n) { return malloc(n); }
#endif

/* Allocates through the CFI-less frame at depth levels of 4 KiB each, so
 * that the addresses libunwind checks fall on new pages (it remembers the
 * last four it checked). */
__attribute__((noinline)) static void *deep_alloc(int depth, size_t n) {
    volatile char pad[4096];
    pad[0] = (char)depth;
    void *p = depth <= 0 ? nocfi_malloc(n) : deep_alloc(depth - 1, n);
    return pad[0] == (char)depth ? p : NULL;
}

static void churn(int rounds) {
    for (int i = 0; i < rounds; i++)
        free(deep_alloc(i % 24, 64 + (size_t)i));
}

/* The dump N of this process: in HEAPFMT_MALLOC_DIR, or in the directory
 * it started in. */
static void dump_path(char *buf, size_t len, long pid, unsigned n) {
    const char *dir = getenv("HEAPFMT_MALLOC_DIR");
    snprintf(buf, len, "%s/heapfmt-malloc-%ld-%u.hfd",
             dir && dir[0] == '/' ? dir : start_dir, pid, n);
}

/* Waits up to secs for dump n of this process to exist, then for it to
 * be whole: an API dump waits for the one in progress (dumps are one at a
 * time). 0 when it appeared. */
static int wait_dump(unsigned n, double secs) {
    char path[4200];
    dump_path(path, sizeof path, (long)getpid(), n);
    double end = now_s() + secs;
    struct stat st;
    while (stat(path, &st) != 0) {
        if (now_s() > end)
            return -1;
        sleep_ms(10);
    }
    if (heapfmt_malloc_dump) {
        char sync[4300];
        snprintf(sync, sizeof sync, "%s/sync-%ld.hfd", start_dir, (long)getpid());
        heapfmt_malloc_dump(sync, NULL, 0);
        unlink(sync);
    }
    return 0;
}

static void keep_blocks(long n, size_t size) {
    keep = calloc((size_t)n, sizeof *keep);
    for (long i = 0; i < n && keep; i++)
        keep[i] = malloc(size);
}

/* ---- descriptors ---- */

/* The host's pipes: a message in each, read back after the tracker had
 * every chance to touch them. */
#define NPIPES 12
static int check_pipes(int rounds, int dump_signal) {
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        int p[NPIPES][2];
        char msg[NPIPES][32];
        for (int i = 0; i < NPIPES; i++) {
            if (pipe(p[i]) != 0)
                return 100;
            snprintf(msg[i], sizeof msg[i], "r%04d-p%02d-data", r % 10000, i);
            if (write(p[i][1], msg[i], 15) != 15)
                bad++;
        }
        churn(48);
        if (dump_signal && r % 4 == 0)
            kill(getpid(), dump_signal);
        sleep_ms(5);
        for (int i = 0; i < NPIPES; i++) {
            char in[32] = {0};
            int fl = fcntl(p[i][0], F_GETFL);
            fcntl(p[i][0], F_SETFL, fl | O_NONBLOCK);
            ssize_t n = read(p[i][0], in, sizeof in);
            if (n != 15 || memcmp(in, msg[i], 15) != 0) {
                for (ssize_t k = 0; k < n; k++)
                    if (in[k] < ' ' || in[k] > '~')
                        in[k] = '.';
                if (bad < 5)
                    fprintf(stderr, "pipe %d (fds %d,%d): wrote '%s', read %zd bytes '%.*s'\n",
                            i, p[i][0], p[i][1], msg[i], n, n > 0 ? (int)n : 0, in);
                bad++;
            }
            close(p[i][0]);
            close(p[i][1]);
        }
    }
    return bad;
}

/* daemon ROUNDS SIG: closes 3..1023 as daemons do, then opens pipes that
 * get those numbers, allocating (through CFI-less frames) and, if SIG,
 * asking for dumps meanwhile; stays idle a second; every byte must come
 * back. */
static int cmd_daemon(int argc, char **argv) {
    int rounds = argc > 0 ? atoi(argv[0]) : 20;
    int sig = argc > 1 ? atoi(argv[1]) : 0;
    keep_blocks(1000, 32);
    churn(200);
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    /* The numbers a daemon gets back are the lowest ones. */
    int probe = open("/dev/null", O_RDONLY);
    if (probe != 3) {
        printf("daemon: open gave %d after closing all, not 3\n", probe);
        return 1;
    }
    close(probe);
    int bad = check_pipes(rounds, sig);
    sleep_ms(1000); /* idle: no dump may be written now */
    bad += check_pipes(2, 0);
    printf("daemon: %d rounds, %d bad\n", rounds, bad);
    return bad ? 1 : 0;
}

/* dup2 ROUNDS SIG: puts the host's own pipe over every number 3..63 (the
 * tracker's, if it had any), then as daemon. */
static int cmd_dup2(int argc, char **argv) {
    int rounds = argc > 0 ? atoi(argv[0]) : 10;
    int sig = argc > 1 ? atoi(argv[1]) : 0;
    keep_blocks(1000, 32);
    churn(200);
    int p[2];
    if (pipe(p) != 0)
        return 100;
    int rd = dup(p[0]), wr = dup(p[1]); /* kept, above the range */
    for (int fd = 3; fd < 64; fd++)
        if (fd != rd && fd != wr)
            dup2(fd % 2 ? rd : wr, fd);
    for (int fd = 3; fd < 64; fd++)
        if (fd != rd && fd != wr)
            close(fd);
    if (dup2(rd, 200) != 200 || dup2(wr, 201) != 201)
        return 100;
    close(rd);
    close(wr);
    int bad = check_pipes(rounds, sig);
    printf("dup2: %d rounds, %d bad\n", rounds, bad);
    return bad ? 1 : 0;
}

/* fdcheck: exits 1 if any descriptor but 0, 1 and 2 is open (what a
 * program exec'd by the host inherits). */
static int cmd_fdcheck(void) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return 100;
    int extra = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        int fd = atoi(e->d_name);
        if (fd <= 2 || fd == dirfd(d))
            continue;
        char link[64], target[4096] = "";
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        printf("fdcheck: inherited fd %d: %s\n", fd, target);
        extra++;
    }
    closedir(d);
    printf("fdcheck: %d inherited\n", extra);
    return extra ? 1 : 0;
}

/* Distinct stacks: a dump of them takes its time symbolizing. */
__attribute__((noinline)) static void *stacky(int depth, size_t n) {
    volatile int guard = depth;
    void *p = depth <= 0 ? malloc(n) : stacky(depth - 1, n);
    return guard == depth ? p : NULL;
}

/* exec SIG SELF: many blocks; asks for a dump, waits until the dump has
 * begun writing, then execs SELF fdcheck mid-dump. */
static int cmd_exec(int argc, char **argv) {
    if (argc < 2)
        return 2;
    int sig = atoi(argv[0]);
    for (int fd = 3; fd < 1024; fd++) /* what it inherited is not the test's */
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    long n = 300000;
    keep = calloc((size_t)n, sizeof *keep);
    for (long i = 0; i < n; i++)
        keep[i] = stacky((int)(i % 97), 16);
    char path[4200];
    dump_path(path, sizeof path, (long)getpid(), 1);
    kill(getpid(), sig);
    double end = now_s() + 20;
    struct stat st;
    while ((stat(path, &st) != 0 || st.st_size == 0) && now_s() < end)
        ;
    execl(argv[1], argv[1], "fdcheck", (char *)NULL);
    return 100;
}

/* ---- limits ---- */

/* nofile: RLIMIT_NOFILE at the lowest free number, so that no number is
 * free below it: a dump must still be written, and the program's own next
 * open fails with EMFILE as it would without the tracker. */
static int cmd_nofile(void) {
    keep_blocks(1000, 48);
    int lowest = dup(0); /* the number the next open would get */
    close(lowest);
    struct rlimit rl = {(rlim_t)lowest, (rlim_t)lowest};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 100;
    kill(getpid(), SIGRTMIN + 7);
    int dumped = under_tracker() ? wait_dump(1, 10) == 0 : 1;
    errno = 0;
    int fd = open("/dev/null", O_RDONLY);
    printf("nofile: dump %s, open: %s\n", dumped ? "written" : "missing",
           fd < 0 ? strerror(errno) : "a descriptor");
    return dumped && fd < 0 && errno == EMFILE ? 0 : 1;
}

/* fsize: RLIMIT_FSIZE of 1 KiB, less than any dump: the dumps fail, the
 * program exits 0 as it would without the tracker. */
static int cmd_fsize(void) {
    keep_blocks(50000, 40);
    struct rlimit rl = {1024, RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 100;
    kill(getpid(), SIGRTMIN + 7); /* a signal dump meets the limit too */
    if (under_tracker())
        wait_dump(1, 10);
    printf("fsize: exiting 0\n");
    fflush(stdout);
    exit(0);
}

/* oom LIMIT_MB: RLIMIT_AS at the current size plus LIMIT_MB; allocates
 * until malloc fails, asks for a dump, frees half, allocates again. */
static int cmd_oom(int argc, char **argv) {
    long extra = argc > 0 ? atol(argv[0]) : 64;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f == NULL || fscanf(f, "%lu", &pages) != 1)
        return 100;
    fclose(f);
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = pages * (unsigned long)sysconf(_SC_PAGESIZE) +
                                (unsigned long)extra * 1024 * 1024;
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        return 100;
    static void *blocks[1 << 16];
    long n = 0;
    while (n < (1 << 16) && (blocks[n] = malloc(64 * 1024)) != NULL)
        memset(blocks[n++], 1, 64 * 1024);
    long small = 0;
    void *p;
    while ((p = malloc(24)) != NULL && small < 1000000)
        small++;
    kill(getpid(), SIGRTMIN + 7);
    sleep_ms(500);
    for (long i = 0; i < n; i += 2)
        free(blocks[i]);
    long again = 0;
    for (long i = 0; i < n; i += 2)
        if ((blocks[i] = malloc(64 * 1024)) != NULL)
            again++;
    printf("oom: %s\n", n > 0 && again > 0 ? "ran out and recovered" : "did not");
    return n > 0 && again > 0 ? 0 : 1;
}

/* umask: umask 777, a dump: its owner can still read it. */
static int cmd_umask(void) {
    keep_blocks(100, 16);
    umask(0777);
    kill(getpid(), SIGRTMIN + 7);
    if (!under_tracker())
        return 0;
    if (wait_dump(1, 10) != 0)
        return 1;
    char path[4200];
    dump_path(path, sizeof path, (long)getpid(), 1);
    struct stat st;
    if (stat(path, &st) != 0)
        return 1;
    printf("umask: dump mode %03o\n", (unsigned)(st.st_mode & 0777));
    return (st.st_mode & 0600) == 0600 ? 0 : 1;
}

/* ---- signals ---- */

static void *blocked_worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 200; i++)
        free(malloc(100));
    return NULL;
}

/* blocked: every signal blocked in every thread of the program (as
 * programs that take signals with sigwait or signalfd do); the dump signal
 * still makes a dump. */
static int cmd_blocked(void) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    keep_blocks(100, 16);
    pthread_t t;
    pthread_create(&t, NULL, blocked_worker, NULL);
    pthread_join(t, NULL);
    kill(getpid(), SIGRTMIN + 7);
    int ok = !under_tracker() || wait_dump(1, 10) == 0;
    printf("blocked: %s\n", ok ? "dumped" : "no dump");
    return ok ? 0 : 1;
}

/* refused SIG: the tracker was asked (HEAPFMT_MALLOC_SIGNAL) for SIG, a
 * signal it must refuse: SIG's disposition is still the default. */
static int cmd_refused(int argc, char **argv) {
    int sig = argc > 0 ? atoi(argv[0]) : SIGSEGV;
    struct sigaction sa;
    sigaction(sig, NULL, &sa);
    int dfl = sa.sa_handler == SIG_DFL;
    printf("refused: signal %d %s\n", sig, dfl ? "default" : "handled");
    return dfl ? 0 : 1;
}

/* segv: faults (a real SIGSEGV, from a null write): must die of it. */
static int cmd_segv(void) {
    keep_blocks(10, 16);
    volatile int *p = NULL;
    *p = 1;
    return 0;
}

/* Threads allocating while the dump signal arrives on each of them. */
static volatile int stop_threads;
static void *alloc_worker(void *arg) {
    (void)arg;
    while (!stop_threads)
        free(malloc(64));
    return NULL;
}

/* anythread THREADS ROUNDS SIG: SIG sent with tgkill to every thread of
 * the process in turn (the tracker's included), ROUNDS times. */
static int cmd_anythread(int argc, char **argv) {
    int nt = argc > 0 ? atoi(argv[0]) : 4;
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    int sig = argc > 2 ? atoi(argv[2]) : SIGRTMIN + 7;
    keep_blocks(1000, 16);
    pthread_t t[16];
    for (int i = 0; i < nt && i < 16; i++)
        pthread_create(&t[i], NULL, alloc_worker, NULL);
    long sent = 0;
    for (int r = 0; r < rounds; r++) {
        DIR *d = opendir("/proc/self/task");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' &&
                syscall(SYS_tgkill, getpid(), atoi(e->d_name), sig) == 0)
                sent++;
        if (d)
            closedir(d);
        sleep_ms(20);
    }
    stop_threads = 1;
    for (int i = 0; i < nt && i < 16; i++)
        pthread_join(t[i], NULL);
    printf("anythread: done\n");
    return sent > 0 ? 0 : 1;
}

/* ---- processes ---- */

/* forks N: N children, each allocates and ends (half by exit, half by
 * _exit) with a status of its own; every status must come back. */
static int cmd_forks(int argc, char **argv) {
    int n = argc > 0 ? atoi(argv[0]) : 1000;
    keep_blocks(1000, 32);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            return 100;
        if (pid == 0) {
            free(malloc(100 + (size_t)i));
            void *k = malloc(50);
            (void)k;
            if (i % 2)
                exit(i % 100);
            _exit(i % 100);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != i % 100)
            bad++;
    }
    printf("forks: %d children, %d bad\n", n, bad);
    return bad ? 1 : 0;
}

/* dump N: asks for a dump by signal and waits for dump N. */
static int cmd_dump(int argc, char **argv) {
    unsigned n = argc > 0 ? (unsigned)atoi(argv[0]) : 1;
    keep_blocks(100, 16);
    kill(getpid(), SIGRTMIN + 7);
    return under_tracker() && wait_dump(n, 10) != 0 ? 1 : 0;
}

/* chdir DIR: moves to DIR, then asks for a dump (signal and API): they
 * go where the program started. */
static int cmd_chdir(int argc, char **argv) {
    if (argc < 1)
        return 2;
    keep_blocks(100, 16);
    if (chdir(argv[0]) != 0)
        return 100;
    kill(getpid(), SIGRTMIN + 7);
    if (under_tracker())
        wait_dump(1, 10);
    printf("chdir: done\n");
    return 0;
}

/* stdio: closes 0, 1 and 2 and opens three files of its own in their
 * place (a careless daemon); with the tracker's log on, a dump must not
 * write a line into them. */
static int cmd_stdio(int argc, char **argv) {
    if (argc < 1)
        return 2;
    keep_blocks(100, 16);
    close(0);
    close(1);
    close(2);
    char name[3][4200];
    for (int i = 0; i < 3; i++) {
        snprintf(name[i], sizeof name[i], "%s/data%d", argv[0], i);
        if (open(name[i], O_RDWR | O_CREAT | O_TRUNC, 0644) != i)
            return 100;
        dprintf(i, "data %d\n", i);
    }
    kill(getpid(), SIGRTMIN + 7);
    if (under_tracker())
        wait_dump(1, 10);
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        char buf[256] = {0}, want[16];
        snprintf(want, sizeof want, "data %d\n", i);
        ssize_t n = pread(i, buf, sizeof buf - 1, 0);
        if (n != (ssize_t)strlen(want) || strcmp(buf, want) != 0)
            bad++;
    }
    return bad ? 1 : 0;
}

/* userns: enters a user namespace, which the kernel allows only to a
 * single-threaded process (sandboxes, container runtimes do it). */
static int cmd_userns(void) {
    keep_blocks(10, 16);
    int r = unshare(CLONE_NEWUSER);
    printf("userns: %s\n", r == 0 ? "entered" : strerror(errno));
    return r == 0 ? 0 : 1;
}

/* seccomp MODE PROG ARGS...: runs PROG where the kernel refuses private
 * descriptor tables, as under a container's seccomp profile: MODE
 * "unshare" refuses close_range (Linux < 5.9), "shared" refuses
 * close_range and unshare too. */
static int cmd_seccomp(int argc, char **argv) {
    if (argc < 2)
        return 2;
    int shared = strcmp(argv[0], "shared") == 0;
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
    unsigned unshare_nr = shared ? __NR_unshare : 0xffffffffu; /* never */
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, unshare_nr, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("seccomp");
        return 100;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: hm_host COMMAND ARGS (see hostile_host.c)\n");
        return 2;
    }
    if (getcwd(start_dir, sizeof start_dir) == NULL)
        return 100;
    if (!under_tracker()) /* run alone for comparison: the signal is inert */
        signal(SIGRTMIN + 7, SIG_IGN);
    const char *cmd = argv[1];
    int n = argc - 2;
    char **a = argv + 2;
    if (strcmp(cmd, "daemon") == 0) return cmd_daemon(n, a);
    if (strcmp(cmd, "dup2") == 0) return cmd_dup2(n, a);
    if (strcmp(cmd, "fdcheck") == 0) return cmd_fdcheck();
    if (strcmp(cmd, "exec") == 0) return cmd_exec(n, a);
    if (strcmp(cmd, "nofile") == 0) return cmd_nofile();
    if (strcmp(cmd, "fsize") == 0) return cmd_fsize();
    if (strcmp(cmd, "oom") == 0) return cmd_oom(n, a);
    if (strcmp(cmd, "umask") == 0) return cmd_umask();
    if (strcmp(cmd, "blocked") == 0) return cmd_blocked();
    if (strcmp(cmd, "refused") == 0) return cmd_refused(n, a);
    if (strcmp(cmd, "segv") == 0) return cmd_segv();
    if (strcmp(cmd, "anythread") == 0) return cmd_anythread(n, a);
    if (strcmp(cmd, "forks") == 0) return cmd_forks(n, a);
    if (strcmp(cmd, "chdir") == 0) return cmd_chdir(n, a);
    if (strcmp(cmd, "dump") == 0) return cmd_dump(n, a);
    if (strcmp(cmd, "stdio") == 0) return cmd_stdio(n, a);
    if (strcmp(cmd, "seccomp") == 0) return cmd_seccomp(n, a);
    if (strcmp(cmd, "userns") == 0) return cmd_userns();
    fprintf(stderr, "hm_host: unknown command %s\n", cmd);
    return 2;
}
