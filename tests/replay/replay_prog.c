/* replay_prog.c -- programs for tests/cli/replay.sh to record with
 * heapfmt-malloc --record and replay with heapfmt-replay. Each fills the
 * blocks it allocates (so its resident memory is what it asked for) and
 * pauses between phases longer than the test's MARK interval, so that a
 * replay measures the same moments. Built without sanitizers: the
 * tracker replaces malloc. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void) {
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state;
}

static void *filled(void *p, size_t n) {
    if (p)
        memset(p, 0x5a, n);
    return p;
}

/* pure: one thread; small blocks, half freed out of order, large (mmap'd)
 * blocks, reallocs; about 60 MiB at the peak. Prints the live bytes it
 * keeps at the end. */
#define SMALL 40000
#define LARGE 160
static int cmd_pure(void) {
    static void *small[SMALL];
    static size_t small_n[SMALL];
    static void *large[LARGE];
    for (int i = 0; i < SMALL; i++) {
        small_n[i] = 16 + rnd() % 1024;
        small[i] = filled(malloc(small_n[i]), small_n[i]);
    }
    pause_ms(40);
    for (int i = 0; i < SMALL; i++) { /* every other, shuffled */
        int j = (int)(rnd() % SMALL);
        free(small[j]);
        small[j] = NULL;
    }
    pause_ms(40);
    for (int i = 0; i < LARGE; i++)
        large[i] = filled(malloc(256 << 10), 256 << 10);
    pause_ms(40);
    for (int i = 0; i < SMALL; i += 7)
        if (small[i]) {
            small_n[i] *= 3;
            small[i] = filled(realloc(small[i], small_n[i]), small_n[i]);
        }
    for (int i = 0; i < LARGE; i += 2)
        free(large[i]);
    pause_ms(40);
    uint64_t live = 0;
    for (int i = 0; i < SMALL; i++)
        live += small[i] ? small_n[i] : 0;
    for (int i = 1; i < LARGE; i += 2)
        live += 256 << 10;
    printf("live %llu\n", (unsigned long long)live);
    return 0;
}

/* fragment: 4 threads take turns, each turn a round: ROUND blocks of a
 * size that grows with the round, each followed by a small block kept
 * for good, then the round's big blocks freed in a shuffled order. The
 * kept blocks pin glibc's holes, which the next round's larger blocks
 * cannot use; each thread's arena grows by every round. Turns are
 * separated by pauses, so a replay keeps their order. */
#define THREADS 4
#define ROUNDS 5
#define ROUND 2000
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static int turn;

static void *frag_thread(void *arg) {
    int me = (int)(intptr_t)arg;
    uint32_t r = 2654435761u * (uint32_t)(me + 1);
    static void *big[THREADS][ROUND];
    for (int round = 0; round < ROUNDS; round++) {
        pthread_mutex_lock(&turn_lock);
        while (turn != round * THREADS + me)
            pthread_cond_wait(&turn_cond, &turn_lock);
        pthread_mutex_unlock(&turn_lock);
        size_t size = 512 * (size_t)(round + 1);
        for (int i = 0; i < ROUND; i++) {
            big[me][i] = filled(malloc(size), size);
            if (filled(malloc(24), 24) == NULL) /* kept */
                return NULL;
        }
        for (int i = ROUND - 1; i > 0; i--) {
            r ^= r << 13, r ^= r >> 17, r ^= r << 5;
            int j = (int)(r % (uint32_t)(i + 1));
            void *t = big[me][i];
            big[me][i] = big[me][j];
            big[me][j] = t;
        }
        for (int i = 0; i < ROUND; i++)
            free(big[me][i]);
        pause_ms(30);
        pthread_mutex_lock(&turn_lock);
        turn++;
        pthread_cond_broadcast(&turn_cond);
        pthread_mutex_unlock(&turn_lock);
    }
    return NULL;
}

static int cmd_fragment(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, frag_thread, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("kept %d blocks\n", THREADS * ROUNDS * ROUND);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "pure") == 0)
        return cmd_pure();
    if (argc == 2 && strcmp(argv[1], "fragment") == 0)
        return cmd_fragment();
    fprintf(stderr, "usage: replay_prog pure|fragment\n");
    return 2;
}
