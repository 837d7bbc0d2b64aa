#!/usr/bin/env bash
# export_mongo.sh -- heapfmt-export's MongoDB output checked with pymongo's
# bson module, and the aggregation pipelines of docs/mongodb.md checked
# against histo: tests/export/check_mongo.py does the work.
#
# Needs a python3 with the bson module (Debian python3-pymongo, installed by
# scripts/install-deps.sh). Without one the test is skipped, except in CI
# (CI=true), where that is a failure.
. "$(dirname "$0")/lib.bash"

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

find_bson_python
if [ -z "$py" ]; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: no python3 with the bson module (python3-pymongo)" >&2
        exit 1
    fi
    echo "SKIP: no python3 with the bson module; run scripts/install-deps.sh"
    exit 0
fi

# The pipelines are read from the documentation itself: the blocks after
# the "<!-- pipeline: NAME -->" markers of docs/mongodb.md.
docs=$repo/docs/mongodb.md
grep -q '<!-- pipeline: histogram -->' "$docs" ||
    { echo "FAIL: no documented pipelines found in $docs" >&2; exit 1; }

run "$py" "$repo/tests/export/check_mongo.py" --bin "$BIN" \
    --docs "$docs" --tmp "$TMPDIR"
expect_success "check_mongo.py"
printf '%s\n' "$out"
finish
