/* grade-sandbox.c — runs one step of the grader (unpacking, building, linking or running one test of
 * one submission) in isolation, and says how it ended. tools/grader/grade and tools/grader/grade-one call it; the
 * grader trusts only what this program writes: the status line, the capped output, and the report
 * that arrives on the pipe it hands the command as file descriptor 3.
 *
 *   grade-sandbox [OPTIONS] -- COMMAND [ARG...]
 *   grade-sandbox --probe [--uid N]        does bubblewrap work here? (exit 0, or 1 and why not)
 *
 * Two kinds of isolation, chosen with --mode:
 *   bwrap     bubblewrap: new user, pid, network, ipc, uts and cgroup namespaces; only /usr, the
 *             loader's files, the --ro and --rw folders and fresh /tmp, /dev/shm, /dev and /proc
 *             (read-only) exist; no network at all; the process tree dies with pid 1 of its namespace.
 *   fallback  no namespaces (containers that forbid them): a private session and process group
 *             that the command cannot leave (setsid and setpgid are refused), killed as a group;
 *             where the kernel has Landlock (5.13 and later, when enabled), files only beneath the
 *             system's folders (read), the --ro folders (read), the --rw folders and the --tmp
 *             folder (read and write) and no /proc, and (Landlock ABI 6, Linux 6.12) no abstract
 *             Unix socket or signal reaching outside the step. What Landlock does not cover: Unix
 *             sockets bound to a path elsewhere can still be connected to, where their file
 *             permissions let the job's user write them, and stat() still sees every /proc/PID.
 * Both add: a non-root user (--uid, when the grader is root: each parallel job has its own, so
 * process limits and file permissions separate the jobs), resource limits (CPU seconds, writable
 * memory, processes, file size, open files, no core files), a wall-clock limit, a cap on output, and
 * a seccomp filter that refuses network sockets (all but AF_UNIX), ptrace and reading or writing
 * other processes' memory, namespaces, mounts, io_uring, BPF, perf, keyrings and module loading.
 *
 * Memory is bounded for the step as a whole where a memory cgroup can be had (run as root, with
 * cgroup v1's memory controller or v2's): every process of the step, and what it writes to tmpfs
 * folders (/tmp, /dev/shm), counts against one --memory MB, and the cgroup is also how every
 * process of the step is found and killed at its end. Without one, the bound is the per-process
 * limit on writable memory times the process limit; the status line says which (memory=cgroup|
 * per-process) and whether the cgroup's limit was hit (oom=N).
 *
 * Options:
 *   --mode bwrap|fallback   --uid N   --chdir DIR   --setenv NAME=VALUE
 *   --tmp DIR                (fallback) TMPDIR and HOME; without it, a fresh folder that is the job's
 *                            user's alone, removed after the step: under /dev/shm where the step has a
 *                            memory cgroup (its files then count toward --memory), else under /tmp
 *   --ro PATH  --rw PATH     bwrap: bind PATH at the same place, read-only or writable; fallback
 *                            with Landlock: a folder the step may read, or read and write
 *   --wall S --cpu S --memory MB --procs N --file-size MB --open-files N --tmpfs-size MB
 *   --cpus N                 (as root, with a cpu cgroup) at most N cores' worth of CPU time for the
 *                            step's processes together, and an equal weight with every other step
 *   --output-limit BYTES     stop the command once it has printed this much (default 8 MiB)
 *   --log FILE               the first --log-keep BYTES (default 64 KiB) of its stdout and stderr
 *   --report FILE            give it a pipe as fd 3; what arrives there (at most 1 MiB) goes to FILE
 *   --status FILE            one line: result=exited|signaled|timeout|output-limit|not-started
 *                            (timeout: the wall-clock limit or the CPU limit)
 *                            code=N signal=N wall_ms=N cpu_ms=N isolation=bwrap|fallback
 *                            memory=cgroup|per-process oom=N
 *                            landlock=abiN|none|unused (fallback: the Landlock ABI applied, or none
 *                            where the kernel has none or GRADE_LANDLOCK=off; bwrap: namespaces)
 *                            cpus=cgroup|shared (whether --cpus holds: a cpu cgroup) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------
 * Options */

typedef struct options {
    int bwrap, probe;
    long uid;
    const char *chdir, *tmp, *log, *report, *status;
    const char *ro[64], *rw[64], *env[64];
    int ro_count, rw_count, env_count;
    long wall_s, cpu_s, memory_mb, procs, file_size_mb, open_files, tmpfs_mb, log_keep, cpus;
    long long output_limit;
    char **command;
} options;

static void usage(const char *why)
{
    fprintf(stderr, "grade-sandbox: %s\n(see the comment at the top of tools/grader/grade-sandbox.c)\n", why);
    exit(2);
}

static long number(const char *text, const char *option)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (!*text || *end || value < 0) {
        fprintf(stderr, "grade-sandbox: %s takes a whole number, not '%s'\n", option, text);
        exit(2);
    }
    return value;
}

