/* session.c: see session.h. */
#include "cli/session.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* A size: digits and an optional K, M or G suffix, from 1 byte to FS_MAX_FILE_SIZE_LIMIT. No sign:
 * strtoull would read "-1" as 2^64-1. */
static bool parse_size(const char *s, size_t *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return false;
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1024, end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1024ULL * 1024 * 1024, end++;
    if (*end || v == 0 || v > FS_MAX_FILE_SIZE_LIMIT / mul)
        return false;
    *out = (size_t)(v * mul);
    return true;
}

int session_option(session_options *o, int c, const char *arg, const char *cmd)
{
    switch (c) {
    case 'j': {
        char *end;
        long v = strtol(arg, &end, 10);
        if (*end || v < 1 || v > 256) {
            usage_error(cmd, "--jobs takes a number from 1 to 256, not '%s'", arg);
            return -1;
        }
        o->jobs = (int)v;
        return 1;
    }
    case 0x100:
        if (!parse_size(arg, &o->max_file_size)) {
            usage_error(cmd, "--max-file-size takes a size from 1 to %zu bytes such as 8M (K, M, G suffixes), not '%s'",
                        FS_MAX_FILE_SIZE_LIMIT, arg);
            return -1;
        }
        return 1;
    case 0x101: o->project_file = arg; return 1;
    case 0x102:
        o->configs = xrealloc(o->configs, (o->nconfigs + 1) * sizeof *o->configs);
        o->configs[o->nconfigs++] = arg;
        return 1;
    case 0x103: o->model_config = arg; return 1;
    case 0x104: {
        kvn_platform p;
        if (!kvn_platform_parse(arg, &p)) {
            usage_error(cmd, "--platform is cuda, cuda-sm75, rocm or cpu, not '%s'", arg);
            return -1;
        }
        o->platform = arg;
        return 1;
    }
    case 0x105: o->whatif_kv = arg; return 1;
    case 0x106: o->whatif_model = arg; return 1;
    case 0x107: o->compile_commands = arg; return 1;
    case 0x108: o->no_ignore = true; return 1;
    default: return 0;
    }
}

/* A what-if dtype must be a name the numerics know and can model. */
static bool whatif_dtype(const char *cmd, const char *opt, const char *name, bool rocm, kvn_dtype *out)
{
    *out = KVN_DTYPE_INVALID;
    if (!name)
        return true;
    kvn_dtype d = kvn_dtype_parse(name, rocm);
    if (d == KVN_DTYPE_INVALID) {
        char near[64];
        if (*kvn_dtype_nearest(name, near, sizeof near))
            usage_error(cmd, "%s: unknown dtype '%s'; did you mean '%s'? (kvlint dtypes lists them all)", opt, name, near);
        else
            usage_error(cmd, "%s: unknown dtype '%s'; valid: %s", opt, name, kvn_dtype_valid_names());
        return false;
    }
    *out = d;
    return true;
}

/* Whether the report target is missing or holds a report kvlint wrote (JSON, Code Quality, a
 * baseline): only those may be left out of the scan. Anything else stays an input, so that
 * output_write() refuses to overwrite it. */
static bool own_report(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT;
    char head[4096];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    size_t k = strspn(head, " \t\r\n");
    if (head[k] == '[' && head[k + 1 + strspn(head + k + 1, " \t\r\n")] == ']')
        return true;   /* an empty Code Quality report */
    return (strstr(head, "\"findings\"") && (strstr(head, "\"summary\"") || strstr(head, "\"tool\": \"kvlint\""))) ||
           (head[0] == '[' && strstr(head, "\"check_name\"") && strstr(head, "\"fingerprint\""));
}

/* A report kvlint writes into the tree it scans (gl-code-quality.json) is not a config: leaving
 * it out keeps a second run from reading the first one's report, and from refusing to replace it
 * as "one of the files this run read". */
static void exclude_outputs(kv_project *p, const session_options *o)
{
    if (!p->root_real)
        return;
    size_t n = strlen(p->root_real);
    for (size_t i = 0; i < o->noutputs; i++) {
        const char *path = o->outputs[i];
        if (!own_report(path))
            continue;
        const char *slash = strrchr(path, '/');
        char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
        char *real = realpath(dir, NULL);
        free(dir);
        if (!real)
            continue;
        const char *base = slash ? slash + 1 : path;
        const char *rel = !strcmp(real, p->root_real) ? "" : !strncmp(real, p->root_real, n) && real[n] == '/' ? real + n + 1 : NULL;
        if (rel && *base && !strpbrk(base, "*?[")) {
            strbuf g = STRBUF_INIT;
            sb_addf(&g, "%s%s%s", rel, *rel ? "/" : "", base);
            ARENA_PUSH(p->arena, p->exclude, arena_strdup(p->arena, sb_str(&g)));
            sb_release(&g);
        }
        free(real);
    }
}

