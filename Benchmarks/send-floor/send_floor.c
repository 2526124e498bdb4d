/* The least a server can spend sending one viewer's packet: one sendto() of a 1200-byte UDP
 * datagram on loopback (no RTP, no SRTP, no batching), in CPU time of the sending thread;
 * another thread drains the receiving socket, as a viewer would. Prints JSON:
 *   {"bytes": 1200, "runs_us": [...], "median_us": M}
 * Built and run by Benchmarks/send-floor.sh. */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { PACKET = 1200, PER_RUN = 200000, RUNS = 5 };
static volatile int draining = 1;

static void *drain(void *arg) {
    int fd = *(int *)arg;
    char in[2048];
    while (draining) recv(fd, in, sizeof in, 0);
    return NULL;
}

static double thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    int receiver = socket(AF_INET, SOCK_DGRAM, 0), sender = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof to;
    struct timeval wake = {.tv_sec = 0, .tv_usec = 100000};
    setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &wake, sizeof wake);
    if (bind(receiver, (struct sockaddr *)&to, sizeof to) != 0 || getsockname(receiver, (struct sockaddr *)&to, &length) != 0) {
        perror("loopback socket");
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, drain, &receiver);
    char packet[PACKET];
    memset(packet, 0x5a, sizeof packet);
    double runs[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double start = thread_seconds();
        for (int i = 0; i < PER_RUN; i++) sendto(sender, packet, sizeof packet, 0, (struct sockaddr *)&to, sizeof to);
        runs[r] = (thread_seconds() - start) / PER_RUN * 1e6;
    }
    draining = 0;
    pthread_join(thread, NULL);
    double sorted[RUNS];
    memcpy(sorted, runs, sizeof runs);
    qsort(sorted, RUNS, sizeof sorted[0], by_value);
    printf("{\"bytes\": %d, \"packets_per_run\": %d, \"runs_us\": [", PACKET, PER_RUN);
    for (int r = 0; r < RUNS; r++) printf("%s%.3f", r ? ", " : "", runs[r]);
    printf("], \"median_us\": %.3f}\n", sorted[RUNS / 2]);
    return 0;
}
