/* malloc_heavy.c -- a program that does little but allocate (issue 39):
 * four threads, each churning a window of small blocks with malloc/free
 * pairs and a realloc mix, from a fixed seed. At over 20M allocation
 * calls per CPU second, what the tracker adds to each call is most of
 * what is left to measure (bench/malloc_bench.c does about a tenth of
 * that rate, between text work).
 *
 *   malloc_heavy [MILLIONS [THREADS]]   (default 20M calls on 4 threads)
 *
 * A call is one malloc, free or realloc. It prints the calls made, its
 * own CPU time (getrusage: the tracker's threads included) and the rate,
 * then a checksum that depends only on the seed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define WINDOW 4096u /* live blocks per thread: mostly short-lived */

typedef struct worker {
    pthread_t id;
    unsigned index;
    uint64_t calls;   /* to make */
    uint64_t made;    /* made */
    uint64_t checksum;
} worker;

static uint64_t next(uint64_t *s) { /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* Sizes as a program's small objects come: mostly 16-128 bytes, a few up
 * to 1 KiB. */
static size_t size_of(uint64_t r) {
    return (r & 7) == 0 ? 16 + (size_t)(r >> 8) % 1008 : 16 + (size_t)(r >> 8) % 112;
}

static void *work(void *arg) {
    worker *w = arg;
    uint64_t s = UINT64_C(0x9E3779B97F4A7C15) * (w->index + 1);
    unsigned char **slot = calloc(WINDOW, sizeof *slot);
    size_t *len = calloc(WINDOW, sizeof *len);
    uint64_t made = 0, sum = 0;
    if (slot == NULL || len == NULL)
        abort();
    while (made < w->calls) {
        uint64_t r = next(&s);
        unsigned i = (unsigned)(r % WINDOW);
        r >>= 12;
        if (slot[i] == NULL) {
            size_t n = size_of(r);
            slot[i] = malloc(n);
            if (slot[i] == NULL)
                abort();
            memset(slot[i], (int)n, n < 64 ? n : 64); /* as a program fills it */
            len[i] = n;
        } else if ((r & 15) < 3) { /* about one call in five: realloc */
            size_t n = size_of(r >> 4);
            unsigned char *q = realloc(slot[i], n);
            if (q == NULL)
                abort();
            memset(q, (int)i, n < 64 ? n : 64);
            slot[i] = q;
            len[i] = n;
        } else {
            sum += slot[i][0] + len[i];
            free(slot[i]);
            slot[i] = NULL;
        }
        made++;
    }
    for (unsigned i = 0; i < WINDOW; i++)
        free(slot[i]);
    free(slot);
    free(len);
    w->made = made + WINDOW + 4;
    w->checksum = sum;
    return NULL;
}

int main(int argc, char **argv) {
    double millions = argc > 1 ? atof(argv[1]) : 20;
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
    if (!(millions > 0) || threads == 0 || threads > 256) {
        fprintf(stderr, "usage: malloc_heavy [MILLIONS [THREADS]]\n");
        return 2;
    }
    worker *w = calloc(threads, sizeof *w);
    if (w == NULL)
        return 1;
    uint64_t total = (uint64_t)(millions * 1e6);
    for (unsigned t = 0; t < threads; t++) {
        w[t].index = t;
        w[t].calls = total / threads;
        if (pthread_create(&w[t].id, NULL, work, &w[t]) != 0)
            return 1;
    }
    uint64_t made = 0, sum = 0;
    for (unsigned t = 0; t < threads; t++) {
        pthread_join(w[t].id, NULL);
        made += w[t].made;
        sum += w[t].checksum;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    printf("calls %llu cpu_s %.3f calls_per_cpu_s %.0f checksum %llu\n",
           (unsigned long long)made, cpu, cpu > 0 ? (double)made / cpu : 0.0,
           (unsigned long long)sum);
    free(w);
    return 0;
}