static options parse(int argc, char **argv)
{
    options o = {.uid = -1, .wall_s = 60, .cpu_s = 60, .memory_mb = 2048, .procs = 64, .file_size_mb = 64,
                 .open_files = 256, .tmpfs_mb = 256, .log_keep = 64 * 1024, .output_limit = 8 << 20};
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) { i++; break; }
        if (strcmp(a, "--probe") == 0) { o.probe = 1; continue; }
        if (!v) usage("an option lacks its value");
        i++;
        if (strcmp(a, "--mode") == 0) {
            if (strcmp(v, "bwrap") && strcmp(v, "fallback")) usage("--mode is bwrap or fallback");
            o.bwrap = strcmp(v, "bwrap") == 0;
        }
        else if (strcmp(a, "--uid") == 0) o.uid = number(v, a);
        else if (strcmp(a, "--chdir") == 0) o.chdir = v;
        else if (strcmp(a, "--tmp") == 0) o.tmp = v;
        else if (strcmp(a, "--log") == 0) o.log = v;
        else if (strcmp(a, "--report") == 0) o.report = v;
        else if (strcmp(a, "--status") == 0) o.status = v;
        else if (strcmp(a, "--ro") == 0 && o.ro_count < 64) o.ro[o.ro_count++] = v;
        else if (strcmp(a, "--rw") == 0 && o.rw_count < 64) o.rw[o.rw_count++] = v;
        else if (strcmp(a, "--setenv") == 0 && o.env_count < 64 && strchr(v, '=')) o.env[o.env_count++] = v;
        else if (strcmp(a, "--wall") == 0) o.wall_s = number(v, a);
        else if (strcmp(a, "--cpu") == 0) o.cpu_s = number(v, a);
        else if (strcmp(a, "--memory") == 0) o.memory_mb = number(v, a);
        else if (strcmp(a, "--cpus") == 0) o.cpus = number(v, a);
        else if (strcmp(a, "--procs") == 0) o.procs = number(v, a);
        else if (strcmp(a, "--file-size") == 0) o.file_size_mb = number(v, a);
        else if (strcmp(a, "--open-files") == 0) o.open_files = number(v, a);
        else if (strcmp(a, "--tmpfs-size") == 0) o.tmpfs_mb = number(v, a);
        else if (strcmp(a, "--log-keep") == 0) o.log_keep = number(v, a);
        else if (strcmp(a, "--output-limit") == 0) o.output_limit = number(v, a);
        else usage("unknown option");
    }
    if (o.probe) {
        static char *true_command[] = {"true", NULL};
        o.bwrap = 1;
        o.command = true_command;
    } else {
        if (i >= argc) usage("no command to run");
        o.command = argv + i;
    }
    return o;
}

/* ---------------------------------------------------------------------------------
 * The seccomp filter: what no step of grading needs, refused with an error (never a kill, so
 * that a refused call shows up as an ordinary failure in the learner's feedback). */

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

#define STATEMENT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, yes, no) ((struct sock_filter)BPF_JUMP(code, k, yes, no))

typedef struct filter { struct sock_filter code[160]; int length; } filter;

static void emit(filter *f, struct sock_filter s) { if (f->length < 160) f->code[f->length++] = s; }

static void refuse(filter *f, long nr, int error)
{
    emit(f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1));
    emit(f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (uint32_t)error));
}

