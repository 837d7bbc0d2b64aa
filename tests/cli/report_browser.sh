#!/usr/bin/env bash
# report_browser.sh -- heapfmt-report's page in a real browser: headless
# Chromium renders it (--dump-dom gives the DOM after the page's script
# ran), for a heap of references (heapfmt-gen) and for a native heap
# (heapfmt-malloc: stacks first, no treemap or owners, what is left out
# said); the charts the script draws are there with the expected numbers,
# no script error was caught into #errors or logged on the console, and a
# screenshot can be taken. Skipped without /usr/bin/chromium (CI
# installs it: scripts/install-deps.sh).
. "$(dirname "$0")/lib.bash"

chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then
    echo "SKIP: chromium not installed"
    exit 0
fi
report=$BIN/heapfmt-report
in_tmpdir

# browse PAGE: the rendered DOM in dom.html, the browser's log in log.txt
browse() {
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
        --user-data-dir="$TMPDIR/profile" --enable-logging=stderr --v=0 \
        --dump-dom "file://$TMPDIR/$1" >dom.html 2>log.txt
    [ -s dom.html ] && pass || fail "$1: chromium rendered nothing: $(tail -3 log.txt)"
}

# rendered WHAT PATTERN...: each extended regex matches the DOM
rendered() {
    local what=$1 p
    shift
    for p in "$@"; do
        grep -Eq -- "$p" dom.html && pass || fail "$what: no /$p/ in the rendered page"
    done
}

no_errors() {
    grep -q '<pre id="errors" role="alert"></pre>' dom.html && pass ||
        fail "$1: the page caught an error: $(grep -o '<pre id="errors"[^<]*' dom.html)"
    grep -q 'data-rendered="yes"' dom.html && pass ||
        fail "$1: the script did not finish"
    if grep -E 'CONSOLE|Uncaught' log.txt >console.txt; then
        fail "$1: the console logged: $(head -3 console.txt)"
    else
        pass
    fi
}

gen_dump t1.dump -n 20000 -s 1
gen_dump t2.dump -n 22000 -s 1
gen_dump t3.dump -n 24000 -s 1
gen_dump native.dump -n 20000 -s 5 --stacks

run "$report" -o leak.html t1.dump t2.dump t3.dump
expect_rc 0 "three dumps"
browse leak.html
no_errors "three dumps"
rendered "overview" 'aria-label="Objects: dump 1 20,000, dump 2 22,000, dump 3 24,000"' \
    'class="bars"'
rendered "trend" 'class="spark" aria-label="counts: ' 'class="spark" aria-label="bytes: '
# one count and one bytes sparkline per row of the trend table
rows=$(grep -o '<tr data-row=' leak.html | wc -l)
sparks=$(grep -o 'class="spark"' dom.html | wc -l)
[ "$sparks" -eq $((2 * rows)) ] && pass ||
    fail "trend: $sparks sparklines for $rows rows"
owners=$(python3 -c 'import json,re,sys
d=json.loads(re.search(r"id=\"data\">(.*?)</script>",open(sys.argv[1]).read(),re.S).group(1))
print(len(d["owners"]))' leak.html)
chains=$(grep -o 'class="chain"' dom.html | wc -l)
[ "$owners" -gt 0 ] && [ "$chains" -eq "$owners" ] && pass ||
    fail "owners: $chains chains of boxes for $owners owners"
rendered "owners" 'class="box" role="listitem"'
rendered "treemap" 'id="treemap-svg"' 'aria-label="Retained size by class: '
# drill-down: #treemap=CLASS opens the treemap on the sites of a class
browse "leak.html#treemap=String"
no_errors "drill-down"
rendered "drill-down" '<p id="treemap-title">Retained size of String by allocation site' \
    'aria-label="Retained size of String by allocation site: '

run "$report" -o native.html native.dump
expect_rc 0 "a native dump"
browse native.html
no_errors "a native dump"
rendered "flame graph" 'id="flame-svg"' '<rect[^>]*fill="hsl'

# a native heap from heapfmt-malloc, three dumps: the flame graph first,
# the trend by frame with its sparklines, no treemap and no owners, and
# the list of what is left out
hm_prog=$BIN/../tests/hm_prog
if [ -x "$BIN/heapfmt-malloc" ] && [ -x "$hm_prog" ]; then
    run "$BIN/heapfmt-malloc" --mode=exact -- "$hm_prog" leak 2000 100 m1.hfd m2.hfd
    expect_rc 0 "hm_prog leak under heapfmt-malloc"
    m3=$(ls heapfmt-malloc-*.hfd 2>/dev/null | head -n 1)
    run "$report" -o malloc.html m1.hfd m2.hfd "$m3"
    expect_rc 0 "three native dumps"
    browse malloc.html
    no_errors "three native dumps"
    rendered "native: flame graph" 'id="flame-svg"' '<rect[^>]*fill="hsl'
    rendered "native: trend by frame" 'Trend: the frames that grew' \
        'class="spark" aria-label="counts: '
    rows=$(grep -o '<tr data-row=' malloc.html | wc -l)
    sparks=$(grep -o 'class="spark"' dom.html | wc -l)
    [ "$rows" -gt 0 ] && [ "$sparks" -eq $((2 * rows)) ] && pass ||
        fail "native trend: $sparks sparklines for $rows rows"
    flame=$(grep -bo 'id="flame-svg"' dom.html | cut -d: -f1)
    trend=$(grep -bo 'id="trend-table"' dom.html | cut -d: -f1)
    [ -n "$flame" ] && [ -n "$trend" ] && [ "$flame" -lt "$trend" ] && pass ||
        fail "native: the flame graph comes before the trend"
    rendered "native: what is left out" '<h2>Not shown</h2>' \
        'data-section="retained"><strong>Retained sizes</strong>: the last dump has no roots'
    for p in 'id="treemap-svg"' 'class="chain"' '<td>\(no site\)</td>'; do
        grep -Eq -- "$p" dom.html && fail "native: /$p/ rendered" || pass
    done
else
    echo "note: the heapfmt-malloc part is skipped (not built)"
fi

# a screenshot, as docs/report.png was taken
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
    --user-data-dir="$TMPDIR/profile" --window-size=1280,2000 \
    --screenshot="$TMPDIR/leak.png" "file://$TMPDIR/leak.html" >/dev/null 2>&1
[ "$(head -c 8 leak.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && pass ||
    fail "no PNG screenshot"

finish
