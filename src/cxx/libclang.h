/*
 * libclang.h: libclang loaded on first use (libclang.c). The front end includes <clang-c/Index.h>
 * as before and calls clang_* as before; it calls kv_libclang_load() first, and reports `why` if
 * libclang cannot be loaded. Nothing here decides anything about C/C++ code.
 */
#ifndef KV_LIBCLANG_H
#define KV_LIBCLANG_H
#include <clang-c/Index.h>
#include <stdbool.h>

/* Load libclang once per process (thread-safe); false, with a sentence in *why, if it cannot be. */
bool kv_libclang_load(const char **why);

#endif
