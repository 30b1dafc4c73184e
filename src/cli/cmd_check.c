/*
 * cmd_check.c: `kvlint check PATH...`, the main command. Loads the rules, opens a session (scan +
 * deployments), evaluates, reports in the chosen format and turns the result into an exit status:
 * 0 when no finding reaches --fail-on, 1 when one does, 2 on usage/config/I/O errors (also when
 * findings were printed: a run with errors is never clean).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/eval.h"
#include "cli/check_common.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/session.h"
#include "report/report.h"
#include "util/xalloc.h"

static const char usage[] =
    "usage: kvlint check [options] PATH...\n"
    "\n"
    "Report the values that code under PATH writes into a KV cache (masks such as -1e9 or\n"
    "finfo(dtype).min, adapter/position/token ids) where a deployment's declared cache dtype cannot\n"
    "hold them. Deployments come from configs found under PATH, .kvlint.yaml and --config.\n"
    "\n"
    "options:\n"
    "      --format F          text (default), json, sarif or github\n"
    "  -o, --output FILE       write the report to FILE instead of standard output\n"
    "      --fail-on L         exit 1 when a finding is at least L: error, warning (default), note, never\n"
    "      --select IDS        run only these rules (comma-separated ids or names; repeatable)\n"
    "      --ignore IDS        skip these rules (comma-separated; repeatable)\n"
    "      --rules DIR         also load the rule files in DIR (repeatable)\n"
    "      --warn-unused-ignores  report `kvlint: ignore[...]` comments that suppress nothing\n"
    "      --color WHEN        auto (default: on a terminal unless NO_COLOR is set), always, never\n"
    "      --stats             print the time of each stage to standard error\n"
    SESSION_OPTIONS_HELP
    "  -h, --help              this help\n"
    "\n"
    "exit status: 0 nothing reaches --fail-on, 1 findings, 2 usage, configuration or I/O error\n";

enum { OPT_FORMAT = 0x200, OPT_FAIL_ON, OPT_SELECT, OPT_IGNORE, OPT_RULES, OPT_UNUSED, OPT_COLOR, OPT_STATS };

typedef struct check_options {
    const char *format, *output, *color;
    int fail_on;              /* severity threshold; 3 = never */
    bool warn_unused, stats;
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

static bool valid_format(const char *f)
{
    return strcmp(f, "text") == 0 || strcmp(f, "json") == 0 || strcmp(f, "sarif") == 0 || strcmp(f, "github") == 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, session_options *so, check_options *co)
{
    static const struct option longopts[] = {
        SESSION_LONG_OPTIONS,
        { "format", required_argument, NULL, OPT_FORMAT },
        { "output", required_argument, NULL, 'o' },
        { "fail-on", required_argument, NULL, OPT_FAIL_ON },
        { "select", required_argument, NULL, OPT_SELECT },
        { "ignore", required_argument, NULL, OPT_IGNORE },
        { "rules", required_argument, NULL, OPT_RULES },
        { "warn-unused-ignores", no_argument, NULL, OPT_UNUSED },
        { "color", required_argument, NULL, OPT_COLOR },
        { "stats", no_argument, NULL, OPT_STATS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:o:h", longopts, NULL)) != -1) {
        int r = session_option(so, c, optarg, "check");
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case OPT_FORMAT: co->format = optarg; break;
        case 'o': co->output = optarg; break;
        case OPT_FAIL_ON:
            if ((co->fail_on = parse_fail_on(optarg)) < 0)
                return usage_error("check", "--fail-on is error, warning, note or never, not '%s'", optarg);
            break;
        case OPT_SELECT: common_add_ids(&co->common.select, optarg); break;
        case OPT_IGNORE: common_add_ids(&co->common.ignore, optarg); break;
        case OPT_RULES: common_add_dir(&co->common, optarg); break;
        case OPT_UNUSED: co->warn_unused = true; break;
        case OPT_COLOR: co->color = optarg; break;
        case OPT_STATS: co->stats = true; break;
        case 'h': fputs(usage, stdout); return EXIT_CLEAN;
        default: return usage_error("check", "unknown option");
        }
    }
    if (!valid_format(co->format))
        return usage_error("check", "--format is text, json, sarif or github, not '%s'", co->format);
    if (strcmp(co->color, "auto") != 0 && strcmp(co->color, "always") != 0 && strcmp(co->color, "never") != 0)
        return usage_error("check", "--color is auto, always or never, not '%s'", co->color);
    if (optind >= argc)
        return usage_error("check", "no PATH given");
    return -1;
}

static void print_report(FILE *out, const char *format, const report_input *in)
{
    if (strcmp(format, "json") == 0)
        report_json(out, in);
    else if (strcmp(format, "sarif") == 0)
        report_sarif(out, in);
    else if (strcmp(format, "github") == 0)
        report_github(out, in);
    else
        report_text(out, in);
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
    const char *format;
    report_input in;
    const char *color;
} report_job;

static void print_job(FILE *out, bool tty, const void *arg)
{
    const report_job *j = arg;
    report_input in = j->in;
    in.color = strcmp(j->color, "always") == 0 || (strcmp(j->color, "auto") == 0 && report_use_color(tty));
    print_report(out, j->format, &in);
}

static int run(char **paths, size_t npaths, session_options *so, check_options *co)
{
    if (!output_usable("check", co->output))
        return EXIT_USAGE;
    rule_set *rules = common_load_rules(&co->common, "check");
    if (!rules)
        return EXIT_USAGE;
    double t0 = now();
    session *s = session_open("check", paths, npaths, so);
    double t1 = now();
    if (!s) {
        rule_set_free(rules);
        return EXIT_USAGE;
    }
    eval_options eo = common_eval_options(&co->common, s->project);
    eo.warn_unused_ignores = co->warn_unused;
    finding_list *l = evaluate(rules, s->scan->files, s->scan->n, s->deployments, &eo);
    scope_filter(&s->scope, l);
    double t2 = now();
    report_job job = {
        .format = co->format, .color = co->color,
        .in = { .findings = l, .rules = rules, .eval = &eo },
    };
    session_report_counts(s, &job.in);
    bool written = output_write("check", co->output, s, print_job, &job);
    bool errors = session_print_diags(s);
    bool complete = session_complete(s, "check");
    if (co->stats)
        fprintf(stderr, "kvlint: scan+resolve %.3f s, evaluate %.3f s, report %.3f s (%zu files, %zu deployments, %zu findings)\n",
                t1 - t0, t2 - t1, now() - t2, job.in.files, job.in.deployments, l->v.n);
    int status = errors || !written || !complete ? EXIT_USAGE : reaches(l, co->fail_on) ? EXIT_FINDINGS : EXIT_CLEAN;
    finding_list_free(l);
    common_eval_options_free(&eo);
    session_free(s, NULL);
    rule_set_free(rules);
    return status;
}

int cmd_check(int argc, char **argv)
{
    session_options so = { .focus = true };
    check_options co = { .format = "text", .color = "auto", .fail_on = SEV_WARNING };
    int status = parse_args(argc, argv, &so, &co);
    if (status < 0)
        status = run(argv + optind, (size_t)(argc - optind), &so, &co);
    common_free(&co.common);
    session_free(NULL, &so);
    return status;
}
