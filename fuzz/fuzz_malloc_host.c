/*
 * fuzz_malloc_host.c -- the malloc tracker's dealings with its host
 * process, driven by sequences of host events: the host opens pipes and
 * files, closes numbers it owns and numbers it does not (a daemon's close
 * of everything), dup2s over any number, writes its data; meanwhile the
 * tracker opens, writes and closes a dump file (hm_host.c), dump requests
 * arrive as signals (hm_wake.c) and the clock moves (hm_schedule); the
 * input also names a dump signal (hm_config.c's rules).
 *
 * Input layout:
 *   byte 0      bit 0: the tracker's file is handled on a thread with a
 *               private descriptor table (hm_fd_private), as the tracker
 *               does; else in the host's table, as where the kernel
 *               refuses one (the checked fallback);
 *               bits 1-3: the dump interval in seconds (0: none); the
 *               clock moves in quarter seconds
 *   bytes       a signal name or number, up to a NUL (at most 24)
 *   the rest    events, two bytes each: the event, and its argument
 *
 * What must hold, checked after every event and at the end:
 *   - every descriptor number the host holds still names the object it
 *     put there (the tracker never closes or replaces a host number);
 *   - every pipe and file of the host holds exactly the bytes the host
 *     wrote (the tracker never writes into, or reads from, the host's
 *     objects), read back through descriptors above the event range;
 *   - the tracker's file holds exactly the chunks whose writes succeeded;
 *     with a private table every write succeeds whatever the host does;
 *     once the file is lost, no write succeeds;
 *   - the descriptors open at the end are those open at the start;
 *   - a dump is due exactly when one was asked for since the last step
 *     or the interval's deadline passed; no request is lost; the next
 *     deadline lies after now and within one interval; waits with a past
 *     deadline return at once and never fail;
 *   - a signal accepted as the dump signal is USR1, USR2 or real-time; the
 *     fault and termination signals are refused by name and number, with
 *     a reason; a signal's name parses back to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "hm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Host events act on numbers in [LO, HI); the harness's own descriptors
 * (to read the host's objects back) live at VERIFY and above. */
#define LO 3
#define HI 64
#define VERIFY 200
#define MAX_OBJECTS 24
#define MAX_BYTES 512

enum { EV_PIPE, EV_FILE, EV_CLOSE_OWN, EV_CLOSE_ANY, EV_CLOSE_ALL, EV_DUP2,
       EV_WRITE, EV_T_OPEN, EV_T_WRITE, EV_T_CLOSE, EV_POST, EV_RAISE,
       EV_TICK, EV_WAIT, EV_COUNT };

typedef struct object {
    int used;
    int is_pipe;
    int verify;    /* read end (pipe) or a duplicate (file), >= VERIFY */
    dev_t dev;
    ino_t ino;
    uint8_t expect[MAX_BYTES];
    size_t n;
    int overflow;  /* the pipe refused bytes (full): stop checking it */
} object;

typedef struct host {
    int owner[HI];  /* object + 1 at a number the host holds, else 0 */
    int writable[HI];
    object obj[MAX_OBJECTS];
    char baseline[HI]; /* numbers open before the input (the fuzzer's) */
} host;

static int is_open(int fd) {
    return fcntl(fd, F_GETFD) != -1;
}

static int hi_dup(int fd) {
    return fcntl(fd, F_DUPFD_CLOEXEC, VERIFY);
}

static int new_object(host *h) {
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (!h->obj[i].used) {
            memset(&h->obj[i], 0, sizeof h->obj[i]);
            h->obj[i].used = 1;
            return i;
        }
    return -1;
}

/* The host lost number fd (it closed it, or dup2'd over it). */
static void forget(host *h, int fd) {
    h->owner[fd] = 0;
    h->writable[fd] = 0;
}

static void adopt(host *h, int fd, int obj, int writable) {
    FZ_CHECK(fd >= LO && fd < HI, "host got descriptor %d, outside the range", fd);
    h->owner[fd] = obj + 1;
    h->writable[fd] = writable;
}

/* Every number the host holds names its object still. */
static void check_numbers(const host *h) {
    for (int fd = LO; fd < HI; fd++) {
        if (!h->owner[fd])
            continue;
        const object *o = &h->obj[h->owner[fd] - 1];
        struct stat st;
        FZ_CHECK(fstat(fd, &st) == 0, "host descriptor %d was closed under it", fd);
        FZ_CHECK(st.st_dev == o->dev && st.st_ino == o->ino,
                 "host descriptor %d names another file now", fd);
    }
}

