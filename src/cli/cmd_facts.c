/*
 * cmd_facts.c: `kvlint facts`, every fact the front ends found and the deployments resolved from
 * them, for rule authors and for debugging a missed or unexpected finding. No rule runs here.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/session.h"
#include "facts/facts_json.h"
#include "util/json.h"

static const char usage[] =
    "usage: kvlint facts [options] PATH...\n"
    "\n"
    "Print what kvlint's front ends found under PATH: values stored into KV caches, special values\n"
    "constructed in a declared dtype, integer-to-float casts, sentinel arithmetic, dtype declarations,\n"
    "and the deployments resolved from them. See docs/facts.md for the JSON schema.\n"
    "\n"
    "options:\n"
    "      --format F          text (default) or json\n"
    SESSION_OPTIONS_HELP
    "  -h, --help              this help\n";

/* ---- deployments (the resolver's; JSON is written here, not in resolve/) ---- */

/* Its "checkpoint_fields": each field the code reads, with its value or why it is unknown. */
static void json_checkpoint_fields(json_writer *w, const deployment *d)
{
    if (!d->nread_fields)
        return; /* no code reads a checkpoint field: the key is left out */
    json_key(w, "checkpoint_fields");
    json_array_begin(w);
    for (size_t i = 0; i < d->nread_fields; i++) {
        double x = 0;
        const deploy_decl *from = NULL;
        kv_field_lookup k = deployment_field(d, d->read_fields[i], &x, &from);
        json_object_begin(w);
        json_kv_string(w, "field", d->read_fields[i]);
        if (k == KV_FIELD_FOUND) {
            json_kv_number(w, "value", x);
            json_loc(w, "from", &from->loc);
        } else {
            json_key(w, "value");
            json_null(w);
            json_kv_string(w, "unresolved", k == KV_FIELD_ABSENT ? "the checkpoint config has no such numeric field"
                                                                  : d->ckpt_why);
        }
        json_object_end(w);
    }
    json_array_end(w);
}

static void json_resolved(json_writer *w, const char *key, const resolved_dtype *x)
{
    json_key(w, key);
    json_object_begin(w);
    json_kv_string(w, "dtype", x->dtype == KVN_DTYPE_INVALID ? NULL : kvn_dtype_name(x->dtype));
    json_kv_string(w, "how", x->how);
    if (x->unresolved)
        json_kv_string(w, "unresolved", x->unresolved);
    json_loc(w, "from", x->decl ? &x->decl->loc : NULL);
    json_object_end(w);
}

/* One item of "deployments" (schema in docs/facts.md). */
static void json_deployment(json_writer *w, const deployment *d)
{
    json_object_begin(w);
    json_kv_string(w, "name", d->name);
    json_kv_string(w, "engine", engine_name(d->engine));
    json_loc(w, "location", d->loc.path ? &d->loc : NULL);
    json_resolved(w, "kv_cache_dtype", &d->kv);
    json_resolved(w, "model_dtype", &d->model);
    json_kv_bool(w, "dynamic_kv_scales", d->dynamic_kv_scales);
    json_kv_bool(w, "rocm", d->rocm);
    json_kv_string(w, "platform", kvn_platform_name(d->platform));
    json_kv_string(w, "skip_layers", d->skip_layers);
    json_key(w, "ranges");
    json_array_begin(w);
    for (size_t i = 0; i < d->nranges; i++) {
        const id_range *x = &d->ranges[i];
        json_object_begin(w);
        json_kv_string(w, "name", x->name);
        json_kv_number(w, "value", x->max);
        json_kv_number(w, "max_id", x->max_id);
        json_kv_string(w, "family", x->id_class);
        json_loc(w, "from", x->loc.path ? &x->loc : NULL);
        json_object_end(w);
    }
    json_array_end(w);
    json_checkpoint_fields(w, d);
    json_object_end(w);
}

