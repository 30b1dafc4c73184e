/*
 * cfg_env.c: dtype declarations in env files (`.env`, `*.env`, `.env.*`: docker `--env-file`,
 * compose `env_file:`, systemd `EnvironmentFile=` targets) and in systemd units (`*.service`).
 *
 * An env file is `KEY=VALUE` lines: `export KEY=...`, single quotes (literal), double quotes
 * (backslash escapes, may span lines), unquoted values up to a ` #` comment, `#` comment lines.
 * vLLM and SGLang read no dtype, KV-cache dtype or length from their own VLLM_* / SGLANG_* variables
 * (vllm/envs.py, sglang/srt/environ.py): such variables are not declarations. What an env file does
 * carry is arguments: a variable whose name contains ARGS and names an engine (VLLM_ARGS,
 * HARBOR_VLLM_EXTRA_ARGS, SGLANG_EXTRA_ARGS) and whose value holds `--` options is read as that
 * engine's arguments, which a unit's `ExecStart=vllm serve $VLLM_ARGS` or a compose `command:`
 * splices in; one deployment per engine and file. A value that holds a whole serving command
 * (`SERVE_CMD="vllm serve m --dtype half"`) is read as one. A unit's `ExecStart=` lines are
 * serving commands, its `Environment=` assignments variables as above.
 * It does not substitute variables (`$VLLM_ARGS` in ExecStart stays unresolved) nor join an env file
 * with the command that uses it.
 */
#include <ctype.h>
#include <string.h>

#include "config/cfg.h"
#include "util/shellwords.h"
#include "util/strbuf.h"

typedef struct env_groups {
    int vllm, sglang, trtllm;
} env_groups;

/* One assignment: its name, decoded value, where the value's text starts in the file, and whether
 * the decoded text is byte for byte the file's (no escapes, no quotes inside). */
typedef struct env_var {
    const char *name, *value;
    size_t off;
    bool exact;
} env_var;

typedef ARENA_VEC(env_var) env_vars;

/* The engine a variable's name says its arguments are for, or ENGINE_NONE. */
static kv_engine name_engine(const char *name)
{
    if (strstr(name, "SGLANG") || !strncmp(name, "SGL_", 4))
        return ENGINE_SGLANG;
    if (strstr(name, "TRTLLM") || strstr(name, "TENSORRT"))
        return ENGINE_TRTLLM;
    if (strstr(name, "VLLM"))
        return ENGINE_VLLM;
    return ENGINE_NONE;
}

/* The group of engine's arguments in one file: vLLM's unless the engine is SGLang or TensorRT-LLM. */
static int *group_of(env_groups *g, kv_engine engine)
{
    return engine == ENGINE_SGLANG ? &g->sglang : engine == ENGINE_TRTLLM ? &g->trtllm : &g->vllm;
}

static bool mentions_server(const char *s)
{
    return strstr(s, "vllm") || strstr(s, "sglang") || strstr(s, "trtllm-serve");
}

/* The engine whose arguments v carries (an ARGS variable naming an engine, with `--` options), or
 * ENGINE_NONE. */
static kv_engine args_engine(const env_var *v)
{
    kv_engine engine = name_engine(v->name);
    return engine != ENGINE_NONE && strstr(v->name, "ARGS") && strstr(v->value, "--") ? engine : ENGINE_NONE;
}

/* v's arguments into *group (a new deployment when it is -1); a value holding a whole serving
 * command is read as one. */
static void env_assign(cfg_ctx *c, int *group, const env_var *v, kv_carrier carrier)
{
    size_t len = strlen(v->value);
    int detached = v->exact ? 0 : SH_DETACHED;
    kv_engine engine = args_engine(v);
    if (engine != ENGINE_NONE) {
        bool first = *group < 0;
        if (first)
            *group = c->next_group++;
        int comma = !strchr(v->value, ' ') && strchr(v->value, ',') ? SH_COMMA_IS_SPACE : 0;
        cfg_shell_text(c, v->value, len, v->off, comma | detached | SH_NEWLINE_IS_SPACE, carrier, engine, *group);
        if (first)
            cfg_finish_group(c, *group, engine, carrier, v->off);
    } else if (mentions_server(v->value)) {
        cfg_shell_text(c, v->value, len, v->off, detached | SH_NEWLINE_IS_SPACE, carrier, ENGINE_NONE, -1);
    }
}

