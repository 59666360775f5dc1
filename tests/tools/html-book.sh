#!/usr/bin/env bash
# html-book.sh — the HTML book (tools/ci/html-book, written by `make book`) as a reader meets it.
# Builds it into a temporary folder (without the PDF, for speed), then checks: every internal link
# leads to a page that exists and an id on it; every image is there; the index lists every chapter,
# review and the glossary in reading order; every page links to the one before and after it; each
# plot a chapter embeds is on its page; the Chinese terms survive; nothing is fetched from the
# network. Each check is shown to fail on a copy with one thing broken. Last, headless Chromium
# opens the index and day 04 and takes screenshots, which must be images of the window's size and
# not blank (HTML_BOOK_SCREENSHOTS=DIR keeps them, to look at). Prints "ok ..." per check; exits
# non-zero on the first failure.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; exit 1; }
export LC_ALL=C.UTF-8

command -v chromium > /dev/null || bad "chromium is not installed: tools/setup installs it (Debian's package chromium)"
book=$tmp/book
tools/ci/html-book "$book" --no-pdf > "$tmp/build.log" 2>&1 || bad "tools/ci/html-book failed:"$'\n'"$(cat "$tmp/build.log")"

# The screenshots, taken while the checks run: PAGE NAME.
screenshot() {
    chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$tmp/chromium-$2" \
        --window-size=1280,2000 --screenshot="$tmp/$2.png" "file://$book/$1" > "$tmp/chromium-$2.log" 2>&1
}
declare -A shot_pid
screenshot index.html index & shot_pid[index]=$!
screenshot 04-latency-hiding.html day04 & shot_pid[day04]=$!

# The pages in reading order, from chapters/ (what the index must list): preface, days, a week's
# review after its last day, glossary.
expected=()
[[ -f chapters/00-preface/README.md ]] && expected+=(00-preface.html)
while read -r day; do
    [[ -f chapters/$day/README.md ]] || continue
    expected+=("$day.html")
    case ${day%%-*} in 07) week=1 ;; 14) week=2 ;; 22) week=3 ;; 30) week=4 ;; *) week="" ;; esac
    [[ -n $week && -f chapters/recaps/week-$week.md ]] && expected+=("week-$week.html")
done < tools/days.list
expected+=(glossary.html)

