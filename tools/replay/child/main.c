/* main.c -- heapfmt-replay-child: one replay, under the allocator this
 * process was started with (run.h). heapfmt-replay executes it once per
 * allocator; it is built without sanitizers whatever the build, as the
 * malloc tracker is: an allocator under test and AddressSanitizer's
 * malloc cannot both serve the process.
 *
 *   heapfmt-replay-child PROGRAM_FD|probe RESULT_FD MAX_RSS */
#include "run.h"

int main(int argc, char **argv)
{
    return run_child(argc - 1, argv + 1);
}
