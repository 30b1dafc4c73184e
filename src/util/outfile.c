/* outfile.c: see outfile.h. */
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/xalloc.h"

enum { TMP_ATTEMPTS = 100 };

/* A target written in place rather than replaced: a device, FIFO or socket, also through a link. */
static bool written_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

bool out_file_usable(const char *path, char *err, size_t errlen)
{
    if (!path)
        return true;
    if (!*path) {
        snprintf(err, errlen, "the output file name is empty");
        return false;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory", path);
        return false;
    }
    if (written_in_place(path))
        return true;
    char *dir = fs_dir_of(path);
    int e = 0;
    if (stat(dir, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        e = errno;
    if (e)
        snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(e));
    free(dir);
    bool ok = e == 0;
    return ok;
}

bool out_file_target(const char *path, dev_t *dev, ino_t *ino)
{
    struct stat st;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    *dev = st.st_dev;
    *ino = st.st_ino;
    return true;
}

/* Create "<dir>/.<base>.<pid>-<n>.tmp" exclusively; the mode is 0666 less the umask, as for any
 * new file, and never follows an existing name. */
static int create_tmp(const char *path, char **tmp)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t cap = strlen(path) + 64;
    char *name = xmalloc(cap);
    for (int attempt = 0; attempt < TMP_ATTEMPTS; attempt++) {
        snprintf(name, cap, "%.*s.%s.%ld-%d.tmp", (int)dirlen, path, base, (long)getpid(), attempt);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0) {
            *tmp = name;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(name);
    errno = e;
    return -1;
}

/* The stream's write: all of buf or -1, keeping the first error's errno. */
static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    out_file *o = cookie;
    for (size_t done = 0; done < n;) {
        ssize_t r = write(o->fd, buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (!o->err)
                o->err = r < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)r;
    }
    return (ssize_t)n;
}

static int sink_close(void *cookie)
{
    out_file *o = cookie;
    if (o->fd == STDOUT_FILENO)
        return 0;
    if (close(o->fd) != 0) {
        if (!o->err)
            o->err = errno;
        return -1;
    }
    return 0;
}

bool out_file_open(out_file *o, const char *path, char *err, size_t errlen)
{
    *o = (out_file){ .path = path, .fd = -1 };
    if (!path) {
        fflush(stdout);   /* whatever the command printed before stays before the report */
        o->fd = STDOUT_FILENO;
    } else {
        if (!out_file_usable(path, err, errlen))
            return false;
        if (written_in_place(path))
            o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        else
            o->fd = create_tmp(path, &o->tmp);
        if (o->fd < 0) {
            snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
            return false;
        }
    }
    cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
    if (!(o->f = fopencookie(o, "w", io))) {
        snprintf(err, errlen, "cannot open %s: %s", path ? path : "standard output", strerror(errno));
        sink_close(o);
        out_file_abort(o);
        return false;
    }
    return true;
}

static void release(out_file *o)
{
    free(o->tmp);
    *o = (out_file){0};
}

bool out_file_commit(out_file *o, char *err, size_t errlen)
{
    const char *name = o->path ? o->path : "standard output";
    /* The sticky error flag and o->err cover every write since the open, checked or not. */
    bool ok = fflush(o->f) == 0 && !ferror(o->f) && !o->err;
    if (ok && o->tmp && fsync(o->fd) != 0)
        o->err = errno, ok = false;
    if (fclose(o->f) != 0)
        ok = false;
    o->f = NULL;
    if (ok && o->tmp && rename(o->tmp, o->path) != 0)
        o->err = errno, ok = false;
    if (!ok) {
        snprintf(err, errlen, "cannot write %s: %s", name, o->err ? strerror(o->err) : "write error");
        if (o->tmp)
            unlink(o->tmp);
    }
    release(o);
    return ok;
}

void out_file_abort(out_file *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}
