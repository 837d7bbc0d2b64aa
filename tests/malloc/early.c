/* early.c -- a library whose constructor allocates before the tracker's
 * has run (preloaded after it, it is initialised first): the tracker's
 * hooks must find the real allocator on their own at that moment, as
 * they do when dlsym itself allocates, without recursion or deadlock.
 * Built by tests/cli/malloc.sh. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static void *volatile kept;

__attribute__((constructor)) static void early_start(void) {
    char *p = malloc(100);
    if (p == NULL)
        abort();
    memset(p, 1, 100);
    p = realloc(p, 5000);
    kept = calloc(10, 10);
    free(p);
    /* dlopen and a failing dlsym allocate inside the loader */
    void *h = dlopen("libm.so.6", RTLD_NOW);
    if (h == NULL || dlsym(h, "no_such_symbol_here") != NULL)
        abort();
    dlclose(h);
}