static filter build_filter(int fallback)
{
    filter f = {.length = 0};
#ifdef NATIVE_ARCH
    const uint32_t namespaces = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                                CLONE_NEWUTS | CLONE_NEWCGROUP;
    emit(&f, STATEMENT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(&f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
    emit(&f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));   /* 32-bit system calls */
    emit(&f, STATEMENT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    emit(&f, JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));     /* the x32 ABI */
    emit(&f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
#endif
    /* socket(domain, ...): only AF_UNIX (Criterion talks to its workers through one) */
    emit(&f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 4));
    emit(&f, STATEMENT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])));
    emit(&f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
    emit(&f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(&f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES));
    /* clone(flags, ...): no new namespaces; clone3 hides its flags in memory, so it is refused
     * with ENOSYS, which makes the C library fall back to clone */
    emit(&f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
    emit(&f, STATEMENT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])));
    emit(&f, JUMP(BPF_JMP | BPF_JSET | BPF_K, namespaces, 0, 1));
    emit(&f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
    emit(&f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#ifdef SYS_clone3
    refuse(&f, SYS_clone3, ENOSYS);
#endif
    long refused[] = {SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_unshare, SYS_setns,
                      SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_bpf, SYS_perf_event_open,
                      SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_init_module,
                      SYS_finit_module, SYS_delete_module, SYS_kexec_load, SYS_reboot, SYS_swapon, SYS_swapoff,
                      SYS_acct, SYS_quotactl, SYS_syslog, SYS_io_uring_setup, SYS_io_uring_enter,
                      SYS_io_uring_register, SYS_kcmp, SYS_name_to_handle_at, SYS_open_by_handle_at,
#ifdef SYS_kexec_file_load
                      SYS_kexec_file_load,
#endif
#ifdef SYS_pidfd_getfd
                      SYS_pidfd_getfd,
#endif
#ifdef SYS_fsopen
                      SYS_fsopen, SYS_fsmount, SYS_move_mount, SYS_open_tree,
#endif
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) refuse(&f, refused[i], EPERM);
    if (fallback) {
        /* without a pid namespace the process group is what gets killed: nobody may leave it */
        refuse(&f, SYS_setsid, EPERM);
        refuse(&f, SYS_setpgid, EPERM);
    }
    emit(&f, STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#else
    (void)fallback;
    (void)refuse;
#endif
    return f;
}

/* ---------------------------------------------------------------------------------
 * Counting a user's processes */

/* How many processes (or, with threads set, tasks: what RLIMIT_NPROC counts) run as uid, zombies aside. */
static int processes_of(uid_t uid, int threads)
{
    int count = 0;
    DIR *proc = opendir("/proc");
    struct dirent *e;
    while (proc && (e = readdir(proc))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        int zombie = 0, tasks = 1;
        long real_uid = -1;
        while (f && fgets(line, sizeof line, f)) {
            if (strncmp(line, "State:", 6) == 0) zombie = strchr(line, 'Z') != NULL;
            if (strncmp(line, "Uid:", 4) == 0) real_uid = strtol(line + 4, NULL, 10);
            if (strncmp(line, "Threads:", 8) == 0) { tasks = atoi(line + 8); break; }
        }
        if (f) fclose(f);
        if (real_uid == (long)uid && !zombie) count += threads ? tasks : 1;
    }
    if (proc) closedir(proc);
    return count;
}

/* ---------------------------------------------------------------------------------
 * Starting the command (in the child) */

static void child_fail(const char *what)
{
    fprintf(stderr, "grade-sandbox: %s: %s\n", what, strerror(errno));
    _exit(127);
}

static void limit(int resource, rlim_t value)
{
    struct rlimit r = {value, value};
    if (setrlimit(resource, &r) != 0) child_fail("setrlimit");
}

static char *text_of(const char *a, const char *b)
{
    char *s = malloc(strlen(a) + strlen(b) + 1);
    if (!s) child_fail("malloc");
    strcpy(s, a);
    return strcat(s, b);
}

/* The argument list for bwrap: the system's programs and libraries, read-only; fresh /dev, /proc,
 * /tmp and /dev/shm; then the caller's folders; then the command. */
static char **bwrap_arguments(const options *o, int seccomp_fd)
{
    static char *args[1024];
    int n = 0;
    static char size_text[32], fd_text[16];
    snprintf(size_text, sizeof size_text, "%ld", o->tmpfs_mb << 20);
    snprintf(fd_text, sizeof fd_text, "%d", seccomp_fd);
#define ADD(...) do { char *items_[] = {__VA_ARGS__}; \
                      for (size_t k_ = 0; k_ < sizeof items_ / sizeof *items_ && n < 1000; k_++) args[n++] = items_[k_]; } while (0)
    ADD("bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--uid", "1000", "--gid", "1000",
        "--hostname", "sandbox", "--die-with-parent", "--new-session", "--clearenv");
    ADD("--ro-bind", "/usr", "/usr");
    const char *top[] = {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
        struct stat st;
        if (lstat(top[i], &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            static char targets[6][256];
            ssize_t len = readlink(top[i], targets[i], sizeof targets[i] - 1);
            if (len <= 0) continue;
            targets[i][len] = 0;
            ADD("--symlink", targets[i], (char *)top[i]);
        } else {
            ADD("--ro-bind", (char *)top[i], (char *)top[i]);
        }
    }
    const char *etc[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                         "/etc/localtime"};
    for (size_t i = 0; i < sizeof etc / sizeof *etc; i++) ADD("--ro-bind-try", (char *)etc[i], (char *)etc[i]);
    ADD("--proc", "/proc", "--dev", "/dev");
    ADD("--size", size_text, "--tmpfs", "/tmp", "--size", size_text, "--tmpfs", "/dev/shm");
    for (int i = 0; i < o->ro_count; i++) ADD("--ro-bind", (char *)o->ro[i], (char *)o->ro[i]);
    for (int i = 0; i < o->rw_count; i++) ADD("--bind", (char *)o->rw[i], (char *)o->rw[i]);
    ADD("--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
        "--setenv", "LANG", "C.UTF-8");
    for (int i = 0; i < o->env_count; i++) {
        char *copy = strdup(o->env[i]), *eq = strchr(copy, '=');
        *eq = 0;
        ADD("--setenv", copy, eq + 1);
    }
    /* bwrap builds / as a tmpfs with no size: read-only once everything is in place, so the step writes
     * only where it is given a folder (--rw) and in /tmp and /dev/shm, which are sized */
    ADD("--remount-ro", "/");
    /* /proc read-only: /proc/self/mem then opens for reading only, so a test's worker cannot write
     * through it into its own read-only code (the test framework's, to silence its checks) */
    ADD("--remount-ro", "/proc");
    if (o->chdir) ADD("--chdir", (char *)o->chdir);
    if (seccomp_fd >= 0) ADD("--seccomp", fd_text);
    ADD("--");
    for (char **c = o->command; *c && n < 1020; c++) args[n++] = *c;
    args[n] = NULL;
#undef ADD
    return args;
}

/* ---------------------------------------------------------------------------------
 * The step's memory cgroup */

static char cgroup_dir[512];
static int cgroup_v2;

static int write_text(const char *dir, const char *file, const char *text)
{
    char path[640];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* This process's cgroup path for the memory controller ("0::PATH" on v2, "N:memory:PATH" on v1). */
static int own_cgroup(char *base, size_t size)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return -1;
    char line[512], v1[512] = "", v2[512] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *path = strchr(strchr(line, ':') ? strchr(line, ':') + 1 : line, ':');
        if (!path) continue;
        if (strncmp(line, "0::", 3) == 0) snprintf(v2, sizeof v2, "%s", path + 1);
        else if (strstr(line, ":memory:")) snprintf(v1, sizeof v1, "%s", path + 1);
    }
    fclose(f);
    FILE *controllers = fopen("/sys/fs/cgroup/cgroup.controllers", "r");
    char list[256] = "";
    if (controllers) { if (!fgets(list, sizeof list, controllers)) list[0] = 0; fclose(controllers); }
    if (strstr(list, "memory")) { cgroup_v2 = 1; return snprintf(base, size, "/sys/fs/cgroup%s", v2) < (int)size ? 0 : -1; }
    if (*v1) return snprintf(base, size, "/sys/fs/cgroup/memory%s", v1) < (int)size ? 0 : -1;
    return -1;
}

/* A cgroup of its own for this step, limited to memory_mb: 0, or -1 (then the per-process limits hold). */
static int cgroup_create(long memory_mb)
{
    char base[400], limit[32];
    if (geteuid() != 0 || own_cgroup(base, sizeof base) != 0) return -1;
    snprintf(cgroup_dir, sizeof cgroup_dir, "%s/grade-sandbox-%d", base, (int)getpid());
    if (mkdir(cgroup_dir, 0700) != 0) { cgroup_dir[0] = 0; return -1; }
    snprintf(limit, sizeof limit, "%ld", memory_mb << 20);
    int ok = cgroup_v2 ? write_text(cgroup_dir, "memory.max", limit) == 0
                       : write_text(cgroup_dir, "memory.limit_in_bytes", limit) == 0;
    if (cgroup_v2) write_text(cgroup_dir, "memory.swap.max", "0");
    else write_text(cgroup_dir, "memory.memsw.limit_in_bytes", limit);   /* where swap is accounted */
    if (!ok) { rmdir(cgroup_dir); cgroup_dir[0] = 0; return -1; }
    return 0;
}

static long long read_number(const char *file, const char *format)
{
    char path[640], line[128];
    long long value = 0;
    snprintf(path, sizeof path, "%s/%s", cgroup_dir, file);
    FILE *f = *cgroup_dir ? fopen(path, "r") : NULL;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, format, &value) == 1) break;
    fclose(f);
    return value;
}

