/* fuzz_glob.c: the glob matcher. The input is "pattern\npath"; the .kvlint.yaml dialect runs both
 * ways (whole path, and any directory above it), and gitignore's dialect (classes, escapes).
 * Linear time is what the fuzzer's timeout checks. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "project/project.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *nl = memchr(buf, '\n', size);
    const char *path = "a/b/c.py";
    if (nl) {
        *nl = '\0';
        path = nl + 1;
    }
    kv_glob_match(buf, path);
    kv_glob_match_dirs(buf, path);
    kv_glob_match_git(buf, path);
    free(buf);
    return 0;
}