url_decode() { local s=${1//&amp;/&}; printf -v decoded '%b' "${s//%/\\x}"; }   # sets decoded

# Every href and src that is not on the network: its file exists, and its #fragment is an id there.
check_links() {   # DIR
    local dir=$1 file page attr target path fragment decoded problems=0
    declare -A ids=()
    for file in "$dir"/*.html; do
        page=$(basename "$file")
        while read -r attr; do ids[$page#$attr]=1; done < <(grep -oE '(^| )id="[^"]*"' "$file" | sed -E 's/^ ?id="//; s/"$//')
    done
    for file in "$dir"/*.html; do
        page=$(basename "$file")
        while read -r attr; do
            url_decode "${attr#*=\"}"; target=${decoded%\"}
            [[ $target =~ ^[a-zA-Z][a-zA-Z0-9+.-]*: || $target == //* ]] && continue
            path=${target%%#*} fragment=""
            [[ $target == *#* ]] && fragment=${target#*#}
            if [[ -n $path && ! -f $dir/$path ]]; then
                echo "$page: ${attr%%=*} to $path, which does not exist"; problems=1
            elif [[ -n $fragment && -z ${ids[${path:-$page}#$fragment]:-} ]]; then
                echo "$page: link to ${path:-$page}#$fragment, which has no such id"; problems=1
            fi
        done < <(grep -oE '(^| )(href|src)="[^"]*"' "$file" | sed 's/^ //')
    done
    return $problems
}

# The index lists every page, in reading order.
check_toc() {   # DIR
    local dir=$1 listed page
    listed=$(sed -n '/<ul class="contents">/,/<\/ul>/p' "$dir/index.html" | grep -o 'href="[^"#]*"' | sed 's/^href="//; s/"$//')
    for page in "${expected[@]}"; do
        grep -qx "$page" <<< "$listed" || { echo "index.html: the contents do not list $page"; return 1; }
    done
    [[ $listed == "$(printf '%s\n' "${expected[@]}")" ]] ||
        { echo "index.html: the contents are not in reading order:"; echo "$listed" | head -40; return 1; }
}

# Each page links to the page before it and the one after (the index before the first and after the last).
check_pager() {   # DIR
    local dir=$1 i want_prev want_next page
    for i in "${!expected[@]}"; do
        page=${expected[i]}
        want_prev=index.html want_next=index.html
        ((i > 0)) && want_prev=${expected[i-1]}
        ((i + 1 < ${#expected[@]})) && want_next=${expected[i+1]}
        grep -q "<a rel=\"prev\" href=\"$want_prev\">" "$dir/$page" || { echo "$page: no previous link to $want_prev"; return 1; }
        grep -q "<a rel=\"next\" href=\"$want_next\">" "$dir/$page" || { echo "$page: no next link to $want_next"; return 1; }
    done
    grep -q "<a rel=\"next\" href=\"${expected[0]}\">" "$dir/index.html" || { echo "index.html: no link to ${expected[0]}"; return 1; }
}

# Each image a chapter embeds is on its page, as the same file.
check_plots() {   # DIR
    local dir=$1 chapter page image count=0
    for chapter in chapters/[0-9]*/README.md chapters/recaps/*.md; do
        page=$(basename "$(dirname "$chapter")").html
        [[ $chapter == chapters/recaps/* ]] && page=$(basename "$chapter" .md).html
        while read -r image; do
            grep -q "<img src=\"$image\"" "$dir/$page" ||
                { echo "$page: does not show $image (in $chapter, is the image's markdown well formed? A [ in its alt text needs its ] or a backslash)"; return 1; }
            cmp -s "$image" "$dir/$image" || { echo "$dir/$image is not a copy of $image"; return 1; }
            count=$((count + 1))
        done < <(grep -o '](\.\./\.\./plots/[^)]*)' "$chapter" | sed 's#^](\.\./\.\./##; s#)$##')
    done
    echo "$count"
}

expect_pass() {   # NAME CHECK: prints the check's output where it fails
    local output
    output=$("$2" "$book") || bad "$1:"$'\n'"$output"
}
expect_pass "broken internal links or missing images" check_links
ok "every internal link leads to a page and an id that exist, every image is there ($(ls "$book"/*.html | wc -l) pages)"
expect_pass "the table of contents" check_toc
ok "the index lists all ${#expected[@]} pages (preface, days, week reviews, glossary) in reading order"
expect_pass "previous/next links" check_pager
ok "every page links to the page before and after it"
plots=$(check_plots "$book") || bad "the plots:"$'\n'"$plots"
ok "each of the $plots images the chapters embed is on its page"

# The Chinese terms as the chapters write them, **term** (中文): each page shows its own as written
# (those without markdown inside the brackets), and the glossary the Chinese of each of its rows.
check_chinese() {   # DIR
    local dir=$1 chapter page term row count=0
    for chapter in chapters/[0-9]*/README.md; do
        page=$(basename "$(dirname "$chapter")").html
        while read -r term; do
            grep -qF "($term)" "$dir/$page" || { echo "$page: does not show ($term)"; return 1; }
            count=$((count + 1))
        done < <(grep -oP '\*\*[^*]+\*\* \(\K(?=[^)]*\p{Han})[^)`*_\[]*(?=\))' "$chapter")
    done
    tools/ci/book "$tmp/book.md"
    while read -r row; do   # | term | 中文 | day |
        grep -qF "<td>$row</td>" "$dir/glossary.html" || { echo "glossary.html: does not show $row"; return 1; }
    done < <(sed -n '/^# Glossary$/,$p' "$tmp/book.md" | grep -P '^\| (?!term \|).*\p{Han}' | awk -F' \\| ' '{ print $2 }' | grep -v '[`*_[]')
    echo "$count"
}
terms=$(check_chinese "$book") || bad "the Chinese terms:"$'\n'"$terms"
grep -qF '<strong>latency hiding</strong> (延迟隐藏)' "$book/04-latency-hiding.html" || bad "day 04 does not show latency hiding (延迟隐藏)"
ok "the $terms Chinese terms of the chapters are on their pages as written, and the glossary shows its rows' Chinese"

grep -l '<script\|src="http\|<link[^>]*href="http\|@import' "$book"/*.html "$book/book.css" > "$tmp/online" &&
    bad "pages that load something from the network: $(cat "$tmp/online")"
ok "the book reads offline: no script, and no stylesheet or image from the network"

# Each check fails on a copy with one thing broken.
broken_copy() {   # FILE SED-EXPRESSION: a copy of the book with FILE changed by the expression
    rm -rf "$tmp/broken" && cp -r "$book" "$tmp/broken"
    sed -i "$2" "$tmp/broken/$1"
    cmp -s "$book/$1" "$tmp/broken/$1" && bad "the test's breakage '$2' changes nothing in $1"
}
expect_fail() {   # WHAT CHECK
    local output
    output=$("$2" "$tmp/broken") && bad "$2 passes a book with $1"
    ok "$2 fails on a book with $1: ${output%%$'\n'*}"
}
broken_copy 04-latency-hiding.html '0,/href="05-divergence.html"/s//href="05-divergense.html"/'
expect_fail "a link to a missing page" check_links
broken_copy 04-latency-hiding.html 's/href="#the-model"/href="#the-modle"/'
expect_fail "a link to a missing id" check_links
broken_copy 04-latency-hiding.html 's#src="plots/04-latency-hiding.png"#src="plots/04-latency-hidden.png"#'
expect_fail "a missing image" check_links
broken_copy index.html '/href="13-arithmetic-intensity.html"/d'
expect_fail "a chapter missing from the contents" check_toc
broken_copy 22-flash-attention.html 's/ rel="next"//'
expect_fail "a page without its next link" check_pager
broken_copy 10-bandwidth.html 's#<img src="plots/10-bandwidth.png"#<img src="plots/09-coalescing.png"#'
expect_fail "a chapter showing another day's plot" check_plots
broken_copy 04-latency-hiding.html 's/(延迟隐藏)/(延迟)/'
expect_fail "a Chinese term changed" check_chinese

# The screenshots: PNGs of the window's size, and not blank (a blank page is about 8 KB).
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'; }
for shot in index day04; do
    wait "${shot_pid[$shot]}" || bad "chromium did not take the $shot screenshot:"$'\n'"$(tail -5 "$tmp/chromium-$shot.log")"
    png=$tmp/$shot.png
    [[ -s $png && $(head -c 8 "$png" | od -An -tx1 | tr -d ' ') == 89504e470d0a1a0a ]] || bad "$shot.png is not a PNG"
    [[ $(png_size "$png") == 1280x2000 ]] || bad "$shot.png is $(png_size "$png"), not 1280x2000"
    (($(stat -c %s "$png") > 40000)) || bad "$shot.png is $(stat -c %s "$png") bytes: the page looks blank"
    [[ -n ${HTML_BOOK_SCREENSHOTS:-} ]] && mkdir -p "$HTML_BOOK_SCREENSHOTS" && cp "$png" "$HTML_BOOK_SCREENSHOTS/"
    ok "headless Chromium shows the $shot page: a 1280x2000 screenshot of $(($(stat -c %s "$png") / 1024)) KB"
done
