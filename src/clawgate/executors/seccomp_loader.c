/*
 * The sandbox's system-call filter loader, compiled: what seccomp_loader.py does, without an
 * interpreter's start-up in every run (seccomp_cloader.py builds it once per machine).
 *
 *     seccomp-loader FD COMMAND [ARG]...
 *
 * FD is this end of a Unix socket pair the supervisor made. The filter program comes over it
 * (seccomp_filter.py builds it), the listener of SECCOMP_FILTER_FLAG_NEW_LISTENER goes back
 * over it (SCM_RIGHTS), and only then does the command run: it can make no call the filter has
 * not seen. When the filter cannot be installed, the reason goes to the supervisor and to
 * stderr and the command is not run: exit 125. A command that cannot be run is reported as a
 * shell would (127 not found, 126 otherwise), its PATH searched as Python's os.execvp does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

#define NOT_INSTALLED 125
#define MAX_PROGRAM 65536

static unsigned char program[MAX_PROGRAM];

/* Say why the filter is not on, to the supervisor and to stderr; the command is not run. */
static int refuse(int channel, const char *why) {
    char message[600];
    int length = snprintf(message, sizeof message, "error: %s", why);
    if (length > (int)sizeof message - 1)
        length = (int)sizeof message - 1;
    if (send(channel, message, (size_t)length, 0) < 0) {
        /* the supervisor is gone: stderr still says it */
    }
    fprintf(stderr, "clawgate: the sandbox's system-call filter could not be installed: %s; "
                    "the command was not run\n", why);
    return NOT_INSTALLED;
}

static int refuse_errno(int channel, const char *call, int error) {
    char why[512];
    snprintf(why, sizeof why, "%s: %s", call, strerror(error));
    return refuse(channel, why);
}

/* Install the program read from channel; its listener, or -1 (refused already). */
static int install(int channel) {
    ssize_t size = recv(channel, program, sizeof program, 0);
    if (size < 0)
        return refuse_errno(channel, "receiving the filter program", errno), -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return refuse_errno(channel, "prctl(PR_SET_NO_NEW_PRIVS)", errno), -1;
    if (size == 0 || size % (ssize_t)sizeof(struct sock_filter) != 0)
        return refuse(channel, "the filter program is not whole BPF instructions"), -1;
    struct sock_fprog prog = {
        .len = (unsigned short)(size / (ssize_t)sizeof(struct sock_filter)),
        .filter = (struct sock_filter *)program,
    };
    long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                            SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0)
        return refuse_errno(channel, "seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER)", errno), -1;
    return (int)listener;
}

/* Hand the listener to the supervisor with "ok"; 0, or errno. */
static int hand_over(int channel, int listener) {
    char ok[2] = {'o', 'k'};
    struct iovec iov = {.iov_base = ok, .iov_len = sizeof ok};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = control.buffer,
                             .msg_controllen = sizeof control.buffer};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &listener, sizeof(int));
    return sendmsg(channel, &message, 0) < 0 ? errno : 0;
}

/* Run argv[0] as os.execvp would find it; returns only when it cannot (127 or 126). */
static int run(char **argv) {
    const char *name = argv[0];
    int error = ENOENT, saved = 0;
    if (strchr(name, '/') != NULL) {
        execv(name, argv);
        error = errno;
    } else {
        const char *path = getenv("PATH");
        if (path == NULL)
            path = "/bin:/usr/bin";
        char full[PATH_MAX];
        for (const char *start = path;; ) {
            const char *end = strchrnul(start, ':');
            int length = (int)(end - start);
            int written = length == 0
                ? snprintf(full, sizeof full, "%s", name)
                : snprintf(full, sizeof full, "%.*s/%s", length, start, name);
            if (written >= 0 && written < (int)sizeof full) {
                execv(full, argv);
                error = errno;
            } else {
                error = ENAMETOOLONG;
            }
            if (error != ENOENT && error != ENOTDIR && saved == 0)
                saved = error;
            if (*end == '\0')
                break;
            start = end + 1;
        }
        if (saved != 0)
            error = saved;
    }
    fprintf(stderr, "%s: %s\n", name, strerror(error));
    return error == ENOENT ? 127 : 126;
}

int main(int argc, char **argv) {
    char *end = NULL;
    long channel = argc > 1 ? strtol(argv[1], &end, 10) : -1;
    if (argc < 3 || end == argv[1] || *end != '\0' || channel < 0 || channel > INT_MAX) {
        fprintf(stderr, "usage: seccomp-loader FD COMMAND [ARG]...\n");
        return NOT_INSTALLED;
    }
    int listener = install((int)channel);
    if (listener < 0)
        return NOT_INSTALLED;
    int error = hand_over((int)channel, listener);
    close(listener);
    close((int)channel);
    if (error != 0) {
        fprintf(stderr, "clawgate: the sandbox's system-call filter's listener could not be "
                        "handed over: %s; the command was not run\n", strerror(error));
        return NOT_INSTALLED;
    }
    return run(argv + 2);
}
