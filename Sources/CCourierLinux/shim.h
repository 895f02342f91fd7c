#pragma once
// Linux calls that Glibc's Swift module does not expose: epoll, eventfd, timerfd.
// Header-only: nothing is compiled. No _GNU_SOURCE here: it changes the layout names of
// structs Glibc also defines (fd_set), and Swift then refuses the two definitions.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <pthread.h>
// Declared by glibc only under _GNU_SOURCE; this is its exact prototype.
extern int pthread_setname_np(pthread_t thread, const char *name);
#endif
