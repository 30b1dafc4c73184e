/* fuzz_project.c: a .kvlint.yaml through the project loader, then its globs used as the scanner
 * uses them. */
#include "fuzz.h"

#include "project/project.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    kv_project *p = project_load(fuzz_file(data, size), &d);
    if (p) {
        project_path_included(p, "src/model/attention.py");
        project_path_included(p, "deploy/a/b/c/serve.yaml");
        project_free(p);
    }
    arena_free(a);
    return 0;
}
