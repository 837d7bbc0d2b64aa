/* truth.c -- a native heap whose answer is known, for heapfmt-core's
 * tests (tests/cli/core.sh).
 *
 *     truth RECORDS [MALLOC_INFO]
 *
 * Four threads (so four arenas) each allocate blocks of 16 B to 1 MiB
 * (mmapped chunks included) and free some of them so that every kind of
 * free list holds chunks: tcache, fastbins, small and large bins, the
 * unsorted bin. Each thread keeps some blocks (held: in a global array,
 * through a malloc'd array, by an interior pointer, on its stack, in a
 * thread-local variable) and drops others on purpose (leaked: single
 * blocks, a chain whose head is the only one nothing points at, a cycle).
 * Then the main thread writes malloc_info(3) to MALLOC_INFO, the blocks
 * to RECORDS, one a line:
 *
 *     held ADDRESS USABLE_SIZE
 *     leaked ADDRESS USABLE_SIZE HEAD   (HEAD: 1 when nothing points at it)
 *
 * calls heapfmt_malloc_dump() when running under heapfmt-malloc, and
 * stops itself (SIGSTOP) so that heapfmt-core -p and gcore see that very
 * heap. No copy of a leaked block's address is left behind: records keep
 * addresses inverted (~addr, not a pointer), every pointer variable is
 * cleared after use, the stack below is overwritten, and blocks are
 * filled before use so that no stale pointer hides in them. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scrub_stack.h"

#pragma weak heapfmt_malloc_dump
int heapfmt_malloc_dump(const char *path, char *written, size_t len);

#define THREADS 4
#define MAX_REC 4096

typedef struct rec {
    uint64_t inv;   /* ~address */
    uint64_t usable;
    int kind;       /* 0 held, 1 leaked, 2 leaked head */
} rec;

static rec recs[THREADS][MAX_REC];
static int nrec[THREADS];

/* Held blocks: reachable from static data, heap, stack and TLS. */
#define MAX_HELD 256
void *held_global[THREADS][MAX_HELD]; /* not static: kept */
void **held_array[THREADS];             /* a malloc'd array of pointers */
char *held_interior[THREADS][4];    /* pointers into the middle */
__thread void *held_tls[4];

static pthread_barrier_t ready;
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park = PTHREAD_COND_INITIALIZER;

static void record(int t, void *p, int kind)
{
    if (nrec[t] < MAX_REC)
        recs[t][nrec[t]++] = (rec){~(uint64_t)(uintptr_t)p,
                                   malloc_usable_size(p), kind};
}

/* A block filled with a byte no pointer is made of. */
static void *get(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    memset(p, 0x5a, n);
    return p;
}

static const size_t sizes[] = {16, 24, 40, 56, 72, 100, 120, 200, 333,
                               500, 1000, 1024, 1500, 3000, 8000, 20000,
                               70000, 140000, 300000, 1u << 20};
#define NSIZES (sizeof sizes / sizeof *sizes)
#define PER 12
/* Blocks of the mmapped sizes are never freed: freeing one would raise
 * malloc's mmap threshold, and the next ones would come from a heap. */
#define MMAPPED(s) (sizes[s] >= 70000)

static int held_n[THREADS];
void *late_fast[THREADS][3][20];  /* held: the even ones */
void *late_unsorted[THREADS][8];

static void hold(int t, void *p)
{
    if (held_n[t] == MAX_HELD)
        abort();
    held_global[t][held_n[t]++] = p;
    record(t, p, 0);
}

/* Frees every other block of a row (neighbours stay, so nothing
 * coalesces) and clears the pointers. */
static void free_odd(void **row, int n)
{
    for (int i = 1; i < n; i += 2) {
        free(row[i]);
        row[i] = NULL;
    }
}

static void __attribute__((noinline)) leak(int t)
{
    /* single blocks of several sizes, the last one mmapped */
    static const size_t lsz[] = {16, 100, 1000, 5000, 200000};
    for (size_t i = 0; i < sizeof lsz / sizeof *lsz; i++) {
        void *p = get(lsz[i]);
        record(t, p, 2);
        p = NULL;
    }
    /* a chain: head -> mid -> tail; only the head is a head */
    void **head = get(64), **mid = get(48), **tail = get(32);
    head[0] = mid;
    mid[0] = tail;
    record(t, head, 2);
    record(t, mid, 1);
    record(t, tail, 1);
    /* a cycle of two, one through an interior pointer: no head */
    char *a = get(80), *b = get(80);
    memcpy(a + 8, &b, sizeof b);
    char *aplus = a + 16;
    memcpy(b + 40, &aplus, sizeof aplus);
    record(t, a, 1);
    record(t, b, 1);
    head = mid = tail = NULL;
    a = b = aplus = NULL;
}

