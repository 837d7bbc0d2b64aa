/*
 * test_writer_path.c -- heapfmt_writer_open_path: the dump appears under
 * its name only when finish succeeds (a temporary in the same directory,
 * renamed), a failed or abandoned writer leaves the file that was there,
 * and two writers of one path never mix their bytes (issue 31).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapfmt.h"
#include "tassert.h"
#include "tio.h"

#define OLD "not a dump: what was there before"

typedef struct tdir {
    char dir[4096];
    char path[4200];
} tdir;

/* A fresh directory under $TMPDIR, and path = DIR/name. */
static void tdir_make(tdir *d, const char *name)
{
    const char *t = getenv("TMPDIR");
    snprintf(d->dir, sizeof d->dir, "%s/wpath-XXXXXX", t && *t ? t : "/tmp");
    cr_assert_not_null(mkdtemp(d->dir));
    snprintf(d->path, sizeof d->path, "%s/%s", d->dir, name);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Entries of dir whose name begins with a dot (the temporaries). */
static int hidden_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 &&
            strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static int file_is(const char *path, const void *data, size_t len)
{
    unsigned char *got;
    size_t n;
    if (tread_file(path, &got, &n) != 0)
        return 0;
    int same = n == len && memcmp(got, data, len) == 0;
    free(got);
    return same;
}

static heapfmt_writer_options small_blocks(void)
{
    heapfmt_writer_options opt = HEAPFMT_WRITER_OPTIONS_INIT;
    opt.block_size = HEAPFMT_MIN_BLOCK_SIZE;
    return opt;
}

/* Objects first..first+n-1 of a dump whose ids depend on seed, flushed
 * every 50 objects so that they reach the file as they go. */
static int write_some(heapfmt_writer *w, uint64_t seed, int first, int n)
{
    uint32_t type;
    int rc = heapfmt_write_string(w, "T_OBJECT", 8, &type);
    for (int i = first; i < first + n && rc == HEAPFMT_OK; i++) {
        heapfmt_object o = {0};
        o.id = seed * 1000003u + (uint64_t)i * 40;
        o.class_id = 0x1000 + (uint64_t)(i % 7);
        o.type = type;
        o.size = 40 + (uint64_t)(i % 5) * 8;
        rc = heapfmt_write_object(w, &o);
        if (rc == HEAPFMT_OK && i % 50 == 49)
            rc = heapfmt_writer_flush(w);
    }
    return rc;
}

/* The bytes of the whole dump of seed, written to memory. */
static tbuf reference(uint64_t seed)
{
    tsink s;
    tsink_init(&s);
    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open(&w, &opt, tsink_write, &s));
    TASSERT_OK(write_some(w, seed, 0, 2000));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    return s.out;
}

static void expect_complete(const char *path, uint64_t objects)
{
    heapfmt_reader *r;
    TASSERT_OK(heapfmt_reader_open_path(&r, NULL, path));
    heapfmt_record rec;
    int rc;
    while ((rc = heapfmt_reader_next(r, &rec)) == HEAPFMT_OK)
        ;
    TASSERT_RC(rc, HEAPFMT_DONE);
    heapfmt_progress p;
    heapfmt_reader_progress(r, &p);
    cr_assert_eq(p.objects, objects);
    heapfmt_reader_free(r);
}

Test(writer_path, the_name_shows_the_dump_only_once_whole)
{
    tdir d;
    tdir_make(&d, "heap.hfd");
    put_file(d.path, OLD);
    tbuf ref = reference(1);
    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open_path(&w, &opt, d.path));
    TASSERT_OK(write_some(w, 1, 0, 1000));
    /* blocks were written, but to a hidden temporary beside the name */
    cr_assert(file_is(d.path, OLD, strlen(OLD)), "the old file was touched");
    cr_assert_eq(hidden_entries(d.dir), 1, "no temporary in the directory");
    TASSERT_OK(write_some(w, 1, 1000, 1000));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    cr_assert(file_is(d.path, ref.data, ref.len), "not the dump written");
    cr_assert_eq(hidden_entries(d.dir), 0, "the temporary stayed");
    expect_complete(d.path, 2000);
    tbuf_free(&ref);
}

