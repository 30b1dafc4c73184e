/* fuzz_compdb.c: a compile_commands.json through the compilation database reader (JSON entries,
 * `command` split as sh would, nvcc flags translated), then every entry looked up by its file, as
 * the C/C++ front end looks up each file it parses. */
#include "fuzz.h"

#include <stdlib.h>

#include "scan/compdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    compdb *db = compdb_load(fuzz_file(data, size), &d);
    if (db) {
        for (size_t i = 0; i < db->n; i++)
            if (!compdb_find(db, db->v[i].file))
                abort();    /* an entry the reader kept must be found again by its own file */
        compdb_find(db, "csrc/attention/kernel.cu");
        compdb_free(db);
    }
    arena_free(a);
    return 0;
}
