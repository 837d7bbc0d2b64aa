#!/usr/bin/env bash
# man_options.sh -- every long option a tool accepts (its getopt_long
# table) is described in its man page, the one long-form manual of each
# tool; and every tool's --help names that page.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
declare -A page=([histo]=histo [diff]=heapfmt-diff [export]=heapfmt-export
                 [gen]=heapfmt-gen [graph]=heapfmt-graph
                 [import]=heapfmt-import [info]=heapfmt-info [report]=heapfmt-report
                 [replay]=heapfmt-replay [malloc]=heapfmt-malloc [core]=heapfmt-core
                 [ruby]=heapfmt-ruby)
for dir in "${!page[@]}"; do
    man=$root/man/${page[$dir]}.1
    [ -f "$man" ] && pass || { fail "${page[$dir]}: no man page"; continue; }
    # the long options: {"name", ...} lines of the tool's option table
    opts=$(sed -n 's/^ *{"\([a-z][a-z0-9-]*\)", *\(no\|required\|optional\)_argument.*/\1/p' \
        "$root"/tools/"$dir"/*.c | sort -u)
    [ -n "$opts" ] && pass || fail "${page[$dir]}: no option table found"
    for o in $opts; do
        # in man: \-\-name (roff escapes the dashes, also inside names)
        if sed 's/\\-/-/g' "$man" | grep -q -- "--$o\\b"; then
            pass
        else
            fail "${page[$dir]}: --$o is not in ${page[$dir]}.1"
        fi
    done
    run "$BIN/${page[$dir]}" --help
    expect_out_has "The manual: man ${page[$dir]}" "${page[$dir]} --help names its manual"
done
finish