static bool name_char(char ch, bool first)
{
    return ch == '_' || isalpha((unsigned char)ch) || (!first && (isdigit((unsigned char)ch) || ch == '.' || ch == '-'));
}

/* Decode a value at s[*i..len) up to its line end (or its closing quote); *i ends after it. */
static const char *env_value(cfg_ctx *c, const char *s, size_t len, size_t base, size_t *i, size_t *off,
                             bool *exact)
{
    strbuf sb = STRBUF_INIT;
    size_t k = *i;
    *exact = true;
    *off = k;
    if (k < len && (s[k] == '"' || s[k] == '\'')) {
        char q = s[k++];
        *off = k;
        while (k < len && s[k] != q) {
            if (q == '"' && s[k] == '\\' && k + 1 < len) {
                char e = s[k + 1];
                sb_addc(&sb, e == 'n' ? '\n' : e == 't' ? '\t' : e);
                *exact = false;
                k += 2;
            } else {
                sb_addc(&sb, s[k++]);
            }
        }
        if (k < len) {
            k++;
        } else {
            ypos p = ysrc_pos_of(c->src, base + *off - 1);
            diag_add(&c->out->diags, DIAG_WARNING, c->path, p.line, p.col,
                     "env file: the quote is not closed; the value runs to the end of the file");
        }
    } else {
        size_t end = k;
        while (end < len && s[end] != '\n' && !(s[end] == '#' && end > k && isspace((unsigned char)s[end - 1])))
            end++;
        size_t t = end;
        while (t > k && isspace((unsigned char)s[t - 1]))
            t--;
        sb_add(&sb, s + k, t - k);
        k = end;
    }
    while (k < len && s[k] != '\n')
        k++;
    *i = k;
    const char *v = arena_strdup(c->a, sb_str(&sb));
    sb_release(&sb);
    return v;
}

/* The `[export] NAME=VALUE` lines of s[0..len), which sits at file offset base (one env file, or one
 * `Environment=` word), appended to out. */
static void env_lines(cfg_ctx *c, const char *s, size_t len, size_t base, env_vars *out)
{
    for (size_t i = 0; i < len;) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
            i++;
        if (i + 7 <= len && !strncmp(s + i, "export", 6) && (s[i + 6] == ' ' || s[i + 6] == '\t'))
            for (i += 6; i < len && (s[i] == ' ' || s[i] == '\t');)
                i++;
        size_t n0 = i;
        while (i < len && name_char(s[i], i == n0))
            i++;
        size_t n1 = i;
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (n1 == n0 || i >= len || s[i] != '=') {
            while (i < len && s[i] != '\n')
                i++; /* a comment or not an assignment */
            continue;
        }
        i++;
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        env_var v = { arena_strndup(c->a, s + n0, n1 - n0), NULL, 0, true };
        v.value = env_value(c, s, len, base, &i, &v.off, &v.exact);
        v.off += base;
        ARENA_PUSH(c->a, *out, v);
    }
}

size_t cfg_env_assignments(kv_arena *a, const char *data, size_t len, const char ***names, const char ***values)
{
    ysrc src;
    ysrc_init(&src, data, len, a);
    file_facts *scratch = arena_zalloc(a, sizeof *scratch); /* diagnostics are the env file's own scan's */
    scratch->arena = a;
    diag_init(&scratch->diags, a);   /* an unclosed quote warns here too (then dropped) */
    cfg_ctx c = { .path = ".env", .out = scratch, .a = a, .src = &src };
    env_vars vars = {0};
    env_lines(&c, src.data, len, 0, &vars);
    *names = arena_alloc(a, (vars.n + 1) * sizeof **names);
    *values = arena_alloc(a, (vars.n + 1) * sizeof **values);
    for (size_t i = 0; i < vars.n; i++) {
        (*names)[i] = vars.v[i].name;
        (*values)[i] = vars.v[i].value;
    }
    return vars.n;
}

