// cxx3.cc -- C++ objects of three polymorphic classes, in known numbers,
// for heapfmt-core's class names (tests/cli/core.sh):
//
//     cxx3 A B C
//
// A objects of shapes::Circle held in a std::map, B of Square<int> held
// in a std::vector of pointers, C of (anonymous namespace) Triangle
// leaked (their pointers dropped); then the program stops itself
// (SIGSTOP). histo by class must give A, B and C exactly, with the
// demangled names, whether the program has its symbols or is stripped
// (then the names come from RTTI).
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "scrub_stack.h"

namespace shapes {
struct Shape {
    virtual ~Shape() {}
    virtual double area() const = 0;
    double x = 1, y = 2;
};
struct Circle : Shape {
    double r = 3;
    double area() const override { return 3.14159 * r * r; }
};
} // namespace shapes

template <typename T> struct Square : shapes::Shape {
    T side = 4;
    double area() const override { return double(side) * side; }
};

namespace {
struct Triangle : shapes::Shape {
    double b = 5, h = 6;
    double area() const override { return b * h / 2; }
};
} // namespace

std::map<int, shapes::Circle *> circles;   // global: reachable
std::vector<Square<int> *> *squares;       // through a heap vector

// Where each Triangle escapes to, then is dropped: the compiler cannot
// drop the objects' construction.
shapes::Shape *volatile sink;

static void __attribute__((noinline)) leak(int n)
{
    for (int i = 0; i < n; i++) {
        sink = new Triangle;
        sink = nullptr;
    }
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int a = std::atoi(argv[1]), b = std::atoi(argv[2]), c = std::atoi(argv[3]);
    for (int i = 0; i < a; i++)
        circles[i] = new shapes::Circle;
    squares = new std::vector<Square<int> *>;
    squares->reserve(b);
    for (int i = 0; i < b; i++)
        squares->push_back(new Square<int>);
    leak(c);
    scrub_stack();
    std::raise(SIGSTOP);
    return circles.size() + squares->size() == 0;
}
