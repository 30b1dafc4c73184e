/*
 * compose_vars.c: docker compose's variable interpolation, before a compose file is read.
 *
 * Compose fills `${VAR}` in every value of the file from the environment of the shell that runs
 * it, then from the project's `.env` file (the compose file's directory; the shell wins where both
 * set a variable: compose-spec "Interpolation" and "Set environment variables"). kvlint has no
 * shell, so it reads what the project declares: the `.env` next to the compose file. The forms:
 *   $VAR, ${VAR}          the value; unset: left as written (the shell may set it)
 *   ${VAR:-d} / ${VAR-d}  the value when set and non-empty / set, else d (itself interpolated)
 *   ${VAR:?e} / ${VAR?e}  the value when set (non-empty); else left as written
 *   ${VAR:+r} / ${VAR+r}  r when set and non-empty / set; "" when set but empty (:+); unset: left
 *   $$                    a literal $ (for the container's shell: `$$VLLM_ARGS` stays a variable)
 * A filled-in scalar is marked `rewritten`: its declarations are detached from the exact bytes
 * (they point at the scalar). `env_file:` is not interpolation input: it is the container's
 * environment, read by cfg_yaml.c's service walk through cfg_compose_env_file.
 */
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"
#include "util/ytree.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

enum { ENV_FILE_MAX = 1 << 20, INTERP_MAX_DEPTH = 8 };

typedef struct env_map {
    const char **names, **values;
    size_t n;
} env_map;

/* The value .env gives name (n bytes), or NULL when it sets none (the last assignment wins). */
static const char *lookup(const env_map *m, const char *name, size_t n)
{
    for (size_t i = m->n; i-- > 0;)
        if (strlen(m->names[i]) == n && !strncmp(m->names[i], name, n))
            return m->values[i];
    return NULL;
}

static bool name_start(char ch)
{
    return ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
}

static bool name_char(char ch)
{
    return name_start(ch) || (ch >= '0' && ch <= '9');
}

/* The index of the '}' closing the "${" whose body starts at s[i], or len (unclosed). */
static size_t closing_brace(const char *s, size_t i, size_t len)
{
    int depth = 1;
    for (; i < len; i++) {
        if (s[i] == '$' && i + 1 < len && s[i + 1] == '{') {
            depth++;
            i++;
        } else if (s[i] == '}' && --depth == 0) {
            return i;
        }
    }
    return len;
}

static void interpolate(const env_map *m, const char *s, size_t len, int depth, strbuf *out, bool *changed);

/* ${NAME<op>word}: body is s[from..to) (without the braces), whole the text to keep when unknown. */
static void braced(const env_map *m, const char *s, size_t from, size_t to, int depth, strbuf *out,
                   bool *changed)
{
    size_t k = from;
    while (k < to && name_char(s[k]))
        k++;
    const char *val = k > from && name_start(s[from]) ? lookup(m, s + from, k - from) : NULL;
    bool colon = k < to && s[k] == ':';
    char op = k + (colon ? 1 : 0) < to ? s[k + (colon ? 1 : 0)] : '\0';
    size_t word = k + (colon ? 2 : 1);
    bool set = val != NULL, full = set && *val;
    bool known = true;
    if (k == to && k > from && name_start(s[from])) {           /* ${VAR} */
        known = set;
        if (set)
            sb_adds(out, val);
    } else if (op == '-' && word <= to) {                       /* ${VAR:-d}, ${VAR-d} */
        if (colon ? full : set)
            sb_adds(out, val);
        else
            interpolate(m, s + word, to - word, depth + 1, out, changed);
    } else if (op == '?' && word <= to) {                       /* ${VAR:?e}, ${VAR?e} */
        known = colon ? full : set;
        if (known)
            sb_adds(out, val);
    } else if (op == '+' && word <= to) {                       /* ${VAR:+r}, ${VAR+r} */
        known = set;
        if (colon ? full : set)
            interpolate(m, s + word, to - word, depth + 1, out, changed);
    } else {
        known = false;
    }
    if (known)
        *changed = true;
    else
        sb_add(out, s + from - 2, to - from + 3);               /* "${" body "}" as written */
}

static void interpolate(const env_map *m, const char *s, size_t len, int depth, strbuf *out, bool *changed)
{
    if (depth > INTERP_MAX_DEPTH) {
        sb_add(out, s, len);
        return;
    }
    for (size_t i = 0; i < len;) {
        if (s[i] != '$' || i + 1 >= len) {
            sb_addc(out, s[i++]);
        } else if (s[i + 1] == '$') {
            sb_addc(out, '$');
            *changed = true;
            i += 2;
        } else if (s[i + 1] == '{') {
            size_t end = closing_brace(s, i + 2, len);
            if (end == len) { /* unclosed: compose rejects the file; keep it as written */
                sb_add(out, s + i, len - i);
                return;
            }
            braced(m, s, i + 2, end, depth, out, changed);
            i = end + 1;
        } else if (name_start(s[i + 1])) {
            size_t k = i + 1;
            while (k < len && name_char(s[k]))
                k++;
            const char *val = lookup(m, s + i + 1, k - i - 1);
            if (val) {
                sb_adds(out, val);
                *changed = true;
            } else {
                sb_add(out, s + i, k - i);
            }
            i = k;
        } else {
            sb_addc(out, s[i++]);
        }
    }
}

static void rewrite(kv_arena *a, const env_map *m, ynode *n, int depth)
{
    if (!n || depth > YTREE_MAX_DEPTH)
        return;
    if (n->kind == YN_SCALAR) {
        if (!memchr(n->val, '$', n->len))
            return;
        strbuf sb = STRBUF_INIT;
        bool changed = false;
        interpolate(m, n->val, n->len, 0, &sb, &changed);
        if (changed) {
            n->val = arena_strdup(a, sb_str(&sb));
            n->len = sb.len;
            n->rewritten = true;
        }
        sb_release(&sb);
        return;
    }
    if (n->kind != YN_SEQ && n->kind != YN_MAP)
        return; /* an alias is its anchor's node, rewritten where it stands */
    for (size_t i = n->kind == YN_MAP ? 1 : 0; i < n->nkids; i += n->kind == YN_MAP ? 2 : 1)
        rewrite(a, m, n->kids[i], depth + 1);
}

size_t cfg_compose_env_file(cfg_ctx *c, const char *rel, const char ***names, const char ***values)
{
    const char *slash = c->path ? strrchr(c->path, '/') : NULL;
    char *path = rel[0] == '/' || !slash ? arena_strdup(c->a, rel)
                                         : arena_printf(c->a, "%.*s/%s", (int)(slash - c->path), c->path, rel);
    char *data = NULL;
    size_t len = 0, n = 0;
    const char *err = NULL;
    *names = *values = NULL;
    if (fs_read_file(path, ENV_FILE_MAX, &data, &len, &err) == FS_OK && data)
        n = cfg_env_assignments(c->a, data, len, names, values);
    free(data);
    return n;
}

void cfg_compose_interpolate(cfg_ctx *c, ynode *root)
{
    env_map m;
    m.n = cfg_compose_env_file(c, ".env", &m.names, &m.values);
    rewrite(c->a, &m, root, 0);
}