/* "key": [every file's arr facts, each written by fn]. */
#define FACT_ARRAY(s, key, arr, fn)                                              \
    do {                                                                         \
        json_key(w, key);                                                        \
        json_array_begin(w);                                                     \
        for (size_t fi = 0; fi < (s)->scan->n; fi++)                             \
            for (size_t k = 0; k < (s)->scan->files[fi]->arr.n; k++)             \
                fn(w, &(s)->scan->files[fi]->arr.v[k]);                          \
        json_array_end(w);                                                       \
    } while (0)

static void json_suppression(json_writer *w, const char *path, const suppression *x)
{
    json_object_begin(w);
    json_kv_string(w, "path", path);
    json_kv_int(w, "line", x->line);
    json_kv_int(w, "column", x->col);
    json_key(w, "ids");
    if (!x->ids) {
        json_null(w);
    } else {
        json_array_begin(w);
        for (size_t i = 0; x->ids[i]; i++)
            json_string(w, x->ids[i]);
        json_array_end(w);
    }
    json_kv_string(w, "reason", x->reason);
    json_object_end(w);
}

static void print_json(const session *s)
{
    json_writer jw, *w = &jw;
    json_init_file(w, stdout, true);
    json_object_begin(w);
    FACT_ARRAY(s, "stores", stores, json_store_fact);
    FACT_ARRAY(s, "constructions", constructions, json_construction_fact);
    FACT_ARRAY(s, "casts", casts, json_intcast_fact);
    FACT_ARRAY(s, "arithmetic", ariths, json_arith_fact);
    json_key(w, "dtypes");
    json_array_begin(w);
    /* checkpoint fields are shown where code reads them: under each deployment's checkpoint_fields */
    for (size_t fi = 0; fi < s->scan->n; fi++)
        for (size_t k = 0; k < s->scan->files[fi]->decls.n; k++)
            if (s->scan->files[fi]->decls.v[k].key != DECL_CKPT_FIELD)
                json_deploy_decl(w, &s->scan->files[fi]->decls.v[k]);
    json_array_end(w);
    json_key(w, "suppressions");
    json_array_begin(w);
    for (size_t fi = 0; fi < s->scan->n; fi++)
        for (size_t k = 0; k < s->scan->files[fi]->suppressions.n; k++)
            json_suppression(w, s->scan->files[fi]->path, &s->scan->files[fi]->suppressions.v[k]);
    json_array_end(w);
    json_key(w, "deployments");
    json_array_begin(w);
    for (size_t i = 0; i < s->deployments->n; i++)
        json_deployment(w, &s->deployments->v[i]);
    json_array_end(w);
    json_object_end(w);
    json_finish(w);
}

static void text_value(const kv_value *v)
{
    printf("%s %s", value_kind_name(v->kind), v->text ? v->text : "?");
    if (v->kind == VK_INTEGER) {
        if (v->hi_sym)
            printf(" [%g, %s%+g]", v->lo, v->hi_sym, v->hi_sym_add);
        else if (v->hi_unknown)
            printf(" [%g, ?]", v->lo);
        else
            printf(" [%g, %g]", v->lo, v->hi);
    }
    if (v->origin.path)
        printf(" (from %s:%u:%u)", v->origin.path, v->origin.line, v->origin.col);
}

/* "path:line:col: construction torch.full in self.dtype: <value>" and the int-cast twin. */
static void text_value_in_dtype(const kv_loc *loc, const char *what, const char *api, const char *prep,
                                const dtype_ref *d, const kv_value *v)
{
    printf("%s:%u:%u: %s %s %s %s: ", loc->path, loc->line, loc->col, what, api, prep,
           d->text ? d->text : dref_kind_name(d->kind));
    text_value(v);
    putchar('\n');
}

