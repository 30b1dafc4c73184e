/* fsutil.c: see fsutil.h. */
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"
#include "util/strlist.h"

/* Read fd to its end into a NUL-terminated heap buffer, never holding more than max_size + 1 bytes
 * (a larger input is FS_TOO_LARGE with *len the bytes seen so far). hint: the expected size. */
static fs_status read_all(int fd, size_t max_size, size_t hint, char **data, size_t *len, const char **err)
{
    size_t cap = (hint < max_size ? hint : max_size) + 1, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > max_size + 1) {
                free(buf);
                *len = n;
                return FS_TOO_LARGE;
            }
            buf = xgrow(buf, &cap, cap + 1, 1);
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            *err = strerror(errno);
            free(buf);
            return FS_ERROR;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > max_size) {
            free(buf);
            *len = n;
            return FS_TOO_LARGE;
        }
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return FS_OK;
}

fs_status fs_read_file(const char *path, size_t max_size, char **data, size_t *len, const char **err)
{
    *data = NULL;
    *len = 0;
    *err = NULL;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. The file is
     * then checked with fstat on the descriptor itself (no window between a stat and the open). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *err = strerror(errno);
        return FS_ERROR;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err = strerror(errno);
        close(fd);
        return FS_ERROR;
    }
    if (!S_ISREG(st.st_mode)) {
        *err = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file (a FIFO, socket or device is never read)";
        close(fd);
        return FS_ERROR;
    }
    if (st.st_size < 0 || (uintmax_t)st.st_size > max_size) {
        close(fd);
        *len = (size_t)st.st_size;
        return FS_TOO_LARGE;
    }
    fs_status r = read_all(fd, max_size, (size_t)st.st_size, data, len, err);
    close(fd);
    return r;
}

fs_status fs_read_stream(int fd, size_t max_size, char **data, size_t *len, const char **err)
{
    *data = NULL;
    *len = 0;
    *err = NULL;
    return read_all(fd, max_size, 64 << 10, data, len, err);
}

bool fs_looks_binary(const char *data, size_t len)
{
    size_t n = len < 8192 ? len : 8192;
    return memchr(data, '\0', n) != NULL;
}

void fs_lone_cr_to_lf(char *data, size_t len)
{
    for (char *p = memchr(data, '\r', len); p; p = memchr(p + 1, '\r', len - (size_t)(p + 1 - data))) {
        if ((size_t)(p + 1 - data) < len && p[1] == '\n')
            continue;
        *p = '\n';
        if ((size_t)(p + 1 - data) >= len)
            break;
    }
}

bool fs_skip_dir(const char *name)
{
    static const char *const skip[] = {
        ".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", "node_modules", "site-packages", ".eggs", "build", "dist",
        "_build", ".cache",
    };
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (strcmp(name, skip[i]) == 0)
            return true;
    return str_ends_with(name, ".egg-info");
}

bool fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *fs_join(const char *dir, const char *name)
{
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    if (dl == 1 && dir[0] == '.')
        return xstrdup(name);
    size_t nl = strlen(name);
    char *p = xmalloc(dl + 1 + nl + 1);
    memcpy(p, dir, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, name, nl + 1);
    return p;
}