Test(writer_path, a_writer_freed_without_finish_leaves_what_was_there)
{
    tdir d;
    tdir_make(&d, "heap.hfd");
    put_file(d.path, OLD);
    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open_path(&w, &opt, d.path));
    TASSERT_OK(write_some(w, 1, 0, 1000));
    heapfmt_writer_free(w);
    cr_assert(file_is(d.path, OLD, strlen(OLD)));
    cr_assert_eq(hidden_entries(d.dir), 0, "the temporary stayed");

    /* and no file at all when there was none */
    tdir e;
    tdir_make(&e, "new.hfd");
    TASSERT_OK(heapfmt_writer_open_path(&w, &opt, e.path));
    TASSERT_OK(write_some(w, 1, 0, 1000));
    heapfmt_writer_free(w);
    cr_assert_eq(access(e.path, F_OK), -1, "a dump never finished is there");
    cr_assert_eq(hidden_entries(e.dir), 0);
}

Test(writer_path, a_write_failure_leaves_what_was_there)
{
    tdir d;
    tdir_make(&d, "heap.hfd");
    put_file(d.path, OLD);
    /* files may grow to 8 KiB: the writes past it fail with EFBIG */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim = {8192, 8192};
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim.rlim_max = old.rlim_max;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    heapfmt_writer_options opt = small_blocks();
    opt.level = 0; /* stored: 2000 objects take more than 8 KiB */
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open_path(&w, &opt, d.path));
    int rc = write_some(w, 1, 0, 2000);
    if (rc == HEAPFMT_OK)
        rc = heapfmt_writer_finish(w);
    setrlimit(RLIMIT_FSIZE, &old);
    TASSERT_RC(rc, HEAPFMT_E_IO);
    cr_assert_eq(heapfmt_writer_error(w)->sys_errno, EFBIG);
    TASSERT_RC(heapfmt_writer_finish(w), HEAPFMT_E_IO);
    heapfmt_writer_free(w);
    cr_assert(file_is(d.path, OLD, strlen(OLD)), "half a dump replaced it");
    cr_assert_eq(hidden_entries(d.dir), 0, "the temporary stayed");
}

/* Two writers of one path, writing by turns (as two processes started
 * together do): the file holds the dump of whichever finished last, whole,
 * never a mix of blocks whose footer says it is complete. */
Test(writer_path, two_writers_of_one_path_do_not_mix)
{
    for (int last = 0; last < 2; last++) {
        tdir d;
        tdir_make(&d, "heap.hfd");
        tbuf ref[2] = {reference(1), reference(2)};
        heapfmt_writer_options opt = small_blocks();
        heapfmt_writer *w[2];
        TASSERT_OK(heapfmt_writer_open_path(&w[0], &opt, d.path));
        TASSERT_OK(heapfmt_writer_open_path(&w[1], &opt, d.path));
        for (int first = 0; first < 2000; first += 100) {
            TASSERT_OK(write_some(w[0], 1, first, 100));
            TASSERT_OK(write_some(w[1], 2, first, 100));
        }
        TASSERT_OK(heapfmt_writer_finish(w[1 - last]));
        TASSERT_OK(heapfmt_writer_finish(w[last]));
        heapfmt_writer_free(w[0]);
        heapfmt_writer_free(w[1]);
        cr_assert(file_is(d.path, ref[last].data, ref[last].len),
                  "the file is not the dump finished last");
        expect_complete(d.path, 2000);
        cr_assert_eq(hidden_entries(d.dir), 0);
        tbuf_free(&ref[0]);
        tbuf_free(&ref[1]);
    }
}

Test(writer_path, a_link_is_followed_and_kept)
{
    tdir d;
    tdir_make(&d, "target.hfd");
    put_file(d.path, OLD);
    cr_assert_eq(chmod(d.path, 0640), 0);
    char link[4300];
    snprintf(link, sizeof link, "%s/link.hfd", d.dir);
    cr_assert_eq(symlink("target.hfd", link), 0);
    tbuf ref = reference(3);
    heapfmt_writer_options opt = small_blocks();
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open_path(&w, &opt, link));
    TASSERT_OK(write_some(w, 3, 0, 2000));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    cr_assert(file_is(d.path, ref.data, ref.len), "the target is not the dump");
    cr_assert_eq(stat(d.path, &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
    tbuf_free(&ref);
}

Test(writer_path, what_is_not_a_regular_file_is_written_in_place)
{
    heapfmt_writer *w;
    TASSERT_OK(heapfmt_writer_open_path(&w, NULL, "/dev/null"));
    TASSERT_OK(write_some(w, 1, 0, 100));
    TASSERT_OK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    struct stat st;
    cr_assert_eq(stat("/dev/null", &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "/dev/null was replaced");

    tdir d;
    tdir_make(&d, "sub");
    cr_assert_eq(mkdir(d.path, 0755), 0);
    errno = 0;
    TASSERT_RC(heapfmt_writer_open_path(&w, NULL, d.path), HEAPFMT_E_IO);
    cr_assert_null(w);
    cr_assert_eq(errno, EISDIR, "errno %d", errno);
}
