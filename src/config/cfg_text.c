/*
 * cfg_text.c: dtype declarations in shell scripts and Dockerfiles, and `# kvlint: ignore[...]`
 * suppression comments in every text the config front end reads.
 *
 * A shell script is split into commands (shellwords.c) and each serving command is one
 * deployment. A Dockerfile's final stage is read as Docker runs it: ENTRYPOINT and CMD in exec
 * (JSON) or shell form, CMD appended to an exec-form ENTRYPOINT, and a bare CMD after
 * `FROM vllm/vllm-openai` read as arguments of that image's server entrypoint.
 * It does not follow `source`d files, shell functions, variables or ARG/ENV substitution.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "config/cfg.h"
#include "util/shellwords.h"
#include "frontend/suppress.h"
#include "util/strbuf.h"

void cfg_analyze_shell(cfg_ctx *c, const char *data, size_t len)
{
    cfg_shell_text(c, data, len, 0, 0, CARRIER_CLI, ENGINE_NONE, -1);
}

/* ---- Dockerfile ---- */

typedef struct docker_form {
    bool present, exec;
    size_t from, to;               /* source of the arguments (shell form) */
    ARENA_VEC(cfg_word) words;     /* exec form */
} docker_form;

/* Skip blanks and backslash-newline continuations. */
static size_t skip_blank(const char *s, size_t i, size_t end)
{
    for (;;) {
        while (i < end && isspace((unsigned char)s[i]))
            i++;
        size_t k = i + 1;
        if (i >= end || s[i] != '\\')
            return i;
        while (k < end && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
            k++;
        if (k >= end || s[k] != '\n')
            return i;
        i = k + 1;
    }
}

/* Parse `["a", "b"]` at s[i..end). False if it is not a JSON string array (then it is shell form). */
static bool exec_form(cfg_ctx *c, const char *s, size_t i, size_t end, docker_form *f)
{
    memset(&f->words, 0, sizeof f->words);
    i = skip_blank(s, i, end);
    if (i >= end || s[i] != '[')
        return false;
    i++;
    for (;;) {
        i = skip_blank(s, i, end);
        if (i < end && s[i] == ']')
            return true;
        if (i >= end || s[i] != '"')
            return false;
        size_t start = ++i;
        strbuf sb = STRBUF_INIT;
        bool exact = true;
        while (i < end && s[i] != '"') {
            if (s[i] == '\\' && i + 1 < end) {
                char e = s[i + 1];
                sb_addc(&sb, e == 'n' ? '\n' : e == 't' ? '\t' : e);
                exact = false;
                i += 2;
            } else {
                sb_addc(&sb, s[i++]);
            }
        }
        if (i >= end) {
            sb_release(&sb);
            return false;
        }
        i++;
        const char *text = arena_strdup(c->a, sb_str(&sb));
        sb_release(&sb);
        cfg_word w = { text, start, exact, strchr(text, '$') != NULL };
        ARENA_PUSH(c->a, f->words, w);
        i = skip_blank(s, i, end);
        if (i < end && s[i] == ',')
            i++;
        else if (i < end && s[i] == ']')
            return true;
        else
            return false;
    }
}

/* End of a logical Dockerfile line (backslash-newline continues it). */
static size_t logical_end(const char *s, size_t i, size_t len)
{
    while (i < len) {
        if (s[i] == '\n') {
            size_t k = i;
            while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t' || s[k - 1] == '\r'))
                k--;
            if (k > 0 && s[k - 1] == '\\') {
                i++;
                continue;
            }
            return i;
        }
        i++;
    }
    return len;
}

typedef struct docker_image {
    kv_engine engine;      /* ENGINE_VLLM for vllm/vllm-openai*: its entrypoint is the server */
    const char *platform;  /* "rocm" (rocm/vllm, vllm/vllm-openai-rocm), "cpu" (a vllm-cpu image), or NULL */
    size_t off;
} docker_image;

static docker_image docker_from(const char *s, size_t i, size_t end)
{
    docker_image img = { ENGINE_NONE, NULL, i };
    while (i < end) {
        while (i < end && isspace((unsigned char)s[i]))
            i++;
        size_t w = i;
        while (i < end && !isspace((unsigned char)s[i]))
            i++;
        if (i > w && s[w] == '-')
            continue; /* --platform=... */
        img.off = w;
        if (i - w >= 16 && !strncmp(s + w, "vllm/vllm-openai", 16))
            img.engine = ENGINE_VLLM;
        img.platform = cfg_image_platform(s + w, i - w);
        break;
    }
    return img;
}

/* The deployment the final stage starts, or -1. */
static int docker_run(cfg_ctx *c, const char *s, const docker_form *entry, const docker_form *cmd,
                      kv_engine image_engine)
{
    if (entry->present && !entry->exec)
        return cfg_shell_text(c, s + entry->from, entry->to - entry->from, entry->from, 0, CARRIER_DOCKERFILE, ENGINE_NONE, -1);
    if (!entry->present && cmd->present && !cmd->exec)
        return cfg_shell_text(c, s + cmd->from, cmd->to - cmd->from, cmd->from, 0, CARRIER_DOCKERFILE, ENGINE_NONE, -1);
    size_t n = (entry->present ? entry->words.n : 0) + (cmd->present && cmd->exec ? cmd->words.n : 0);
    cfg_word *w = arena_alloc(c->a, (n + 1) * sizeof *w);
    size_t k = 0;
    for (size_t i = 0; entry->present && i < entry->words.n; i++)
        w[k++] = entry->words.v[i];
    for (size_t i = 0; cmd->present && cmd->exec && i < cmd->words.n; i++)
        w[k++] = cmd->words.v[i];
    if (!n)
        return -1;
    const char **texts = arena_alloc(c->a, (n + 1) * sizeof *texts);
    for (size_t i = 0; i < n; i++)
        texts[i] = w[i].text;
    long script = sh_script_index(texts, n);
    if (script >= 0) {
        const cfg_word *sw = &w[script];
        if (sw->exact)
            return cfg_shell_text(c, s + sw->off, strlen(sw->text), sw->off, 0, CARRIER_DOCKERFILE, ENGINE_NONE, -1);
        return cfg_shell_text(c, sw->text, strlen(sw->text), sw->off, SH_DETACHED, CARRIER_DOCKERFILE, ENGINE_NONE, -1);
    }
    kv_engine engine = image_engine;
    long start = cfg_serving_start(w, n, &engine);
    if (start < 0 && image_engine != ENGINE_NONE && !entry->present)
        start = 0;
    if (start < 0)
        return -1;
    int group = c->next_group++;
    cfg_argv_decls(c, w + start, n - (size_t)start, engine, CARRIER_DOCKERFILE, group);
    cfg_finish_group(c, group, engine, CARRIER_DOCKERFILE, w[start > 0 ? start - 1 : 0].off);
    return group;
}

void cfg_analyze_dockerfile(cfg_ctx *c, const char *s, size_t len)
{
    docker_form entry = {0}, cmd = {0};
    docker_image image = {0};
    for (size_t i = 0; i < len;) {
        size_t end = logical_end(s, i, len);
        size_t k = i;
        while (k < end && isspace((unsigned char)s[k]))
            k++;
        size_t kw = k;
        while (k < end && isalpha((unsigned char)s[k]))
            k++;
        size_t kwlen = k - kw;
        docker_form *f = NULL;
        if (kwlen == 4 && !strncasecmp(s + kw, "FROM", 4)) {
            image = docker_from(s, k, end);
            memset(&entry, 0, sizeof entry);
            memset(&cmd, 0, sizeof cmd);
        } else if (kwlen == 10 && !strncasecmp(s + kw, "ENTRYPOINT", 10)) {
            f = &entry;
        } else if (kwlen == 3 && !strncasecmp(s + kw, "CMD", 3)) {
            f = &cmd;
        }
        if (f) {
            f->present = true;
            f->from = k;
            f->to = end;
            f->exec = exec_form(c, s, k, end, f);
            if (f == &entry)
                memset(&cmd, 0, sizeof cmd); /* a new ENTRYPOINT resets CMD, as Docker does */
        }
        i = end < len ? end + 1 : len;
    }
    int group = docker_run(c, s, &entry, &cmd, image.engine);
    if (group >= 0 && image.platform) {
        for (size_t i = c->out->decls.n; i-- > 0;) /* the engine of the started server */
            if (c->out->decls.v[i].group == group) {
                cfg_platform(c, image.off, c->out->decls.v[i].engine, CARRIER_DOCKERFILE, group, image.platform);
                break;
            }
    }
}

/* ---- suppressions ---- */

/* `# kvlint: ignore[ID,...] -- reason` starting at the '#' at s[i]; line ends at end. */
static void one_suppression(cfg_ctx *c, const char *s, size_t i, size_t end)
{
    suppression sup;
    if (!suppress_parse(s + i, end - i, "#", c->out->arena, &sup))
        return;
    ypos p = ysrc_pos_of(c->src, i);
    sup.line = p.line;
    sup.col = p.col;
    ARENA_PUSH(c->out->arena, c->out->suppressions, sup);
}

void cfg_suppressions(cfg_ctx *c, const char *s, size_t len)
{
    const char *p = s;
    while ((p = memchr(p, 'k', (size_t)(s + len - p))) != NULL) {
        if ((size_t)(s + len - p) < 7 || strncmp(p, "kvlint:", 7) != 0) {
            p++;
            continue;
        }
        size_t at = (size_t)(p - s);
        size_t b = at;
        while (b > 0 && s[b - 1] != '\n' && s[b - 1] != '#')
            b--;
        size_t end = at;
        while (end < len && s[end] != '\n')
            end++;
        if (b > 0 && s[b - 1] == '#')
            one_suppression(c, s, b - 1, end);
        p = s + end;
        if (end >= len)
            break;
    }
}
