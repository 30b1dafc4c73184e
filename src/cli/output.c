/* output.c: see output.h. */
#include "cli/output.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outfile.h"

bool output_usable(const char *cmd, const char *path)
{
    char err[512];
    if (out_file_usable(path, err, sizeof err))
        return true;
    fprintf(stderr, "kvlint %s: -o: %s\n", cmd, err);
    return false;
}

static bool same_file(const char *path, dev_t dev, ino_t ino)
{
    struct stat st;
    return path && stat(path, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/* The input of the run path would replace, or NULL: a scanned file or the project file. */
static const char *input_at(const session *s, const char *path)
{
    dev_t dev;
    ino_t ino;
    if (!s || !out_file_target(path, &dev, &ino))
        return NULL;
    if (s->project && same_file(s->project->path, dev, ino))
        return s->project->path;
    for (size_t i = 0; s->scan && i < s->scan->n; i++)
        if (same_file(s->scan->files[i]->path, dev, ino))
            return s->scan->files[i]->path;
    return NULL;
}

bool output_write(const char *cmd, const char *path, const session *s, report_printer print, const void *arg)
{
    const char *input = input_at(s, path);
    if (input) {
        fprintf(stderr, "kvlint %s: -o %s: refusing to overwrite %s, one of the files this run read\n",
                cmd, path, input);
        return false;
    }
    char err[512];
    out_file o;
    if (!out_file_open(&o, path, err, sizeof err)) {
        fprintf(stderr, "kvlint %s: %s\n", cmd, err);
        return false;
    }
    print(o.f, isatty(o.fd), arg);
    if (!out_file_commit(&o, err, sizeof err)) {
        fprintf(stderr, "kvlint %s: %s\n", cmd, err);
        return false;
    }
    return true;
}
