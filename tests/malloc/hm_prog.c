/* hm_prog.c -- programs for tests/cli/malloc.sh to run under the malloc
 * tracker, one subcommand per behaviour it checks. Each prints what it
 * did (counts, sizes) so the test can compare the dumps with the truth.
 * Built without sanitizers: the tracker replaces malloc. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heapfmt_malloc.h"

#pragma weak heapfmt_malloc_dump

static void *volatile *keep; /* where blocks are kept alive */

static int dump(const char *path) {
    if (!heapfmt_malloc_dump) {
        fprintf(stderr, "hm_prog: not running under the tracker\n");
        exit(1);
    }
    if (heapfmt_malloc_dump(path, NULL, 0) != 0) {
        perror("heapfmt_malloc_dump");
        exit(1);
    }
    return 0;
}

/* The function the leak story names. */
__attribute__((noinline)) void *leaky_function(size_t n) {
    char *p = malloc(n);
    if (p)
        memset(p, 7, n);
    return p;
}

__attribute__((noinline)) void *tidy_function(size_t n) {
    char *p = malloc(n);
    if (p)
        memset(p, 1, n);
    return p;
}

/* leak N SIZE D1 D2: N/2 leaked blocks before D1, N/2 more before D2,
 * while tidy allocations come and go. */
static int cmd_leak(int argc, char **argv) {
    if (argc < 4)
        return 2;
    long n = atol(argv[0]);
    size_t size = (size_t)atol(argv[1]);
    keep = calloc((size_t)n, sizeof *keep);
    for (long i = 0; i < n; i++) {
        if (i == n / 2)
            dump(argv[2]);
        keep[i] = leaky_function(size);
        free(tidy_function(size * 2));
    }
    dump(argv[3]);
    printf("leaked %ld blocks of %zu bytes\n", n, size);
    return 0;
}

/* storm THREADS OPS KEEP: THREADS threads do OPS operations in all on a
 * shared pool of slots: each takes a slot and frees what another thread
 * put there, then allocates a block of random size into it. At the end
 * everything is freed but KEEP blocks, made by keep_function. */
#define POOL 4096
static _Atomic(void *) pool[POOL];
static long storm_ops;

__attribute__((noinline)) void *storm_alloc(unsigned r) {
    switch (r % 4) {
    case 0: return malloc(1 + r % 2048);
    case 1: return calloc(1 + r % 16, 1 + r % 64);
    case 2: return realloc(malloc(8), 16 + r % 512);
    default: {
        void *p = NULL;
        return posix_memalign(&p, 64, 1 + r % 300) == 0 ? p : NULL;
    }
    }
}

static void *storm_thread(void *arg) {
    unsigned r = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    for (long i = 0; i < storm_ops; i++) {
        r ^= r << 13;
        r ^= r >> 17;
        r ^= r << 5;
        void *p = storm_alloc(r);
        void *old = atomic_exchange(&pool[r % POOL], p);
        free(old);
    }
    return NULL;
}

__attribute__((noinline)) void *keep_function(size_t n) {
    char *p = malloc(n); /* not a tail call: its frame stays on the stack */
    if (p)
        p[0] = 1;
    return p;
}

static int cmd_storm(int argc, char **argv) {
    if (argc < 3)
        return 2;
    int nt = atoi(argv[0]);
    long ops = atol(argv[1]), nkeep = atol(argv[2]);
    storm_ops = ops / nt;
    pthread_t t[64];
    for (int i = 0; i < nt && i < 64; i++)
        pthread_create(&t[i], NULL, storm_thread, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < nt && i < 64; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < POOL; i++)
        free(atomic_exchange(&pool[i], NULL));
    keep = calloc((size_t)nkeep, sizeof *keep);
    for (long i = 0; i < nkeep; i++)
        keep[i] = keep_function(100 + (size_t)i % 7);
    printf("ops %ld kept %ld\n", storm_ops * nt, nkeep);
    return 0;
}

/* fork A B PARENT_DUMP CHILD_DUMP: A blocks, fork; the child makes B more
 * and dumps; the parent waits, then dumps. */