static const file_facts *scanned(const session *s, const char *path)
{
    char *want = realpath(path, NULL);
    const file_facts *hit = NULL;
    for (size_t i = 0; want && !hit && i < s->scan->n; i++) {
        char *real = realpath(s->scan->files[i]->path, NULL);
        if (real && !strcmp(real, want))
            hit = s->scan->files[i];
        free(real);
    }
    free(want);
    return hit;
}

/* A file the command line names as a config must be one: a malformed one is an error (a warning
 * when found by a walk), and one that declares nothing kvlint reads is worth a warning, not
 * silence (a typo'd path to the wrong YAML would leave the run checking against nothing). */
static void check_named_config(session *s, const char *opt, const char *path)
{
    const file_facts *f = scanned(s, path);
    if (!f)
        return;   /* unreadable or refused: the scan said why */
    const char *dot = strrchr(path, '.');
    bool json = dot && !strcmp(dot, ".json");
    for (size_t i = 0; i < f->diags.items.n; i++) {
        const diag *d = &f->diags.items.v[i];
        if (d->level == DIAG_WARNING && strstr(d->msg, "malformed")) {
            diag_add(&s->diags, DIAG_ERROR, path, d->line, d->col, "%s: not valid %s, so nothing in it was read",
                     opt, json ? "JSON" : "YAML");
            return;
        }
    }
    if (f->decls.n == 0 && !diag_has_errors(&f->diags))
        diag_add(&s->diags, DIAG_WARNING, path, 0, 0,
                 "%s: declares nothing kvlint reads (no dtype, KV-cache dtype, quantization or id range): is it "
                 "a serving config%s?", opt, strcmp(opt, "--model-config") ? "" : " or a checkpoint config.json");
}

/* --stdin-filename: read standard input with the size limit a file gets, so that a huge input is
 * a diagnostic at NAME (the scan adds it), never an allocation of its size. */
static void read_stdin(session *s, const session_options *o)
{
    scan_stdin *in = &s->stdin_file;
    in->path = o->stdin_name;
    in->limit = project_file_limit(s->project, o->max_file_size);
    in->status = fs_read_stream(STDIN_FILENO, in->limit, &s->stdin_data, &in->len, &in->err);
    if (in->status == FS_OK)
        fs_lone_cr_to_lf(s->stdin_data, in->len);
    in->data = s->stdin_data;
}

session *session_open(const char *cmd, char *const *paths, size_t npaths, const session_options *o)
{
    session *s = xcalloc(1, sizeof *s);
    s->arena = arena_new();
    diag_init(&s->diags, s->arena);
    kvn_platform platform = KVN_PLAT_CUDA;
    bool given = o->platform && kvn_platform_parse(o->platform, &platform);
    bool rocm = platform == KVN_PLAT_ROCM;
    s->ids = id_vocab_load(kvlint_datadir(), &s->diags);
    resolve_options ro = { .platform = platform, .model_config = o->model_config, .ids = s->ids };
    if (!whatif_dtype(cmd, "--kv-cache-dtype", o->whatif_kv, rocm, &ro.whatif_kv) ||
        !whatif_dtype(cmd, "--dtype", o->whatif_model, rocm, &ro.whatif_model)) {
        session_free(s, NULL);
        return NULL;
    }

    if (o->project_file) {
        s->project = project_load(o->project_file, &s->diags);
        if (!s->project) {
            session_print_diags(s);
            session_free(s, NULL);
            return NULL;
        }
    } else {
        s->project = project_discover(npaths ? paths[0] : ".", &s->diags);
    }
    if (given) /* --platform overrides .kvlint.yaml's platform: */
        s->project->platform = platform;
    if (o->no_ignore)
        s->project->respect_gitignore = false;
    ro.platform = s->project->platform;

    s->quiet = o->quiet;
    exclude_outputs(s->project, o);
    if (o->stdin_name)
        read_stdin(s, o);
    if (o->focus) {
        const char *in = s->stdin_file.status == FS_OK ? s->stdin_file.data : NULL;
        scope_plan(&s->scope, paths, npaths, s->project, o->nconfigs || o->model_config, o->stdin_name, in,
                   s->stdin_file.len, o->max_file_size);
        scope_add_imports(&s->scope, paths, npaths, s->project, o->stdin_name, in, s->stdin_file.len,
                          o->max_file_size);
    }
    size_t nextra = o->nconfigs + (o->model_config ? 1 : 0) + s->scope.extra.n;
    const char **extra = xcalloc(nextra ? nextra : 1, sizeof *extra);
    for (size_t i = 0; i < o->nconfigs; i++)
        extra[i] = o->configs[i];
    if (o->model_config)
        extra[o->nconfigs] = o->model_config;
    for (size_t i = 0; i < s->scope.extra.n; i++)
        extra[nextra - s->scope.extra.n + i] = s->scope.extra.paths[i];
    scan_options so = {
        .project = s->project,
        .datadir = kvlint_datadir(),
        .jobs = o->jobs,
        .max_file_size = o->max_file_size,
        .extra_files = extra,
        .nextra = nextra,
        .index_only = (const char *const *)s->scope.context.paths,
        .nindex_only = s->scope.context.n,
        .with_deployments = true,
        .compile_commands = o->compile_commands ? o->compile_commands : s->project->compile_commands,
        .stdin_file = o->stdin_name ? &s->stdin_file : NULL,
    };
    s->scan = scan_paths((const char *const *)paths, npaths, &so);
    free(extra);
    s->deployments = deployments_resolve(s->scan->files, s->scan->n, s->project, &ro, &s->diags);
    for (size_t i = 0; i < o->nconfigs; i++)
        check_named_config(s, "--config", o->configs[i]);
    if (o->model_config)
        check_named_config(s, "--model-config", o->model_config);
    return s;
}

