/* malloc_bench.c -- a malloc-heavy program for the tracker's overhead
 * (issue 16): it does what a C program that handles text does, building
 * and tearing down a hash table of strdup'd keys and malloc'd values,
 * growing strings with realloc, and keeping a tenth of what it makes.
 * Time it alone, under heapfmt-malloc (sampled, exact), under heaptrack.
 *
 *   malloc_bench [ROUNDS [GO]]   (default 40; about 1M allocations a round)
 *
 * With GO, it writes its pid to GO.pid and waits (in nanosleep) for the
 * file GO before it starts: heapfmt-malloc -p attaches meanwhile
 * (bench/attach_run.sh), for attached against launched. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct entry {
    char *key;
    char *value;
    size_t len;
    struct entry *next;
} entry;

#define BUCKETS (1u << 16)

static uint32_t hash(const char *s) {
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static char *grow_text(unsigned seed) {
    size_t len = 0, cap = 8;
    char *s = malloc(cap);
    unsigned parts = 1 + seed % 6;
    for (unsigned i = 0; i < parts; i++) {
        char piece[32];
        int n = snprintf(piece, sizeof piece, "part-%u-%u;", seed, i);
        if (len + (size_t)n + 1 > cap) {
            cap = (len + (size_t)n + 1) * 2;
            s = realloc(s, cap);
        }
        memcpy(s + len, piece, (size_t)n + 1);
        len += (size_t)n;
    }
    return s;
}

static void wait_for_go(const char *go) {
    char pidfile[4096];
    snprintf(pidfile, sizeof pidfile, "%s.pid", go);
    FILE *f = fopen(pidfile, "w");
    if (f == NULL)
        exit(1);
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    struct timespec ts = {0, 2000000};
    while (access(go, F_OK) != 0)
        nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 40;
    if (argc > 2)
        wait_for_go(argv[2]);
    entry **table = calloc(BUCKETS, sizeof *table);
    entry *kept = NULL;
    unsigned long checksum = 0;
    for (int r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < 200000; i++) {
            char key[32];
            snprintf(key, sizeof key, "key-%d-%u", r, i);
            entry *e = malloc(sizeof *e);
            e->key = strdup(key);
            e->value = grow_text(i * 2654435761u + (unsigned)r);
            e->len = strlen(e->value);
            uint32_t b = hash(key) & (BUCKETS - 1);
            e->next = table[b];
            table[b] = e;
        }
        for (unsigned b = 0; b < BUCKETS; b++) {
            entry *e = table[b];
            table[b] = NULL;
            while (e) {
                entry *next = e->next;
                checksum += e->len;
                if ((e->len + b) % 10 == 0) {
                    e->next = kept;
                    kept = e;
                } else {
                    free(e->key);
                    free(e->value);
                    free(e);
                }
                e = next;
            }
        }
    }
    unsigned long nkept = 0;
    while (kept) {
        entry *next = kept->next;
        free(kept->key);
        free(kept->value);
        free(kept);
        kept = next;
        nkept++;
    }
    free(table);
    printf("%lu %lu\n", checksum, nkept);
    return 0;
}
