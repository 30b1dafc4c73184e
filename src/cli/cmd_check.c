/*
 * cmd_check.c: `kvlint check PATH...`, the main command, and `kvlint baseline PATH...`, which runs
 * the same way and records the findings instead. Loads the rules, opens a session (scan +
 * deployments), evaluates, narrows the findings (--baseline, the scope of named files, --diff),
 * reports in each chosen format and turns the result into an exit status:
 * 0 when no finding reaches --fail-on, 1 when one does, 2 on usage/config/I/O errors (also when
 * findings were printed: a run with errors is never clean).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/eval.h"
#include "cli/baseline.h"
#include "cli/changed.h"
#include "cli/check_common.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/session.h"
#include "frontend/frontend.h"
#include "report/report.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static const char usage[] =
    "usage: kvlint check [options] PATH...\n"
    "       kvlint check [options] --stdin-filename NAME [-]\n"
    "\n"
    "Report the values that code under PATH writes into a KV cache (masks such as -1e9 or\n"
    "finfo(dtype).min, adapter/position/token ids) where a deployment's declared cache dtype cannot\n"
    "hold them. Deployments come from configs found under PATH, .kvlint.yaml and --config.\n"
    "When every PATH is a file (a pre-commit hook), their context is read too (the code for a\n"
    "deployment, the deployments and checkpoint for code) and only what involves them is reported.\n"
    "\n"
    "options:\n"
    "      --format F[=FILE]   text (default), json, sarif, github, gitlab or junit; with =FILE to\n"
    "                          that file (repeatable: one report per format)\n"
    "  -o, --output FILE       write the report given without =FILE to FILE instead of standard output\n"
    "      --fail-on L         exit 1 when a finding is at least L: error, warning (default), note, never\n"
    "      --diff REF          only findings on lines added or changed since merge-base(REF, HEAD)\n"
    "      --changed-since REF the same as --diff REF\n"
    "      --diff-filter M     added (default: a location on a changed line), file (in a changed\n"
    "                          file) or all\n"
    "      --baseline FILE     hide the findings recorded in FILE (kvlint baseline) and count them\n"
    "      --prune             with --baseline: also drop the entries that are gone from FILE\n"
    "      --select IDS        run only these rules (comma-separated ids or names; repeatable)\n"
    "      --ignore IDS        skip these rules (comma-separated; repeatable)\n"
    "      --rules DIR         also load the rule files in DIR (repeatable)\n"
    "      --warn-unused-ignores  report `kvlint: ignore[...]` comments that suppress nothing\n"
    "      --color WHEN        auto (default: on a terminal unless NO_COLOR is set), always, never\n"
    "      --stats             print the time of each stage to standard error\n"
    "  -q, --quiet             print only findings, warnings and errors (no summary line, no notes\n"
    "                          about the run)\n"
    "      --stdin-filename NAME  read the code from standard input (PATH '-' or none) and report\n"
    "                          it as NAME: its language, suppressions and project are NAME's, and\n"
    "                          NAME's copy on disk is not read (editors, pre-commit without files)\n"
    SESSION_OPTIONS_HELP
    "  -h, --help              this help\n"
    "\n"
    "exit status: 0 nothing reaches --fail-on, 1 findings, 2 usage, configuration or I/O error\n";

static const char baseline_usage[] =
    "usage: kvlint baseline [options] PATH...\n"
    "\n"
    "Record today's findings under PATH by their line-independent fingerprints, so that\n"
    "`kvlint check --baseline FILE` reports only new ones. Written atomically.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE       the baseline file (default: standard output); an existing file must\n"
    "                          be a kvlint baseline\n"
    "      --select IDS, --ignore IDS, --rules DIR, --warn-unused-ignores: as for check\n"
    SESSION_OPTIONS_HELP
    "  -h, --help              this help\n"
    "\n"
    "exit status: 0 written, 2 usage, configuration or I/O error\n";

enum {
    OPT_FORMAT = 0x200, OPT_FAIL_ON, OPT_SELECT, OPT_IGNORE, OPT_RULES, OPT_UNUSED, OPT_COLOR, OPT_STATS,
    OPT_DIFF, OPT_DIFF_FILTER, OPT_BASELINE, OPT_PRUNE, OPT_STDIN_NAME,
};

typedef void (*format_fn)(FILE *, const report_input *);

static const struct {
    const char *name;
    format_fn print;
} formats[] = {
    { "text", report_text }, { "json", report_json }, { "sarif", report_sarif },
    { "github", report_github }, { "gitlab", report_gitlab }, { "junit", report_junit },
};

enum { MAX_OUTPUTS = 8 };

typedef struct output_spec {
    format_fn print;
    const char *path;         /* NULL: -o FILE or standard output */
} output_spec;

