/*
 * Runs a command and reports its rusage, for the loopback comparison (Client/run.py).
 *
 *   RusageSpawn REPORT_FILE COMMAND [ARG...]
 *
 * Why not wait4 straight from Python: Linux keeps a process's peak RSS across exec, so a client
 * forked from the runner starts with the runner's RSS (tens of MiB of Python) as its ru_maxrss.
 * This program is small: the command is forked from it, so the peak RSS wait4 reports is the
 * command's own. It writes {"exit":E,"utime":U,"stime":S,"maxrss_kib":K} to REPORT_FILE and exits
 * with the command's status (128 + signal when killed).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: RusageSpawn REPORT_FILE COMMAND [ARG...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 127; }
    if (pid == 0) {
        execvp(argv[2], &argv[2]);
        fprintf(stderr, "RusageSpawn: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) { perror("wait4"); return 127; }
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *report = fopen(argv[1], "w");
    if (!report) { perror(argv[1]); return 127; }
    fprintf(report, "{\"exit\":%d,\"utime\":%.6f,\"stime\":%.6f,\"maxrss_kib\":%ld}\n", code,
            (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6,
            (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6, usage.ru_maxrss);
    fclose(report);
    return code;
}
