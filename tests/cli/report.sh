#!/usr/bin/env bash
# report.sh -- heapfmt-report's page on one, two and three dumps of one
# heap grown (heapfmt-gen with one seed and more objects), and on a
# native-like dump (--stacks): every number in its data blob equals what
# histo, heapfmt-diff and heapfmt-graph print for the same dumps
# (tests/report/check_report.py). Then the contract: errors and exit
# codes as the other tools, a cut dump reported on the page, and the
# page's size bounded on a million objects.
. "$(dirname "$0")/lib.bash"

report=$BIN/heapfmt-report
check=$(cd "$(dirname "$0")/../report" && pwd)/check_report.py
in_tmpdir

gen_dump t1.dump -n 20000 -s 1
gen_dump t2.dump -n 22000 -s 1
gen_dump t3.dump -n 24000 -s 1
gen_dump native.dump -n 20000 -s 5 --stacks

# check KIND TOOL_OUTPUT WHAT: the page's numbers equal the tool's
check() {
    if python3 "$check" page.html "$1" "$2" >check.out 2>&1; then
        pass
    else
        fail "$3: $(cat check.out)"
    fi
}

# ---- three dumps: every section ----
run "$report" -o page.html t1.dump t2.dump t3.dump
expect_rc 0 "three dumps"
expect_out_empty "three dumps: -o FILE leaves stdout empty"
"$BIN/histo" -f json -n 50 t1.dump t2.dump t3.dump >histo.json
check histo histo.json "overview and trend = histo"
"$BIN/heapfmt-graph" owners -f json t1.dump t2.dump t3.dump >owners.json 2>/dev/null
check owners owners.json "owners = heapfmt-graph owners"
"$BIN/heapfmt-diff" --by=site --top 20 -f json t1.dump t2.dump t3.dump >diff.json
check diffsite diff.json "retained by site = heapfmt-diff --by=site"
"$BIN/heapfmt-graph" dominators --by=class -n 50 -f json t3.dump >dom.json 2>/dev/null
check dominators dom.json "treemap = heapfmt-graph dominators --by=class"
"$BIN/heapfmt-graph" dominators --by=class,site -n 1000000 -f json t3.dump >domsites.json 2>/dev/null
check domsites domsites.json "drill-down = heapfmt-graph dominators --by=class,site"
"$BIN/histo" --by=site -n 20 -f json t3.dump >sites.json
check sites sites.json "sites = histo --by=site"
for id in overview-chart trend-table owners-table owners-chains \
          retained-sites-table treemap dominators-table sites-table; do
    grep -q "id=\"$id\"" page.html && pass || fail "three dumps: no #$id"
done
grep -q '<th scope="col"' page.html && pass || fail "tables have header cells"
if grep -Eq '<(script|link|img)[^>]* (src|href)=' page.html; then
    fail "the page loads something from outside"
else
    pass
fi

# ---- two dumps: the trend, no leak ----
run "$report" -o page.html t1.dump t3.dump
expect_rc 0 "two dumps"
"$BIN/histo" -f json -n 50 t1.dump t3.dump >histo.json
check histo histo.json "two dumps: overview = histo"
grep -q 'id="trend-table"' page.html && pass || fail "two dumps: a trend"
grep -q 'id="owners-table"' page.html && fail "two dumps: owners" || pass

# ---- three dumps without allocation sites (a Ruby heap without tracing) ----
gen_dump s1.dump -n 20000 -s 1 --no-sites
gen_dump s2.dump -n 22000 -s 1 --no-sites
gen_dump s3.dump -n 24000 -s 1 --no-sites
run "$report" -o page.html s1.dump s2.dump s3.dump
expect_success "three dumps without sites"
"$BIN/heapfmt-graph" owners -f json s1.dump s2.dump s3.dump >owners.json 2>/dev/null
check owners owners.json "no sites: owners = heapfmt-graph owners"
grep -q '(no site)' page.html && pass || fail "no sites: the one (no site) row"

# ---- one native dump, to standard output: the flame graph ----
run "$report" native.dump
expect_rc 0 "one native dump"
printf '%s' "$out" >page.html
"$BIN/histo" -f json native.dump >histo.json
check histo histo.json "one dump: overview = histo"
"$BIN/histo" --by=stack -f folded -n 200 native.dump >folded.txt
check folded folded.txt "flame graph = histo -f folded"
"$BIN/histo" --by=site -n 20 -f json native.dump >sites.json
check sites sites.json "native: sites = histo --by=site"
expect_out_has 'id="flame"' "a native dump has a flame graph"
run "$report" -o page.html t1.dump
grep -q 'id="flame"' page.html && fail "no stacks, no flame graph" || pass

