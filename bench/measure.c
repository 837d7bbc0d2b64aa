/* measure.c -- run a command and report its wall time, CPU time and peak
 * RSS, for bench/bench.py.
 *
 * Usage: measure REPORT COMMAND [ARG]...
 *
 * Forks, runs COMMAND in the child (standard input, output and error are
 * inherited) and waits for it with wait4(2). Then writes one line to the
 * file REPORT:
 *     exit wall_s user_s sys_s maxrss_kib
 * and exits with the command's status (128 + signal if it was killed).
 *
 * Why not measure from Python directly: Linux charges a process's peak RSS
 * with the size of the process it was forked from (the memory it had
 * before exec), so every child of the Python driver would show at least
 * the driver's own RSS. This program is small, so its children's peaks are
 * their own (plus about a megabyte). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "Usage: measure REPORT COMMAND [ARG]...\n");
        return 2;
    }
    /* measure CMD ARG... by mistake would overwrite CMD with the report */
    if (access(argv[1], X_OK) == 0) {
        fprintf(stderr, "measure: %s: the report would overwrite an "
                        "executable (usage: measure REPORT COMMAND...)\n",
                argv[1]);
        return 2;
    }
    FILE *report = fopen(argv[1], "w");
    if (report == NULL) {
        fprintf(stderr, "measure: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "measure: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        fclose(report);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "measure: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "measure: wait4: %s\n", strerror(errno));
            return 2;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int code = WIFEXITED(status) ? WEXITSTATUS(status)
                                 : 128 + WTERMSIG(status);
    fprintf(report, "%d %.6f %.6f %.6f %ld\n", code,
            (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
            seconds(ru.ru_utime), seconds(ru.ru_stime), ru.ru_maxrss);
    if (fclose(report) != 0) {
        fprintf(stderr, "measure: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    return code;
}