/* Whether the step reached the cgroup's limit: v2 counts its OOM kills; v1 keeps the peak usage. */
static long cgroup_ooms(long memory_mb)
{
    if (cgroup_v2) return (long)read_number("memory.events", "oom_kill %lld");
    long long peak = read_number("memory.max_usage_in_bytes", "%lld");
    return peak >= (((long long)memory_mb << 20) - (1 << 20)) ? 1 + (long)read_number("memory.failcnt", "%lld") : 0;
}

/* The step's CPU cgroup: at most --cpus cores' worth of time for all its processes together, however
 * many it starts, and the same weight as every other step (each a cgroup of its own, side by side),
 * so that a step that starts many busy processes slows no other job's tests. cgroup v2: the memory
 * cgroup's own folder, where the cpu controller is enabled; v1: one beside it in the cpu hierarchy. */
static char cpu_cgroup_dir[512];

static int cpu_cgroup_create(long cpus)
{
    char path_v1[400] = "", line[512];
    if (cpus <= 0 || geteuid() != 0) return -1;
    if (cgroup_v2) {
        if (!*cgroup_dir) return -1;
        char quota[64];
        snprintf(quota, sizeof quota, "%ld 100000", cpus * 100000);
        return write_text(cgroup_dir, "cpu.max", quota) == 0 ? 0 : -1;   /* -1 where cpu is not enabled */
    }
    FILE *f = fopen("/proc/self/cgroup", "r");
    while (f && fgets(line, sizeof line, f)) {   /* "N:cpu,cpuacct:/path" or "N:cpu:/path" */
        line[strcspn(line, "\n")] = 0;
        char *controllers = strchr(line, ':'), *path = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!path) continue;
        *path++ = 0, controllers++;
        char list[128];
        snprintf(list, sizeof list, ",%s,", controllers);
        if (!strstr(list, ",cpu,")) continue;
        struct stat st;
        snprintf(path_v1, sizeof path_v1, "/sys/fs/cgroup/%s%s", controllers, path);
        if (stat(path_v1, &st) != 0) snprintf(path_v1, sizeof path_v1, "/sys/fs/cgroup/cpu%s", path);
        break;
    }
    if (f) fclose(f);
    if (!*path_v1) return -1;
    snprintf(cpu_cgroup_dir, sizeof cpu_cgroup_dir, "%s/grade-sandbox-%d", path_v1, (int)getpid());
    char quota[32];
    snprintf(quota, sizeof quota, "%ld", cpus * 100000);
    if (mkdir(cpu_cgroup_dir, 0700) != 0) { cpu_cgroup_dir[0] = 0; return -1; }
    if (write_text(cpu_cgroup_dir, "cpu.cfs_period_us", "100000") != 0 || write_text(cpu_cgroup_dir, "cpu.cfs_quota_us", quota) != 0) {
        rmdir(cpu_cgroup_dir);
        cpu_cgroup_dir[0] = 0;
        return -1;
    }
    return 0;
}

