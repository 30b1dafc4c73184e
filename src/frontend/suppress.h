/*
 * suppress.h: suppression comments, one parser for every language.
 *
 *     # kvlint: ignore[KV001,fp16-overflow] -- reason      (Python, YAML, shell)
 *     // kvlint: ignore[KV001] -- reason                   (C, C++, CUDA)
 *
 * The comment prefix is a parameter; the rest of the syntax is the same everywhere: `kvlint:`,
 * `ignore`, an optional bracketed list of rule ids or names (none = every rule), an optional
 * reason after `--`. Finding the comments is the front end's business (its lexer knows what is a
 * string); suppress_collect_lines() is a lexical helper for languages whose line comments cannot
 * be confused with much else. It does not read block comments.
 */
#ifndef KV_SUPPRESS_H
#define KV_SUPPRESS_H
#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"

/* The comment text comment[0..n) starts with prefix ("#", "//"). true and *out filled (ids and
 * reason in a; line and col left 0) when it is a suppression. */
bool suppress_parse(const char *comment, size_t n, const char *prefix, kv_arena *a, suppression *out);

/* Every `<prefix> kvlint: ...` line comment of data into out->suppressions (line, byte column
 * of the prefix). A prefix inside a string literal on the same line is not told apart. */
void suppress_collect_lines(const char *data, size_t len, const char *prefix, file_facts *out);

#endif
