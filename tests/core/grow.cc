// grow.cc -- a process that leaks by class over time, for heapfmt-core's
// "two cores minutes apart" test (tests/cli/core.sh):
//
//     grow STEPS N
//
// Each step keeps N more Session objects (in a global std::vector: a
// growing cache) and drops N Buffer objects (leaked), then stops itself
// (SIGSTOP) until continued: a dump at each stop shows +N Sessions held
// and +N Buffers leaked since the last one.
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "scrub_stack.h"

struct Session {
    virtual ~Session() {}
    virtual int id() const { return n; }
    int n = 0;
    char name[48] = "session";
};

struct Buffer {
    virtual ~Buffer() {}
    virtual size_t size() const { return sizeof data; }
    char data[200];
};

std::vector<Session *> cache;
Buffer *volatile last;

static void __attribute__((noinline)) step(int n)
{
    for (int i = 0; i < n; i++) {
        cache.push_back(new Session);
        last = new Buffer;
    }
    last = nullptr;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int steps = std::atoi(argv[1]), n = std::atoi(argv[2]);
    cache.reserve((size_t)steps * n);
    for (int s = 0; s < steps; s++) {
        step(n);
        scrub_stack();
        std::raise(SIGSTOP);
    }
    return cache.empty();
}
