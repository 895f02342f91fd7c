#pragma once
// Linux calls that Glibc's Swift module does not expose: epoll, eventfd, timerfd and the
// _GNU_SOURCE-only socket calls (accept4, pipe2). Header-only: nothing is compiled.
#ifdef __linux__
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <unistd.h>
#endif
