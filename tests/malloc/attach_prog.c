/* attach_prog.c -- programs started without the tracker, for
 * tests/cli/malloc_attach.sh to attach heapfmt-malloc -p to. Each writes
 * its pid to DIR/pid once running, and its main thread waits in
 * nanosleep (a safe point to attach at), watching DIR for its orders.
 *
 *   serve DIR         two threads serve "requests": each request keeps a
 *                     64-byte block (handle_request, the leak) and frees
 *                     the rest of what it made (parse_request)
 *   busy THREADS DIR  THREADS threads allocate and free at random sizes
 *                     as fast as they can; DIR/count says how far they got
 *   work DIR [THREADS [LIB]]
 *                     waits for DIR/go, then runs a fixed workload
 *                     (work_leak keeps 1,000 blocks of 100..1,099 bytes,
 *                     work_churn makes and frees 50,000) on 4 threads, and
 *                     writes DIR/done: the same blocks whether the tracker
 *                     was there from the start or attached before DIR/go;
 *                     THREADS busy threads (as busy's) run all along, and
 *                     one more loads LIB, runs it and unloads it in a loop
 *                     until DIR/go (modules coming and going under the
 *                     attaches)
 *   plugin DIR LIB    waits for DIR/go, then loads LIB (dlopen) and calls
 *                     its plugin_run: a module loaded after the attach;
 *                     writes DIR/done, and calls it again on DIR/go2
 *                     (then DIR/done2). LIB without a slash is looked for
 *                     where the program's DT_RUNPATH says
 *
 * Every program ends when DIR/stop appears. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static atomic_int stop;
static atomic_long progress;

static int exists(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void put(const char *name, long v)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        exit(1);
    fprintf(f, "%ld\n", v);
    fclose(f);
    rename(tmp, path);
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- serve ---- */

static void *volatile kept[1 << 20];
static atomic_long nkept;

__attribute__((noinline)) void handle_request(long i)
{
    char *p = malloc(64);
    if (p != NULL) {
        memset(p, (int)i, 64);
        long k = atomic_fetch_add(&nkept, 1);
        if (k < (long)(sizeof kept / sizeof kept[0]))
            kept[k] = p;
        else
            free(p);
    }
}

/* A block the compiler cannot prove unused: a malloc/free pair it could
 * prove so is removed (GCC does at -O1). One per thread: two server
 * threads sharing it freed each other's block, then their own again
 * ("double free or corruption", now and then, with no tracker loaded). */
static _Thread_local void *volatile scratch;

__attribute__((noinline)) void parse_request(long i)
{
    for (int k = 0; k < 4; k++) {
        scratch = malloc(32 + (size_t)k * 16);
        if (scratch != NULL)
            memset(scratch, (int)i, 32);
        free(scratch);
    }
}

static void *server_thread(void *arg)
{
    (void)arg;
    for (long i = 0; !atomic_load(&stop); i++) {
        parse_request(i);
        handle_request(i);
        atomic_fetch_add(&progress, 1);
        nap_ms(1);
    }
    return NULL;
}

/* ---- busy ---- */

static void *busy_thread(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *slot[64] = {0};
    while (!atomic_load(&stop)) {
        for (int k = 0; k < 1000; k++) {
            seed = seed * 1103515245u + 12345u;
            int s = (int)(seed >> 16) % 64;
            free(slot[s]);
            switch ((seed >> 8) % 4) {
            case 0: slot[s] = malloc(1 + (seed >> 4) % 4096); break;
            case 1: slot[s] = calloc(1 + (seed >> 4) % 32, 16); break;
            case 2: slot[s] = realloc(malloc(8), 16 + (seed >> 4) % 512); break;
            default: slot[s] = aligned_alloc(64, 64 * (1 + (seed >> 4) % 8)); break;
            }
        }
        atomic_fetch_add(&progress, 1000);
    }
    for (int s = 0; s < 64; s++)
        free(slot[s]);
    return NULL;
}

