#!/usr/bin/env python3
"""extmem.py -- heapfmt-graph dominators in memory and with --temp-dir
(issue 39: a heap larger than the machine), at one size, in one run.

    bench/extmem.py [--build DIR] [--objects N] [--runs R] [--dir DIR]
                    [--limit BYTES]

Writes a heapfmt-gen dump of N objects (-s 1, default 10,000,000) into
DIR (default build/bench), then runs both paths R times interleaved
(in memory, external, in memory, ...) under bench/measure (wall, user,
system, peak RSS of the child alone), checks that their rows are equal,
and prints per path the median B/object (peak RSS over N), CPU ns/object,
wall, and the ratios external / in memory, with the temporary disk the
external path used (HEAPFMT_EXTMEM_STATS) and the load average.
The target of issue 39: the external path's peak well below the
in-memory one (the design's 18 B/object against 46), at a CPU cost
within 2x.

--limit BYTES runs each path in a cgroup v1 memory group
(/sys/fs/cgroup/memory/heapfmt-bench-PID, memory.limit_in_bytes and
memory.memsw.limit_in_bytes; root only), removed at the end: a path
that goes past the limit is killed (exit 137), which is what the
100M-object measurement of docs/performance.md shows for the in-memory
path. The dump is removed at the end unless --keep.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

CG_ROOT = "/sys/fs/cgroup/memory"


def measure(build, report, argv, env=None, cgroup=None):
    """Runs argv under measure; returns (exit, wall, user, sys, rss_kib,
    stdout, stderr)."""
    pre = []
    if cgroup:
        # the child joins the group before it execs measure
        pre = ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup]
    p = subprocess.run(pre + [os.path.join(build, "bench", "measure"), report]
                       + argv, capture_output=True, env=env)
    with open(report) as f:
        fields = f.read().split()
    code, wall, user, system, rss = (int(fields[0]), float(fields[1]),
                                     float(fields[2]), float(fields[3]),
                                     int(fields[4]))
    return code, wall, user, system, rss, p.stdout, p.stderr.decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--objects", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    out = a.dir or os.path.join(a.build, "bench")
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, "extmem-tmp")
    os.makedirs(tmp, exist_ok=True)
    dump = os.path.join(out, "extmem-%d.hfd" % a.objects)
    report = os.path.join(out, "extmem.report")
    n = a.objects
    subprocess.run([os.path.join(a.build, "bin", "heapfmt-gen"), "-n", str(n),
                    "-s", "1", "-o", dump], check=True)
    graph = os.path.join(a.build, "bin", "heapfmt-graph")
    cases = {"memory": [graph, "dominators", "-f", "tsv", dump],
             "external": [graph, "dominators", "-f", "tsv", "--temp-dir", tmp,
                          dump]}
    env = dict(os.environ, HEAPFMT_EXTMEM_STATS="1")
    cgroup = None
    if a.limit:
        cgroup = os.path.join(CG_ROOT, "heapfmt-bench-%d" % os.getpid())
        os.mkdir(cgroup)
        for knob in ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"):
            path = os.path.join(cgroup, knob)
            if os.path.exists(path):
                with open(path, "w") as f:
                    f.write(str(a.limit))
    results = {k: [] for k in cases}
    rows = {}
    disk = 0
    load = []
    try:
        for _ in range(a.runs):
            for name, argv in cases.items():
                load.append(os.getloadavg()[0])
                r = measure(a.build, report, argv, env, cgroup)
                results[name].append(r)
                if r[0] in (0, 3):
                    rows.setdefault(name, r[5])
                m = re.search(r"temporary files: (\d+) bytes", r[6])
                if m:
                    disk = max(disk, int(m.group(1)))
    finally:
        if cgroup:
            os.rmdir(cgroup)
        if not a.keep:
            os.unlink(dump)
    print("heapfmt-graph dominators, %s heapfmt-gen objects, median of %d "
          "runs, load average %.1f-%.1f%s" %
          (format(n, ","), a.runs, min(load), max(load),
           ", cgroup limit %s bytes" % format(a.limit, ",") if a.limit else ""))
    print("%-9s %5s %10s %12s %9s %12s" %
          ("path", "exit", "B/object", "CPU ns/obj", "wall s", "peak KiB"))
    med = {}
    for name, rs in results.items():
        codes = sorted({r[0] for r in rs})
        rss = statistics.median(r[4] for r in rs)
        cpu = statistics.median(r[2] + r[3] for r in rs)
        wall = statistics.median(r[1] for r in rs)
        med[name] = (rss, cpu, wall)
        print("%-9s %5s %10.1f %12.0f %9.1f %12d" %
              (name, ",".join(map(str, codes)), rss * 1024 / n, cpu * 1e9 / n,
               wall, rss))
    m, x = med["memory"], med["external"]
    print("external / memory: peak RSS %.2fx, CPU %.2fx, wall %.2fx; "
          "temporary disk %.1f B/object (%s bytes)" %
          (x[0] / m[0], x[1] / m[1], x[2] / m[2], disk / n, format(disk, ",")))
    if "memory" in rows and "external" in rows:
        same = rows["memory"] == rows["external"]
        print("rows equal: %s" % ("yes" if same else "NO"))
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
