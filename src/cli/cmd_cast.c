/*
 * cmd_cast.c: `kvlint cast`, what values read back as after they are stored as a dtype. The
 * numerics library does the arithmetic; this file parses arguments and prints.
 *
 * Argument handling: VALUEs may start with '-' ("-1e9"), so argv is first split into options
 * and values. An argument that is an option (or the separate argument of one) goes to
 * getopt_long; anything else that parses as a number is a value; after "--" everything is a
 * value. Deliberately not here: any rounding logic (src/numerics).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "numerics/numerics.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/numfmt.h"

static const char usage[] =
    "usage: kvlint cast --dtype D [--path P | --overflow saturate|nonsaturate|truncate]\n"
    "                   [--scale S | --calculate-kv-scales key|value] [--rocm]\n"
    "                   [--format text|json] [--] VALUE...\n"
    "\n"
    "Print what each VALUE reads back as after it is stored as dtype D, and how it changed\n"
    "(exact, rounded, saturated, overflow-inf, overflow-nan, underflow-zero, crushed).\n"
    "For block dtypes (mxfp4, nvfp4, mxfp8, ...) the VALUEs are one row, cut into consecutive\n"
    "blocks, the last padded with zeros; for per-token-head dtypes they are one head row.\n"
    "A VALUE is a Python or C literal: 1e9, -10000, 0x1p-3, inf, nan, 1e9f (binary32).\n"
    "\n"
    "options:\n"
    "      --dtype D           a dtype or alias ('kvlint dtypes' lists them)\n"
    "      --path P            the conversion path of a platform's cache writer: torch (default),\n"
    "                          cuda, cuda-sm75, rocm, rocm-c10, cpu, triton (docs/dtypes.md);\n"
    "                          rocm and rocm-c10 imply --rocm\n"
    "      --overflow M        nonsaturate (default: a PyTorch tensor cast, +-inf or NaN),\n"
    "                          saturate (CUDA __NV_SATFINITE: clamp to +-max) or truncate (vLLM's\n"
    "                          CPU fp8 writer: clamp, round toward zero)\n"
    "      --scale S           per-tensor scale (k_scale) for scaled fp8, int8 and nvfp4; default 1\n"
    "      --calculate-kv-scales O  scaled fp8: the scale is vLLM's dynamic one, computed from the\n"
    "                          VALUEs as one tensor of keys (absmax / 200) or values (absmax / 100)\n"
    "  (with a shared scale: per-tensor, per-token-head, --calculate-kv-scales, the output also gives\n"
    "   the scale and the largest magnitude that reads back 0 next to the largest VALUE)\n"
    "      --rocm              read fp8 / fp8_e4m3 as ROCm builds do (fp8_e4m3fnuz)\n"
    "      --format F          text (default) or json\n"
    "  -h, --help              this help\n";

enum { OPT_DTYPE = 256, OPT_OVERFLOW, OPT_SCALE, OPT_FORMAT, OPT_ROCM, OPT_PATH, OPT_DYNAMIC };

static const struct option longopts[] = {
    { "dtype", required_argument, NULL, OPT_DTYPE },
    { "overflow", required_argument, NULL, OPT_OVERFLOW },
    { "scale", required_argument, NULL, OPT_SCALE },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "rocm", no_argument, NULL, OPT_ROCM },
    { "path", required_argument, NULL, OPT_PATH },
    { "calculate-kv-scales", required_argument, NULL, OPT_DYNAMIC },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

typedef struct cast_args {
    const char *dtype;
    kvn_overflow mode;
    double scale;
    bool scale_given, rocm, json, mode_given, path_given;
    kvn_path path;
    double dynamic_div;     /* --calculate-kv-scales: 200 (key) or 100 (value), else 0 */
    char **values;
    size_t nvalues;
} cast_args;

/* The long option an argument names ("--sc" or "--scale=2" -> scale), by exact name or unique
 * prefix as getopt_long matches; NULL if none. */
static const struct option *long_option(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0)
        return NULL;
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    const struct option *found = NULL;
    for (const struct option *o = longopts; o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (strlen(o->name) == len)
            return o;
        if (found)
            return NULL;
        found = o;
    }
    return found;
}

/* Split argv into the options (kept in argv order for getopt_long, argv[0] first) and the
 * values. Returns the number of option words. */
static int split_args(int argc, char **argv, char **opts, cast_args *a)
{
    int nopt = 0;
    opts[nopt++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        double v;
        if (strcmp(arg, "--") == 0) {
            while (++i < argc)
                a->values[a->nvalues++] = argv[i];
            break;
        }
        if (arg[0] != '-' || strcmp(arg, "-") == 0 || kvn_parse_number(arg, &v, NULL)) {
            a->values[a->nvalues++] = argv[i];
            continue;
        }
        opts[nopt++] = argv[i];
        const struct option *o = long_option(arg);
        if (o && o->has_arg == required_argument && !strchr(arg, '=') && i + 1 < argc)
            opts[nopt++] = argv[++i];
    }
    return nopt;
}

