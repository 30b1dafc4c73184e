/* grammar.c: see grammar.h. */
#include "python/grammar.h"

#include <stdio.h>

unsigned python_grammar_abi(void)
{
    return ts_language_version(tree_sitter_python());
}

bool python_grammar_check(char *why, size_t n)
{
    unsigned v = python_grammar_abi();
    if (v < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION || v > TREE_SITTER_LANGUAGE_VERSION) {
        snprintf(why, n,
                 "the tree-sitter-python grammar has ABI %u, but this libtree-sitter loads ABI %d..%d; "
                 "rebuild with the pinned grammar (grammars/tree-sitter-python.pin)",
                 v, TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION, TREE_SITTER_LANGUAGE_VERSION);
        return false;
    }
    return true;
}