static void check_contents(host *h) {
    for (int i = 0; i < MAX_OBJECTS; i++) {
        object *o = &h->obj[i];
        if (!o->used)
            continue;
        uint8_t buf[MAX_BYTES + 64];
        ssize_t n;
        if (o->is_pipe) {
            n = read(o->verify, buf, sizeof buf);
            if (n < 0 && errno == EAGAIN)
                n = 0;
        } else {
            n = pread(o->verify, buf, sizeof buf, 0);
        }
        FZ_CHECK(n >= 0, "host object %d unreadable: %s", i, strerror(errno));
        FZ_CHECK(o->overflow || ((size_t)n == o->n && memcmp(buf, o->expect, o->n) == 0),
                 "host object %d (%s) holds %zd bytes, the host wrote %zu",
                 i, o->is_pipe ? "pipe" : "file", n, o->n);
        close(o->verify);
        o->used = 0;
    }
}

/* ---- the tracker's side, on the calling thread or a private one ---- */

typedef struct tracker {
    int private_table;
    hm_file f;
    int open;
    char path[128];
    uint8_t written[MAX_BYTES];
    size_t n;
    int ever_lost;
    /* the worker */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int op, arg, done, quit;
    int private_ok; /* the kernel gave the thread a private table */
} tracker;

static void tracker_do(tracker *t, int op, int arg) {
    switch (op) {
    case EV_T_OPEN:
        if (t->open)
            break;
        if (hm_file_open(&t->f, t->path, 0) == 0) {
            t->open = 1;
            t->n = 0;
            t->ever_lost = 0;
        }
        break;
    case EV_T_WRITE: {
        if (!t->open)
            break;
        uint8_t chunk[16];
        size_t len = 1 + (size_t)arg % sizeof chunk;
        memset(chunk, 'T', len);
        if (t->n + len > MAX_BYTES)
            break;
        long w = hm_file_write(&t->f, chunk, len);
        if (w > 0) {
            FZ_CHECK(!t->ever_lost, "the tracker wrote after losing its file");
            memcpy(t->written + t->n, chunk, (size_t)w);
            t->n += (size_t)w;
        } else {
            FZ_CHECK(w == -EBADF, "tracker write failed: %ld", w);
            FZ_CHECK(!t->private_ok, "a private table lost the tracker's file");
            t->ever_lost = 1;
        }
        break;
    }
    case EV_T_CLOSE:
        if (!t->open)
            break;
        hm_file_close(&t->f);
        t->open = 0;
        /* what the file holds is what was written, nothing else */
        int fd = open(t->path, O_RDONLY | O_CLOEXEC);
        FZ_CHECK(fd >= 0, "the tracker's file is gone");
        uint8_t buf[MAX_BYTES + 64];
        ssize_t n = read(fd, buf, sizeof buf);
        close(fd);
        FZ_CHECK(n == (ssize_t)t->n && memcmp(buf, t->written, t->n) == 0,
                 "the tracker's file holds %zd bytes, %zu were written", n, t->n);
        break;
    default:
        break;
    }
}