typedef struct check_options {
    bool record_baseline;     /* `kvlint baseline` */
    output_spec out[MAX_OUTPUTS];
    size_t nout;
    const char *output, *color;
    int fail_on;              /* severity threshold; 3 = never */
    bool warn_unused, stats, prune;
    const char *diff_ref, *baseline;
    diff_filter filter;
    bool filter_set;
    check_common common;
} check_options;

static int parse_fail_on(const char *s)
{
    if (strcmp(s, "error") == 0) return SEV_ERROR;
    if (strcmp(s, "warning") == 0) return SEV_WARNING;
    if (strcmp(s, "note") == 0) return SEV_NOTE;
    if (strcmp(s, "never") == 0) return 3;
    return -1;
}

/* "F" or "F=FILE". */
static int add_format(check_options *co, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
    format_fn print = NULL;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (strlen(formats[i].name) == n && !strncmp(formats[i].name, arg, n))
            print = formats[i].print;
    if (!print)
        return usage_error("check", "--format is text, json, sarif, github, gitlab or junit (optionally =FILE), not '%s'", arg);
    if (eq && !eq[1])
        return usage_error("check", "--format %s: no FILE after '='", arg);
    if (co->nout == MAX_OUTPUTS)
        return usage_error("check", "--format: at most %d reports per run", MAX_OUTPUTS);
    co->out[co->nout++] = (output_spec){ print, eq ? eq + 1 : NULL };
    return -1;
}

