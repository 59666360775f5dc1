/* listen.c — for tests/grader/run: listens on 127.0.0.1:PORT (TCP and UDP) and writes a line to LOG
 * for every connection or datagram that arrives, so that the test can tell whether a sandboxed
 * submission reached the network. Runs until killed.
 *
 *   listen PORT LOG */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: listen PORT LOG\n"); return 2; }
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1]))};
    inet_pton(AF_INET, "127.0.0.1", &at.sin_addr);
    int tcp = socket(AF_INET, SOCK_STREAM, 0), udp = socket(AF_INET, SOCK_DGRAM, 0), yes = 1;
    setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(tcp, (struct sockaddr *)&at, sizeof at) || listen(tcp, 16) || bind(udp, (struct sockaddr *)&at, sizeof at)) {
        perror("listen: bind");
        return 1;
    }
    FILE *log = fopen(argv[2], "a");
    if (!log) { perror(argv[2]); return 1; }
    fprintf(stderr, "listening on 127.0.0.1:%s\n", argv[1]);
    for (;;) {
        struct pollfd fds[2] = {{tcp, POLLIN, 0}, {udp, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) continue;
        if (fds[0].revents) {
            int c = accept(tcp, NULL, NULL);
            fprintf(log, "tcp connection\n");
            if (c >= 0) close(c);
        }
        if (fds[1].revents) {
            char buffer[64];
            if (recv(udp, buffer, sizeof buffer, 0) >= 0) fprintf(log, "udp datagram\n");
        }
        fflush(log);
    }
}
