/*
 * check_common.h: what `check`, `matrix` and `explain` share beyond the session: the rule options
 * (--rules, --select, --ignore) and loading the rule set with its diagnostics.
 */
#ifndef KV_CHECK_COMMON_H
#define KV_CHECK_COMMON_H
#include <stddef.h>

#include "check/eval.h"
#include "project/project.h"

typedef struct id_list {
    char **v;        /* heap strings, NULL-terminated when n > 0 */
    size_t n, cap;
} id_list;

typedef struct check_common {
    id_list dirs;    /* --rules DIR */
    id_list select, ignore;
} check_common;

/* Split "KV001,KV002" into l. */
void common_add_ids(id_list *l, const char *csv);
void common_add_dir(check_common *c, const char *dir);
/* Built-in rules + --rules dirs. Prints problems (file:line) and returns NULL on any error; also
 * rejects --select/--ignore names that match no rule. */
rule_set *common_load_rules(const check_common *c, const char *cmd);
/* --select/--ignore merged with .kvlint.yaml's select/ignore (the command line wins for select). */
eval_options common_eval_options(const check_common *c, const kv_project *p);
void common_eval_options_free(eval_options *o);
void common_free(check_common *c);

#endif