# ---- a native heap from heapfmt-malloc: sections that fit it ----
# tests/malloc/hm_prog.c leaks 1,000 blocks before each of its two dumps;
# the exit dump is the third. No roots, no references, no sites: the
# stacks come first (flame graph, frames), the trend and the leak are by
# frame, and the owners, retained sizes and sites are left out with a
# line that says why: no empty treemap or table, no "(no site)" table.
hm_prog=$BIN/../tests/hm_prog
if [ -x "$BIN/heapfmt-malloc" ] && [ -x "$hm_prog" ]; then
    mkdir native && cd native || exit 1
    run "$BIN/heapfmt-malloc" --mode=exact -- "$hm_prog" leak 2000 100 n1.hfd n2.hfd
    expect_rc 0 "hm_prog leak under heapfmt-malloc"
    n3=$(ls heapfmt-malloc-*.hfd 2>/dev/null | head -n 1)
    [ -n "$n3" ] && pass || fail "the exit dump of hm_prog"
    sections() { grep -o '<section id="[a-z]*"' page.html | cut -d'"' -f2 | tr '\n' ' '; }
    run "$report" -o page.html n1.hfd n2.hfd "$n3"
    expect_rc 0 "three native dumps"
    [ "$(sections)" = "overview stacks trend leak omitted " ] && pass ||
        fail "native: the stacks first, then the trend and the leak: $(sections)"
    "$BIN/histo" --by=frame -f json -n 50 n1.hfd n2.hfd "$n3" >histo.json
    check histo histo.json "native: overview and trend by frame = histo --by=frame"
    "$BIN/histo" --by=frame -f json -n 20 "$n3" >frames.json
    check frames frames.json "native: frames = histo --by=frame"
    "$BIN/histo" --by=stack -f folded -n 200 "$n3" >folded.txt
    check folded folded.txt "native: flame graph = histo -f folded"
    "$BIN/heapfmt-diff" --by=frame --top 20 -f json n1.hfd n2.hfd "$n3" >diff.json
    check diffsite diff.json "native: the leak by frame = heapfmt-diff --by=frame"
    grep -q '<td>leaky_function (hm_prog+0x[0-9a-f]*) tests/malloc/hm_prog.c:[0-9]*</td><td class="num" data-v="1000">1,000</td>' page.html &&
        pass || fail "native: 1,000 blocks leaked by leaky_function"
    for id in treemap dominators-table owners-table owners-chains sites-table \
              retained-sites-table; do
        grep -q "id=\"$id\"" page.html && fail "native: #$id shown" || pass
    done
    grep -q '<td>(no site)</td>' page.html && fail "native: a (no site) row" || pass
    for sec in owners retained sites; do
        grep -q "<li class=\"omitted\" data-section=\"$sec\">" page.html && pass ||
            fail "native: $sec left out with a line saying why"
    done
    omitted=$(python3 -c 'import json,re,sys
d=json.loads(re.search(r"id=\"data\">(.*?)</script>",open(sys.argv[1]).read(),re.S).group(1))
print(" ".join(o["section"] for o in d["omitted"]), "dominators" in d, "owners" in d)' page.html)
    [ "$omitted" = "owners retained sites False False" ] && pass ||
        fail "native: the blob lists what is left out: $omitted"
    run "$report" -o page.html n2.hfd
    expect_rc 0 "one native dump"
    [ "$(sections)" = "overview stacks omitted " ] && pass ||
        fail "one native dump: $(sections)"
    cd .. || exit 1
else
    echo "note: the heapfmt-malloc part is skipped (not built)"
fi

# ---- hostile names are escaped ----
# A class name with markup cannot reach the page as markup.
printf '%s\n' \
    '{"address":"0xc0", "type":"CLASS", "name":"<script>alert(1)</script>", "memsize":40}' \
    '{"address":"0x100", "type":"OBJECT", "class":"0xc0", "file":"</script><b>x.rb", "line":1, "memsize":40}' \
    '{"type":"ROOT", "root":"vm", "references":["0x100"]}' >evil.json
run "$BIN/heapfmt-import" -o evil.dump evil.json
expect_success "import of hostile names"
run "$report" -o page.html evil.dump
expect_rc 0 "hostile names"
[ "$(grep -o '<script' page.html | wc -l)" -eq 2 ] && pass ||
    fail "hostile names: a name became a script element"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' page.html && pass ||
    fail "hostile names: the class is shown, escaped"

# ---- errors, as the other tools ----
run "$report" -o page.html missing.dump
expect_failure 1 "a missing dump"
expect_err_has "heapfmt-report: missing.dump: " "prog: file: message"
echo '{"not": "a dump"}' >notes.json
run "$report" notes.json
expect_failure 1 "not a dump"
expect_err_has "not a heapfmt dump" "said so"
expect_usage_error "$report" "no dump"
expect_usage_error "$report" "an unknown option" --bogus t1.dump
expect_usage_error "$report" "standard input" -
expect_usage_error "$report" "an empty argument" ""
rm -f page.html
run "$report" -o page.html t1.dump missing.dump
expect_failure 1 "one dump missing of two"
[ -e page.html ] && fail "a failed report leaves no page" || pass
run "$report" --help
expect_success "--help"
expect_out_has "Usage: heapfmt-report" "usage"
run "$report" --version
expect_success "--version"

# ---- a cut dump: exit 3 and a warning on the page ----
size=$(stat -c %s t3.dump)
head -c $((size / 2)) t3.dump >cut.dump
run "$report" -o page.html t1.dump t2.dump cut.dump
expect_rc 3 "a cut dump"
expect_err_has "incomplete" "said on stderr"
grep -q 'class="warn incomplete"' page.html && pass ||
    fail "a cut dump: a warning on the page"
grep -q '<strong>incomplete</strong>' page.html && pass ||
    fail "a cut dump: its status in the table"

# ---- the page stays small on a million objects ----
gen_dump big.dump -n 1000000 -s 1
run "$report" -o page.html big.dump
expect_rc 0 "a million objects"
bytes=$(stat -c %s page.html)
[ "$bytes" -le 2000000 ] && pass ||
    fail "a million objects: page of $bytes bytes (bound 2 MB)"

finish
