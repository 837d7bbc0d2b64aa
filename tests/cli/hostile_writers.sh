#!/usr/bin/env bash
# hostile_writers.sh -- tests/cli/hostile.sh for the tools that write a
# dump from another format: heapfmt-import on its fixtures and every 8th
# input of the fuzz_import corpus, heapfmt-core on every second core of
# the fuzz_core corpus (no crash, no hang, the CPU and memory limits, a
# dump of at most 16 bytes per byte of input plus 1 MiB); hostile.sh
# itself covers the reading tools.
HOSTILE_PART=writers exec bash "$(dirname "$0")/hostile.sh"