static void print_text(const session *s)
{
    for (size_t fi = 0; fi < s->scan->n; fi++) {
        const file_facts *f = s->scan->files[fi];
        for (size_t k = 0; k < f->stores.n; k++) {
            const store_fact *x = &f->stores.v[k];
            printf("%s:%u:%u: store %s into %s (%s, %s)\n", x->loc.path, x->loc.line, x->loc.col,
                   x->tensor ? x->tensor : "?", x->sink, store_via_name(x->via), operand_name(x->operand));
            for (size_t i = 0; i < x->nvalues; i++) {
                printf("    value ");
                text_value(&x->values[i]);
                putchar('\n');
            }
        }
        for (size_t k = 0; k < f->constructions.n; k++) {
            const construction_fact *x = &f->constructions.v[k];
            text_value_in_dtype(&x->loc, "construction", x->api, "in", &x->dtype, &x->value);
        }
        for (size_t k = 0; k < f->casts.n; k++) {
            const intcast_fact *x = &f->casts.v[k];
            text_value_in_dtype(&x->loc, "int-cast", x->api, "to", &x->dtype, &x->value);
        }
        for (size_t k = 0; k < f->ariths.n; k++) {
            const arith_fact *x = &f->ariths.v[k];
            printf("%s:%u:%u: arithmetic %s in %s\n", x->loc.path, x->loc.line, x->loc.col,
                   arith_kind_name(x->kind), x->dtype.text ? x->dtype.text : dref_kind_name(x->dtype.kind));
        }
        for (size_t k = 0; k < f->decls.n; k++) {
            const deploy_decl *x = &f->decls.v[k];
            if (x->key == DECL_CKPT_FIELD)
                continue;
            printf("%s:%u:%u: %s %s = %s (%s, %s)\n", x->loc.path, x->loc.line, x->loc.col,
                   engine_label(x->engine), decl_key_name(x->key), x->raw ? x->raw : "",
                   carrier_name(x->carrier),
                   x->key == DECL_KV_CACHE_DTYPE || x->key == DECL_MODEL_DTYPE || x->key == DECL_KV_SCHEME
                       ? kvn_dtype_name(x->dtype) : "-");
        }
    }
    for (size_t i = 0; i < s->deployments->n; i++) {
        const deployment *d = &s->deployments->v[i];
        printf("deployment %s: kv %s (%s), model %s (%s)\n", d->name,
               kvn_dtype_name(d->kv.dtype), d->kv.unresolved ? d->kv.unresolved : d->kv.how,
               kvn_dtype_name(d->model.dtype), d->model.unresolved ? d->model.unresolved : d->model.how);
    }
}

int cmd_facts(int argc, char **argv)
{
    static const struct option longopts[] = {
        SESSION_LONG_OPTIONS,
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    session_options so = {0};
    const char *format = "text";
    int c;
    optind = 1;
    opterr = 0;   /* one message, ours, not getopt's as well */
    while ((c = getopt_long(argc, argv, "j:f:h", longopts, NULL)) != -1) {
        int r = session_option(&so, c, optarg, "facts");
        if (r < 0)
            return session_free(NULL, &so), EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'f': format = optarg; break;
        case 'h': fputs(usage, stdout); session_free(NULL, &so); return EXIT_CLEAN;
        default: session_free(NULL, &so); return usage_error("facts", "unknown option or missing argument: '%s'", argv[optind - 1]);
        }
    }
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        session_free(NULL, &so);
        return usage_error("facts", "--format is text or json, not '%s'", format);
    }
    if (optind >= argc) {
        session_free(NULL, &so);
        return usage_error("facts", "no PATH given");
    }
    session *s = session_open("facts", argv + optind, (size_t)(argc - optind), &so);
    if (!s) {
        session_free(NULL, &so);
        return EXIT_USAGE;
    }
    if (strcmp(format, "json") == 0)
        print_json(s);
    else
        print_text(s);
    bool errors = session_print_diags(s);
    errors = !session_complete(s, "facts") || errors;
    session_free(s, &so);
    return errors ? EXIT_USAGE : EXIT_CLEAN;
}
