# check-sandboxed.sh — sourced by tools/check when SRC is a folder of someone else's files (a student's,
# checked by an instructor): that code may do anything, so tools/check's three steps (build_step,
# tests_step, lab_step) run here inside the grader's sandbox (tools/grader/grade-sandbox), with the
# grader's limits, as an unprivileged user of their own when this runs as root. Sets isolation and
# isolation_text for the verdict.
#
# Only the files lab.conf names are taken, copied into a folder of the checker's own. The steps may
# write one folder, a temporary $work; what tools/check reads back comes from the sandbox's own files
# ($out/sandbox: the report from the runner's pipe, each step's capped output and status) or, for the
# lab's results.csv, is checked to be a regular file inside $work before it is copied out.

"$root/tools/setup" --quiet --grade || exit 2
make -s -C "$root" libs build/tools/lab-policy build/tools/grade-sandbox \
    $(for library in $(linked_libraries "$day"); do echo "build/lib/lib$library.a"; done) >&2 ||
    die "the book's libraries or the grader's sandbox do not build (above)"
source "$root/tools/grader/grade-common.sh"   # reserve_uids, status_field, inside, sanitized, clean_shared_tmp
die() { echo "$*" >&2; exit 2; }
sandbox_tool=$root/build/tools/grade-sandbox
uid=-1
if ((EUID == 0)); then reserve_uids 0; uid=$uid_base; fi
as_user=(); ((uid >= 0)) && as_user=(--uid "$uid")
# ISOLATION=fallback, as for the grader, takes the fallback where bwrap would work (as root)
if [[ ${ISOLATION:-} != fallback ]] && command -v bwrap > /dev/null && "$sandbox_tool" --probe "${as_user[@]}" > /dev/null 2>&1; then isolation=bwrap
elif ((EUID == 0)); then isolation=fallback
else die "SRC=$src is someone else's code, which make check runs only inside the grader's sandbox, and
bubblewrap does not work here (tools/setup --grade installs it); without it, only root can keep that code
away from your files. Check it as root, or install bubblewrap."; fi
# What the steps read and write is staged in a folder every user may pass through: the job's user
# must reach it, wherever the caller keeps the book and its results (a home folder closed to others).
sandbox_folder=$out/sandbox
rm -rf "$sandbox_folder" "$out/src" && mkdir -p -m 700 "$sandbox_folder"
stage=$(mktemp -d "${TMPDIR:-/tmp}/check-sandboxed.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$stage"' EXIT
chmod 711 "$stage"
GRADE_TMP=$stage   # what clean_shared_tmp (the fallback's cleaning of the shared /tmp) must leave alone
staged=$stage/src work=$stage/work
"$sandbox_tool" --mode "$isolation" "${as_user[@]}" --status "$sandbox_folder/probe.status" --log /dev/null -- /bin/true > /dev/null 2>&1
landlock=$(status_field "$sandbox_folder/probe.status" landlock)
case $isolation:$landlock in
    bwrap:*) isolation_text="bwrap: nothing of this machine visible but /usr and the book, read-only" ;;
    fallback:abi*) isolation_text="no namespaces here: a user of its own and Landlock (${landlock#abi}), only the book readable" ;;
    *) isolation_text="no namespaces and no Landlock here: a user of its own, which may read what any user may" ;;
esac
((uid >= 0)) && isolation_text+=", as user $uid"
isolation_text+="; limits: 120 s of CPU a test, 2048 MiB of memory, 64 processes"

# The book as the steps see it: this one where the job's user may read it, else a snapshot of what
# building and testing need, as the grader makes (then without the object cache: every file compiles).
readable_by_the_job() {
    ((uid < 0)) && return 0   # not root: the steps run as the caller, who reads the book
    "$sandbox_tool" --mode fallback --uid "$uid" --ro "$root" --log /dev/null --status "$stage/readable.status" \
        -- /bin/sh -c 'test -r "$1/Makefile" && test -r "$1/build/lib/libsim.a" && test -x "$1/tools/build/build-lab"' sh "$root" \
        > /dev/null 2>&1
    [[ $(status_field "$stage/readable.status" result) == exited && $(status_field "$stage/readable.status" code) == 0 ]]
}
book=$root
if ! readable_by_the_job; then
    book=$stage/book
    mkdir -p "$book/tests" "$book/build"
    for part in Makefile tools lib labs data tests/support "tests/$day.c" build/config.mk build/lib build/tools; do
        [[ -e $root/$part ]] && cp -a "$root/$part" "$book/$part"
    done
    chmod -R a+rX,go-w "$book"
fi

from=$(source_dir "$src" "$day")
mkdir -p "$staged"
for file in $(edited_files "$day"); do
    [[ -f $from/$file && ! -L $from/$file ]] && cp -- "$from/$file" "$staged/$file"
done
chmod -R a+rX,go-w "$staged"
mkdir -p "$work/results" && chmod -R 700 "$work"
((uid >= 0)) && chown -R "$uid:$uid" "$work"
report=$sandbox_folder/report.tsv

in_sandbox() {   # NAME WALL CPU [grade-sandbox options] -- COMMAND...
    local name=$1 wall=$2 cpu=$3
    shift 3
    "$sandbox_tool" --mode "$isolation" "${as_user[@]}" --wall "$wall" --cpu "$cpu" --memory 2048 --procs 64 \
        --file-size 64 --open-files 512 --tmpfs-size 512 --cpus "$(nproc)" --log "$sandbox_folder/$name.log" \
        --status "$sandbox_folder/$name.status" --setenv OPENBLAS_NUM_THREADS=1 --ro "$book" "$@"
    clean_shared_tmp "$uid"
}
# the step's output as tools/check prints it: what the sandbox kept (64 KiB), no control characters
step_output() { sanitized "$sandbox_folder/$1.log" 65536; }
# the step's exit status as a shell gives it: 124 when stopped at its time limit
step_status() {
    local result code signal
    result=$(status_field "$sandbox_folder/$1.status" result) code=$(status_field "$sandbox_folder/$1.status" code)
    signal=$(status_field "$sandbox_folder/$1.status" signal)
    case $result in
        exited) return "${code:-1}" ;;
        timeout) return 124 ;;
        signaled) return $((128 + ${signal:-9})) ;;
        *) return 1 ;;
    esac
}

build_step() {
    in_sandbox build 300 300 --ro "$staged" --rw "$work" --chdir "$book" --setenv LAB_CACHE="$book/build/cache/objects" \
        --setenv LAB_CACHE_BOOK_ONLY=1 --setenv SIMCC_LIBS_BUILT="$book" -- "$book/tools/build/build-lab" "$day" "$staged" sim "$work"
    [[ ${QUIET:-0} == 1 ]] || step_output build
    step_status build
}
tests_step() {
    in_sandbox tests 600 120 --ro "$work" --report "$report" --chdir "$book" --setenv LAB_REPORT_FD=3 \
        --setenv LAB_DATA_DIR="$book/data" -- "$work/tests" -j1
    step_output tests
}
lab_step() {   # SECONDS
    in_sandbox lab "$1" "$1" --ro "$work" --rw "$work/results" --chdir "$book" --setenv LAB_DATA_DIR="$book/data" \
        -- "$work/lab" "$work/results/results.csv"
    [[ ${QUIET:-0} == 1 ]] || step_output lab
    local csv=$work/results/results.csv
    if inside "$work/results" "$csv" && [[ ! -L $csv ]] && (($(stat -c %s "$csv") <= 16 << 20)); then cp -- "$csv" "$out/results.csv"; fi
    step_status lab
}