/* After the options: at most one report to standard output (or -o), no two to one file. */
static int check_outputs(check_options *co)
{
    if (co->nout == 0)
        co->out[co->nout++] = (output_spec){ report_text, NULL };
    size_t plain = 0;
    for (size_t i = 0; i < co->nout; i++) {
        plain += co->out[i].path == NULL;
        for (size_t k = 0; k < i; k++)
            if (co->out[i].path && co->out[k].path && !strcmp(co->out[i].path, co->out[k].path))
                return usage_error("check", "--format: two reports to %s", co->out[i].path);
    }
    if (plain > 1)
        return usage_error("check", "--format: only one report can go to %s; give the others =FILE",
                           co->output ? co->output : "standard output");
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, session_options *so, check_options *co)
{
    static const struct option longopts[] = {
        SESSION_LONG_OPTIONS,
        { "format", required_argument, NULL, OPT_FORMAT },
        { "output", required_argument, NULL, 'o' },
        { "fail-on", required_argument, NULL, OPT_FAIL_ON },
        { "diff", required_argument, NULL, OPT_DIFF },
        { "changed-since", required_argument, NULL, OPT_DIFF },
        { "diff-filter", required_argument, NULL, OPT_DIFF_FILTER },
        { "baseline", required_argument, NULL, OPT_BASELINE },
        { "prune", no_argument, NULL, OPT_PRUNE },
        { "select", required_argument, NULL, OPT_SELECT },
        { "ignore", required_argument, NULL, OPT_IGNORE },
        { "rules", required_argument, NULL, OPT_RULES },
        { "warn-unused-ignores", no_argument, NULL, OPT_UNUSED },
        { "color", required_argument, NULL, OPT_COLOR },
        { "stats", no_argument, NULL, OPT_STATS },
        { "quiet", no_argument, NULL, 'q' },
        { "stdin-filename", required_argument, NULL, OPT_STDIN_NAME },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *cmd = co->record_baseline ? "baseline" : "check";
    int c, r;
    optind = 1;
    opterr = 0;   /* one message, ours, not getopt's as well */
    while ((c = getopt_long(argc, argv, "j:o:qh", longopts, NULL)) != -1) {
        if ((r = session_option(so, c, optarg, cmd)) < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        bool check_only = c == OPT_FORMAT || c == OPT_FAIL_ON || c == OPT_DIFF || c == OPT_DIFF_FILTER ||
                          c == OPT_BASELINE || c == OPT_PRUNE || c == OPT_COLOR || c == OPT_STATS ||
                          c == OPT_STDIN_NAME;
        if (co->record_baseline && check_only)
            return usage_error(cmd, "%s is an option of kvlint check", argv[optind - 1]);
        switch (c) {
        case OPT_FORMAT:
            if ((r = add_format(co, optarg)) >= 0)
                return r;
            break;
        case 'o': co->output = optarg; break;
        case OPT_FAIL_ON:
            if ((co->fail_on = parse_fail_on(optarg)) < 0)
                return usage_error(cmd, "--fail-on is error, warning, note or never, not '%s'", optarg);
            break;
        case OPT_DIFF: co->diff_ref = optarg; break;
        case OPT_DIFF_FILTER:
            if (!diff_filter_parse(optarg, &co->filter))
                return usage_error(cmd, "--diff-filter is added, file or all, not '%s'", optarg);
            co->filter_set = true;
            break;
        case OPT_BASELINE: co->baseline = optarg; break;
        case OPT_PRUNE: co->prune = true; break;
        case OPT_SELECT: common_add_ids(&co->common.select, optarg); break;
        case OPT_IGNORE: common_add_ids(&co->common.ignore, optarg); break;
        case OPT_RULES: common_add_dir(&co->common, optarg); break;
        case OPT_UNUSED: co->warn_unused = true; break;
        case OPT_COLOR: co->color = optarg; break;
        case OPT_STATS: co->stats = true; break;
        case 'q': so->quiet = true; break;
        case OPT_STDIN_NAME:
            if (!*optarg)
                return usage_error(cmd, "--stdin-filename needs a file name");
            so->stdin_name = optarg;
            break;
        case 'h': fputs(co->record_baseline ? baseline_usage : usage, stdout); return EXIT_CLEAN;
        default: return usage_error(cmd, "unknown option or missing argument: '%s'", argv[optind - 1]);
        }
    }
    if (strcmp(co->color, "auto") != 0 && strcmp(co->color, "always") != 0 && strcmp(co->color, "never") != 0)
        return usage_error(cmd, "--color is auto, always or never, not '%s'", co->color);
    if (co->filter_set && !co->diff_ref)
        return usage_error(cmd, "--diff-filter needs --diff REF");
    if (co->prune && !co->baseline)
        return usage_error(cmd, "--prune needs --baseline FILE");
    if (co->prune && co->diff_ref)
        return usage_error(cmd, "--prune needs a full run: with --diff a finding outside the diff is not gone");
    if (so->stdin_name) {
        if (argc - optind > 1 || (optind < argc && strcmp(argv[optind], "-") != 0))
            return usage_error(cmd, "--stdin-filename reads standard input: give no PATH or '-', not '%s'",
                               argv[argc - 1]);
        const char *lang;
        if (!kv_frontend_for(so->stdin_name, &lang))
            return usage_error(cmd, "--stdin-filename %s: kvlint reads no file named like this (Python, "
                               "serving configs, C/C++/CUDA: kvlint check --help)", so->stdin_name);
        return check_outputs(co);
    }
    for (int i = optind; i < argc; i++)
        if (!strcmp(argv[i], "-"))
            return usage_error(cmd, "'-' reads standard input and needs --stdin-filename NAME (its language "
                               "and project come from NAME)");
    if (optind >= argc)
        return usage_error(cmd, "no PATH given");
    return co->record_baseline ? -1 : check_outputs(co);
}

static bool reaches(const finding_list *l, int fail_on)
{
    for (size_t i = 0; i < l->v.n; i++)
        if ((int)l->v.v[i].severity >= fail_on)
            return true;
    return false;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct report_job {
    format_fn print;
    report_input in;
    const char *color;
    bool quiet;
} report_job;

static void print_job(FILE *out, bool tty, const void *arg)
{
    const report_job *j = arg;
    report_input in = j->in;
    in.color = strcmp(j->color, "always") == 0 || (strcmp(j->color, "auto") == 0 && report_use_color(tty));
    in.quiet = j->quiet;
    j->print(out, &in);
}

static bool outputs_usable(const check_options *co)
{
    if (co->record_baseline || !co->nout)
        return output_usable(co->record_baseline ? "baseline" : "check", co->output);
    for (size_t i = 0; i < co->nout; i++)
        if (!output_usable("check", co->out[i].path ? co->out[i].path : co->output))
            return false;
    return true;
}

/* What the run reports once the rules ran: the baseline, the scope and the diff decide. */
typedef struct run_state {
    session *s;
    rule_set *rules;
    eval_options eo;
    finding_list *l;
    changed_lines diff;
    bool have_diff;
    baseline base;
    bool have_base;
    size_t baselined, outside_diff, per_file_ignored;
    char *repo_root;          /* realpath of the git top, for the CI formats */
} run_state;

/* Open the diff and the baseline before the long part of the run, so that a missing REF or a
 * broken baseline is a usage error at once. */
static bool open_inputs(run_state *st, char **paths, const check_options *co)
{
    strbuf why = STRBUF_INIT;
    if (co->diff_ref) {
        if (!(st->have_diff = changed_open(&st->diff, paths[0], co->diff_ref, co->filter, &why))) {
            fprintf(stderr, "kvlint check: --diff %s: %s\n", co->diff_ref, sb_str(&why));
            sb_release(&why);
            return false;
        }
    }
    if (co->baseline) {
        if (!(st->have_base = baseline_load(&st->base, co->baseline, &why))) {
            fprintf(stderr, "kvlint check: --baseline: %s\n", sb_str(&why));
            sb_release(&why);
            return false;
        }
    }
    if (co->record_baseline && co->output && !baseline_replaceable(co->output, &why)) {
        fprintf(stderr, "kvlint baseline: -o: %s\n", sb_str(&why));
        sb_release(&why);
        return false;
    }
    sb_release(&why);
    return true;
}

/* The baseline (fingerprints of the whole evaluated list), then the scope of named files, then
 * the diff. Returns false when a file could not be written. */
static bool narrow(run_state *st, const check_options *co)
{
    source_cache *sc = source_cache_new();
    if (st->s->stdin_file.data)
        source_cache_put(sc, st->s->stdin_file.path, st->s->stdin_file.data, st->s->stdin_file.len);
    report_fingerprint *fps = report_fingerprints(sc, st->l);
    bool ok = true;
    strbuf why = STRBUF_INIT;
    if (co->record_baseline) {
        size_t k = 0;
        for (size_t i = 0; i < st->l->v.n; i++)
            if (scope_involves(&st->s->scope, &st->l->v.v[i])) {
                fps[k] = fps[i];
                st->l->v.v[k++] = st->l->v.v[i];
            }
        st->l->v.n = k;
        if (!(ok = baseline_write_findings(co->output, st->l, fps, &why)))
            fprintf(stderr, "kvlint baseline: %s\n", sb_str(&why));
    } else {
        if (st->have_base)
            st->baselined = baseline_filter(&st->base, st->l, fps);
        if (co->prune && !(ok = baseline_write_pruned(co->baseline, &st->base, &why)))
            fprintf(stderr, "kvlint check: --prune: %s\n", sb_str(&why));
        scope_filter(&st->s->scope, st->l);
        if (st->have_diff)
            st->outside_diff = changed_filter(&st->diff, st->l);
    }
    sb_release(&why);
    free(fps);
    source_cache_free(sc);
    return ok;
}

/* With a github report and $GITHUB_STEP_SUMMARY set (a workflow step), append the Markdown summary. */
static bool step_summary(const check_options *co, const report_input *in)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    bool github = false;
    for (size_t i = 0; i < co->nout; i++)
        github = github || co->out[i].print == report_github;
    if (!github || !path || !*path)
        return true;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "kvlint check: $GITHUB_STEP_SUMMARY %s: %s\n", path, strerror(errno));
        return false;
    }
    report_github_summary(f, in);
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "kvlint check: $GITHUB_STEP_SUMMARY %s: write failed\n", path);
    return ok;
}