/* ---- a module loaded and unloaded in a loop ---- */

static const char *cycled_lib;
static atomic_int cycling = 1;
static atomic_long cycles;

static void *cycle_thread(void *arg)
{
    (void)arg;
    while (atomic_load(&cycling)) {
        void *h = dlopen(cycled_lib, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            fprintf(stderr, "attach_prog: %s\n", dlerror());
            exit(1);
        }
        ((void (*)(void))dlsym(h, "plugin_run"))();
        ((void (*)(void))dlsym(h, "plugin_end"))();
        dlclose(h);
        atomic_fetch_add(&cycles, 1);
        nap_ms(1);
    }
    return NULL;
}

/* ---- work ---- */

static void *volatile work_kept[4][250];

__attribute__((noinline)) void work_leak(int t, int i)
{
    work_kept[t][i] = malloc(100 + (size_t)(t * 250 + i));
}

__attribute__((noinline)) void work_churn(int i)
{
    void *volatile p = malloc(16 + (size_t)(i % 200));
    free(p);
}

static void *work_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < 250; i++) {
        work_leak(t, i);
        for (int k = 0; k < 50; k++)
            work_churn(i * 50 + k);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: attach_prog serve DIR|busy THREADS DIR|"
                        "work DIR [THREADS]|plugin DIR LIB\n");
        return 2;
    }
    const char *cmd = argv[1];
    int busy = strcmp(cmd, "busy") == 0;
    int work = strcmp(cmd, "work") == 0;
    int plugin = strcmp(cmd, "plugin") == 0;
    dir = argv[busy ? 3 : 2];
    if ((busy || plugin) && argc < 4)
        return 2;
    int nthreads = busy   ? atoi(argv[2])
                   : work ? (argc > 3 ? atoi(argv[3]) : 0)
                   : strcmp(cmd, "serve") == 0 ? 2
                                               : 0;
    if (nthreads < 0 || nthreads > 64)
        return 2;
    pthread_t th[64];
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, busy || work ? busy_thread : server_thread,
                       (void *)(uintptr_t)(i + 1));
    pthread_t cycler;
    cycled_lib = work && argc > 4 ? argv[4] : NULL;
    if (cycled_lib != NULL)
        pthread_create(&cycler, NULL, cycle_thread, NULL);
    put("pid", (long)getpid());
    int worked = 0;
    void *lib = NULL;
    while (!exists("stop")) {
        nap_ms(10);
        if (nthreads > 0 && (busy || work))
            put("count", atomic_load(&progress));
        if (plugin && lib == NULL && exists("go")) {
            lib = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
            void (*run)(void) = lib ? (void (*)(void))dlsym(lib, "plugin_run") : NULL;
            if (run == NULL) {
                fprintf(stderr, "attach_prog: %s\n", dlerror());
                return 1;
            }
            run();
            put("done", 1);
        }
        if (plugin && lib != NULL && !worked && exists("go2")) {
            ((void (*)(void))dlsym(lib, "plugin_run"))();
            worked = 1;
            put("done2", 1);
        }
        if (work && !worked && exists("go")) {
            if (cycled_lib != NULL) { /* the workload's rows alone */
                atomic_store(&cycling, 0);
                pthread_join(cycler, NULL);
                put("cycles", atomic_load(&cycles));
            }
            pthread_t w[4];
            for (int t = 0; t < 4; t++)
                pthread_create(&w[t], NULL, work_thread, (void *)(intptr_t)t);
            for (int t = 0; t < 4; t++)
                pthread_join(w[t], NULL);
            worked = 1;
            put("done", 1);
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    if (lib != NULL) { /* after the detach: the module's frees still work */
        void (*end)(void) = (void (*)(void))dlsym(lib, "plugin_end");
        if (end != NULL)
            end();
        dlclose(lib);
    }
    return 0;
}
