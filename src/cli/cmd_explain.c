/*
 * cmd_explain.c: `kvlint explain ID`: a rule's documentation and a worked example computed now.
 *
 * The example is not text in the rule file: the file's `example:` block names a value, dtypes and
 * an engine; this command builds the matching facts and deployment by hand, runs the rule's own
 * condition family on them through evaluate(), and prints the finding the rule would report. So the
 * numbers in the docs are the numerics' numbers. `--format markdown` writes docs/rules/<ID>.md
 * (tests/e2e/check_docs.sh verifies the committed pages are current). Without ID: list the rules.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/eval.h"
#include "cli/check_common.h"
#include "cli/commands.h"

static const char usage[] =
    "usage: kvlint explain [options] [ID]\n"
    "\n"
    "Print rule ID's documentation (what, why, fix, references) with a worked example computed\n"
    "by kvlint's numerics. Without ID, list every rule.\n"
    "\n"
    "options:\n"
    "      --format F          text (default) or markdown\n"
    "      --rules DIR         also load the rule files in DIR (repeatable)\n"
    "  -h, --help              this help\n";

enum { OPT_FORMAT = 0x200, OPT_RULES };

static const char *const example_path = "example.py";

static kv_value example_value(kv_arena *a, const rule *r, kvn_dtype model)
{
    kv_value v = { .kind = VK_SENTINEL, .sym_scale = 1, .text = r->ex_value ? r->ex_value : "-1e9",
                   .origin = kv_loc_make(example_path, 1, 1, 0, 0) };
    bool b32;
    if (r->family == FAM_STORE_INTEGER) {
        v.kind = VK_INTEGER;
        v.lo = 0;
        v.hi = r->ex_range;
        v.hi_unknown = r->ex_range <= 0;
        v.family = "adapter";
    } else if (strncmp(v.text, "torch.finfo(", 12) == 0 || strncmp(v.text, "finfo(", 6) == 0) {
        v.sym = SYM_FINFO_MIN;
        v.sym_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .text = "torch.float32", .dtype = kvn_dtype_by_fmt(KVN_F32) };
        if (strstr(v.text, "dtype") && !strstr(v.text, "float32"))
            v.sym_dtype = (dtype_ref){ .kind = DREF_MODEL, .text = "self.dtype" };
        v.lo = v.hi = value_concrete(&v, model, model);
    } else if (!kvn_parse_number(v.text, &v.lo, &b32)) {
        v.lo = -1e9;
    }
    if (v.kind != VK_INTEGER)
        v.hi = v.lo;
    (void)a;
    return v;
}

static void build_example(const rule *r, file_facts *f, deployment *d)
{
    kv_arena *a = f->arena;
    kv_loc l2 = kv_loc_make(example_path, 2, 5, 0, 0);
    kvn_dtype model = r->ex_model ? kvn_dtype_parse(r->ex_model, false) : kvn_dtype_by_fmt(KVN_BF16);
    *d = (deployment){ .name = "example", .engine = r->ex_engine,
                       .kv = { .dtype = r->ex_kv ? kvn_dtype_parse(r->ex_kv, false) : model, .how = "example deployment" },
                       .model = { .dtype = model, .how = "example deployment" } };
    kv_value *v = arena_zalloc(a, 2 * sizeof *v);
    v[0] = example_value(a, r, model);
    v[1] = (kv_value){ .kind = VK_FLOAT, .lo = -3.5, .hi = 3.5, .text = "x", .sym_scale = 1 };
    bool key = !r->ex_operand || strcmp(r->ex_operand, "value") != 0;
    store_fact s = { .loc = l2, .family = SINK_ATTENTION_LAYER, .sink = "self.attn", .engine = r->ex_engine,
                     .operand = key ? OPERAND_KEY : OPERAND_VALUE, .tensor = key ? "k" : "v", .values = v,
                     .nvalues = r->family == FAM_SCALE_CRUSH ? 2 : 1, .shares_block = true };
    dtype_ref model_ref = { .kind = DREF_MODEL, .text = "self.dtype", .loc = l2 };
    switch (r->family) {
    case FAM_STORE_VALUE:
    case FAM_SCALE_CRUSH:
    case FAM_STORE_INTEGER:
    case FAM_UNRESOLVED:
        ARENA_PUSH(a, f->stores, s);
        if (r->family == FAM_UNRESOLVED)
            d->kv = (resolved_dtype){ .dtype = KVN_DTYPE_INVALID, .unresolved = "kv-cache-dtype auto and no checkpoint config.json found" };
        break;
    case FAM_CONSTRUCTION: {
        bool fill = r->ex_api && (strstr(r->ex_api, "full") || strstr(r->ex_api, "fill"));
        construction_fact c = { .loc = l2, .kind = fill ? CONS_SCALAR_FILL : CONS_TENSOR_CAST,
                                .api = r->ex_api ? r->ex_api : ".to", .value = v[0], .dtype = model_ref };
        ARENA_PUSH(a, f->constructions, c);
        break;
    }
    case FAM_ARITH: {
        bool times = r->ex_api && strcmp(r->ex_api, "*") == 0;
        double other = 0;
        bool b32;
        kv_value b = { .kind = VK_UNKNOWN, .text = r->ex_other ? r->ex_other : "x", .sym_scale = 1 };
        if (times) {
            b = (kv_value){ .kind = VK_FLOAT, .lo = 0, .hi = 1, .text = r->ex_other ? r->ex_other : "(1 - mask)", .sym_scale = 1 };
        } else if (r->ex_other && kvn_parse_number(r->ex_other, &other, &b32)) {
            b.kind = VK_FLOAT;
            b.lo = b.hi = other;
        }
        arith_fact af = { .loc = l2, .kind = times ? ARITH_ZERO_TIMES_INF : ARITH_SENTINEL_PLUS,
                          .a = times ? b : v[0], .b = times ? v[0] : b, .dtype = model_ref };
        ARENA_PUSH(a, f->ariths, af);
        break;
    }
    case FAM_DECL_INVALID: {
        const char *raw = r->ex_value ? r->ex_value : "fp8e4m3";
        dtype_decl dd = { .key = DECL_KV_CACHE_DTYPE, .engine = "vllm", .dtype = kvn_dtype_parse(raw, false),
                          .raw = raw, .carrier = "cli", .loc = l2 };
        ARENA_PUSH(a, f->decls, dd);
        break;
    }
    case FAM_UNUSED_SUPPRESSION: {
        static const char *const ids[] = { "KV001", NULL };
        suppression sp = { .line = 2, .col = 20, .ids = ids, .reason = "mask is never stored" };
        ARENA_PUSH(a, f->suppressions, sp);
        break;
    }
    }
}

static void print_example(FILE *out, const rule_set *rules, const rule *r, bool md)
{
    file_facts *f = file_facts_new(example_path);
    deployment d;
    build_example(r, f, &d);
    deployment_set ds = { .v = &d, .n = 1 };
    const char *sel[] = { r->id, NULL };
    eval_options eo = { .select = sel, .warn_unused_ignores = true };
    finding_list *l = evaluate(rules, &f, 1, &ds, &eo);
    const kvn_dtype_info *kv = kvn_dtype_get(d.kv.dtype), *model = kvn_dtype_get(d.model.dtype);
    fprintf(out, md ? "## Example (computed by kvlint's numerics)\n\n" : "Example (computed now by kvlint's numerics)\n");
    fprintf(out, "%sValue %s, KV-cache dtype %s, model dtype %s, engine %s:\n%s", md ? "" : "  ",
            r->ex_value ? r->ex_value : "-1e9", kv ? kv->name : "unresolved", model ? model->name : "unresolved",
            r->ex_engine ? r->ex_engine : "unknown", md ? "\n" : "");
    if (!l->v.n)
        fprintf(out, "%sno finding (the numerics say this case is safe)\n", md ? "" : "    ");
    for (size_t i = 0; i < l->v.n; i++) {
        const finding *x = &l->v.v[i];
        fprintf(out, "%s%s:%u:%u: %s: %s [%s]\n", md ? "    " : "    ", x->loc.path, x->loc.line, x->loc.col,
                severity_name(x->severity), x->message, x->rule->id);
        for (size_t k = 0; k < x->nstored; k++) {
            char buf[64];
            format_value(buf, sizeof buf, x->stored[k].stored);
            fprintf(out, "%s  via %s: %s (%s)\n", md ? "    " : "    ", x->stored[k].path, buf,
                    outcome_class_name(x->stored[k].outcome));
        }
    }
    finding_list_free(l);
    file_facts_free(f);
}

static void print_list_field(FILE *out, const char *label, unsigned bits, const char *(*name)(int), int n)
{
    bool first = true;
    for (int i = 0; i < n; i++)
        if ((bits >> i) & 1u) {
            fprintf(out, "%s%s", first ? label : ", ", name(i));
            first = false;
        }
}

static const char *vk_name(int i) { return value_kind_name((value_kind)i); }

static void print_rule(FILE *out, const rule_set *rules, const rule *r, bool md)
{
    if (md)
        fprintf(out, "<!-- generated by `kvlint explain --format markdown %s` from %s; do not edit -->\n\n"
                     "# %s %s\n\n**Severity:** %s\n\n%s\n\n## Why\n\n%s\n\n",
                r->id, strrchr(r->path, '/') ? strrchr(r->path, '/') + 1 : r->path, r->id, r->name,
                severity_name(r->severity), r->summary, r->why);
    else
        fprintf(out, "%s %s (%s)\n\n%s\n\nWhy\n%s\n\n", r->id, r->name, severity_name(r->severity), r->summary, r->why);
    fprintf(out, md ? "## Condition\n\nFamily `%s`" : "Condition: %s", rule_family_name(r->family));
    if (r->family == FAM_STORE_VALUE || r->family == FAM_SCALE_CRUSH || r->family == FAM_CONSTRUCTION)
        print_list_field(out, "; values: ", r->values, vk_name, 4);
    if (r->outcomes)
        print_list_field(out, "; outcomes: ", r->outcomes, outcome_class_name, OUTC_COUNT);
    if (r->family == FAM_STORE_INTEGER)
        fprintf(out, "; range %s%s", r->range_known ? "known" : "unknown",
                r->range_known ? "" : " and the exact-integer limit below the rule's limit_below");
    if (r->family == FAM_ARITH && isfinite(r->operand_bound))
        fprintf(out, "; an operand of unknown value is at most %g in magnitude", r->operand_bound);
    if (isfinite(r->mask_floor))
        fprintf(out, "; a key sentinel that saturates to magnitude >= %g still masks and is not reported", r->mask_floor);
    for (size_t i = 0; r->unless && r->unless[i]; i++)
        fprintf(out, "%s%s", i ? ", " : "; not reported where ", r->unless[i]);
    if (r->unless)
        fputs(" already is", out);
    fputs(md ? ".\n\n" : ".\n\n", out);
    print_example(out, rules, r, md);
    fprintf(out, md ? "\n## Fix\n\n%s\n" : "\nFix\n%s\n", r->fix);
    if (r->references && r->references[0]) {
        fputs(md ? "\n## Seen in\n\n" : "\nSeen in\n", out);
        for (size_t i = 0; r->references[i]; i++)
            fprintf(out, "- %s\n", r->references[i]);
    }
}

int cmd_explain(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT },
        { "rules", required_argument, NULL, OPT_RULES },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    check_common cc = {0};
    const char *format = "text";
    int c, status = -1;
    optind = 1;
    opterr = 0;   /* one message, ours, not getopt's as well */
    while (status < 0 && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
        switch (c) {
        case OPT_FORMAT: format = optarg; break;
        case OPT_RULES: common_add_dir(&cc, optarg); break;
        case 'h': fputs(usage, stdout); status = EXIT_CLEAN; break;
        default: status = usage_error("explain", "unknown option or missing argument: '%s'", argv[optind - 1]);
        }
    if (status < 0 && strcmp(format, "text") != 0 && strcmp(format, "markdown") != 0)
        status = usage_error("explain", "--format is text or markdown, not '%s'", format);
    if (status < 0 && argc - optind > 1)
        status = usage_error("explain", "one rule ID at a time");
    rule_set *rules = status < 0 ? common_load_rules(&cc, "explain") : NULL;
    if (status < 0 && !rules)
        status = EXIT_USAGE;
    if (status < 0 && optind == argc) {
        for (size_t i = 0; i < rules->rules.n; i++)
            printf("%-6s %-28s %-8s %s\n", rules->rules.v[i].id, rules->rules.v[i].name,
                   severity_name(rules->rules.v[i].severity), rules->rules.v[i].summary);
        status = EXIT_CLEAN;
    }
    if (status < 0) {
        const rule *r = rule_find(rules, argv[optind]);
        if (!r)
            status = usage_error("explain", "no rule is called '%s' (run 'kvlint explain' for the list)", argv[optind]);
        else {
            print_rule(stdout, rules, r, strcmp(format, "markdown") == 0);
            status = fflush(stdout) ? EXIT_USAGE : EXIT_CLEAN;
        }
    }
    rule_set_free(rules);
    common_free(&cc);
    return status;
}