static void __attribute__((noinline)) churn(int t)
{
    void *row[NSIZES][PER];
    for (size_t s = 0; s < NSIZES; s++)
        for (int i = 0; i < PER; i++)
            row[s][i] = MMAPPED(s) && i >= 3 ? NULL : get(sizes[s]);
    /* tcache (at most 7 a size) and, past it, fastbins for small sizes,
     * small bins for the others */
    for (size_t s = 0; s < NSIZES; s++)
        if (sizes[s] <= 1024)
            free_odd(row[s], PER);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 20; i++)
            late_fast[t][k][i] = get(sizes[k + 1]);
    for (int i = 0; i < 8; i++)
        late_unsorted[t][i] = get(2500);
    void *guard = get(2500); /* the last one's neighbour is not top */
    void *small[16];
    for (int i = 0; i < 16; i++)
        small[i] = get(500);
    free_odd(small, 16);
    /* large sizes: freed to the unsorted bin, then sorted into bins by a
     * request none of them fits */
    for (size_t s = 0; s < NSIZES; s++)
        if (sizes[s] > 1024 && !MMAPPED(s))
            free_odd(row[s], PER);
    void *big = get(60000);
    /* keep the rest: in the global array, a malloc'd array, by interior
     * pointers, in TLS */
    held_array[t] = get(64 * sizeof(void *));
    int na = 0;
    for (size_t s = 0; s < NSIZES; s++) {
        for (int i = 0; i < PER; i += MMAPPED(s) ? 1 : 2) {
            void *p = row[s][i];
            row[s][i] = NULL;
            if (p == NULL)
                continue;
            if (i % 4 == 0)
                hold(t, p);
            else if (na < 64) {
                held_array[t][na++] = p;
                record(t, p, 0);
            } else {
                hold(t, p);
            }
        }
    }
    record(t, held_array[t], 0);
    hold(t, guard);
    guard = NULL;
    for (int i = 0; i < 16; i += 2) {
        if (i < 8) {
            held_interior[t][i / 2] = (char *)small[i] + 100;
            record(t, small[i], 0);
        } else {
            hold(t, small[i]);
        }
        small[i] = NULL;
    }
    hold(t, big);
    big = NULL;
    memset(row, 0, sizeof row);
}

/* Last, with no allocation after them: a large request would move
 * fastbin chunks out (malloc_consolidate) and any request sorts the
 * unsorted bin. */
static void late_frees(int t)
{
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 20; i += 2)
            record(t, late_fast[t][k][i], 0);
        free_odd(late_fast[t][k], 20);
    }
    for (int i = 0; i < 8; i += 2) {
        held_tls[i / 2] = late_unsorted[t][i];
        late_unsorted[t][i] = NULL;
        record(t, held_tls[i / 2], 0);
    }
    free_odd(late_unsorted[t], 8);
}

static void work(int t, void **on_stack, int n)
{
    churn(t);
    leak(t);
    for (int i = 0; i < n; i++) {
        on_stack[i] = get(100 + 50 * i);
        record(t, on_stack[i], 0);
    }
    late_frees(t);
    scrub_stack();
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    void *volatile on_stack[3];
    work(t, (void **)on_stack, 3);
    pthread_barrier_wait(&ready);
    pthread_mutex_lock(&park_lock);
    for (;;) /* parked: the process is stopped and killed from outside */
        pthread_cond_wait(&park, &park_lock);
    return on_stack[0];
}

static char line[128];

static int write_records(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < nrec[t]; i++) {
            const rec *r = &recs[t][i];
            int n = snprintf(line, sizeof line, "%s 0x%llx %llu %d\n",
                             r->kind == 0 ? "held" : "leaked",
                             (unsigned long long)~r->inv,
                             (unsigned long long)r->usable, r->kind == 2);
            if (write(fd, line, (size_t)n) != n) {
                close(fd);
                return -1;
            }
        }
    return close(fd);
}

static char info_buf[1 << 16];

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: truth RECORDS [MALLOC_INFO]\n");
        return 2;
    }
    pthread_barrier_init(&ready, NULL, THREADS);
    pthread_t th[THREADS];
    for (int t = 1; t < THREADS; t++)
        if (pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) != 0)
            return 1;
    void *volatile on_stack[3];
    work(0, (void **)on_stack, 3);
    pthread_barrier_wait(&ready);
    if (argc > 2) {
        /* a static buffer: the stream allocates nothing but its FILE,
         * before malloc_info looks, and stays open (fclose would free) */
        FILE *f = fopen(argv[2], "w");
        if (f == NULL || setvbuf(f, info_buf, _IOFBF, sizeof info_buf) != 0 ||
            malloc_info(0, f) != 0 || fflush(f) != 0)
            return 1;
    }
    if (write_records(argv[1]) != 0)
        return 1;
    if (heapfmt_malloc_dump)
        heapfmt_malloc_dump(NULL, NULL, 0);
    scrub_stack();
    raise(SIGSTOP);
    return on_stack[0] == NULL;
}