/* Removes the v1 cpu cgroup once its processes are gone (cgroup_remove has killed them all). */
static void cpu_cgroup_remove(void)
{
    for (int round = 0; *cpu_cgroup_dir && round < 200; round++) {
        if (rmdir(cpu_cgroup_dir) == 0) return;
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        usleep(5000);
    }
}

/* Kills every process left in the cgroup and removes it. */
static void cgroup_remove(void)
{
    if (!*cgroup_dir) return;
    char path[640];
    snprintf(path, sizeof path, "%s/cgroup.procs", cgroup_dir);
    for (int round = 0; round < 200; round++) {
        FILE *f = fopen(path, "r");
        int alive = 0, pid;
        while (f && fscanf(f, "%d", &pid) == 1) { kill(pid, SIGKILL); alive = 1; }
        if (f) fclose(f);
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        if (!alive && rmdir(cgroup_dir) == 0) return;
        usleep(5000);
    }
}

/* ---------------------------------------------------------------------------------
 * The step's temporary folder (fallback without --tmp): a fresh one under /tmp, the job's user's
 * alone, removed with everything in it when the step is over */

static char private_tmp[64];

static const char *private_tmp_create(long uid, int in_memory)
{
    /* in /dev/shm where the step has a memory cgroup: what it writes there is memory the cgroup
     * counts, so files in its temporary folder count toward --memory, as in bwrap's /tmp */
    snprintf(private_tmp, sizeof private_tmp, in_memory ? "/dev/shm/grade-sandbox-XXXXXX" : "/tmp/grade-sandbox-XXXXXX");
    if (!mkdtemp(private_tmp)) { perror("grade-sandbox: mkdtemp"); exit(2); }
    if (uid >= 0 && geteuid() == 0 && chown(private_tmp, (uid_t)uid, (gid_t)uid) != 0) {
        perror("grade-sandbox: chown");
        exit(2);
    }
    return private_tmp;
}

static int remove_entry(const char *path, const struct stat *st, int kind, struct FTW *where)
{
    (void)st, (void)kind, (void)where;
    remove(path);
    return 0;
}

/* Only once every process of the step is dead: nothing can then swap a folder for a link. */
static void private_tmp_remove(void)
{
    if (*private_tmp) nftw(private_tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* ---------------------------------------------------------------------------------
 * Landlock (fallback): which files a step may open, and whom it may reach. Without namespaces,
 * everything of the machine that file permissions let the job's user read would be open to it; the
 * ruleset opens only the system's programs and libraries and the step's own folders, and scopes
 * abstract Unix sockets and signals to the step's own processes. Applied after no_new_privs, it holds
 * for the command and everything it starts. The constants are the kernel's ABI (linux/landlock.h),
 * written out so that older headers build this too. */

#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define LANDLOCK_RULE_PATH_BENEATH 1
#define LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)      /* ABI 2 */
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)   /* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)   /* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

typedef struct ruleset_attributes { uint64_t handled_access_fs, handled_access_net, scoped; } ruleset_attributes;
typedef struct __attribute__((packed)) path_beneath { uint64_t allowed_access; int32_t parent_fd; } path_beneath;

#define FS_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
                 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)   /* the rights a rule on a file may hold */

/* The Landlock ABI this kernel offers, 0 where it has none (too old, or not enabled at boot);
 * GRADE_LANDLOCK=off makes the fallback run as on such a kernel (for testing what grade then says). */
static int landlock_abi(void)
{
#ifdef SYS_landlock_create_ruleset
    const char *setting = getenv("GRADE_LANDLOCK");
    if (setting && strcmp(setting, "off") == 0) return 0;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
#else
    return 0;
#endif
}

#ifdef SYS_landlock_create_ruleset
/* Allows access (what of it the ruleset handles) beneath path; a path that does not exist is skipped. */
static void landlock_allow(int ruleset, const char *path, uint64_t access, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) != 0) child_fail(path);
    path_beneath rule = {access & handled & (S_ISDIR(st.st_mode) ? ~0ULL : FS_FILE), fd};
    if (rule.allowed_access && syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
        child_fail(path);
    close(fd);
}
#endif

/* Restricts this process and all it will start: read and execute beneath the system's folders and the
 * --ro folders; read, write and create beneath the --rw folders, the step's temporary folder, /dev/shm
 * (where Criterion keeps its workers' shared memory) and a few devices; nothing elsewhere, /proc
 * included (so no other process's command line or environment). No TCP (seccomp refuses it too), no
 * abstract Unix socket made outside the step, no signal to a process outside it. */
