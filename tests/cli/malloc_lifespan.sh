#!/usr/bin/env bash
# malloc_lifespan.sh -- lifespans per call stack and per Ruby line (format
# 1.2 LIFESPAN records), on the seeds' redcarpet leak: a site whose blocks
# mostly die young while one in five never does, beside a site of pure
# churn and a cache of large young blocks (tests/malloc/redcarpet.c, and
# tests/malloc/redcarpet.rb through Fiddle). histo shows the frees, the
# mean lifetime and the oldest live block; heapfmt-diff --sort=oldest puts
# the leak first where new bytes put the cache.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMPDIR"
hm() { "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump "$@"; }
# tsv field of the row whose name column ($3 of histo one dump) matches
field() { # TSV-OUTPUT NAME-PREFIX COLUMN
    printf '%s\n' "$1" | awk -F '\t' -v p="$2" -v c="$3" \
        'index($3, p) == 1 { print $c; exit }'
}

${CC:-cc} -O1 -g -I"$root/libheapfmt-malloc" -o redcarpet \
    "$root/tests/malloc/redcarpet.c" || fail "build redcarpet.c"
CALLS=20000
run hm -- ./redcarpet $CALLS d1.hfd d2.hfd
expect_success "redcarpet.c under the tracker"
expect_out_has "$CALLS calls" "redcarpet.c ran"

# histo --by=frame: count bytes frame frees mean_life_us oldest_us
run "$BIN/histo" --by=frame -f tsv d2.hfd
expect_success "histo --by=frame"
head=$(printf '%s\n' "$out" | head -1)
[ "$head" = "$(printf 'count\tbytes\tframe\tfrees\tmean_life_us\toldest_us')" ] && pass ||
    fail "the lifespan columns: $head"
tsv=$out
# the leak beside churn: every call keeps one of 5 blocks
[ "$(field "$tsv" render_markdown 1)" = "$CALLS" ] && pass ||
    fail "render_markdown keeps $CALLS blocks: $(field "$tsv" render_markdown 1)"
[ "$(field "$tsv" render_markdown 4)" = "$((4 * CALLS))" ] && pass ||
    fail "render_markdown freed $((4 * CALLS)): $(field "$tsv" render_markdown 4)"
life=$(field "$tsv" render_markdown 5)
oldest=$(field "$tsv" render_markdown 6)
# its freed blocks die within the call: microseconds (100 ms of slack for
# a loaded host); its oldest live one was made before the 1 s of pauses
[ "${life:-999999999}" -lt 100000 ] && pass || fail "render_markdown's mean lifetime: $life us"
[ "${oldest:-0}" -ge 990000 ] && pass || fail "render_markdown's oldest live block: $oldest us"
# pure churn: all freed, none alive
[ "$(field "$tsv" parse_inline 1)" = "0" ] && pass || fail "parse_inline keeps none"
[ "$(field "$tsv" parse_inline 4)" = "$((6 * CALLS))" ] && pass ||
    fail "parse_inline freed $((6 * CALLS)): $(field "$tsv" parse_inline 4)"
[ "$(field "$tsv" parse_inline 6)" = "0" ] && pass || fail "parse_inline: no live block, no age"
# the cache: large, and young
cache=$(field "$tsv" fill_cache 6)
[ -n "$cache" ] && [ "$cache" -lt "$oldest" ] && [ "$cache" -lt 500000 ] && pass ||
    fail "fill_cache's blocks are young: $cache us (render_markdown's $oldest)"

# The table names them too.
run "$BIN/histo" --by=frame d2.hfd
expect_out_has "mean life" "histo's table: the lifespan columns"
expect_out_has "oldest" "histo's table: the oldest column"
# --sort=oldest and --sort=lifetime
run "$BIN/histo" --by=frame --sort=oldest -f tsv -n 1 d2.hfd
[ "$(printf '%s\n' "$out" | sed -n 2p | cut -f 3 | cut -d' ' -f1)" != fill_cache ] &&
    [ "$(printf '%s\n' "$out" | sed -n 2p | cut -f 6)" -ge 990000 ] && pass ||
    fail "histo --sort=oldest: the oldest first: $out"

# heapfmt-diff: by new bytes the cache comes first; by age, the leak.
run "$BIN/heapfmt-diff" --by=frame -f tsv d1.hfd d2.hfd
expect_success "heapfmt-diff --by=frame"
first=$(printf '%s\n' "$out" | sed -n 2p | cut -f 1)
[[ "$first" == fill_cache* ]] && pass || fail "new bytes first: $first"
[ "$(printf '%s\n' "$out" | head -1 | cut -f 6-)" = "$(printf 'frees\tmean_life_us\toldest_us')" ] &&
    pass || fail "diff's lifespan columns: $(printf '%s\n' "$out" | head -1)"
run "$BIN/heapfmt-diff" --by=frame --sort=oldest -f tsv d1.hfd d2.hfd
first=$(printf '%s\n' "$out" | sed -n 2p | cut -f 1)
[[ "$first" == render_markdown* ]] && pass || fail "--sort=oldest: the leak first: $first"
run "$BIN/heapfmt-diff" --by=frame --sort=lifetime d1.hfd d2.hfd
expect_success "--sort=lifetime"
expect_usage_error "$BIN/heapfmt-diff" "a bad --sort" --sort=age d1.hfd d2.hfd
run "$BIN/heapfmt-diff" --by=frame -f json d1.hfd d2.hfd
expect_out_has '"oldest_us": ' "diff's JSON: the lifespans"
# by class there is no lifespan to show
run "$BIN/heapfmt-diff" -f tsv d1.hfd d2.hfd
[ "$(printf '%s\n' "$out" | head -1 | grep -c frees)" = 0 ] && pass ||
    fail "--by=class: no lifespan columns"

# --by=stack: the records of whole stacks (main calls render_markdown
# from two loops: two stacks), which --by=frame summed.
run "$BIN/histo" --by=stack -f tsv d2.hfd
printf '%s\n' "$out" | awk -F '\t' -v n=$((4 * CALLS)) \
    'index($3, "render_markdown") == 1 { k++; f += $4 } END { exit !(k == 2 && f == n) }' &&
    pass || fail "histo --by=stack: render_markdown's two stacks freed $((4 * CALLS))"

# ---- the same story in Ruby, by line ----
if ! ruby -rfiddle -e 1 >/dev/null 2>&1; then
    echo "note: ruby with fiddle is not installed: the Ruby half is skipped"
    finish
fi
cp "$root/tests/malloc/redcarpet.rb" .
leak_line=$(grep -n 'LEAK-SITE' redcarpet.rb | cut -d: -f1)
RCALLS=4000
run hm -- ruby redcarpet.rb $RCALLS r1.hfd r2.hfd
expect_success "redcarpet.rb under the tracker"
run "$BIN/histo" --by=site -f tsv r2.hfd
site=$(printf '%s\n' "$out" | awk -F '\t' -v s="redcarpet.rb:$leak_line" \
    '$3 ~ s"$" { print $1, $4, $6; exit }')
read -r count frees oldest <<<"$site"
[ "${count:-0}" -ge $RCALLS ] && pass || fail "redcarpet.rb:$leak_line keeps $RCALLS: $site"
[ "${frees:-0}" -ge $((4 * RCALLS)) ] && pass || fail "redcarpet.rb:$leak_line freed 4 in 5: $site"
[ "${oldest:-0}" -ge 990000 ] && pass || fail "redcarpet.rb:$leak_line's oldest: $site"
# Of the script's own lines (the VM's boot leaves older blocks in its
# own files), the leak's comes first by age.
run "$BIN/heapfmt-diff" --by=site --sort=oldest -f tsv r1.hfd r2.hfd
first=$(printf '%s\n' "$out" | cut -f 1 | grep 'redcarpet\.rb:' | head -1)
[[ "$first" == *"redcarpet.rb:$leak_line" ]] && pass ||
    fail "heapfmt-diff --by=site --sort=oldest: the leak's line first: $first"
finish