static bool write_reports(const run_state *st, const check_options *co, const diag **diags, size_t ndiags)
{
    report_job job = {
        .color = co->color, .quiet = st->s->quiet,
        .in = { .findings = st->l, .rules = st->rules, .eval = &st->eo, .diags = diags, .ndiags = ndiags,
                .baselined = st->baselined, .outside_diff = st->outside_diff,
                .per_file_ignored = st->per_file_ignored, .with_per_file = st->s->project->per_file_ignores.n > 0,
                .with_baseline = st->have_base, .with_diff = st->have_diff, .repo_root = st->repo_root },
    };
    session_report_counts(st->s, &job.in);
    bool ok = true;
    for (size_t i = 0; i < co->nout; i++) {
        job.print = co->out[i].print;
        ok = output_write("check", co->out[i].path ? co->out[i].path : co->output, st->s, print_job, &job) && ok;
    }
    return step_summary(co, &job.in) && ok;
}

static void run_free(run_state *st)
{
    if (st->l)
        finding_list_free(st->l);
    common_eval_options_free(&st->eo);
    session_free(st->s, NULL);
    rule_set_free(st->rules);
    if (st->have_diff)
        changed_free(&st->diff);
    if (st->have_base)
        baseline_free(&st->base);
    free(st->repo_root);
}

