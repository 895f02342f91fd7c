// What a sleep and its wake-up cost the thread that sleeps: the price a load generator pays
// each time it runs out of ready sockets and waits in epoll_wait (Benchmarks/RESULTS.md, "the
// fifteenth pass"). A waker thread on CPU 0 writes an eventfd every GAP µs (spinning between
// writes, so it never sleeps itself); the sleeper on CPU 1 waits for it in epoll_wait and reads
// it, N times, and reports its own CPU time (getrusage) per wake-up.
//
//     cc -O2 -pthread -o /tmp/wakeup_cost Benchmarks/Client/wakeup_cost.c
//     /tmp/wakeup_cost 20 100000
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int event;
static long gap_us;
static volatile int stop;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void *waker(void *unused) {
    (void)unused;
    pin(0);
    uint64_t one = 1;
    while (!stop) {
        double start = now();
        while (now() - start < gap_us * 1e-6) {}
        if (write(event, &one, 8) != 8) break;
    }
    return NULL;
}

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec * 1e-6; }

int main(int argc, char **argv) {
    gap_us = argc > 1 ? atol(argv[1]) : 20;
    long rounds = argc > 2 ? atol(argv[2]) : 100000;
    pin(1);
    event = eventfd(0, EFD_NONBLOCK);
    int poll = epoll_create1(0);
    struct epoll_event interest = {.events = EPOLLIN, .data.u64 = 1};
    epoll_ctl(poll, EPOLL_CTL_ADD, event, &interest);
    pthread_t thread;
    pthread_create(&thread, NULL, waker, NULL);
    struct rusage before, after;
    getrusage(RUSAGE_THREAD, &before);
    struct epoll_event ready[8];
    uint64_t value;
    for (long i = 0; i < rounds; i++) {
        epoll_wait(poll, ready, 8, -1);
        if (read(event, &value, 8) != 8) i--;
    }
    getrusage(RUSAGE_THREAD, &after);
    stop = 1;
    pthread_join(thread, NULL);
    double user = seconds(after.ru_utime) - seconds(before.ru_utime);
    double system = seconds(after.ru_stime) - seconds(before.ru_stime);
    printf("gap %ld us: the sleeper's CPU per wake-up %.2f us (user %.2f, system %.2f), %ld voluntary switches in %ld waits\n",
           gap_us, (user + system) / rounds * 1e6, user / rounds * 1e6, system / rounds * 1e6,
           after.ru_nvcsw - before.ru_nvcsw, rounds);
    return 0;
}
