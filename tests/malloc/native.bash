# native.bash -- helpers for the malloc tracker's CLI tests
# (tests/cli/malloc.sh, malloc_ruby.sh): sourced after lib.bash, with
# $root the repository root.
#   groups DUMP BY [SIZE]   "COUNT BYTES KEY" lines (native_groups.py)
#   count_of KEY            on those lines: "COUNT BYTES" of KEY
#   group_is DUMP BY KEY COUNT BYTES WHAT
#                           checks one group's count and bytes
#   meta DUMP KEY           the value heapfmt-info shows for meta.KEY

groups() {
    "$BIN/heapfmt-export" -r objects "$1" |
        python3 "$root/tests/malloc/native_groups.py" --by "$2" ${3:+--size "$3"}
}

count_of() {
    awk -v k="$1" '{c=$1; b=$2; $1=""; $2=""; sub(/^  /, ""); if ($0 == k) print c, b}'
}

group_is() {
    local got
    got=$(groups "$1" "$2" | count_of "$3")
    if [ "$got" = "$4 $5" ]; then pass; else fail "$6: $3: want '$4 $5', got '$got'"; fi
}

meta() {
    "$BIN/heapfmt-info" -p "$1" | sed -n "s/^meta\.$2  *//p"
}