static void landlock_apply(const options *o, int abi, const char *tmp)
{
#ifdef SYS_landlock_create_ruleset
    uint64_t fs_write = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                     LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER |
                     LANDLOCK_ACCESS_FS_TRUNCATE;
    ruleset_attributes attributes = {
        .handled_access_fs = FS_READ | fs_write | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                             LANDLOCK_ACCESS_FS_IOCTL_DEV,
        .handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP,
        .scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL,
    };
    /* what older ABIs lack is left out (then allowed, as before Landlock) */
    if (abi < 2) attributes.handled_access_fs &= ~LANDLOCK_ACCESS_FS_REFER;
    if (abi < 3) attributes.handled_access_fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi < 4) attributes.handled_access_net = 0;
    if (abi < 5) attributes.handled_access_fs &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
    if (abi < 6) attributes.scoped = 0;
    uint64_t handled = attributes.handled_access_fs;
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
    if (ruleset < 0) child_fail("landlock_create_ruleset");
    /* the loader's and the compilers' files (clang reads which distribution it runs on), the CPUs' count */
    const char *system[] = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc/ld.so.cache",
                            "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime",
                            "/etc/locale.alias", "/etc/os-release", "/etc/debian_version", "/etc/lsb-release",
                            "/sys/devices/system/cpu"};
    for (size_t i = 0; i < sizeof system / sizeof *system; i++) landlock_allow(ruleset, system[i], FS_READ, handled);
    for (int i = 0; i < o->ro_count; i++) landlock_allow(ruleset, o->ro[i], FS_READ, handled);
    const char *devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
    for (size_t i = 0; i < sizeof devices / sizeof *devices; i++)
        landlock_allow(ruleset, devices[i], FS_FILE & ~LANDLOCK_ACCESS_FS_EXECUTE, handled);
    for (int i = 0; i < o->rw_count; i++) landlock_allow(ruleset, o->rw[i], FS_READ | fs_write, handled);
    landlock_allow(ruleset, tmp, FS_READ | fs_write, handled);
    landlock_allow(ruleset, "/dev/shm", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | fs_write, handled);
    /* Criterion's runner listens on /tmp/criterion_PID.sock, whatever TMPDIR says */
    landlock_allow(ruleset, "/tmp", LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_REMOVE_FILE, handled);
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) child_fail("landlock_restrict_self");
    close(ruleset);
#else
    (void)o, (void)abi, (void)tmp;
#endif
}

static void start(const options *o, int output_fd, int report_fd, int landlock)
{
    /* the grader's own signal dispositions are not the command's */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    /* into the step's cgroup while still root, before anything of the command runs */
    if (*cgroup_dir) {
        char self[32];
        snprintf(self, sizeof self, "%d", (int)getpid());
        if (write_text(cgroup_dir, "cgroup.procs", self) != 0) child_fail("joining the step's memory cgroup");
    }
    if (*cpu_cgroup_dir) {
        char self[32];
        snprintf(self, sizeof self, "%d", (int)getpid());
        if (write_text(cpu_cgroup_dir, "cgroup.procs", self) != 0) child_fail("joining the step's cpu cgroup");
    }
    /* a session of its own: no controlling terminal to inject keystrokes into, one group to kill */
    setsid();
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(output_fd, 1) < 0 || dup2(output_fd, 2) < 0) child_fail("dup2");
    if (report_fd >= 0) {
        if (dup2(report_fd, 3) < 0) child_fail("dup2");
    } else {
        close(3);
    }
    for (int fd = 4; fd < 1024; fd++) close(fd);

    filter f = build_filter(!o->bwrap);
    int seccomp_fd = -1;
    if (o->bwrap && f.length) {
        /* bwrap loads the filter itself, just before it starts the command */
        seccomp_fd = memfd_create("seccomp", 0);
        if (seccomp_fd < 0 || write(seccomp_fd, f.code, sizeof(struct sock_filter) * (size_t)f.length) < 0 ||
            lseek(seccomp_fd, 0, SEEK_SET) != 0)
            child_fail("memfd");
    }

    struct rlimit cpu = {(rlim_t)o->cpu_s, (rlim_t)o->cpu_s + 1};   /* SIGXCPU, then SIGKILL a second later */
    if (setrlimit(RLIMIT_CPU, &cpu) != 0) child_fail("setrlimit");
    /* writable private memory, not address space: the simulator reserves a terabyte of address
     * space (PROT_NONE) for device memory and only makes pages writable as it allocates them */
    limit(RLIMIT_DATA, (rlim_t)o->memory_mb << 20);
    limit(RLIMIT_FSIZE, (rlim_t)o->file_size_mb << 20);
    limit(RLIMIT_NOFILE, (rlim_t)o->open_files);
    limit(RLIMIT_CORE, 0);
    limit(RLIMIT_MEMLOCK, 0);
    /* RLIMIT_NPROC counts all the tasks of a user: a per-job limit when the job has a user of its own
     * (--uid, when the grader is root); otherwise the user's other processes count too, so the limit
     * is what they use now plus --procs (and jobs running at once share the headroom) */
    rlim_t tasks = (rlim_t)o->procs;
    if (!(o->uid >= 0 && geteuid() == 0)) tasks += (rlim_t)processes_of(getuid(), 1);
    limit(RLIMIT_NPROC, tasks);

    if (o->uid >= 0 && geteuid() == 0) {
        gid_t gid = (gid_t)o->uid;
        if (setgroups(1, &gid) != 0 || setgid(gid) != 0 || setuid((uid_t)o->uid) != 0) child_fail("setuid");
        if (getuid() != (uid_t)o->uid || setuid(0) == 0) { errno = EPERM; child_fail("dropping root"); }
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);   /* dies if the grader does (set after setuid, which clears it) */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail("no_new_privs");

    if (o->bwrap) {
        /* bwrap is pid 1 of the sandbox, and a test can read its environment (/proc/1/environ): it gets
         * none of the grader's, only what finds it (--clearenv then gives the command only --setenv's) */
        static char *bwrap_env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
        char **args = bwrap_arguments(o, seccomp_fd);
        execvpe("bwrap", args, bwrap_env);
        child_fail("starting bwrap");
    }

    const char *tmp = o->tmp ? o->tmp : "/tmp";
    static char *env[80];
    int n = 0;
    env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    env[n++] = text_of("HOME=", tmp);
    env[n++] = text_of("TMPDIR=", tmp);
    env[n++] = "LANG=C.UTF-8";
    for (int i = 0; i < o->env_count; i++) env[n++] = (char *)o->env[i];
    env[n] = NULL;
    if (o->chdir && chdir(o->chdir) != 0) child_fail(o->chdir);
    if (landlock) landlock_apply(o, landlock, tmp);
    if (f.length) {
        struct sock_fprog program = {(unsigned short)f.length, f.code};
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) child_fail("seccomp");
    }
    execvpe(o->command[0], o->command, env);
    child_fail(o->command[0]);
}