static int cmd_fork(int argc, char **argv) {
    if (argc < 4)
        return 2;
    long a = atol(argv[0]), b = atol(argv[1]);
    keep = calloc((size_t)(a + b), sizeof *keep);
    for (long i = 0; i < a; i++)
        keep[i] = leaky_function(32);
    pid_t pid = fork();
    if (pid == 0) {
        for (long i = 0; i < b; i++)
            keep[a + i] = tidy_function(48);
        dump(argv[3]);
        /* the child's own dump thread answers its own signal */
        kill(getpid(), SIGRTMIN + 7);
        sleep(1);
        printf("child %ld\n", (long)getpid());
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    dump(argv[2]);
    printf("parent %ld\n", (long)getpid());
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* calls: every allocation function, checked for what it must return. */
static int cmd_calls(void) {
    int bad = 0;
#define CHECK(c) do { if (!(c)) { printf("FAIL %s\n", #c); bad = 1; } } while (0)
    char *m = malloc(10);
    CHECK(m && malloc_usable_size(m) >= 10);
    int *c = calloc(100, sizeof *c);
    int zero = 1;
    for (int i = 0; c && i < 100; i++)
        zero &= c[i] == 0;
    CHECK(c && zero);
    memcpy(m, "123456789", 10);
    char *r = realloc(m, 100000);
    CHECK(r && memcmp(r, "123456789", 10) == 0);
    errno = 0;
    volatile size_t huge = SIZE_MAX / 2; /* an overflow the compiler can't see */
    CHECK(reallocarray(NULL, huge, 4) == NULL && errno == ENOMEM);
    char *ra = reallocarray(NULL, 10, 10);
    CHECK(ra != NULL);
    void *pm = NULL;
    CHECK(posix_memalign(&pm, 256, 1000) == 0 && ((uintptr_t)pm & 255) == 0);
    CHECK(posix_memalign(&pm, 3, 10) == EINVAL);
    void *aa = aligned_alloc(128, 512);
    CHECK(aa && ((uintptr_t)aa & 127) == 0);
    void *ma = memalign(4096, 10);
    CHECK(ma && ((uintptr_t)ma & 4095) == 0);
    void *va = valloc(10);
    CHECK(va && ((uintptr_t)va & 4095) == 0);
    void *pv = pvalloc(10);
    CHECK(pv && ((uintptr_t)pv & 4095) == 0 && malloc_usable_size(pv) >= 4096);
    CHECK(realloc(malloc(5), 0) == NULL);
    free(NULL);
    /* kept live: one block of each kind for the exit dump */
    static void *live[8];
    live[0] = malloc(11);
    live[1] = c;
    live[2] = r;
    live[3] = ra;
    live[4] = pm;
    live[5] = aa;
    live[6] = ma;
    live[7] = va;
    keep = live;
    (void)pv;
    printf(bad ? "calls: failed\n" : "calls: ok\n");
    return bad;
}

/* sampled N SIZE BIG: N blocks of SIZE bytes and one of BIG bytes live at
 * exit. */
static int cmd_sampled(int argc, char **argv) {
    if (argc < 3)
        return 2;
    long n = atol(argv[0]);
    size_t size = (size_t)atol(argv[1]), big = (size_t)atol(argv[2]);
    keep = calloc((size_t)n + 1, sizeof *keep);
    for (long i = 0; i < n; i++)
        keep[i] = leaky_function(size);
    keep[n] = tidy_function(big);
    printf("live %ld bytes\n", (long)(n * (long)size + (long)big));
    return 0;
}

/* spin SECONDS LIVE: LIVE blocks kept, then malloc/free as fast as
 * possible for SECONDS (signals arrive meanwhile). Prints "ready" first. */
static int cmd_spin(int argc, char **argv) {
    if (argc < 2)
        return 2;
    double secs = atof(argv[0]);
    long live = atol(argv[1]);
    keep = calloc((size_t)live + 1, sizeof *keep);
    for (long i = 0; i < live; i++)
        keep[i] = leaky_function(24);
    printf("ready\n");
    fflush(stdout);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long k = 0;
    do {
        for (int i = 0; i < 1000; i++)
            free(tidy_function(16 + (size_t)(k++ % 512)));
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < secs);
    printf("spun %ld\n", k);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: hm_prog leak|storm|fork|calls|sampled|spin ARGS\n");
        return 2;
    }
    const char *cmd = argv[1];
    int rc = 2;
    if (strcmp(cmd, "leak") == 0)
        rc = cmd_leak(argc - 2, argv + 2);
    else if (strcmp(cmd, "storm") == 0)
        rc = cmd_storm(argc - 2, argv + 2);
    else if (strcmp(cmd, "fork") == 0)
        rc = cmd_fork(argc - 2, argv + 2);
    else if (strcmp(cmd, "calls") == 0)
        rc = cmd_calls();
    else if (strcmp(cmd, "sampled") == 0)
        rc = cmd_sampled(argc - 2, argv + 2);
    else if (strcmp(cmd, "spin") == 0)
        rc = cmd_spin(argc - 2, argv + 2);
    if (rc == 2)
        fprintf(stderr, "hm_prog: bad arguments\n");
    return rc;
}
