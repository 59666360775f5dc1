# common.sh — shell functions shared by the tools that take a DAY (check, hint, reset,
# watch, progress). Sourced, not run.
#
# The book's scripts start with `set -uo pipefail`, most without -e: they test the status of each
# command whose failure matters and say what failed (a check that fails is something to report,
# and a test runner goes on to report the others), where -e would end them silently at the first
# command that returns non-zero, grep finding nothing included. The few that must stop at any
# failure say `set -euo pipefail`: build steps (tools/build/*, lib/sim/tools/simcc, driver-sums),
# wrappers that set up and run one program (tools/llama, tools/perfmodel, Gradescope's setup), the
# release, the benches and .ci/run.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
all_days=$(cat "$root/tools/days.list")

die() { echo "$*" >&2; exit 2; }

# A time limit of N seconds, LAB_TIMEOUT_SCALE times longer where that is set: make test-arm64 runs
# everything under an emulator, several times slower than the machine the limits were written for
# (tests/support/report.c scales the tests' own limits the same way).
limit() { echo $(( $1 * ${LAB_TIMEOUT_SCALE:-1} )); }

# OpenBLAS (under the simulator's cuBLAS) starts a thread per core as a program loads, and
# that thread spins on sched_yield while it waits: a test process on two cores spent 1.05 s of
# CPU with it and 0.60 s without, the same 0.6 s on the clock. The labs use OpenBLAS on one
# core anyway (openblas_set_num_threads(1)), so every program the tools run gets one thread.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}

# resolve_day 1 | 01 | why-gpu | 01-why-gpu  ->  01-why-gpu (or an error listing the days)
resolve_day() {
    local arg=${1:-} day
    [[ -n $arg ]] || die "Which day? Add DAY=NN, for example: make check DAY=01"
    for day in $all_days; do
        if [[ $arg == "$day" || $arg == "${day#*-}" || $arg == "${day%%-*}" ||
              ( $arg =~ ^[0-9]$ && "0$arg" == "${day%%-*}" ) ]]; then
            echo "$day"
            return 0
        fi
    done
    {
        echo "There is no day '$arg'. DAY takes a number (1 or 01) or a name. The days:"
        for day in $all_days; do
            if [[ -d $root/labs/$day ]]; then echo "  ${day%%-*}  ${day#*-}"; else echo "  ${day%%-*}  ${day#*-}   (not written yet)"; fi
        done
    } >&2
    exit 2
}

# require_lab DAY: the day must have a lab.
require_lab() {
    [[ -d $root/labs/$1 ]] && return 0
    local written=""
    for d in $all_days; do [[ -d $root/labs/$d ]] && written+=" ${d%%-*}"; done
    die "Day ${1%%-*} (${1#*-}) is not written yet. Days with labs so far:$written"
}

# The book's libraries a day's lab links besides the harness (lab.conf's link="perfmodel ...").
linked_libraries() {
    local link=""
    # shellcheck disable=SC1090
    source "$root/labs/$1/lab.conf"
    echo "$link"
}

# The files a learner edits for DAY, from labs/DAY/lab.conf.
edited_files() {
    local edit=""
    # shellcheck disable=SC1090
    source "$root/labs/$1/lab.conf"
    echo "$edit"
}

# The backend: BACKEND if set, else cuda when nvcc and an NVIDIA GPU are both present.
detect_backend() {
    case ${BACKEND:-} in
        sim|cuda) echo "$BACKEND"; return ;;
        "") ;;
        *) die "BACKEND must be sim or cuda, not '$BACKEND'" ;;
    esac
    if command -v nvcc >/dev/null 2>&1 && command -v nvidia-smi >/dev/null 2>&1 &&
       nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        echo cuda
    else
        echo sim
    fi
}

# The folder holding the edited files for SRC: labs, solutions, or any folder.
source_dir() {
    local src=$1 day=$2
    case $src in
        labs) echo "$root/labs/$day" ;;
        solutions) [[ -d $root/solutions ]] || die "SRC=solutions: the student release has no solutions (RELEASE.md says what it leaves out); check your own lab, or a folder of edited files as SRC"
                   echo "$root/solutions/$day" ;;
        *) [[ -d $src ]] || die "SRC=$src: no such folder (SRC is labs, solutions, or a folder of edited files)"
           (cd "$src" && pwd) ;;
    esac
}