/* ---------------------------------------------------------------------------------
 * Watching it, and ending it (in the parent) */

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Kills everything the command started. bwrap: killing bwrap kills pid 1 of its namespace (it dies
 * with its parent), and with it every process inside. fallback: the process group, which nobody
 * could leave; and, when the job has a user of its own, every process of that user. A fork bomb
 * forks while it is being killed, and on a loaded machine that can take seconds: the rounds go on
 * until nothing is left (20 s at most), for a survivor would hold the next test's process limit. */
static void kill_everything(const options *o, pid_t pid)
{
    kill(pid, SIGKILL);
    int own_user = o->uid >= 0 && geteuid() == 0;
    for (long long deadline = now_ms() + 20000; now_ms() < deadline;) {
        int alive = killpg(pid, SIGKILL) == 0;
        if (own_user && processes_of((uid_t)o->uid, 0) > 0) {
            alive = 1;
            pid_t killer = fork();
            if (killer == 0) {
                if (setgid((gid_t)o->uid) != 0 || setuid((uid_t)o->uid) != 0) _exit(2);
                kill(-1, SIGKILL);   /* every process of this user but the caller itself */
                _exit(0);
            }
            if (killer > 0) waitpid(killer, NULL, 0);
        }
        while (waitpid(-1, NULL, WNOHANG) > 0) {}   /* reap what was reparented to us */
        if (!alive) break;
        usleep(5000);
    }
}

/* The grader interrupted (Ctrl-C, or killed): end the command and all it started before leaving,
 * since a command in a session of its own does not get the terminal's signals. */
static volatile sig_atomic_t interrupted;
static void on_interrupt(int signal_number) { interrupted = signal_number; }

static int write_file(const char *path, const char *data, size_t length)
{
    if (!path) return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) { fprintf(stderr, "grade-sandbox: cannot write %s: %s\n", path, strerror(errno)); return -1; }
    while (length) {
        ssize_t n = write(fd, data, length);
        if (n <= 0) break;
        data += n, length -= (size_t)n;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    int output[2], report[2] = {-1, -1};
    if (pipe2(output, O_CLOEXEC) != 0 || (o.report && pipe2(report, O_CLOEXEC) != 0)) { perror("pipe"); return 2; }
    /* orphans of the command are reparented to us, so that none outlives the step unreaped */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction on_signal = {.sa_handler = on_interrupt};
    sigaction(SIGINT, &on_signal, NULL);
    sigaction(SIGTERM, &on_signal, NULL);
    sigaction(SIGHUP, &on_signal, NULL);

    int memory_cgroup = cgroup_create(o.memory_mb) == 0;
    int cpu_cgroup = cpu_cgroup_create(o.cpus) == 0;
    int landlock = o.bwrap ? 0 : landlock_abi();
    if (!o.bwrap && !o.tmp) o.tmp = private_tmp_create(o.uid, memory_cgroup);
    long long started = now_ms();
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        /* the child's copies must survive exec: clear close-on-exec on the ends it keeps */
        fcntl(output[1], F_SETFD, 0);
        if (o.report) fcntl(report[1], F_SETFD, 0);
        close(output[0]);
        if (o.report) close(report[0]);
        start(&o, output[1], o.report ? report[1] : -1, landlock);
    }
    close(output[1]);
    if (o.report) close(report[1]);
    /* A descriptor that becomes readable when the command ends, so the wait below wakes at once
     * instead of at the next tick of the poll below (a test takes tens of milliseconds); -1 on kernels before 5.3. */
