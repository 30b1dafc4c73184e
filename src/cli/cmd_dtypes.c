/*
 * cmd_dtypes.c: `kvlint dtypes`, the table of every dtype name kvlint knows, what it is and the
 * numbers of its element format (at scale 1). Element-format facts come from the numerics
 * library; this file only lays them out. Unmodelled names and `auto` are listed with null numbers.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "numerics/numerics.h"
#include "util/json.h"
#include "util/strbuf.h"

static const char usage[] =
    "usage: kvlint dtypes [--format text|json]\n"
    "\n"
    "List the KV-cache and model dtypes kvlint knows: canonical name, aliases, kind, element\n"
    "format numbers (bits, max, min normal, min subnormal, inf, NaN encoding, largest N with\n"
    "0..N exact), block size and scale format. Numbers are at scale 1. See docs/dtypes.md.\n"
    "\n"
    "options:\n"
    "      --format F          text (default) or json\n"
    "  -h, --help              this help\n";

static const char *kind_name(kvn_kind k)
{
    switch (k) {
    case KVN_KIND_ELEMENT: return "element";
    case KVN_KIND_SCALED: return "scaled";
    case KVN_KIND_DYNAMIC: return "dynamic";
    case KVN_KIND_BLOCK: return "block";
    case KVN_KIND_INT8: return "int8";
    case KVN_KIND_AUTO: return "auto";
    case KVN_KIND_UNMODELLED: return "unmodelled";
    }
    return "?";
}

/* The element numbers of a dtype: a float format, or int8 (which has no kvn_fmt). */
typedef struct elem_facts {
    const char *name;
    int bits;
    double max, min_normal, min_subnormal, int_exact_max;
    bool has_inf;
    const char *nan_encoding;
} elem_facts;

static bool is_int8(kvn_dtype d)
{
    const kvn_dtype_info *info = kvn_dtype_get(d);
    return info->kind == KVN_KIND_INT8 || (info->kind == KVN_KIND_DYNAMIC && info->elem == KVN_F32);
}

static bool element_facts(kvn_dtype d, elem_facts *e)
{
    const kvn_dtype_info *info = kvn_dtype_get(d);
    if (info->kind == KVN_KIND_AUTO || info->kind == KVN_KIND_UNMODELLED)
        return false;
    if (is_int8(d)) {
        *e = (elem_facts){ "int8", 8, 127, 1, 1, kvn_dtype_int_exact_max(d), false, "none" };
        return true;
    }
    const kvn_fmt_info *f = kvn_fmt_get(info->elem);
    *e = (elem_facts){ f->name, f->bits, f->max, f->min_normal, f->min_subnormal,
                       kvn_dtype_int_exact_max(d), f->has_inf, f->nan_encoding };
    return true;
}

/* Scale format name, NULL for none. */
static const char *scale_name(const kvn_dtype_info *info)
{
    switch (info->kind) {
    case KVN_KIND_BLOCK: return kvn_fmt_get(info->scale_fmt)->name;
    case KVN_KIND_SCALED:
    case KVN_KIND_DYNAMIC:
    case KVN_KIND_INT8: return "float32";
    default: return NULL;
    }
}

static void json_dtype(json_writer *w, kvn_dtype d)
{
    const kvn_dtype_info *info = kvn_dtype_get(d);
    elem_facts e;
    bool has = element_facts(d, &e);
    json_object_begin(w);
    json_kv_string(w, "name", info->name);
    json_key(w, "aliases");
    json_array_begin(w);
    for (const char *const *a = info->aliases; *a; a++)
        json_string(w, *a);
    json_array_end(w);
    json_kv_string(w, "kind", kind_name(info->kind));
    json_kv_string(w, "element", has ? e.name : NULL);
    if (has) {
        json_kv_int(w, "bits", e.bits);
        json_kv_number(w, "max", e.max);
        json_kv_number(w, "min_normal", e.min_normal);
        json_kv_number(w, "min_subnormal", e.min_subnormal);
        json_kv_bool(w, "has_inf", e.has_inf);
        json_kv_string(w, "nan_encoding", e.nan_encoding);
        json_kv_number(w, "int_exact_max", e.int_exact_max);
    } else {
        static const char *const nulls[] = { "bits", "max", "min_normal", "min_subnormal", "has_inf",
                                             "nan_encoding", "int_exact_max" };
        for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++) {
            json_key(w, nulls[i]);
            json_null(w);
        }
    }
    json_kv_int(w, "block_size", info->block);
    json_kv_string(w, "scale_format", scale_name(info));
    json_kv_bool(w, "takes_scale", kvn_dtype_takes_scale(d));
    json_kv_string(w, "note", info->note);
    json_object_end(w);
}

static void print_json(void)
{
    json_writer w;
    json_init_file(&w, stdout, true);
    json_object_begin(&w);
    json_key(&w, "dtypes");
    json_array_begin(&w);
    for (size_t d = 0; d < kvn_dtype_count(); d++)
        json_dtype(&w, (kvn_dtype)d);
    json_array_end(&w);
    json_object_end(&w);
    json_finish(&w);
}

static void print_text(void)
{
    printf("%-20s %-10s %-13s %4s %-12s %-12s %-12s %-4s %-20s %-8s %5s %-9s %s\n", "name", "kind", "element",
           "bits", "max", "min_normal", "min_sub", "inf", "nan", "intmax", "block", "scale", "aliases");
    for (size_t i = 0; i < kvn_dtype_count(); i++) {
        kvn_dtype d = (kvn_dtype)i;
        const kvn_dtype_info *info = kvn_dtype_get(d);
        elem_facts e;
        char mx[40] = "-", mn[40] = "-", ms[40] = "-", ie[40] = "-", bits[8] = "-";
        bool has = element_facts(d, &e);
        if (has) { /* short forms for people; --format json has the exact values */
            snprintf(mx, sizeof mx, "%.6g", e.max);
            snprintf(mn, sizeof mn, "%.6g", e.min_normal);
            snprintf(ms, sizeof ms, "%.6g", e.min_subnormal);
            if (e.int_exact_max >= 0)
                snprintf(ie, sizeof ie, "%.0f", e.int_exact_max);
            snprintf(bits, sizeof bits, "%d", e.bits);
        }
        const char *scale = scale_name(info);
        strbuf al = STRBUF_INIT;
        for (const char *const *a = info->aliases; *a; a++)
            sb_addf(&al, "%s%s", a == info->aliases ? "" : ", ", *a);
        printf("%-20s %-10s %-13s %4s %-12s %-12s %-12s %-4s %-20s %-8s %5d %-9s %s\n", info->name,
               kind_name(info->kind), has ? e.name : "-", bits, mx, mn, ms, has ? (e.has_inf ? "yes" : "no") : "-",
               has ? e.nan_encoding : "-", ie, info->block, scale ? scale : "-", al.len ? sb_str(&al) : "-");
        sb_release(&al);
    }
}

int cmd_dtypes(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            return EXIT_CLEAN;
        case 'f':
            if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
                return usage_error("dtypes", "--format must be text or json, not '%s'", optarg);
            json = strcmp(optarg, "json") == 0;
            break;
        default:
            return usage_error("dtypes", "unknown option or missing argument: '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("dtypes", "unexpected argument '%s'", argv[optind]);
    if (json)
        print_json();
    else
        print_text();
    return EXIT_CLEAN;
}
