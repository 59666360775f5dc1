# grade-common.sh — shell functions shared by the grader's scripts (tools/grader/grade, grade-reference,
# grade-one). Sourced, not run. The settings they use come from $GRADE_TMP/config.sh, which
# tools/grader/grade writes once: the book snapshot, the isolation in force, the limits.

die() { echo "grade: $*" >&2; exit 2; }

# resolve_lab_days ROOT LIST: the days LIST names (numbers or names, commas or spaces; empty: all),
# among the days that have a lab (labs/*/lab.conf: discovered, never a fixed list).
resolve_lab_days() {
    local book_root=$1 list=$2 conf arg d match days="" lab_days=()
    for conf in "$book_root"/labs/*/lab.conf; do [[ -f $conf ]] && lab_days+=("$(basename "$(dirname "$conf")")"); done
    ((${#lab_days[@]})) || die "the book has no labs yet (no labs/*/lab.conf)"
    [[ -n $list ]] || { echo "${lab_days[*]}"; return 0; }
    for arg in ${list//,/ }; do
        match=""
        for d in "${lab_days[@]}"; do
            if [[ $arg == "$d" || $arg == "${d#*-}" || $arg == "${d%%-*}" || ( $arg =~ ^[0-9]$ && "0$arg" == "${d%%-*}" ) ]]; then
                match=$d
            fi
        done
        [[ -n $match ]] || die "DAYS: there is no lab for '$arg'. Days with labs: $(for d in "${lab_days[@]}"; do printf '%s ' "${d%%-*} (${d#*-})"; done)"
        [[ " $days " == *" $match "* ]] || days+="${days:+ }$match"
    done
    echo "$days"
}

load_config() {
    [[ -n ${GRADE_TMP:-} && -f $GRADE_TMP/config.sh ]] || die "internal: no grader configuration (run tools/grader/grade)"
    # shellcheck disable=SC1091
    source "$GRADE_TMP/config.sh"
}

# reserve_uids COUNT: sets uid_base to the first of COUNT+1 user ids that no other grader on this
# machine is using (a lock on /tmp/grade-uids-FIRST.lock, held while this shell lives) and that no
# process runs as. Call it in the shell that grades, not in $(...), or the lock goes with the subshell.
reserve_uids() {
    local count=$1 start=${GRADE_UID_BASE:-61000} try first fd
    for try in $(seq 0 39); do
        first=$((start + try * 100))
        { exec {fd}> "/tmp/grade-uids-$first.lock"; } 2> /dev/null || continue
        if flock -n "$fd" && ! ps -eo uid= | awk -v lo="$first" -v hi=$((first + count)) \
                '$1 >= lo && $1 <= hi { busy = 1 } END { exit !busy }'; then
            uid_base=$first
            return 0
        fi
        exec {fd}>&-
    done
    die "no free block of user ids from $start up (GRADE_UID_BASE): are 40 graders running?"
}

# The user a step runs as: its own per parallel job when the grader is root (slot 0: the reference
# builds), else the grader's own user (-1: do not switch).
job_uid() { if ((EUID == 0)); then echo $((uid_base + $1)); else echo -1; fi; }

# A folder the job's user may write, and nobody else may read.
private_dir() {
    local dir=$1 uid=$2
    rm -rf "$dir" && mkdir -p "$dir" && chmod 700 "$dir"
    if ((uid >= 0)); then chown "$uid:$uid" "$dir"; fi
}

# After a step the job's user must not be able to change what it made (fallback isolation relies on
# file permissions): hand it to the grader and make it read-only for everyone else.
seal() { chown -R "$(id -u):$(id -g)" "$@" 2>/dev/null; chmod -R go-w,a+rX "$@" 2>/dev/null; true; }

# sandboxed PREFIX UID [grade-sandbox options] -- COMMAND...
# Runs COMMAND isolated; writes PREFIX.log (its output), PREFIX.status.
sandboxed() {
    local prefix=$1 uid=$2
    shift 2
    # OPENBLAS_NUM_THREADS: as tools/common.sh says, one OpenBLAS thread, not one spinning a core
    local args=(--mode "$isolation" --log "$prefix.log" --status "$prefix.status" --memory "$memory_mb" --cpus "$cpus_per_job"
                --procs "$procs" --file-size "$file_size_mb" --open-files 512 --tmpfs-size "$tmpfs_mb"
                --setenv OPENBLAS_NUM_THREADS=1)
    ((uid >= 0)) && args+=(--uid "$uid")
    "$sandbox_tool" "${args[@]}" "$@"
    [[ -n ${keep_shared_tmp:-} ]] || clean_shared_tmp "$uid"
    true
}

# clean_shared_tmp UID. With the fallback isolation there is no private /tmp or IPC namespace, so
# what UID left in the shared ones is removed: after every step of a submission but its tests, and
# after its tests all together (run_test defers it: between one submission's own tests it would only
# protect that submission from itself, at the price of a dozen processes a test).
clean_shared_tmp() {
    local uid=$1 kind id
    [[ $isolation == fallback ]] && ((uid >= 0)) || return 0
    find /tmp /dev/shm /var/tmp -xdev -mindepth 1 -maxdepth 3 \( -path "${GRADE_TMP:-/nonexistent}" -prune \) -o \
        \( -user "$uid" -prune -exec rm -rf {} + \) 2>/dev/null
    for kind in m q s; do
        for id in $(ipcs -"$kind" 2>/dev/null | awk -v u="$uid" '$3 == u { print $2 }'); do ipcrm -"$kind" "$id" 2>/dev/null; done
    done
    return 0
}

# status_field PREFIX.status NAME: one field of grade-sandbox's status line.
status_field() {
    local line
    line=$(head -1 "$1" 2>/dev/null)
    [[ " $line" =~ \ $2=([^ ]*) ]] && echo "${BASH_REMATCH[1]}"
}

# inside DIR FILE: FILE is a regular file really inside DIR (no link on the way leads out of it).
# What a sandboxed step leaves behind is read as root: it must not lead the grader anywhere else.
inside() { [[ -f $2 && $(realpath -e -- "$2" 2>/dev/null) == "$(realpath -e -- "$1")"/* ]]; }

# Text from the sandbox made safe to show: no terminal control characters, at most $2 bytes.
sanitized() { head -c "${2:-20000}" "$1" 2>/dev/null | LC_ALL=C tr -d '\000-\010\013-\037\177'; }

# run_test BINARY NAME PREFIX UID: one test, alone, in its own sandbox (with the fallback isolation,
# grade-sandbox gives each step a /tmp folder of its own as TMPDIR). The report comes back on the pipe
# grade-sandbox hands the runner as fd 3 (LAB_REPORT_FD=3, tests/support/report.c).
# Criterion listens on /tmp/criterion_PID.sock. One killed elsewhere on this machine leaves its file
# behind, and when the fallback's shared /tmp holds one for the pid a test then gets, the job's user
# may not replace it: the test ends with "Could not initialize the message server". Files of
# processes that no longer exist are removed before each test.
clear_stale_criterion_sockets() {
    local socket pid
    for socket in /tmp/criterion_*.sock; do
        [[ -e $socket ]] || continue
        pid=${socket#/tmp/criterion_} pid=${pid%.sock}
        [[ -e /proc/$pid ]] || rm -f "$socket" 2> /dev/null
    done
    return 0
}

run_test() {
    local binary=$1 name=$2 prefix=$3 uid=$4
    [[ $isolation == fallback ]] && clear_stale_criterion_sockets
    keep_shared_tmp=1 sandboxed "$prefix" "$uid" --wall "$test_wall_seconds" --cpu "$test_seconds" --report "$prefix.report" \
        --ro "$book" --ro "$(dirname "$binary")" --chdir "$book" --setenv LAB_REPORT_FD=3 \
        --setenv LAB_DATA_DIR="$book/data" -- "$binary" "--filter=$name" -j1
}

# run_tests_at_once BINARY PREFIX UID [WALL]: every test of BINARY in one sandbox, under the limits
# of ONE test alone: Criterion gives each test a process of its own there too, RLIMIT_CPU (--cpu)
# holds for each process, and the run as a whole stops at one test's wall-clock limit (or WALL
# seconds, when fewer), and shares one test's memory, processes and output. So a test that this run
# reports passed has passed within every limit it would have had alone, with no more left to it, and
# one it reports failed has failed its own check on what the code computed, which no limit decides.
# Every other test (crashed, stopped by a limit, or not reached when the run was stopped) is then run
# alone (run_test), and its verdict and its reason are the ones it gets alone. One Criterion start
# instead of one a test: most of a graded day's time. WALL (grade-reference: a few times what the
# solution's run of all took) stops early a run that hangs, and the tests it did not reach go alone.
run_tests_at_once() {
    local binary=$1 prefix=$2 uid=$3 wall=${4:-$test_wall_seconds}
    ((wall <= test_wall_seconds)) || wall=$test_wall_seconds
    [[ $isolation == fallback ]] && clear_stale_criterion_sockets
    keep_shared_tmp=1 sandboxed "$prefix" "$uid" --wall "$wall" --cpu "$test_seconds" --report "$prefix.report" \
        --ro "$book" --ro "$(dirname "$binary")" --chdir "$book" --setenv LAB_REPORT_FD=3 \
        --setenv LAB_DATA_DIR="$book/data" -- "$binary" -j1
}

# runner_line NAME PREFIX: the line the runner wrote for test NAME (field 2) in PREFIX.report, or
# nothing; read by the shell itself, as this runs once for every test.
runner_line() {
    local candidate rest
    [[ -f $2.report ]] || return 0
    while IFS= read -r candidate || [[ -n $candidate ]]; do
        rest=${candidate#*$'\t'}
        if [[ $rest != "$candidate" && ${rest%%$'\t'*} == "$1" ]]; then printf '%s\n' "$candidate"; return 0; fi
    done < "$2.report"
}

# report_tampering PREFIX REFERENCE [NAME]: what is wrong with PREFIX.report, or nothing. The runner
# writes one line for each test of the program (REFERENCE: name TAB ...), and, run for test NAME alone,
# says "skipped" of every other. Its process holds none of the submission's code
# (tools/build/build-lab), so a report that names a test twice, or one it was not asked to run, was
# written by something else: the day then scores 0 (grade-one).
report_tampering() {
    local report=$1.report reference=$2 only=${3:-}
    [[ -f $report ]] || return 0
    LC_ALL=C awk -F'\t' -v only="$only" '
        FNR == NR { known[$1] = 1; next }
        { name = $2; if (name in seen) { print "it names " substr(name, 1, 100) " twice"; exit }
          seen[name] = 1
          if (!(name in known)) { print "it names a test that does not exist (" substr(name, 1, 100) ")"; exit }
          if (only != "" && name != only && $1 != "skipped") { print "it gives a verdict for " name ", which was not run there"; exit } }
    ' "$reference" "$report" | LC_ALL=C tr -d '\000-\037\177'
}

# verdict_at_once NAME PREFIX: the runner's line for test NAME in run_tests_at_once's report when it
# passed or failed, else nothing.
verdict_at_once() {
    local line
    line=$(runner_line "$1" "$2")
    [[ ${line%%$'\t'*} == passed || ${line%%$'\t'*} == failed ]] && printf '%s\n' "$line"
    return 0
}

# report_line NAME PREFIX REFERENCE: the report line for test NAME, as its runner wrote it; or, when
# the runner never reported (the grader stopped it, or it died), a line saying why. The hint and the
# source line then come from the reference run (REFERENCE: name TAB hint TAB line).
report_line() {
    local name=$1 prefix=$2 reference=$3 line status result hint source_line
    line=$(runner_line "$name" "$prefix")
    status=${line%%$'\t'*}
    case $status in
        passed|failed|crashed|timeout|skipped) printf '%s\n' "$line"; return ;;
    esac
    hint=$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' "$reference")
    source_line=$(awk -F'\t' -v n="$name" '$1 == n { print $3; exit }' "$reference")
    result=$(status_field "$prefix.status" result)
    case $result in
        timeout) printf 'timeout\t%s\tdid not finish within the grader'"'"'s limit of %s s of CPU time or %s s on the clock (an endless loop? waiting for something that never happens?)\t%s\t%s\n' \
                        "$name" "$test_seconds" "$test_wall_seconds" "$hint" "$source_line" ;;
        output-limit) printf 'failed\t%s\tprinted more than the grader allows (%s bytes), so it was stopped\t%s\t%s\n' \
                        "$name" "$output_limit" "$hint" "$source_line" ;;
        *) printf 'crashed\t%s\tthe test program ended before it could report (exit code %s, signal %s)\t%s\t%s\n' \
                        "$name" "$(status_field "$prefix.status" code)" "$(status_field "$prefix.status" signal)" \
                        "$hint" "$source_line" ;;
    esac
}

# list_tests BINARY PREFIX UID: the tests of a (reference) program, suite/test a line, from --list.
list_tests() {
    local binary=$1 prefix=$2 uid=$3
    sandboxed "$prefix" "$uid" --wall 60 --cpu 60 --ro "$book" --ro "$(dirname "$binary")" --chdir "$book" \
        -- "$binary" --list
    awk '/^[A-Za-z0-9_]+: [0-9]+ tests?$/ { suite = $1; sub(/:$/, "", suite); next }
         /^(├──|└──) / { name = $0; sub(/^(├──|└──) /, "", name); if (suite != "") print suite "/" name }' "$prefix.log"
}
