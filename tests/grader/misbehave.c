/* misbehave.c — for tests/grader/run: a program that misbehaves in one chosen way, so that the
 * sandbox (tools/grade-sandbox) can be tested directly, step by step, in each isolation mode.
 *
 *   misbehave loop | print | orphan | network | forks | who | write PATH | read PATH | hog | fill DIR */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether child `pid` still holds `bytes` of memory: alive, and as many bytes resident
 * (where /proc/PID/statm cannot be read, alive is all there is to go on). Counting the
 * children alive once counted 3 of 10 under a limit that holds 2, now and then. */
static int still_holds(pid_t pid, size_t bytes)
{
    if (pid <= 0 || waitpid(pid, NULL, WNOHANG) != 0) return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long size_pages, resident_pages;
    int known = f && fscanf(f, "%lu %lu", &size_pages, &resident_pages) == 2;
    if (f) fclose(f);
    return !known || (size_t)resident_pages * (size_t)sysconf(_SC_PAGESIZE) >= bytes;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "";
    if (!strcmp(how, "loop")) for (volatile int spin = 1; spin;) {}
    if (!strcmp(how, "print")) for (;;) fputs("All checks pass. All checks pass. All checks pass.\n", stdout);
    if (!strcmp(how, "orphan")) {
        /* a grandchild in a new session, which would outlive this program */
        if (fork() == 0) {
            setsid();
            if (fork() == 0) { prctl(PR_SET_NAME, "misbehave-orphan"); for (;;) sleep(1); }
            _exit(0);
        }
        sleep(1);
        return 0;
    }
    if (!strcmp(how, "network")) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0) { printf("socket refused: %s\n", strerror(errno)); return 0; }
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argc > 2 ? argv[2] : "80"))};
        inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
        printf("connect: %s\n", connect(s, (struct sockaddr *)&to, sizeof to) == 0 ? "connected" : strerror(errno));
        return 0;
    }
    if (!strcmp(how, "forks")) {
        int made = 0;
        for (int i = 0; i < 500; i++) {
            pid_t p = fork();
            if (p == 0) { sleep(5); _exit(0); }
            made += p > 0;
        }
        printf("forked %d\n", made);
        return 0;
    }
    if (!strcmp(how, "hog")) {
        /* Ten children of 400 MiB each, every page touched, each holding it until all ten have
         * either said so or died. Then the children still alive hold their memory at once: how
         * many there are is what the step's memory limit allows together, whatever order they
         * ran in and whichever of them the kernel killed to make room. */
        pid_t children[10];
        int said[10];
        for (int i = 0; i < 10; i++) {
            int pipe_ends[2];
            if (pipe(pipe_ends) != 0) return 1;
            children[i] = fork();
            if (children[i] == 0) {
                close(pipe_ends[0]);
                size_t bytes = (size_t)400 << 20;
                volatile char *p = malloc(bytes);
                if (!p) _exit(1);
                for (size_t k = 0; k < bytes; k += 4096) p[k] = (char)(i + 1);
                if (write(pipe_ends[1], "h", 1) != 1) _exit(1);
                for (;;) pause();
            }
            close(pipe_ends[1]);
            said[i] = pipe_ends[0];
        }
        for (int i = 0; i < 10; i++) {
            char c;
            int held = read(said[i], &c, 1) == 1;   /* 0 bytes: it died before holding its memory */
            if (held) printf("child %d held 400 MiB\n", i);
            close(said[i]);
        }
        /* the fewest of five looks 50 ms apart: a child being killed may still look whole for
         * a moment, while ten children outside any limit hold their memory in every look */
        int holding = 10;
        for (int look = 0; look < 5; look++) {
            int now = 0;
            if (look) usleep(50 * 1000);
            for (int i = 0; i < 10; i++) now += still_holds(children[i], (size_t)400 << 20);
            if (now < holding) holding = now;
        }
        printf("holding at once: %d\n", holding);
        fflush(stdout);
        for (int i = 0; i < 10; i++)
            if (children[i] > 0) kill(children[i], SIGKILL);
        while (wait(NULL) > 0) {}
        return 0;
    }
    if (!strcmp(how, "fill") && argc > 2) {   /* 960 MiB of files in a memory-backed folder */
        static char block[1 << 20];
        memset(block, 'x', sizeof block);
        int written = 0;
        for (int f = 0; f < 12; f++) {
            char path[512];
            snprintf(path, sizeof path, "%s/fill-%d", argv[2], f);
            FILE *out = fopen(path, "w");
            for (int m = 0; out && m < 80 && fwrite(block, 1, sizeof block, out) == sizeof block && fflush(out) == 0; m++) {
                written++;
                printf("wrote %d MiB\n", written);   /* the last line says how far it got, killed or not */
                fflush(stdout);
            }
            if (out) fclose(out);
        }
        return 0;
    }
    if (!strcmp(how, "who")) { printf("uid %d\n", (int)getuid()); return 0; }
    if (!strcmp(how, "write") && argc > 2) {
        FILE *f = fopen(argv[2], "a");
        printf("write %s: %s\n", argv[2], f ? "done" : strerror(errno));
        if (f) fclose(f);
        return 0;
    }
    if (!strcmp(how, "read") && argc > 2) {
        FILE *f = fopen(argv[2], "r");
        printf("read %s: %s\n", argv[2], f ? "done" : strerror(errno));
        return 0;
    }
    fprintf(stderr, "usage: misbehave loop|print|orphan|network [PORT]|forks|who|write PATH|read PATH\n");
    return 2;
}