void session_free(session *s, session_options *o)
{
    if (o) {
        free(o->configs);
        o->configs = NULL;
    }
    if (!s)
        return;
    deployment_set_free(s->deployments);
    id_vocab_free(s->ids);
    scan_result_free(s->scan);
    project_free(s->project);
    scope_free(&s->scope);
    free(s->stdin_data);
    arena_free(s->arena);
    free(s);
}

void session_report_counts(const session *s, report_input *in)
{
    in->files = s->scan->stats.files_analyzed;
    in->skipped = s->scan->stats.files_skipped;
    in->limited = s->scan->stats.files_limited;
    in->limits = s->scan->stats.limits_hit;
    in->deployments = s->deployments->n;
    in->stdin_path = s->stdin_file.path;
    in->stdin_data = s->stdin_file.data;
    in->stdin_len = s->stdin_file.len;
    if (!s->scope.focused)
        return;
    /* A file read only as context (scope.h) that hit a limit does not make a run on the named
     * files incomplete, as its diagnostics are not shown either. */
    in->skipped = in->limited = 0;
    in->limits = 0;
    for (size_t k = 0; k < s->scan->diags.items.n; k++)
        in->limits += s->scan->diags.items.v[k].limit;
    for (size_t i = 0; i < s->scan->n; i++) {
        const file_facts *f = s->scan->files[i];
        if (!scope_shows_path(&s->scope, f->path))
            continue;
        in->skipped += f->skipped && f->diags.items.n;
        for (size_t k = 0; k < f->diags.items.n; k++)
            in->limits += f->diags.items.v[k].limit;
        in->limited += diag_has_limits(&f->diags);
    }
}

bool session_complete(const session *s, const char *cmd)
{
    report_input in = {0};
    session_report_counts(s, &in);
    char why[160];
    if (!report_incomplete_text(&in, why, sizeof why))
        return true;
    fprintf(stderr, "kvlint %s: incomplete run: %s (limits: docs/limits.md)\n", cmd, why);
    return false;
}

const diag **session_diags(const session *s, size_t *n)
{
    size_t nscan = 0;
    const diag **scan = s->scan ? scan_all_diags(s->scan, &nscan) : NULL;
    const diag **out = xcalloc(s->diags.items.n + nscan + 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < s->diags.items.n; i++)
        out[k++] = &s->diags.items.v[i];
    for (size_t i = 0; i < nscan; i++)
        if (scope_shows_path(&s->scope, scan[i]->path))
            out[k++] = scan[i];
    free(scan);
    *n = k;
    return out;
}

bool session_print_diags(const session *s)
{
    size_t n;
    const diag **all = session_diags(s, &n);
    bool errors = false;
    for (size_t i = 0; i < n; i++) {
        if (!(s->quiet && all[i]->level == DIAG_NOTE))
            diag_print(stderr, all[i]);
        errors = errors || all[i]->level == DIAG_ERROR;
    }
    free(all);
    return errors;
}
