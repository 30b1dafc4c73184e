/*
 * grammar.h: the tree-sitter-python grammar linked into kvlint, and the startup check that
 * libtree-sitter can load it (a grammar built for a newer ABI would fail at parse time otherwise).
 */
#ifndef KV_PYTHON_GRAMMAR_H
#define KV_PYTHON_GRAMMAR_H
#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);
unsigned python_grammar_abi(void);
/* False, with a reason in why, if the grammar's ABI is outside what the library accepts. */
bool python_grammar_check(char *why, size_t n);

#endif
