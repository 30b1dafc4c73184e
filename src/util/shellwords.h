/*
 * shellwords.h: split shell command text into commands and words, keeping byte positions.
 *
 * Enough of POSIX sh for command lines people write to start a server: blanks, single and
 * double quotes, backslash escapes, `\`-newline continuations, `#` comments (a commented-out
 * flag never becomes a word), and the separators ; & && | || ( ) and newline. `$VAR`, `${...}`,
 * `$(...)` and backticks stay in the word as written (the word is marked `var`). A word
 * `-c` after sh/bash/dash/zsh makes the next word a script, which is split again (depth-bounded),
 * so `bash -c "vllm serve ..."` yields the inner command with positions inside the quotes.
 * It deliberately does not expand anything, run here-documents, or follow functions or aliases.
 */
#ifndef KV_SHELLWORDS_H
#define KV_SHELLWORDS_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

typedef struct sh_word {
    const char *text;   /* unquoted text */
    size_t off, end;    /* byte span in the buffer given to sh_split (plus base) */
    int shift;          /* text[i] is at off + shift + i, when exact (shift >= 0); -1: not exact */
    bool var;           /* holds an unexpanded $, `...` or {{ }} template */
} sh_word;

typedef struct sh_cmd {
    sh_word *w;
    size_t n;
} sh_cmd;

typedef struct sh_cmds {
    sh_cmd *v;
    size_t n, cap;
} sh_cmds;

enum {
    SH_NEWLINE_IS_SPACE = 1, /* folded YAML text: a newline is a blank, not a separator */
    SH_COMMA_IS_SPACE = 2,   /* comma-joined argument lists (VLLM_SERVE_EXTRA_ARGS style) */
    SH_DETACHED = 4          /* src is not the file's text: every word is placed at base, inexact */
};

/* Split src[0..len) whose first byte is at offset `base` of the file. Commands are appended to
 * out (inner commands of `sh -c SCRIPT` follow the outer one). */
void sh_split(const char *src, size_t len, size_t base, int flags, kv_arena *a, sh_cmds *out);

/* Index of the script word in `sh [-flags] -c SCRIPT ...` among words, or -1. */
long sh_script_index(const char *const *words, size_t n);

#endif
