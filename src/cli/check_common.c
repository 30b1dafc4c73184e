/* check_common.c: see check_common.h. */
#include "cli/check_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static void push(id_list *l, const char *s, size_t n)
{
    l->v = xgrow(l->v, &l->cap, l->n + 2, sizeof *l->v);
    l->v[l->n++] = xstrndup(s, n);
    l->v[l->n] = NULL;
}

void common_add_ids(id_list *l, const char *csv)
{
    for (const char *p = csv; *p;) {
        size_t n = strcspn(p, ", ");
        if (n)
            push(l, p, n);
        p += n;
        p += strspn(p, ", ");
    }
}

void common_add_dir(check_common *c, const char *dir)
{
    push(&c->dirs, dir, strlen(dir));
}

static bool names_known(const rule_set *rules, const id_list *l, const char *opt, const char *cmd)
{
    for (size_t i = 0; i < l->n; i++)
        if (!rule_find(rules, l->v[i])) {
            usage_error(cmd, "%s: no rule is called '%s'", opt, l->v[i]);
            return false;
        }
    return true;
}

rule_set *common_load_rules(const check_common *c, const char *cmd)
{
    kv_arena *a = arena_new();
    diag_list diags;
    diag_init(&diags, a);
    rule_set *rules = rule_set_new();
    const char *datadir = kvlint_datadir();
    bool ok = rules_load_all(rules, datadir, (const char *const *)c->dirs.v, c->dirs.n, &diags);
    for (size_t i = 0; i < diags.items.n; i++)
        diag_print(stderr, &diags.items.v[i]);
    char *builtin = fs_join(datadir, "rules");
    if (!fs_is_dir(builtin))
        fprintf(stderr, "kvlint %s: the built-in rules are looked for in %s (%s); a binary staged with DESTDIR "
                        "or moved after make install finds them when KVLINT_DATADIR names the folder holding "
                        "rules/ and grammars/ (DESTDIR/PREFIX/share/kvlint)\n",
                cmd, builtin, getenv("KVLINT_DATADIR") && *getenv("KVLINT_DATADIR") ? "$KVLINT_DATADIR/rules" : "the installed data folder");
    free(builtin);
    arena_free(a);
    if (ok)
        ok = names_known(rules, &c->select, "--select", cmd) && names_known(rules, &c->ignore, "--ignore", cmd);
    if (!ok) {
        rule_set_free(rules);
        return NULL;
    }
    return rules;
}

static const char **merge(const id_list *cli, const char *const *proj, size_t nproj, bool cli_only_if_set)
{
    size_t n = cli->n + nproj;
    const char **v = xcalloc(n + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < cli->n; i++)
        v[k++] = cli->v[i];
    if (!(cli_only_if_set && cli->n))
        for (size_t i = 0; i < nproj; i++)
            v[k++] = proj[i];
    return v;
}

eval_options common_eval_options(const check_common *c, const kv_project *p)
{
    eval_options o = {0};
    o.select = merge(&c->select, p ? p->select.v : NULL, p ? p->select.n : 0, true);
    o.ignore = merge(&c->ignore, p ? p->ignore.v : NULL, p ? p->ignore.n : 0, false);
    return o;
}

void common_eval_options_free(eval_options *o)
{
    free((void *)o->select);
    free((void *)o->ignore);
    o->select = o->ignore = NULL;
}

static void list_free(id_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

void common_free(check_common *c)
{
    list_free(&c->dirs);
    list_free(&c->select);
    list_free(&c->ignore);
}