static void *tracker_main(void *arg) {
    tracker *t = arg;
    t->private_ok = hm_fd_private();
    pthread_mutex_lock(&t->lock);
    for (;;) {
        t->done = 1;
        pthread_cond_broadcast(&t->cond);
        while (t->done && !t->quit)
            pthread_cond_wait(&t->cond, &t->lock);
        if (t->quit)
            break;
        tracker_do(t, t->op, t->arg);
    }
    if (t->open)
        tracker_do(t, EV_T_CLOSE, 0);
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

static void tracker_call(tracker *t, int op, int arg) {
    if (!t->private_table) {
        tracker_do(t, op, arg);
        return;
    }
    pthread_mutex_lock(&t->lock);
    t->op = op;
    t->arg = arg;
    t->done = 0;
    pthread_cond_broadcast(&t->cond);
    while (!t->done)
        pthread_cond_wait(&t->cond, &t->lock);
    pthread_mutex_unlock(&t->lock);
}

/* ---- the signal rules ---- */

static void check_signal(const char *spec) {
    static const int never[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
                                SIGKILL, SIGSTOP, SIGTRAP, SIGSYS, SIGTERM,
                                SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE,
                                SIGXFSZ, SIGXCPU, SIGCONT, SIGTSTP};
    int sig = hm_parse_signal(spec);
    FZ_CHECK(sig >= -1 && sig <= SIGRTMAX, "'%s' parsed as %d", spec, sig);
    char msg[200];
    memset(msg, 'x', sizeof msg);
    int got = hm_signal_explain(spec, msg, sizeof msg);
    FZ_CHECK(memchr(msg, 0, sizeof msg) != NULL || got >= 0, "message not terminated");
    if (got >= 0) {
        FZ_CHECK(got == sig, "explain gave %d, parse %d", got, sig);
        FZ_CHECK(got == 0 || got == SIGUSR1 || got == SIGUSR2 ||
                     (got >= SIGRTMIN && got <= SIGRTMAX),
                 "'%s' (%d) accepted as the dump signal", spec, got);
        for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
            FZ_CHECK(got != never[i], "signal %d accepted", got);
    } else {
        FZ_CHECK(msg[0] != 0 && strlen(msg) < sizeof msg, "refusal without a reason");
        FZ_CHECK(sig < 0 || hm_signal_refused(sig) != NULL || sig == 0,
                 "'%s' refused though %d is allowed", spec, sig);
    }
    if (sig > 0) {
        char name[32];
        hm_signal_name(sig, name, sizeof name);
        if (strncmp(name, "SIG", 3) == 0)
            FZ_CHECK(hm_parse_signal(name) == sig, "%s does not parse back to %d", name, sig);
    }
}

/* ---- requests and the schedule ---- */

static void on_dump_signal(int sig) {
    (void)sig;
    hm_wake_post();
}

typedef struct sched_model {
    hm_schedule s;
    uint64_t now, interval;
    int requested; /* a post since the last take */
    unsigned posts, dues, interval_dues;
} sched_model;

static void tick(sched_model *m, unsigned ticks) {
    m->now += (uint64_t)ticks * 250000000u; /* quarter seconds */
    uint64_t deadline = hm_schedule_deadline(&m->s);
    int r = hm_wake_take();
    FZ_CHECK(r == m->requested, "take gave %d, %d requests pending", r, m->requested);
    m->requested = 0;
    int due = hm_schedule_due(&m->s, m->now, r);
    int by_deadline = m->interval != 0 && m->now >= deadline;
    FZ_CHECK(due == (r || by_deadline), "due %d, requested %d, deadline passed %d",
             due, r, by_deadline);
    uint64_t next = hm_schedule_deadline(&m->s);
    if (m->interval == 0) {
        FZ_CHECK(next == 0, "a deadline without an interval");
    } else if (by_deadline) {
        FZ_CHECK(next > m->now && next <= m->now + m->interval,
                 "next deadline %llu not within (now, now + interval]",
                 (unsigned long long)next);
        m->interval_dues++;
    } else {
        FZ_CHECK(next == deadline, "the deadline moved without passing");
    }
    m->dues += (unsigned)due;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_dump_signal;
        sigaction(SIGRTMIN + 7, &sa, NULL);
        installed = 1;
    }
    fz_in in = {data, size};
    uint8_t mode = fz_u8(&in);
    char spec[25];
    size_t k = 0;
    while (in.n > 0 && k < sizeof spec - 1) {
        uint8_t c = fz_u8(&in);
        if (c == 0)
            break;
        spec[k++] = (char)c;
    }
    spec[k] = 0;
    check_signal(spec);

    static host h;
    memset(&h, 0, sizeof h);
    for (int fd = LO; fd < HI; fd++)
        h.baseline[fd] = (char)is_open(fd);

    static tracker t;
    memset(&t, 0, sizeof t);
    t.private_table = mode & 1;
    snprintf(t.path, sizeof t.path, "%s/fuzz-malloc-host-%ld",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
    if (t.private_table) {
        pthread_mutex_init(&t.lock, NULL);
        pthread_cond_init(&t.cond, NULL);
        t.done = 0;
        if (pthread_create(&t.thread, NULL, tracker_main, &t) != 0)
            fz_fail("no tracker thread");
        pthread_mutex_lock(&t.lock);
        while (!t.done)
            pthread_cond_wait(&t.cond, &t.lock);
        pthread_mutex_unlock(&t.lock);
    }

    sched_model m = {.interval = (uint64_t)((mode >> 1) & 7) * 1000000000u};
    hm_wake_init();
    hm_schedule_init(&m.s, (mode >> 1) & 7, 0);

    while (in.n >= 2) {
        int ev = fz_u8(&in) % EV_COUNT;
        int arg = fz_u8(&in);
        switch (ev) {
        case EV_PIPE: {
            int o = new_object(&h), p[2];
            if (o < 0 || pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
                if (o >= 0)
                    h.obj[o].used = 0;
                break;
            }
            struct stat st;
            fstat(p[0], &st);
            h.obj[o].is_pipe = 1;
            h.obj[o].dev = st.st_dev;
            h.obj[o].ino = st.st_ino;
            h.obj[o].verify = hi_dup(p[0]);
            FZ_CHECK(h.obj[o].verify >= VERIFY, "no verify descriptor");
            if (p[0] >= HI || p[1] >= HI) { /* out of the range: not the host's */
                close(p[0]);
                close(p[1]);
                close(h.obj[o].verify);
                h.obj[o].used = 0;
                break;
            }
            adopt(&h, p[0], o, 0);
            adopt(&h, p[1], o, 1);
            break;
        }
        case EV_FILE: {
            int o = new_object(&h);
            if (o < 0)
                break;
            int fd = memfd_create("host", MFD_CLOEXEC);
            struct stat st;
            if (fd < 0 || fd >= HI || fstat(fd, &st) != 0) {
                if (fd >= 0)
                    close(fd);
                h.obj[o].used = 0;
                break;
            }
            h.obj[o].dev = st.st_dev;
            h.obj[o].ino = st.st_ino;
            h.obj[o].verify = hi_dup(fd);
            adopt(&h, fd, o, 1);
            break;
        }
        case EV_CLOSE_OWN: {
            int fd = LO + arg % (HI - LO);
            if (h.owner[fd]) {
                close(fd);
                forget(&h, fd);
            }
            break;
        }
        case EV_CLOSE_ANY: { /* a number the host may not own: the tracker's */
            int fd = LO + arg % (HI - LO);
            if (!h.baseline[fd]) {
                close(fd);
                forget(&h, fd);
            }
            break;
        }
        case EV_CLOSE_ALL:
            for (int fd = LO; fd < HI; fd++)
                if (!h.baseline[fd]) {
                    close(fd);
                    forget(&h, fd);
                }
            break;
        case EV_DUP2: { /* one of the host's numbers over any number */
            int to = LO + arg % (HI - LO);
            int from = -1;
            for (int i = 0; i < HI - LO && from < 0; i++)
                if (h.owner[LO + (arg / 2 + i) % (HI - LO)])
                    from = LO + (arg / 2 + i) % (HI - LO);
            if (from < 0 || from == to || h.baseline[to])
                break;
            if (dup2(from, to) == to) {
                forget(&h, to);
                adopt(&h, to, h.owner[from] - 1, h.writable[from]);
            }
            break;
        }
        case EV_WRITE: {
            int fd = -1;
            for (int i = 0; i < HI - LO; i++) {
                int c = LO + (arg + i) % (HI - LO);
                if (h.owner[c] && h.writable[c]) {
                    fd = c;
                    break;
                }
            }
            if (fd < 0)
                break;
            object *o = &h.obj[h.owner[fd] - 1];
            uint8_t bytes[8];
            size_t len = 1 + (size_t)arg % sizeof bytes;
            if (o->n + len > MAX_BYTES)
                break;
            for (size_t i = 0; i < len; i++)
                bytes[i] = (uint8_t)('a' + (o->n + i) % 26);
            ssize_t w = write(fd, bytes, len);
            if (w > 0) {
                memcpy(o->expect + o->n, bytes, (size_t)w);
                o->n += (size_t)w;
            } else {
                o->overflow = 1;
            }
            break;
        }
        case EV_T_OPEN:
        case EV_T_WRITE:
        case EV_T_CLOSE:
            tracker_call(&t, ev, arg);
            break;
        case EV_POST:
            hm_wake_post();
            m.requested = 1;
            m.posts++;
            break;
        case EV_RAISE:
            raise(SIGRTMIN + 7);
            m.requested = 1;
            m.posts++;
            break;
        case EV_TICK:
            tick(&m, (unsigned)arg % 32);
            break;
        case EV_WAIT: {
            /* a deadline already past: returns at once, a post or not */
            FZ_CHECK(hm_wake_wait(1) == 0, "a wait failed");
            break;
        }
        default:
            break;
        }
        check_numbers(&h);
    }
    tick(&m, 0);
    FZ_CHECK(m.dues <= m.posts + m.interval_dues, "%u dumps for %u requests and %u deadlines",
             m.dues, m.posts, m.interval_dues);

    if (t.private_table) {
        pthread_mutex_lock(&t.lock);
        t.quit = 1;
        pthread_cond_broadcast(&t.cond);
        pthread_mutex_unlock(&t.lock);
        pthread_join(t.thread, NULL);
        pthread_mutex_destroy(&t.lock);
        pthread_cond_destroy(&t.cond);
    } else if (t.open) {
        tracker_do(&t, EV_T_CLOSE, 0);
    }
    unlink(t.path);

    check_numbers(&h);
    for (int fd = LO; fd < HI; fd++)
        if (h.owner[fd]) {
            close(fd);
            forget(&h, fd);
        }
    check_contents(&h);
    for (int fd = LO; fd < HI; fd++)
        FZ_CHECK(is_open(fd) == h.baseline[fd], "descriptor %d %s at the end", fd,
                 h.baseline[fd] ? "closed" : "left open");
    return 0;
}
