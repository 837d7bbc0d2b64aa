#!/usr/bin/env bash
# hostile_crafted.sh -- tests/cli/hostile.sh over the dumps of
# tests/hostile/mkhostile (valid by checksum, hostile by meaning: lies,
# floods, amplifiers) and the cases of the adversarial runs by name
# (issues 15 and 31); hostile.sh itself covers the fixtures and the
# corpora.
HOSTILE_PART=crafted exec bash "$(dirname "$0")/hostile.sh"
