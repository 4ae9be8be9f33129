/*
 * file.c — reading inputs and writing outputs, safely.
 *
 * Reading: every file the compiler reads (sources, imports) goes through
 * read_file, which refuses directories and stops at FILE_READ_MAX bytes, so
 * `tilec /dev/zero` or an import linked to a FIFO that never ends is an
 * error, not an unbounded allocation.
 *
 * Writing follows what cc does with -o:
 *   - a symbolic link is followed and its target written (the link stays);
 *   - a target that exists and is not a regular file (a character device
 *     such as /dev/null, a FIFO, a socket) is opened and written in place,
 *     never replaced; a directory is refused (EISDIR);
 *   - a regular file, or a new one, is written to a temporary file in the
 *     same directory and renamed over it, so a failed or interrupted run
 *     never leaves a truncated output. A new file gets 0666 & ~umask (the
 *     temporary file is created with 0666 and the kernel applies the
 *     umask); an existing one keeps its permission bits.
 *
 * Finding a program: find_on_path looks a name up in a PATH-style list, as
 * the shell does, for tools that may live outside the configured toolkit
 * (ptxas).
 */
#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* -------------------------------------------------------------- reading */

char *read_file(Arena *a, const char *path, size_t *len) {
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!is_stdin) fclose(f);
        errno = EISDIR;
        return NULL;
    }
    Buf b = {0};
    char tmp[65536];
    size_t n;
    int err = 0;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (b.n + n > FILE_READ_MAX) {
            err = EFBIG;
            break;
        }
        buf_put(&b, tmp, n);
    }
    if (!err && ferror(f)) err = EIO;
    if (!err && b.failed) err = ENOMEM;
    if (!is_stdin) fclose(f);
    if (err) {
        buf_free(&b);
        errno = err;
        return NULL;
    }
    char *p = ar_try_alloc(a, b.n + 1);
    if (!p) {
        buf_free(&b);
        errno = ENOMEM;
        return NULL;
    }
    if (b.n) memcpy(p, b.s, b.n);
    p[b.n] = 0;
    if (len) *len = b.n;
    buf_free(&b);
    return p;
}

/* -------------------------------------------------------------- writing */

/* Follows symbolic links from `path` (at most 40, as the kernel does) and
 * returns the final name in malloc'd memory; it need not exist. A relative
 * link is relative to the directory of the link. NULL with errno set. */
static char *resolve_links(const char *path) {
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        if (hops == 40) {
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        char target[4096];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        target[n] = 0;
        const char *slash = strrchr(cur, '/');
        size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir);
            memcpy(next + dir, target, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    return NULL;
}

static int write_all(int fd, const void *data, size_t n) {
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A device, FIFO or socket: written in place, never replaced. */
static int write_in_place(const char *path, const void *data, size_t n) {
    int fd = open(path, O_WRONLY | O_NOCTTY);
    if (fd < 0) return -1;
    if (write_all(fd, data, n) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return close(fd);
}

/* Creates a new temporary file beside `path` with `mode` (before the
 * umask); its name goes to *tmp (malloc'd). */
static int create_temp(const char *path, mode_t mode, char **tmp) {
    size_t size = strlen(path) + 32;
    char *name = malloc(size);
    if (!name) return -1;
    unsigned long seed = (unsigned long)getpid() * 2654435761ul ^
                         (unsigned long)time(NULL) ^ (unsigned long)(uintptr_t)name;
    for (int tries = 0; tries < 100; tries++) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        snprintf(name, size, "%s.tmp%08lx", path, (seed >> 24) & 0xfffffffful);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
        if (fd >= 0) {
            *tmp = name;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    free(name);
    return -1;
}

static int write_replacing(const char *path, const struct stat *old,
                           const void *data, size_t n) {
    char *tmp = NULL;
    int fd = create_temp(path, old ? old->st_mode & 07777 : 0666, &tmp);
    if (fd < 0) return -1;
    /* An existing file keeps its bits exactly, whatever the umask. */
    int ok = (!old || fchmod(fd, old->st_mode & 07777) == 0) &&
             write_all(fd, data, n) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) ok = 0, e = errno;
    if (ok && rename(tmp, path) != 0) ok = 0, e = errno;
    if (!ok) unlink(tmp);
    free(tmp);
    errno = e;
    return ok ? 0 : -1;
}

/* The descriptor a name stands for (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), else -1. Such a name is written through the open
 * descriptor itself: its link's target is "pipe:[N]" for a pipe (no name
 * to write), and reopening a file the shell opened with `>>` would write
 * at offset 0 over what it holds. */
static int descriptor_of(const char *path) {
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    const char *num = strncmp(path, "/dev/fd/", 8) == 0        ? path + 8
                    : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14
                                                               : NULL;
    if (!num || !*num || strlen(num) > 9) return -1;
    int fd = 0;
    for (const char *p = num; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        fd = fd * 10 + (*p - '0');
    }
    return fd;
}

int write_file_atomic(const char *path, const void *data, size_t n) {
    int fd = strcmp(path, "-") == 0 ? 1 : descriptor_of(path);
    if (fd == 1) {
        if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0) return -1;
        return 0;
    }
    if (fd >= 0) return write_all(fd, data, n);
    char *final = resolve_links(path);
    if (!final) return -1;
    struct stat st;
    int exists = stat(final, &st) == 0;
    int rc;
    if (exists && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        rc = -1;
    } else if (exists && !S_ISREG(st.st_mode)) {
        rc = write_in_place(final, data, n);
    } else {
        rc = write_replacing(final, exists ? &st : NULL, data, n);
    }
    int e = errno;
    free(final);
    errno = e;
    return rc;
}

/* ------------------------------------------------------ finding programs */

char *find_on_path(Arena *a, const char *name, const char *path) {
    for (const char *p = path; p && *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n) {     /* an empty entry is the working directory: not searched */
            char *cand = ar_printf(a, "%.*s/%s", (int)n, p, name);
            struct stat st;
            if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
                return cand;
        }
        p = end ? end + 1 : NULL;
    }
    return NULL;
}
