/*
 * dtypestr.h: the strings serving code compares a dtype with (grammars/dtype_strings.tsv: vLLM's
 * cache_config.cache_dtype, SGLang's server_args.kv_cache_dtype, --dtype's values), and where a
 * test of such a string can be true or false: `cache_dtype.startswith("fp8")` is true only where
 * the KV cache's dtype has a spelling that starts with "fp8", false only where one does not.
 *
 * What this does not do: find the tests in code (the front ends do) or decide which dtype a
 * deployment has (resolve/). Loaded once before the threads start; read-only afterwards.
 */
#ifndef KV_DTYPESTR_H
#define KV_DTYPESTR_H
#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "util/diag.h"

typedef struct dtype_strings dtype_strings;

typedef enum dstr_test {
    DSTR_EQUALS,    /* s == word (or s in (word, ...)) */
    DSTR_PREFIX,    /* s.startswith(word) */
    DSTR_SUFFIX,    /* s.endswith(word) */
    DSTR_CONTAINS   /* word in s */
} dstr_test;

dtype_strings *dtype_strings_load(const char *datadir, diag_list *diags);
/* From a table's text (path names it in diagnostics). */
dtype_strings *dtype_strings_read(const char *path, const char *data, size_t len, diag_list *diags);
void dtype_strings_free(dtype_strings *t);
/* Where a test of the string naming kind's dtype (DREF_KV: the table has no other kind) against any of words
 * can be true (*yes) and be false (*no) where a deployment names the dtype (the table's rows; a
 * dtype with no spelling of that kind is in both), and *auto_passes: whether the string "auto"
 * (what a deployment that declares auto, or nothing, gives code) passes it. False when the test
 * says nothing: t is NULL, or neither "auto" nor any spelling passes it (a word no engine has,
 * `== "fp8_new"`). */
bool dtype_strings_split(const dtype_strings *t, dref_kind kind, dstr_test test, const char *const *words,
                         size_t nwords, kv_dtype_set *yes, kv_dtype_set *no, bool *auto_passes);

#endif