#ifdef SYS_pidfd_open
    int ended = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    int ended = -1;
#endif

    size_t log_capacity = (size_t)o.log_keep, log_length = 0, report_length = 0;
    const size_t report_capacity = 1 << 20;
    char *log = malloc(log_capacity + 1), *report_data = malloc(report_capacity);
    long long printed = 0;
    const char *result = NULL;
    int status = 0, exited = 0, output_open = 1, report_open = o.report != NULL;
    char buffer[65536];
    long long deadline = started + o.wall_s * 1000;

    while (!exited || output_open || report_open) {
        if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
            /* the command is over: nothing it left behind may keep running, or keep a pipe open */
            kill_everything(&o, pid);
        }
        if (exited && !output_open && !report_open) break;
        if (interrupted) {
            kill_everything(&o, pid);
            cgroup_remove();
            cpu_cgroup_remove();
            private_tmp_remove();
            signal((int)interrupted, SIG_DFL);
            raise((int)interrupted);
            _exit(128 + (int)interrupted);
        }
        if (!exited && now_ms() >= deadline) { result = "timeout"; break; }
        if (!exited && printed > o.output_limit) { result = "output-limit"; break; }
        struct pollfd fds[3] = {{output_open ? output[0] : -1, POLLIN, 0}, {report_open ? report[0] : -1, POLLIN, 0},
                                {exited ? -1 : ended, POLLIN, 0}};
        int ready = poll(fds, 3, exited ? 200 : 50);
        if (ready == 0 && exited) break;   /* everything is dead: whatever is still open is stale */
        if (fds[0].revents) {
            ssize_t n = read(output[0], buffer, sizeof buffer);
            if (n <= 0) output_open = 0;
            else {
                size_t keep = log_length < log_capacity ? log_capacity - log_length : 0;
                if (keep > (size_t)n) keep = (size_t)n;
                memcpy(log + log_length, buffer, keep);
                log_length += keep;
                printed += n;
            }
        }
        if (fds[1].revents) {
            ssize_t n = read(report[0], buffer, sizeof buffer);
            if (n <= 0) report_open = 0;
            else {
                size_t keep = report_capacity - report_length < (size_t)n ? report_capacity - report_length : (size_t)n;
                memcpy(report_data + report_length, buffer, keep);
                report_length += keep;
            }
        }
    }
    if (!exited) {
        kill_everything(&o, pid);
        waitpid(pid, &status, 0);
    }
    if (ended >= 0) close(ended);
    long ooms = memory_cgroup ? cgroup_ooms(o.memory_mb) : 0;
    cgroup_remove();
    cpu_cgroup_remove();
    private_tmp_remove();
    long long wall = now_ms() - started;
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    long long cpu = (long long)usage.ru_utime.tv_sec * 1000 + usage.ru_utime.tv_usec / 1000 +
                    (long long)usage.ru_stime.tv_sec * 1000 + usage.ru_stime.tv_usec / 1000;

    int code = 0, sig = 0;
    if (!result) {
        if (WIFEXITED(status)) {
            code = WEXITSTATUS(status);
            result = code == 127 && log_length >= 15 && memcmp(log, "grade-sandbox: ", 15) == 0 ? "not-started" : "exited";
        } else if (WIFSIGNALED(status)) {
            sig = WTERMSIG(status);
            result = "signaled";
        } else {
            result = "signaled";
        }
    }
    /* killed at the CPU limit: bwrap reports its command's death by signal N as exit status 128+N */
    int killed = strcmp(result, "signaled") == 0 || (o.bwrap && strcmp(result, "exited") == 0 && code > 128);
    if (killed && cpu >= o.cpu_s * 1000 - 50) result = "timeout";
    if (printed > o.output_limit) result = "output-limit";
    if (strcmp(result, "output-limit") == 0) {
        char note[160];
        int n = snprintf(note, sizeof note, "\n[the grader stopped it: more than %lld bytes of output]\n", o.output_limit);
        char *longer = realloc(log, log_length + (size_t)n + 1);
        if (longer) {
            log = longer;
            memcpy(log + log_length, note, (size_t)n);
            log_length += (size_t)n;
        }
    }

    char line[256], landlock_text[16] = "unused";
    if (!o.bwrap) snprintf(landlock_text, sizeof landlock_text, landlock ? "abi%d" : "none", landlock);
    int n = snprintf(line, sizeof line,
                     "result=%s code=%d signal=%d wall_ms=%lld cpu_ms=%lld isolation=%s memory=%s oom=%ld landlock=%s cpus=%s\n",
                     result, code, sig, wall, cpu, o.bwrap ? "bwrap" : "fallback", memory_cgroup ? "cgroup" : "per-process",
                     ooms, landlock_text, cpu_cgroup ? "cgroup" : "shared");
    if (write_file(o.log, log, log_length) || (o.report && write_file(o.report, report_data, report_length)) ||
        write_file(o.status, line, (size_t)n))
        return 2;
    if (o.probe) {
        if (strcmp(result, "exited") == 0 && code == 0) return 0;
        fwrite(log, 1, log_length, stderr);
        return 1;
    }
    if (!o.status) fputs(line, stderr);
    return 0;
}
