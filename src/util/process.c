/*
 * process.c: running a program as a subprocess (see process.h). fork/execvp with two pipes (no
 * shell, so no quoting); both pipes are drained with poll() so a chatty stderr cannot block a
 * large output on stdout.
 */
#include "util/process.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void drain(int out_fd, int err_fd, strbuf *out, strbuf *err)
{
    struct pollfd fds[2] = { { .fd = out_fd, .events = POLLIN }, { .fd = err_fd, .events = POLLIN } };
    strbuf *sinks[2] = { out, err };
    int open_fds = 2;
    char buf[8192];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            } else if (sinks[i]) {
                sb_add(sinks[i], buf, (size_t)n);
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
}

int proc_run(const char *dir, const char *const *argv, strbuf *out, strbuf *err)
{
    int po[2], pe[2];
    if (pipe(po) != 0)
        return -1;
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        if (dir && chdir(dir) != 0)
            _exit(128);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    drain(po[0], pe[0], out, err);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (!WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
}
