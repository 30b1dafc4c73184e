/*
 * compdb.h: compile_commands.json, read into the arguments a C/C++/CUDA parser needs.
 *
 * The database is found at --compile-commands FILE (or .kvlint.yaml `compile_commands:`), else at
 * <root>/compile_commands.json or <root>/build/compile_commands.json of a scanned directory. Both
 * entry forms are read: `arguments` (a list) and `command` (one shell-quoted string, split as sh
 * would). Relative `directory` values are relative to the database's folder; relative `file`,
 * include paths and -include files are relative to the entry's directory and come out absolute, so
 * the parser does not depend on the working directory.
 *
 * Only flags that change what the parser sees are kept: -D/-U, include paths (-I, -isystem,
 * -iquote, -idirafter), -include, -std, -x. Everything else (optimisation, warnings, code
 * generation, nvcc's -gencode/-arch/--expt-*, -Xcompiler/-Xptxas and their operands, -o, -c,
 * the compiler itself and the input file) is dropped; nvcc's `-x cu` becomes clang's `-x cuda`
 * and its long spellings (--std, --include-path, --define-macro, --system-include, --pre-include)
 * their short ones. It does not run the compiler or expand response files.
 */
#ifndef KV_COMPDB_H
#define KV_COMPDB_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/diag.h"

typedef struct compdb_entry {
    const char *file;          /* absolute, normalised */
    const char *directory;     /* absolute */
    const char *const *args;   /* translated (see above) */
    size_t nargs;
    bool cuda;                 /* compiled as CUDA (nvcc, -x cu/cuda, or a .cu file) */
} compdb_entry;

typedef struct compdb {
    const char *path;          /* the file read */
    compdb_entry *v;           /* sorted by file */
    size_t n;
    kv_arena *arena;
} compdb;

/* Read path. NULL (and a diagnostic) when it cannot be read or is not a database; entries that
 * cannot be used get a warning each and are skipped. */
compdb *compdb_load(const char *path, diag_list *diags);
void compdb_free(compdb *db);
/* The entry compiling path (any spelling: resolved to an absolute path first), or NULL. */
const compdb_entry *compdb_find(const compdb *db, const char *path);
/* The database a scan of root would use (root/compile_commands.json, root/build/...), heap string
 * or NULL. root may be a file: its directory is searched. */
char *compdb_discover(const char *root);

/* Translate one command line (argv[0] is the compiler) run in directory for file. Results in a. */
size_t compdb_translate(const char *const *argv, size_t argc, const char *directory, const char *file,
                        kv_arena *a, const char *const **out, bool *cuda);

#endif
