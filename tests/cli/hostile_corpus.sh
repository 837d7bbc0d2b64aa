#!/usr/bin/env bash
# hostile_corpus.sh -- tests/cli/hostile.sh over every 8th dump of the
# fuzz_read corpus (damaged, cut and odd dumps the fuzzer kept); hostile.sh
# itself covers the fixtures.
HOSTILE_PART=corpus exec bash "$(dirname "$0")/hostile.sh"