static void list_push(fs_list *l, char *p)
{
    l->paths = xgrow(l->paths, &l->cap, l->n + 1, sizeof *l->paths);
    l->paths[l->n++] = p;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Depth bound: a tree deeper than this is almost certainly a loop through bind mounts. */
enum { MAX_DEPTH = 128 };

/* A directory entry: its name and what readdir says it is (DT_UNKNOWN: ask lstat). */
typedef struct entry {
    char *name;
    unsigned char type;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

/* What entry p is, as lstat would say (S_IFDIR, S_IFREG, or another type); -1 with a diagnostic
 * when it cannot be told. readdir's d_type answers without a system call where the file system
 * fills it in. */
static int entry_kind(const entry *e, const char *p, diag_list *diags)
{
    switch (e->type) {
    case DT_DIR: return S_IFDIR;
    case DT_REG: return S_IFREG;
    case DT_UNKNOWN: break;
    default: return S_IFLNK;   /* a symlink, socket, fifo or device: never followed nor read */
    }
    struct stat st;
    if (lstat(p, &st) != 0) {
        diag_add(diags, DIAG_ERROR, p, 0, 0, "cannot stat: %s", strerror(errno));
        return -1;
    }
    return S_ISDIR(st.st_mode) ? S_IFDIR : S_ISREG(st.st_mode) ? S_IFREG : S_IFLNK;
}

static void walk_dir(const char *dir, int depth, const fs_filter *filter, fs_list *out, diag_list *diags)
{
    if (depth > MAX_DEPTH) {
        diag_limit(diags, DIAG_WARNING, dir, 0, 0, "directory nesting deeper than %d; not descending", MAX_DEPTH);
        return;
    }
    DIR *d = opendir(dir);
    if (!d) {
        diag_add(diags, DIAG_ERROR, dir, 0, 0, "cannot read directory: %s", strerror(errno));
        return;
    }
    entry *names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        names = xgrow(names, &cap, n + 1, sizeof *names);
        names[n++] = (entry){ xstrdup(e->d_name), e->d_type };
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_entry);
    if (filter)
        filter->enter(filter->arg, dir);
    for (size_t i = 0; i < n; i++) {
        char *p = fs_join(dir, names[i].name);
        int kind = entry_kind(&names[i], p, diags);
        if (kind == S_IFDIR) {
            if (!fs_skip_dir(names[i].name) && !(filter && filter->excluded(filter->arg, p, true)))
                walk_dir(p, depth + 1, filter, out, diags);
            free(p);
        } else if (kind == S_IFREG && !(filter && filter->excluded(filter->arg, p, false))) {
            list_push(out, p);
        } else {
            /* Symlinks inside a tree are not followed (no loops, no escaping the tree);
             * sockets, fifos and devices are never read. */
            free(p);
        }
        free(names[i].name);
    }
    if (filter)
        filter->leave(filter->arg, dir);
    free(names);
}

bool fs_walk(const char *root, fs_list *out, diag_list *diags)
{
    return fs_walk_filtered(root, NULL, out, diags);
}

bool fs_walk_filtered(const char *root, const fs_filter *filter, fs_list *out, diag_list *diags)
{
    struct stat st;
    if (stat(root, &st) != 0) {
        diag_add(diags, DIAG_ERROR, root, 0, 0, "cannot open: %s", strerror(errno));
        return false;
    }
    char *norm = fs_normalize(root);
    if (S_ISDIR(st.st_mode))
        walk_dir(norm, 0, filter, out, diags);
    else if (S_ISREG(st.st_mode))
        list_push(out, xstrdup(norm));   /* a file named explicitly is read even if ignored */
    else {
        diag_add(diags, DIAG_ERROR, root, 0, 0, "not a regular file or directory");
        free(norm);
        return false;
    }
    free(norm);
    return true;
}

void fs_list_sort_unique(fs_list *l)
{
    if (l->n == 0)
        return;
    qsort(l->paths, l->n, sizeof *l->paths, cmp_str);
    size_t w = 1;
    for (size_t i = 1; i < l->n; i++) {
        if (strcmp(l->paths[i], l->paths[w - 1]) == 0)
            free(l->paths[i]);
        else
            l->paths[w++] = l->paths[i];
    }
    l->n = w;
}

typedef struct file_id {
    dev_t dev;
    ino_t ino;
    size_t index;
} file_id;

static int cmp_file_id(const void *pa, const void *pb)
{
    const file_id *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

void fs_list_unique_files(fs_list *l)
{
    if (l->n < 2)
        return;
    file_id *ids = xmalloc(l->n * sizeof *ids);
    bool *drop = xcalloc(l->n, sizeof *drop);
    size_t nid = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct stat st;
        if (stat(l->paths[i], &st) == 0)
            ids[nid++] = (file_id){ st.st_dev, st.st_ino, i };
    }
    qsort(ids, nid, sizeof *ids, cmp_file_id);
    for (size_t k = 1; k < nid; k++)
        if (ids[k].dev == ids[k - 1].dev && ids[k].ino == ids[k - 1].ino)
            drop[ids[k].index] = true;
    size_t w = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (drop[i])
            free(l->paths[i]);
        else
            l->paths[w++] = l->paths[i];
    }
    l->n = w;
    free(drop);
    free(ids);
}

void fs_list_free(fs_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    l->paths = NULL;
    l->n = l->cap = 0;
}

char *fs_read_data_file(const char *datadir, const char *rel, size_t max, const char *what, diag_list *diags,
                        char **data, size_t *len)
{
    char *path = fs_join(datadir ? datadir : ".", rel);
    const char *err = NULL;
    if (fs_read_file(path, max, data, len, &err) != FS_OK) {
        diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot read %s: %s", what, err ? err : "too large");
        free(*data);
        *data = NULL;
        *len = 0;
    }
    return path;
}

char *fs_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    return xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
}

char *fs_normalize(const char *path)
{
    size_t n = strlen(path);
    bool abs = path[0] == '/';
    /* Split into components, resolving "." and ".." lexically (".." above the start is kept). */
    char **parts = xmalloc((n + 1) * sizeof *parts);
    size_t np = 0;
    char *copy = xstrdup(path);
    char *save = NULL;
    for (char *tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0 && np > 0 && strcmp(parts[np - 1], "..") != 0) {
            np--;
            continue;
        }
        if (strcmp(tok, "..") == 0 && abs)
            continue;
        parts[np++] = tok;
    }
    size_t len = abs ? 1 : 0;
    for (size_t i = 0; i < np; i++)
        len += strlen(parts[i]) + 1;
    char *out = xmalloc(len + 2);
    char *w = out;
    if (abs)
        *w++ = '/';
    for (size_t i = 0; i < np; i++) {
        if (i)
            *w++ = '/';
        size_t l = strlen(parts[i]);
        memcpy(w, parts[i], l);
        w += l;
    }
    if (w == out)
        *w++ = abs ? '/' : '.';
    *w = '\0';
    free(parts);
    free(copy);
    return out;
}

char *fs_canonical(const char *path)
{
    char *real = realpath(path, NULL);
    if (real)
        return real;
    char *norm = fs_normalize(path);
    const char *slash = strrchr(norm, '/');
    if (!slash || !slash[1] || !strcmp(slash + 1, "..")) {
        /* "name" below the working directory, or a path that ends in "..": from the cwd */
        char *out = NULL;
        if (!slash && strcmp(norm, "..") != 0) {
            char *cwd = realpath(".", NULL);
            out = cwd ? fs_join(cwd, norm) : NULL;
            free(cwd);
        }
        if (!out)
            out = xstrdup(norm);
        free(norm);
        return out;
    }
    char *dir = slash == norm ? xstrdup("/") : xstrndup(norm, (size_t)(slash - norm));
    char *up = fs_canonical(dir);
    char *out = fs_join(up, slash + 1);
    free(up);
    free(dir);
    free(norm);
    return out;
}
