#!/bin/sh
# attach_run.sh -- malloc_bench with the tracker attached before its work
# (heapfmt-malloc -p), for bench.py's attached-against-launched case.
# Usage: attach_run.sh HEAPFMT-MALLOC MALLOC_BENCH ROUNDS DIR
# The whole run's CPU time is the bench's figure: the program's, and the
# attach's (a few milliseconds).
hm=$1 prog=$2 rounds=$3 dir=$4
go=$dir/go.$$
"$prog" "$rounds" "$go" &
bench=$!
i=0
while [ ! -s "$go.pid" ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done
"$hm" -p "$bench" --mode=exact --no-exit-dump -t 60 || { kill "$bench"; exit 1; }
touch "$go"
wait "$bench"
rc=$?
rm -f "$go" "$go.pid"
exit $rc
