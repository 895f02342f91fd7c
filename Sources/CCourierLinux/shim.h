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
#endif