static int parse_args(int argc, char **argv, cast_args *a)
{
    char **opts = xcalloc((size_t)argc + 1, sizeof *opts);
    a->values = xcalloc((size_t)argc + 1, sizeof *a->values);
    int nopt = split_args(argc, argv, opts, a);
    int status = -1;
    optind = 1;
    opterr = 0;
    int c;
    while (status < 0 && (c = getopt_long(nopt, opts, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            status = EXIT_CLEAN;
            break;
        case OPT_DTYPE:
            a->dtype = optarg;
            break;
        case OPT_OVERFLOW:
            if (strcmp(optarg, "saturate") == 0)
                a->mode = KVN_SATURATE;
            else if (strcmp(optarg, "nonsaturate") == 0)
                a->mode = KVN_NONSATURATE;
            else if (strcmp(optarg, "truncate") == 0)
                a->mode = KVN_TRUNCATE;
            else
                status = usage_error("cast", "--overflow must be saturate, nonsaturate or truncate, not '%s'", optarg);
            a->mode_given = true;
            break;
        case OPT_DYNAMIC:
            if (strcmp(optarg, "key") == 0 || strcmp(optarg, "k") == 0)
                a->dynamic_div = 200;
            else if (strcmp(optarg, "value") == 0 || strcmp(optarg, "v") == 0)
                a->dynamic_div = 100;
            else
                status = usage_error("cast", "--calculate-kv-scales must be key or value, not '%s'", optarg);
            break;
        case OPT_PATH:
            if (!kvn_path_parse(optarg, &a->path))
                status = usage_error("cast", "--path must be one of %s, not '%s'", kvn_path_names(), optarg);
            a->path_given = true;
            break;
        case OPT_SCALE: {
            bool b32;
            if (!kvn_parse_number(optarg, &a->scale, &b32) || !(a->scale > 0) || !isfinite(a->scale) ||
                !((float)a->scale >= 0x1p-126f) || isinf((float)a->scale))
                status = usage_error("cast", "--scale must be a positive binary32 number, not '%s'", optarg);
            a->scale_given = true;
            break;
        }
        case OPT_FORMAT:
            if (strcmp(optarg, "json") == 0 || strcmp(optarg, "text") == 0)
                a->json = strcmp(optarg, "json") == 0;
            else
                status = usage_error("cast", "--format must be text or json, not '%s'", optarg);
            break;
        case OPT_ROCM:
            a->rocm = true;
            break;
        default:
            status = usage_error("cast", "unknown option or missing argument: '%s'", opts[optind - 1]);
            break;
        }
    }
    if (status < 0 && optind < nopt)
        status = usage_error("cast", "'%s' is not a number", opts[optind]);
    if (status < 0 && a->path_given && a->mode_given)
        status = usage_error("cast", "--path and --overflow exclude each other (a path fixes the overflow mode)");
    if (status < 0 && a->path_given && kvn_path_get(a->path)->rocm)
        a->rocm = true;
    free(opts);
    return status;
}

static kvn_dtype resolve_dtype(const cast_args *a, int *status)
{
    *status = -1;
    if (!a->dtype) {
        *status = usage_error("cast", "--dtype is required");
        return KVN_DTYPE_INVALID;
    }
    kvn_dtype d = kvn_dtype_parse(a->dtype, a->rocm);
    const kvn_dtype_info *info = kvn_dtype_get(d);
    if (!info)
        *status = usage_error("cast", "unknown dtype '%s'; valid: %s", a->dtype, kvn_dtype_valid_names());
    else if (info->kind == KVN_KIND_UNMODELLED)
        *status = usage_error("cast", "dtype '%s' is not modelled (%s)", a->dtype, info->note);
    else if (info->kind == KVN_KIND_AUTO)
        *status = usage_error("cast", "dtype 'auto' is not modelled by itself: it means the model's dtype "
                              "(resolved by 'kvlint check'); name a concrete dtype");
    else if (a->scale_given && !kvn_dtype_takes_scale(d))
        *status = usage_error("cast", "--scale does not apply to %s (it takes no per-tensor scale)", info->name);
    else if (a->dynamic_div > 0 && a->scale_given)
        *status = usage_error("cast", "--scale and --calculate-kv-scales exclude each other");
    else if (a->dynamic_div > 0 && !(info->kind == KVN_KIND_SCALED))
        *status = usage_error("cast", "--calculate-kv-scales applies to the scaled fp8 dtypes, not %s", info->name);
    return d;
}

static const char *mode_name(kvn_overflow m)
{
    return m == KVN_SATURATE ? "saturate" : m == KVN_TRUNCATE ? "truncate" : "nonsaturate";
}

/* The shared scale of a row (--calculate-kv-scales, per-token-head) and its flush threshold. */
typedef struct shared_scale {
    bool have;
    double scale, flush;    /* flush: the largest magnitude that reads back 0 (NaN: not computable) */
    const char *how;        /* "absmax / 200", "per-token-head" */
} shared_scale;

static shared_scale shared_of(kvn_dtype d, const cast_args *a, const double *in, const kvn_params *p)
{
    shared_scale s = { false, NAN, NAN, NULL };
    const kvn_dtype_info *info = kvn_dtype_get(d);
    if (!(a->dynamic_div > 0) && info->kind != KVN_KIND_DYNAMIC)
        return s;
    double big = 0;
    for (size_t i = 0; i < a->nvalues; i++)
        if (isfinite(in[i]) && fabs(in[i]) > fabs(big))
            big = in[i];
    s.have = true;
    s.scale = kvn_row_scale(d, in, a->nvalues, p);
    s.flush = big != 0 ? kvn_flush_up_to(d, big, p) : NAN;
    s.how = a->dynamic_div == 200 ? "absmax / 200 (--calculate-kv-scales, keys)"
            : a->dynamic_div == 100 ? "absmax / 100 (--calculate-kv-scales, values)"
            : info->block > 0 ? "tile absmax / 448, the tile of the largest value" : "per-token-head absmax";
    return s;
}

static void print_json(const kvn_dtype_info *info, const cast_args *a, const kvn_result *res, const shared_scale *sh)
{
    json_writer w;
    json_init_file(&w, stdout, true);
    json_object_begin(&w);
    json_kv_string(&w, "dtype", info->name);
    if (a->path_given)
        json_kv_string(&w, "path", kvn_path_get(a->path)->name);
    json_kv_string(&w, "overflow", mode_name(a->mode));
    if (sh->have) {
        json_kv_number(&w, "scale", sh->scale);
        json_kv_string(&w, "scale_from", sh->how);
        json_kv_number(&w, "zero_up_to", sh->flush);
    }
    json_key(&w, "results");
    json_array_begin(&w);
    for (size_t i = 0; i < a->nvalues; i++) {
        json_object_begin(&w);
        json_kv_string(&w, "input", a->values[i]);
        json_kv_number(&w, "stored", res[i].stored);
        json_kv_string(&w, "class", kvn_outcome_name(res[i].outcome));
        json_object_end(&w);
    }
    json_array_end(&w);
    json_object_end(&w);
    json_finish(&w);
}

static void print_text(const kvn_dtype_info *info, const cast_args *a, const kvn_result *res, const shared_scale *sh)
{
    if (a->path_given)
        printf("dtype %s, path %s (%s), overflow %s\n", info->name, kvn_path_get(a->path)->name,
               kvn_path_get(a->path)->label, mode_name(a->mode));
    else
        printf("dtype %s, overflow %s\n", info->name, mode_name(a->mode));
    if (sh->have) {
        char s[40], f[40];
        fmt_number(s, sizeof s, sh->scale, NUMFMT_DATA);
        fmt_number(f, sizeof f, sh->flush, NUMFMT_DATA);
        printf("scale %s (%s); values up to %s in magnitude read back 0\n", s, sh->how, f);
    }
    printf("%-24s %-24s %s\n", "input", "stored", "class");
    for (size_t i = 0; i < a->nvalues; i++) {
        char num[40];
        fmt_number(num, sizeof num, res[i].stored, NUMFMT_DATA);
        printf("%-24s %-24s %s\n", a->values[i], num, kvn_outcome_name(res[i].outcome));
    }
}

static int run_cast(cast_args *a)
{
    int status;
    kvn_dtype d = resolve_dtype(a, &status);
    if (status >= 0)
        return status;
    if (a->path_given)
        a->mode = kvn_path_mode(a->path, kvn_dtype_get(d)->elem);
    if (a->nvalues == 0)
        return usage_error("cast", "no VALUE given");
    double *in = xcalloc(a->nvalues, sizeof *in);
    kvn_result *res = xcalloc(a->nvalues, sizeof *res);
    for (size_t i = 0; i < a->nvalues && status < 0; i++)
        if (!kvn_parse_number(a->values[i], &in[i], NULL))
            status = usage_error("cast", "'%s' is not a number", a->values[i]);
    if (status < 0) {
        kvn_params p = { a->mode, a->scale_given ? a->scale : 0, a->dynamic_div };
        kvn_store_row(d, in, a->nvalues, &p, res);
        shared_scale sh = shared_of(d, a, in, &p);
        if (a->json)
            print_json(kvn_dtype_get(d), a, res, &sh);
        else
            print_text(kvn_dtype_get(d), a, res, &sh);
        status = EXIT_CLEAN;
    }
    free(in);
    free(res);
    return status;
}

int cmd_cast(int argc, char **argv)
{
    cast_args a = { .mode = KVN_NONSATURATE };
    int status = parse_args(argc, argv, &a);
    if (status < 0)
        status = run_cast(&a);
    free(a.values);
    return status;
}
