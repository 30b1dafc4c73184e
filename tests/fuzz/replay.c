/*
 * replay.c: a main() for the fuzz targets without libFuzzer. Each argument is a file or a
 * directory of files; each file is read whole and passed to LLVMFuzzerTestOneInput once. A crash
 * or sanitizer report fails the run, which is how `make check` keeps the regression corpus fixed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/fsutil.h"

static int run_file(const char *path)
{
    char *data;
    size_t len;
    const char *err;
    if (fs_read_file(path, 64u << 20, &data, &len, &err) != FS_OK) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, err ? err : "too large");
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    size_t files = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        fs_list l = { 0 };
        kv_arena *a = arena_new();
        diag_list d;
        diag_init(&d, a);
        if (!fs_walk(argv[i], &l, &d)) {
            fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
            bad = 1;
        }
        fs_list_sort_unique(&l);
        for (size_t k = 0; k < l.n; k++, files++)
            bad |= run_file(l.paths[k]);
        fs_list_free(&l);
        arena_free(a);
    }
    printf("replay: %zu inputs\n", files);
    return bad;
}