/* Why unused-suppression reports (KV011) cannot be trusted in this run, or NULL: a suppression
 * for a rule that did not run, for a dtype a what-if replaced, or for a finding that needs a file
 * the run did not read, would look unused (ast-grep turns the check off for filtered runs too). */
static const char *unused_ignores_off(const check_options *co, const session_options *so, const session *s,
                                      char *const *paths, size_t npaths)
{
    if (co->common.select.n || co->common.ignore.n || s->project->select.n || s->project->ignore.n)
        return "--select/--ignore (or .kvlint.yaml rules:) filter the rules";
    if (so->whatif_kv || so->whatif_model)
        return "--kv-cache-dtype/--dtype replace the declared dtypes";
    if (s->scope.focused)
        return NULL;   /* named files with their context: the suppressions can all be used */
    for (size_t i = 0; i < npaths; i++)
        if (fs_is_dir(paths[i]))
            return NULL;
    return "the named files were read without their project (no .kvlint.yaml or git repository above them)";
}

/* .kvlint.yaml rules.severity: the findings of those rules get that severity in this run (their
 * exit status and every report format follow it). An id that is no rule is an error. */
static bool project_severities(const session *s, rule_set *rules)
{
    const kv_project *p = s->project;
    bool ok = true;
    for (size_t i = 0; i < p->severity.n; i++) {
        const rule_override *o = &p->severity.v[i];
        rule *r = (rule *)rule_find(rules, o->rule);
        kv_severity sev;
        if (!r) {
            fprintf(stderr, "%s:%u:%u: error: rules.severity: no rule is called '%s' (kvlint explain lists them)\n",
                    o->loc.path ? o->loc.path : ".kvlint.yaml", o->loc.line, o->loc.col, o->rule);
            ok = false;
        } else if (severity_by_name(o->severity, &sev)) {
            r->severity = sev;
        }
    }
    return ok;
}

/* Rule ids and names in .kvlint.yaml rules.select/ignore must exist, as on the command line: an
 * unknown one in select would otherwise turn every rule off. */
static bool project_rules_known(const session *s, rule_set *rules)
{
    const kv_project *p = s->project;
    bool ok = true;
    for (int k = 0; k < 2; k++) {
        const char *const *v = k ? p->ignore.v : p->select.v;
        size_t n = k ? p->ignore.n : p->select.n;
        for (size_t i = 0; i < n; i++)
            if (!rule_find(rules, v[i])) {
                fprintf(stderr, "%s: error: rules.%s: no rule is called '%s' (kvlint explain lists them)\n",
                        p->path ? p->path : ".kvlint.yaml", k ? "ignore" : "select", v[i]);
                ok = false;
            }
    }
    for (size_t i = 0; i < p->per_file_ignores.n; i++) {
        const file_rule_ignore *fi = &p->per_file_ignores.v[i];
        for (size_t k = 0; k < fi->rules.n; k++)
            if (!rule_find(rules, fi->rules.v[k])) {
                const kv_loc *at = &fi->rule_locs.v[k];
                fprintf(stderr, "%s:%u:%u: error: rules.per_file_ignores: '%s': no rule is called '%s' (kvlint explain "
                        "lists them)\n", at->path ? at->path : ".kvlint.yaml", at->line, at->col, fi->glob, fi->rules.v[k]);
                ok = false;
            }
    }
    return ok && project_severities(s, rules);
}

/* .kvlint.yaml rules.per_file_ignores: drop the findings of a rule whose primary location is in a
 * file that turns it off. After evaluation, so that the rule still ran there and a suppression
 * comment for it is judged as usual (KV011). Returns how many were dropped. */
static size_t per_file_filter(const kv_project *p, finding_list *l)
{
    if (!p->per_file_ignores.n)
        return 0;
    size_t w = 0;
    for (size_t i = 0; i < l->v.n; i++) {
        const finding *f = &l->v.v[i];
        if (!project_ignores_rule_at(p, f->loc.path, f->rule->id, f->rule->name))
            l->v.v[w++] = l->v.v[i];
    }
    size_t dropped = l->v.n - w;
    l->v.n = w;
    return dropped;
}

/* `kvlint: ignore[KV03]` names no rule: it suppresses nothing and would hide nothing either, so
 * say so (a warning at the comment) instead of letting the typo stand. */
