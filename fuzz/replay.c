/*
 * replay.c -- run the fuzz harnesses over saved inputs, without libFuzzer.
 *
 * Usage:
 *   replay [-v] DIR...              for each DIR and each harness H, runs H
 *                                   over every file in DIR/H/ (a missing
 *                                   DIR or DIR/H/ counts as empty)
 *   replay [-v] -H HARNESS FILE...  runs one harness over the given files
 *   replay -l                       lists the harnesses built in
 *
 * It is built with the normal compiler (no clang needed) from the harness
 * sources, each compiled with -DLLVMFuzzerTestOneInput=<harness>_entry, so
 * that `make test` replays the seed corpus (fuzz/corpus/) and every past
 * crash (fuzz/crashes/) in every build, sanitized or not.
 *
 * A harness reports a problem by aborting; the name of the input being run
 * is printed first (from the SIGABRT handler, or from __asan_on_error under
 * AddressSanitizer), then the process dies as the harness wanted. Exit
 * status: 0 when every input ran, 2 for a usage error or an unreadable
 * input.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*entry_fn)(const uint8_t *data, size_t size);

int fuzz_read_entry(const uint8_t *data, size_t size);
int fuzz_stream_entry(const uint8_t *data, size_t size);
int fuzz_roundtrip_entry(const uint8_t *data, size_t size);
#ifdef FUZZ_WITH_IMPORT
int fuzz_import_entry(const uint8_t *data, size_t size);
#endif
#ifdef FUZZ_WITH_GRAPH
int fuzz_graph_entry(const uint8_t *data, size_t size);
#endif
int fuzz_malloc_host_entry(const uint8_t *data, size_t size);
#ifdef FUZZ_WITH_CORE
int fuzz_core_entry(const uint8_t *data, size_t size);
#endif

static const struct harness {
    const char *name;
    entry_fn fn;
} harnesses[] = {
    {"fuzz_read", fuzz_read_entry},
    {"fuzz_stream", fuzz_stream_entry},
    {"fuzz_roundtrip", fuzz_roundtrip_entry},
#ifdef FUZZ_WITH_IMPORT
    {"fuzz_import", fuzz_import_entry},
#endif
#ifdef FUZZ_WITH_GRAPH
    {"fuzz_graph", fuzz_graph_entry},
#endif
    {"fuzz_malloc_host", fuzz_malloc_host_entry},
#ifdef FUZZ_WITH_CORE
    {"fuzz_core", fuzz_core_entry},
#endif
};
#define NHARNESSES (sizeof harnesses / sizeof harnesses[0])

/* The input being run, for the crash message (written before each run). */
static char current[4096];
static int verbose;

static void say_current(void)
{
    static const char pre[] = "replay: the failing input is ";
    ssize_t w = write(STDERR_FILENO, pre, sizeof pre - 1);
    w = write(STDERR_FILENO, current, strlen(current));
    w = write(STDERR_FILENO, "\n", 1);
    (void)w;
}

static void on_abort(int sig)
{
    say_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Called by AddressSanitizer when it finds an error (if it is linked). */
void __asan_on_error(void);
void __asan_on_error(void)
{
    say_current();
}

static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    /* An exact-size copy, so that a read past the end is caught. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    *data = exact;
    *size = len;
    return 0;
}

static int run_file(const struct harness *h, const char *path)
{
    uint8_t *data;
    size_t size;
    if (read_file(path, &data, &size) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    snprintf(current, sizeof current, "%s (harness %s)", path, h->name);
    if (verbose)
        fprintf(stderr, "replay: %s %s (%zu bytes)\n", h->name, path, size);
    h->fn(data, size);
    free(data);
    return 0;
}

/* dir + "/" + name into out (cap bytes); returns -1 if it does not fit. */
static int join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    if (a + 1 + b + 1 > cap)
        return -1;
    memcpy(out, dir, a);
    out[a] = '/';
    memcpy(out + a + 1, name, b + 1);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs h over every regular file of dir, in name order. Returns the count,
 * or -1. */
static long run_dir(const struct harness *h, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        names[n] = strdup(de->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    long count = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        if (join(path, sizeof path, dir, names[i]) != 0) {
            count = -1;
        } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(h, path) != 0)
                count = -1;
            else if (count >= 0)
                count++;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: replay [-v] DIR...\n"
               "       replay [-v] -H HARNESS FILE...\n"
               "       replay -l\n");
}

int main(int argc, char **argv)
{
    signal(SIGABRT, on_abort);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int i = 1;
    if (i < argc && strcmp(argv[i], "-v") == 0) {
        verbose = 1;
        i++;
    }
    if (i < argc && strcmp(argv[i], "-l") == 0) {
        for (size_t k = 0; k < NHARNESSES; k++)
            printf("%s\n", harnesses[k].name);
        return 0;
    }
    if (i < argc && strcmp(argv[i], "-H") == 0) {
        if (i + 2 > argc) {
            usage(stderr);
            return 2;
        }
        const struct harness *h = NULL;
        for (size_t k = 0; k < NHARNESSES; k++)
            if (strcmp(harnesses[k].name, argv[i + 1]) == 0)
                h = &harnesses[k];
        if (!h) {
            fprintf(stderr, "replay: no harness named %s\n", argv[i + 1]);
            return 2;
        }
        int bad = 0;
        for (int k = i + 2; k < argc; k++)
            bad |= run_file(h, argv[k]) != 0;
        printf("replay: %s: %d inputs\n", h->name, argc - i - 2);
        return bad ? 2 : 0;
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    int bad = 0;
    for (; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0 && errno == ENOENT) {
            printf("replay: %s: none\n", argv[i]); /* no crashes yet */
            continue;
        }
        if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "replay: %s: not a directory\n", argv[i]);
            bad = 1;
            continue;
        }
        for (size_t k = 0; k < NHARNESSES; k++) {
            char dir[4096];
            long c = join(dir, sizeof dir, argv[i], harnesses[k].name) == 0
                         ? run_dir(&harnesses[k], dir)
                         : -1;
            if (c < 0) {
                fprintf(stderr, "replay: %s: cannot read every input\n", dir);
                bad = 1;
            } else {
                printf("replay: %-16s %5ld inputs from %s\n",
                       harnesses[k].name, c, argv[i]);
            }
        }
    }
    return bad ? 2 : 0;
}