void cfg_analyze_env(cfg_ctx *c, const char *data, size_t len)
{
    env_groups g = { -1, -1, -1 };
    env_vars vars = {0};
    env_lines(c, data, len, 0, &vars);
    for (size_t i = 0; i < vars.n; i++)
        env_assign(c, group_of(&g, args_engine(&vars.v[i])), &vars.v[i], CARRIER_ENV_FILE);
}

/* End of the logical unit-file line starting at i (a backslash at the line end continues it). */
static size_t unit_line_end(const char *s, size_t i, size_t len)
{
    size_t end = i;
    for (;;) {
        while (end < len && s[end] != '\n')
            end++;
        size_t t = end;
        while (t > i && (s[t - 1] == '\r' || s[t - 1] == ' ' || s[t - 1] == '\t'))
            t--;
        if (end >= len || t == i || s[t - 1] != '\\')
            return end;
        end++;
    }
}

/* `Environment="A=1" B=2`: each word (quoted or not) one assignment. */
static void unit_environment(cfg_ctx *c, const char *s, size_t k, size_t end, env_vars *out)
{
    while (k < end) {
        while (k < end && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k >= end)
            break;
        size_t w = k;
        char q = s[k] == '"' || s[k] == '\'' ? s[k] : 0;
        if (q) {
            w = ++k;
            while (k < end && s[k] != q)
                k++;
        } else {
            while (k < end && s[k] != ' ' && s[k] != '\t')
                k++;
        }
        env_lines(c, s + w, k - w, w, out);
        if (q && k < end)
            k++;
    }
}

/* Does the command text name $NAME or ${NAME}? */
static bool uses_var(const char *s, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i + 1 + n <= len; i++) {
        if (s[i] != '$')
            continue;
        size_t k = i + 1 + (s[i + 1] == '{');
        if (k + n <= len && !strncmp(s + k, name, n) && (k + n == len || !name_char(s[k + n], false)))
            return true;
    }
    return false;
}

/* A systemd unit: `ExecStart=` lines are serving commands (the `-@:+!` prefixes dropped); an
 * `Environment=` variable carrying arguments joins the deployment of the command that names it
 * (`ExecStart=vllm serve m $VLLM_ARGS`), else it is one of its own. */
void cfg_analyze_unit(cfg_ctx *c, const char *s, size_t len)
{
    env_vars vars = {0};
    ARENA_VEC(size_t) starts = {0};
    for (size_t i = 0; i < len;) {
        size_t end = unit_line_end(s, i, len);
        size_t k = i;
        while (k < end && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (end - k >= 10 && !strncmp(s + k, "ExecStart=", 10))
            ARENA_PUSH(c->a, starts, k + 10);
        else if (end - k >= 12 && !strncmp(s + k, "Environment=", 12))
            unit_environment(c, s, k + 12, end, &vars);
        i = end < len ? end + 1 : len;
    }
    bool *joined = arena_zalloc(c->a, (vars.n + 1) * sizeof *joined);
    for (size_t j = 0; j < starts.n; j++) {
        size_t k = starts.v[j], end = unit_line_end(s, k, len);
        k += strspn(s + k, "-@:+!");
        int group = cfg_shell_text(c, s + k, end - k, k, 0, CARRIER_SYSTEMD, ENGINE_NONE, -1);
        for (size_t i = 0; group >= 0 && i < vars.n; i++)
            if (!joined[i] && args_engine(&vars.v[i]) != ENGINE_NONE && uses_var(s + k, end - k, vars.v[i].name)) {
                env_assign(c, &group, &vars.v[i], CARRIER_SYSTEMD);
                joined[i] = true;
            }
    }
    env_groups g = { -1, -1, -1 };
    for (size_t i = 0; i < vars.n; i++)
        if (!joined[i])
            env_assign(c, group_of(&g, args_engine(&vars.v[i])), &vars.v[i], CARRIER_SYSTEMD);
}