static void unknown_suppression_ids(session *s, const rule_set *rules)
{
    for (size_t i = 0; i < s->scan->n; i++) {
        const file_facts *f = s->scan->files[i];
        if (!scope_shows_path(&s->scope, f->path))
            continue;
        for (size_t k = 0; k < f->suppressions.n; k++) {
            const suppression *sp = &f->suppressions.v[k];
            for (size_t j = 0; sp->ids && sp->ids[j]; j++)
                if (!rule_find(rules, sp->ids[j]))
                    diag_add(&s->diags, DIAG_WARNING, f->path, sp->line, sp->col,
                             "kvlint: ignore[%s]: no rule is called '%s' (kvlint explain lists them)", sp->ids[j],
                             sp->ids[j]);
        }
    }
}

static int run(char **paths, size_t npaths, session_options *so, check_options *co)
{
    run_state st = {0};
    const char *cmd = co->record_baseline ? "baseline" : "check";
    if (!outputs_usable(co) || !open_inputs(&st, paths, co) || !(st.rules = common_load_rules(&co->common, cmd))) {
        run_free(&st);
        return EXIT_USAGE;
    }
    double t0 = now();
    st.s = session_open(cmd, paths, npaths, so);
    double t1 = now();
    if (!st.s || !project_rules_known(st.s, st.rules)) {
        run_free(&st);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < co->nout && !st.repo_root; i++)
        if (co->out[i].print == report_github || co->out[i].print == report_gitlab)
            st.repo_root = git_top_of(paths[0]);
    unknown_suppression_ids(st.s, st.rules);
    st.eo = common_eval_options(&co->common, st.s->project);
    const char *off = co->warn_unused ? unused_ignores_off(co, so, st.s, paths, npaths) : NULL;
    if (off && !so->quiet)
        fprintf(stderr, "kvlint %s: note: --warn-unused-ignores is off for this run: %s\n", cmd, off);
    st.eo.warn_unused_ignores = co->warn_unused && !off;
    if (!co->record_baseline && !st.have_base) {
        /* the scope of named files judges each deployment's finding before a site's findings are
         * merged, so the site lists only the deployments that involve them (a baseline needs the
         * whole list's fingerprints: narrow() filters those runs afterwards) */
        st.eo.keep = scope_keeps;
        st.eo.keep_arg = &st.s->scope;
    }
    st.l = evaluate(st.rules, st.s->scan->files, st.s->scan->n, st.s->deployments, &st.eo);
    st.per_file_ignored = per_file_filter(st.s->project, st.l);
    double t2 = now();
    bool written = narrow(&st, co);
    /* Diagnostics first: on a terminal they come before the findings, and every report lists them. */
    size_t ndiags;
    const diag **diags = session_diags(st.s, &ndiags);
    bool errors = session_print_diags(st.s);
    bool complete = session_complete(st.s, cmd);
    if (!co->record_baseline)
        written = write_reports(&st, co, diags, ndiags) && written;
    free(diags);
    if (co->stats)
        fprintf(stderr, "kvlint: scan+resolve %.3f s, evaluate %.3f s, report %.3f s (%zu files, %zu deployment%s, %zu finding%s)\n",
                t1 - t0, t2 - t1, now() - t2, st.s->scan->stats.files_analyzed, st.s->deployments->n,
                st.s->deployments->n == 1 ? "" : "s", st.l->v.n, st.l->v.n == 1 ? "" : "s");
    int status = errors || !written || !complete ? EXIT_USAGE
                 : !co->record_baseline && reaches(st.l, co->fail_on) ? EXIT_FINDINGS : EXIT_CLEAN;
    run_free(&st);
    return status;
}

static int check_main(int argc, char **argv, bool record_baseline)
{
    session_options so = { .focus = true };
    check_options co = { .record_baseline = record_baseline, .color = "auto", .fail_on = SEV_WARNING };
    int status = parse_args(argc, argv, &so, &co);
    if (status < 0) {
        if (co.output)
            so.outputs[so.noutputs++] = co.output;
        for (size_t i = 0; i < co.nout; i++)
            if (co.out[i].path && so.noutputs < sizeof so.outputs / sizeof *so.outputs)
                so.outputs[so.noutputs++] = co.out[i].path;
        char *stdin_paths[1] = { (char *)so.stdin_name };
        status = so.stdin_name ? run(stdin_paths, 1, &so, &co) : run(argv + optind, (size_t)(argc - optind), &so, &co);
    }
    common_free(&co.common);
    session_free(NULL, &so);
    return status;
}

int cmd_check(int argc, char **argv)
{
    return check_main(argc, argv, false);
}

int cmd_baseline(int argc, char **argv)
{
    return check_main(argc, argv, true);
}
