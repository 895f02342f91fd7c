#pragma once
// Linux calls and headers that Glibc's Swift module does not expose: epoll, eventfd, timerfd,
// rtnetlink, unshare.
// Header-only: nothing is compiled. No _GNU_SOURCE here: it changes the layout names of
// structs Glibc also defines (fd_set), and Swift then refuses the two definitions.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <pthread.h>
// rtnetlink: sockaddr_nl, NETLINK_ROUTE, RTMGRP_*, RTM_*, RTA_*, IFLA_* (the path monitor).
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
// CLONE_NEWNET for tests that move one thread into a fresh network namespace.
#include <linux/sched.h>
// Declared by glibc only under _GNU_SOURCE; this is its exact prototype.
extern int pthread_setname_np(pthread_t thread, const char *name);
// Declared by glibc's <sched.h> only under _GNU_SOURCE; this is its exact prototype.
extern int unshare(int flags);
// Declared by glibc's <sched.h> only under _GNU_SOURCE; these are their exact prototypes
// (cpu_set_t itself is declared without it). Pinning event loop threads to CPUs.
#include <sched.h>
extern int sched_setaffinity(__pid_t __pid, size_t __cpusetsize, const cpu_set_t *__cpuset);
extern int sched_getaffinity(__pid_t __pid, size_t __cpusetsize, cpu_set_t *__cpuset);

// recv(2), send(2) and epoll_wait(2) as plain system calls. glibc's wrappers of the three are
// thread cancellation points: around each call they switch the thread to asynchronous
// cancellation and back (two atomic updates of the thread's cancellation word, about 30
// instructions) on the event loop's every read, send and wait. Courier never cancels a thread
// (pthread_cancel), so the switch guards nothing. syscall(2) sets errno and returns -1 on
// failure exactly as the wrappers do. epoll_pwait with no signal mask is epoll_wait (the only
// form arm64 has). A socket is read with recvfrom and no address (recv), not read(2): read
// passes through the file layer first (fdget_pos, rw_verify_area, the file permission hook,
// vfs_read, sock_read_iter), which took about 4% of the CPU samples of `courier bench` at 256
// connections; recvfrom goes to the socket directly.
#include <unistd.h>
#include <sys/syscall.h>
static inline long courier_recv(int fd, void *buffer, size_t count) {
    return syscall(SYS_recvfrom, fd, buffer, count, 0, (void *)0, (void *)0);
}
static inline long courier_send(int fd, const void *bytes, size_t count, int flags) {
    return syscall(SYS_sendto, fd, bytes, count, flags, (void *)0, 0);
}
static inline int courier_epoll_wait(int epfd, struct epoll_event *events, int capacity, int timeout) {
    return (int)syscall(SYS_epoll_pwait, epfd, events, capacity, timeout, (void *)0, 8);
}
#endif
