/* listen.c — for tests/grader/run: listens on 127.0.0.1:PORT (TCP and UDP) and on the abstract Unix
 * socket grade-listen-PORT, and writes a line to LOG for every connection or datagram that arrives,
 * so that the test can tell whether a sandboxed submission reached the network or a socket of the
 * machine. Runs until killed. With --knock it connects to that Unix socket once instead (the test's
 * control: a connection from outside the sandbox is seen).
 *
 *   listen PORT LOG
 *   listen --knock PORT */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The address of the abstract Unix socket grade-listen-PORT (sun_path[0] = 0: no file), and its length. */
static socklen_t abstract_address(struct sockaddr_un *at, const char *port)
{
    memset(at, 0, sizeof *at);
    at->sun_family = AF_UNIX;
    int n = snprintf(at->sun_path + 1, sizeof at->sun_path - 1, "grade-listen-%s", port);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int main(int argc, char **argv)
{
    struct sockaddr_un local;
    if (argc == 3 && strcmp(argv[1], "--knock") == 0) {
        socklen_t length = abstract_address(&local, argv[2]);
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        return s >= 0 && connect(s, (struct sockaddr *)&local, length) == 0 ? 0 : 1;
    }
    if (argc != 3) { fprintf(stderr, "usage: listen PORT LOG | listen --knock PORT\n"); return 2; }
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1]))};
    inet_pton(AF_INET, "127.0.0.1", &at.sin_addr);
    int tcp = socket(AF_INET, SOCK_STREAM, 0), udp = socket(AF_INET, SOCK_DGRAM, 0), yes = 1;
    int unix_socket = socket(AF_UNIX, SOCK_STREAM, 0);
    setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    socklen_t local_length = abstract_address(&local, argv[1]);
    if (bind(tcp, (struct sockaddr *)&at, sizeof at) || listen(tcp, 16) || bind(udp, (struct sockaddr *)&at, sizeof at) ||
        bind(unix_socket, (struct sockaddr *)&local, local_length) || listen(unix_socket, 16)) {
        perror("listen: bind");
        return 1;
    }
    FILE *log = fopen(argv[2], "a");
    if (!log) { perror(argv[2]); return 1; }
    fprintf(stderr, "listening on 127.0.0.1:%s and @grade-listen-%s\n", argv[1], argv[1]);
    for (;;) {
        struct pollfd fds[3] = {{tcp, POLLIN, 0}, {udp, POLLIN, 0}, {unix_socket, POLLIN, 0}};
        if (poll(fds, 3, -1) < 0) continue;
        if (fds[0].revents) {
            int c = accept(tcp, NULL, NULL);
            fprintf(log, "tcp connection\n");
            if (c >= 0) close(c);
        }
        if (fds[1].revents) {
            char buffer[64];
            if (recv(udp, buffer, sizeof buffer, 0) >= 0) fprintf(log, "udp datagram\n");
        }
        if (fds[2].revents) {
            int c = accept(unix_socket, NULL, NULL);
            fprintf(log, "unix connection\n");
            if (c >= 0) close(c);
        }
        fflush(log);
    }
}
