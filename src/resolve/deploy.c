/*
 * deploy.c: dtype declarations -> deployments (see deploy.h). A pure stage: it reads facts and
 * the project settings, allocates only in the set's arena, and touches no file.
 *
 * Steps:
 *  1. checkpoints: declarations from config.json / hf_quant_config.json / TensorRT-LLM
 *     checkpoint configs, merged per directory (a checkpoint is a directory);
 *  2. deployments: every other (path, group) of declarations, in path then emission order;
 *  3. resolution of each: what-if > declared > `auto` chain (vLLM: float32 checkpoints run as
 *     bfloat16, SGLang: as float16; KV auto = checkpoint KV scheme, else the model dtype) >
 *     .kvlint.yaml `assume` > unresolved with a reason;
 *  4. without any deployment: one "engine default" deployment (one per assumed KV dtype).
 * It does not guess a GPU generation: the bf16 -> fp16 fallback on pre-Ampere GPUs is documented,
 * not applied.
 */
#include "resolve/deploy.h"

#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/xalloc.h"
#include "util/strlist.h"

typedef struct checkpoint {
    const char *dir;
    const deploy_decl *model;
    const deploy_decl *kv_scheme;
    ARENA_VEC(const deploy_decl *) ranges;
    ARENA_VEC(const deploy_decl *) fields;  /* numeric config.json fields, the id ranges among them */
} checkpoint;

typedef struct resolver {
    kv_arena *a;
    size_t root_len;               /* the scanned files' common directory prefix (path_is_script) */
    const kv_project *proj;
    const resolve_options *opt;
    kvn_platform platform;     /* of the run; a deployment's own hint wins over cuda */
    ARENA_VEC(checkpoint) ckpts;
    const checkpoint *forced;      /* --model-config */
    const char *ckpt_problem;      /* why no checkpoint applies, when several exist */
    ARENA_VEC(deployment) out;
    ARENA_VEC(struct group_decls) groups;
    const char *const *read_fields;  /* checkpoint fields the code reads */
    size_t nread_fields;
} resolver;

static bool is_checkpoint_carrier(kv_carrier carrier)
{
    return carrier == CARRIER_HF_CONFIG || carrier == CARRIER_MODELOPT || carrier == CARRIER_TRTLLM_CHECKPOINT;
}

static const char *dir_of(kv_arena *a, const char *path)
{
    char *norm = fs_normalize(path);
    const char *slash = strrchr(norm, '/');
    const char *d = slash ? arena_strndup(a, norm, (size_t)(slash - norm)) : ".";
    free(norm);
    return d;
}

static checkpoint *checkpoint_for(resolver *r, const char *dir)
{
    if (r->ckpts.n && !strcmp(r->ckpts.v[r->ckpts.n - 1].dir, dir))
        return &r->ckpts.v[r->ckpts.n - 1];
    for (size_t i = 0; i < r->ckpts.n; i++)
        if (!strcmp(r->ckpts.v[i].dir, dir))
            return &r->ckpts.v[i];
    checkpoint c = { .dir = dir };
    ARENA_PUSH(r->a, r->ckpts, c);
    return &r->ckpts.v[r->ckpts.n - 1];
}

static void collect_checkpoints(resolver *r, file_facts *const *files, size_t nfiles)
{
    for (size_t f = 0; f < nfiles; f++) {
        for (size_t i = 0; i < files[f]->decls.n; i++) {
            const deploy_decl *d = &files[f]->decls.v[i];
            if (!is_checkpoint_carrier(d->carrier))
                continue;
            checkpoint *c = checkpoint_for(r, dir_of(r->a, d->loc.path ? d->loc.path : files[f]->path));
            if (d->key == DECL_MODEL_DTYPE && !c->model)
                c->model = d;
            else if (d->key == DECL_KV_SCHEME && !c->kv_scheme)
                c->kv_scheme = d;
            else if (d->key == DECL_ID_RANGE)
                ARENA_PUSH(r->a, c->ranges, d);
            if (d->key == DECL_ID_RANGE || d->key == DECL_CKPT_FIELD)
                ARENA_PUSH(r->a, c->fields, d);
        }
    }
    if (r->opt && r->opt->model_config) {
        const char *want = dir_of(r->a, r->opt->model_config);
        for (size_t i = 0; i < r->ckpts.n; i++)
            if (!strcmp(r->ckpts.v[i].dir, want))
                r->forced = &r->ckpts.v[i];
        if (!r->forced)
            r->ckpt_problem = arena_printf(r->a, "--model-config %s declares no dtype", r->opt->model_config);
    }
}

/* Is a deployment at path beside the checkpoint in dir: in the folder that holds dir (a model
 * repository's config.json at the top, or checkpoint/ next to deploy/), or below it? */
static bool beside(kv_arena *a, const char *dir, const char *path)
{
    const char *up = dir_of(a, dir);
    size_t n = strlen(up);
    return !strcmp(up, ".") || (!strncmp(path, up, n) && path[n] == '/');
}

/* The checkpoint a deployment at path runs: --model-config; the only one, when the deployment is
 * beside it (a test's fake weights deep in an engine's tree are not the checkpoint of its
 * examples); or the one whose directory holds path. NULL with *why (or not) otherwise. */
static const checkpoint *checkpoint_of(resolver *r, const char *path, const char **why)
{
    *why = NULL;
    if (r->opt && r->opt->model_config) {
        *why = r->ckpt_problem;
        return r->forced;
    }
    if (r->ckpts.n == 1) {
        const checkpoint *c = &r->ckpts.v[0];
        if (!path || beside(r->a, c->dir, path))
            return c;
        *why = arena_printf(r->a, "the tree's one checkpoint config is in %s, not beside this deployment; name it with --model-config",
                            c->dir);
        return NULL;
    }
    if (r->ckpts.n == 0)
        return NULL;
    const checkpoint *hit = NULL;
    size_t best = 0;
    for (size_t i = 0; path && i < r->ckpts.n; i++) {
        size_t n = strlen(r->ckpts.v[i].dir);
        if ((!strcmp(r->ckpts.v[i].dir, ".") || (!strncmp(path, r->ckpts.v[i].dir, n) && path[n] == '/')) &&
            n >= best) {
            hit = &r->ckpts.v[i];
            best = n;
        }
    }
    if (!hit)
        *why = arena_printf(r->a, "%zu checkpoint configs are in the tree (%s, %s, ...); name one with --model-config",
                            r->ckpts.n, r->ckpts.v[0].dir, r->ckpts.v[1].dir);
    return hit;
}

/* ---- dtype helpers ---- */

static bool is_auto(kvn_dtype d)
{
    const kvn_dtype_info *i = kvn_dtype_get(d);
    return i && i->kind == KVN_KIND_AUTO;
}

static bool is_fmt(kvn_dtype d, kvn_fmt f)
{
    const kvn_dtype_info *i = kvn_dtype_get(d);
    return i && i->kind == KVN_KIND_ELEMENT && i->elem == f;
}

/* fp8 in a ROCm build of vLLM is e4m3fnuz. */
static kvn_dtype on_platform(bool rocm, const deploy_decl *d, kvn_dtype dt)
{
    if (!rocm)
        return dt;
    if (d && d->raw) {
        kvn_dtype again = kvn_dtype_parse(d->raw, true);
        if (again != KVN_DTYPE_INVALID)
            return again;
    }
    if (is_fmt(dt, KVN_E4M3)) {
        kvn_dtype fnuz = kvn_dtype_by_fmt(KVN_E4M3FNUZ);
        if (fnuz != KVN_DTYPE_INVALID)
            return fnuz;
    }
    return dt;
}

/* vLLM below sm80 (T4, V100) has no bfloat16: an auto model dtype that resolved to bfloat16 (a
 * bfloat16 or float32 checkpoint) runs as float16 (vllm/config/model.py _resolve_auto_dtype with
 * CudaPlatform.supported_dtypes [float16, float32]). A declared bfloat16 makes vLLM refuse to
 * start (check_if_supports_dtype): it is left as declared. */
static resolved_dtype on_pre_ampere(kvn_platform p, kv_engine engine, resolved_dtype m)
{
    if (p != KVN_PLAT_CUDA_SM75 || engine != ENGINE_VLLM || !is_fmt(m.dtype, KVN_BF16) ||
        !m.how || strncmp(m.how, "auto", 4) != 0)
        return m;
    m.dtype = kvn_dtype_by_fmt(KVN_F16);
    m.how = "auto: runs as float16 below sm80, which has no bfloat16 (vLLM _resolve_auto_dtype)";
    return m;
}

static resolved_dtype unresolved(const char *why)
{
    return (resolved_dtype){ KVN_DTYPE_INVALID, NULL, NULL, why, SPELL_EXPLICIT };
}

static resolved_dtype rejected(resolver *r, const deploy_decl *d)
{
    resolved_dtype x = unresolved(d->unresolved ? d->unresolved
                                  : arena_printf(r->a, "no engine accepts dtype '%s'", d->raw ? d->raw : "?"));
    x.decl = d;
    return x;
}

/* Model `auto` from the checkpoint's torch_dtype, by the engine's rule. */
static resolved_dtype model_auto(resolver *r, kv_engine engine, const checkpoint *ck, const char *why)
{
    if (ck && ck->model && ck->model->dtype != KVN_DTYPE_INVALID) {
        kvn_dtype cd = ck->model->dtype;
        if (!is_fmt(cd, KVN_F32))
            return (resolved_dtype){ cd, ck->model, "auto: checkpoint torch_dtype", NULL, SPELL_AUTO };
        bool sglang = engine == ENGINE_SGLANG;
        bool trtllm = engine == ENGINE_TRTLLM;
        if (trtllm)
            return unresolved("auto on a float32 checkpoint: TensorRT-LLM's rule is not modelled");
        kvn_dtype to = kvn_dtype_by_fmt(sglang ? KVN_F16 : KVN_BF16);
        return (resolved_dtype){ to, ck->model,
                                 sglang ? "auto: float32 checkpoint runs as float16 (SGLang)"
                                        : "auto: float32 checkpoint runs as bfloat16 (vLLM _resolve_auto_dtype)",
                                 NULL, SPELL_AUTO };
    }
    if (r->proj && r->proj->assume_model != KVN_DTYPE_INVALID)
        return (resolved_dtype){ r->proj->assume_model, NULL, "assumed (.kvlint.yaml assume.dtype)", NULL, SPELL_UNKNOWN };
    if (ck && ck->model)
        return rejected(r, ck->model);
    if (ck)
        return unresolved(arena_printf(r->a, "model dtype is auto and the checkpoint in %s declares no torch_dtype",
                                       ck->dir));
    return unresolved(why ? why : "model dtype is auto and no checkpoint config.json was found (--model-config)");
}

static resolved_dtype resolve_model(resolver *r, kv_engine engine, const deploy_decl *md, const checkpoint *ck,
                                    const char *why)
{
    if (r->opt && r->opt->whatif_model != KVN_DTYPE_INVALID) {
        /* `--dtype auto` replaces the declared dtype with the engine's auto chain. */
        if (is_auto(r->opt->whatif_model))
            return model_auto(r, engine, ck, why);
        return (resolved_dtype){ r->opt->whatif_model, NULL, "what-if --dtype", NULL, SPELL_EXPLICIT };
    }
    if (md && md->dtype == KVN_DTYPE_INVALID)
        return rejected(r, md);
    if (md && !is_auto(md->dtype))
        return (resolved_dtype){ md->dtype, md, "declared", NULL, SPELL_EXPLICIT };
    resolved_dtype x = model_auto(r, engine, ck, why);
    if (md && x.decl == NULL && x.unresolved == NULL)
        x.decl = md;
    return x;
}

static resolved_dtype resolve_kv(resolver *r, bool rocm, const deploy_decl *kd, const checkpoint *ck,
                                 const resolved_dtype *model)
{
    if (r->opt && r->opt->whatif_kv != KVN_DTYPE_INVALID) {
        if (!is_auto(r->opt->whatif_kv))
            return (resolved_dtype){ on_platform(rocm, NULL, r->opt->whatif_kv), NULL, "what-if --kv-cache-dtype", NULL, SPELL_EXPLICIT };
        kd = NULL; /* `--kv-cache-dtype auto`: the declared dtype is replaced by the auto chain below */
    }
    if (kd && kd->dtype == KVN_DTYPE_INVALID)
        return rejected(r, kd);
    if (kd && !is_auto(kd->dtype))
        return (resolved_dtype){ on_platform(rocm, kd, kd->dtype), kd, "declared", NULL, SPELL_EXPLICIT };
    if (ck && ck->kv_scheme) {
        if (ck->kv_scheme->dtype == KVN_DTYPE_INVALID)
            return rejected(r, ck->kv_scheme);
        const char *how = ck->kv_scheme->carrier == CARRIER_HF_CONFIG && ck->kv_scheme->engine == ENGINE_HF
                              ? "auto: checkpoint kv_cache_scheme"
                              : "auto: checkpoint kv_cache_quant_algo";
        return (resolved_dtype){ on_platform(rocm, NULL, ck->kv_scheme->dtype), ck->kv_scheme, how, NULL, SPELL_UNKNOWN };
    }
    if (model->dtype != KVN_DTYPE_INVALID)   /* no KV-cache declaration: the model dtype's says where */
        return (resolved_dtype){ model->dtype, kd ? kd : model->decl, "auto: model dtype", NULL, SPELL_AUTO };
    return unresolved(arena_printf(r->a, "KV-cache dtype auto follows the model dtype, which is unresolved: %s",
                                   model->unresolved));
}

/* ---- id ranges ---- */

/* A range from a number as written: a bound's value (max_model_len 4096) or, for the id names of
 * .kvlint.yaml (position_id: {max: 4095}), the largest id. What the name means is the id
 * vocabulary's (grammars/ids.tsv). */
static id_range make_range(const resolver *r, const char *name, double written, const deploy_decl *d, kv_loc loc)
{
    id_range x = { .name = name, .max = written, .max_id = written, .decl = d, .loc = loc };
    id_range_kind k = id_vocab_range_kind(r->opt->ids, name);
    x.id_class = k.id_class ? arena_strdup(r->a, k.id_class) : NULL;  /* the set owns what its ranges point to */
    if (k.count && k.id_name)
        x.max = written + 1;
    else if (k.count)
        x.max_id = written - 1;
    return x;
}

static void add_range(resolver *r, void *vecp, id_range x)
{
    ARENA_VEC(id_range) *vec = vecp;
    for (size_t i = 0; i < vec->n; i++)
        if (!strcmp(vec->v[i].name, x.name))
            return; /* the first source wins: deployment, then checkpoint, then .kvlint.yaml */
    ARENA_PUSH(r->a, *vec, x);
}

/* ---- which code a deployment checks ---- */

/* Directories whose code is run by its own scripts only: a deployment declared there describes how
 * that test, example or benchmark runs the engine (docs/deployments.md). */
static const char *const script_dirs[] = { "tests", "test", "testing", "examples", "example", "benchmarks",
                                           "benchmark", NULL };

static bool is_test_file(const char *base)
{
    return !strncmp(base, "test_", 5) || !strcmp(base, "conftest.py") || str_ends_with(base, "_test.py");
}

bool path_is_script(const char *path, size_t root_len)
{
    if (!path)
        return false;
    size_t len = strlen(path);
    const char *p = path + (root_len <= len ? root_len : len);
    for (;;) {
        while (*p == '/')
            p++;
        const char *slash = strchr(p, '/');
        if (!slash)
            return is_test_file(p);
        if (mem_in_list(script_dirs, p, (size_t)(slash - p)))
            return true;
        p = slash + 1;
    }
}

bool deployment_applies(const deployment_set *s, const deployment *d, const char *path)
{
    if (!d->scope || !path)
        return true;
    return strncmp(path, d->scope, strlen(d->scope)) == 0 || !path_is_script(path, s ? s->root_len : 0);
}

/* The directory of a script's path, with its '/' ("" at the top): the scope of its deployments. */
static const char *script_scope(resolver *r, const char *path)
{
    if (!path_is_script(path, r->root_len))
        return NULL;
    const char *slash = strrchr(path, '/');
    return slash ? arena_strndup(r->a, path, (size_t)(slash - path) + 1) : "";
}

/* torch.set_default_dtype in a test, example or benchmark sets the dtype of that program's own
 * tensors; it configures no engine, so it is no deployment. */
static bool not_a_deployment(const resolver *r, const file_facts *f, const deploy_decl *d)
{
    return d->carrier == CARRIER_PYTHON_CALL && d->engine == ENGINE_TORCH &&
           path_is_script(f->path, r->root_len);
}

/* Length of the longest directory prefix (through its '/') all paths share. */
static size_t common_dir_len(file_facts *const *files, size_t nfiles)
{
    if (nfiles == 0 || !files[0]->path)
        return 0;
    const char *first = files[0]->path;
    size_t n = strlen(first);
    for (size_t f = 1; f < nfiles && n; f++) {
        const char *p = files[f]->path ? files[f]->path : "";
        size_t i = 0;
        while (i < n && p[i] && p[i] == first[i])
            i++;
        n = i;
    }
    while (n && first[n - 1] != '/')
        n--;
    return n;
}

/* ---- deployments ---- */

typedef struct group_decls {
    const char *path;
    int group;
    kv_engine engine;
    kv_carrier carrier;        /* of its first declaration */
    const deploy_decl *kv, *model, *scales, *skip, *first;
    const deploy_decl *platform;/* a platform declaration (a ROCm or CPU image, a T4 node) */
    ARENA_VEC(const deploy_decl *) ranges;
    ARENA_VEC(const deploy_decl *) decls;  /* all of them, in order (for --config merging) */
    const char *config_file;   /* the command's --config FILE */
    const char *config_missing;/* why FILE's settings are unknown, or NULL */
    bool referenced;           /* an engine config file some command names with --config */
} group_decls;

/* The platform a deployment runs on: the run's (--platform, .kvlint.yaml), unless that is the
 * default and the deployment's own image or node says otherwise. */
static kvn_platform platform_of(const resolver *r, const group_decls *g)
{
    kvn_platform p;
    if (r->platform == KVN_PLAT_CUDA && g && g->platform && kvn_platform_parse(g->platform->raw, &p))
        return p;
    return r->platform;
}

static void finish(resolver *r, const group_decls *g)
{
    const char *why;
    const checkpoint *ck = checkpoint_of(r, g ? g->path : NULL, &why);
    deployment d = { .platform = platform_of(r, g), .engine = g ? g->engine : ENGINE_NONE };
    d.rocm = d.platform == KVN_PLAT_ROCM;
    if (g && g->platform && r->platform == KVN_PLAT_CUDA)
        d.platform_decl = g->platform;
    d.ckpt_dir = ck ? ck->dir : NULL;
    d.ckpt_why = ck ? NULL : why ? why : "no checkpoint config.json was found (--model-config)";
    d.ckpt_fields = ck ? ck->fields.v : NULL;
    d.nckpt_fields = ck ? ck->fields.n : 0;
    d.read_fields = r->read_fields;
    d.nread_fields = r->nread_fields;
    d.model = on_pre_ampere(d.platform, d.engine, resolve_model(r, d.engine, g ? g->model : NULL, ck, why));
    d.kv = resolve_kv(r, d.rocm, g ? g->kv : NULL, ck, &d.model);
    if (g && g->config_missing) {
        /* what the command leaves to its --config file is unknown: never guessed */
        if (!g->model && !(r->opt && r->opt->whatif_model != KVN_DTYPE_INVALID))
            d.model = unresolved(g->config_missing);
        if ((!g->kv || g->kv->implicit) && !(r->opt && r->opt->whatif_kv != KVN_DTYPE_INVALID))
            d.kv = unresolved(g->config_missing);
    }
    ARENA_VEC(id_range) ranges = {0};
    if (g) {
        d.loc = g->first->loc;
        d.scope = script_scope(r, g->path);
        d.name = arena_printf(r->a, "%s:%u (%s, %s)", g->path, g->first->loc.line, engine_label(g->engine),
                              carrier_name(g->carrier));
        if (g->scales) {
            d.dynamic_kv_scales = g->scales->number != 0;
            d.kv_scales_decl = g->scales;
        }
        d.skip_layers = g->skip ? g->skip->raw : NULL;
        for (size_t i = g->ranges.n; i-- > 0;) /* the last one wins, as with argparse */
            add_range(r, &ranges, make_range(r, g->ranges.v[i]->range_name, g->ranges.v[i]->number, g->ranges.v[i],
                                             g->ranges.v[i]->loc));
    } else {
        d.name = "engine default";
        if (ck && ck->model)
            d.loc = ck->model->loc;
    }
    for (size_t i = 0; ck && i < ck->ranges.n; i++)
        add_range(r, &ranges, make_range(r, ck->ranges.v[i]->range_name, ck->ranges.v[i]->number, ck->ranges.v[i],
                                         ck->ranges.v[i]->loc));
    for (size_t i = 0; r->proj && i < r->proj->ranges.n; i++)
        add_range(r, &ranges, make_range(r, r->proj->ranges.v[i].name, r->proj->ranges.v[i].max, NULL,
                                         r->proj->ranges.v[i].loc));
    d.ranges = ranges.v;
    d.nranges = ranges.n;
    ARENA_PUSH(r->a, r->out, d);
}

static void take(group_decls *g, const deploy_decl *d, resolver *r)
{
    if (!g->first) {
        g->first = d;
        g->carrier = d->carrier;
    }
    if (!engine_known(g->engine))
        g->engine = d->engine;
    if (d->config_file)
        g->config_file = d->config_file;
    ARENA_PUSH(r->a, g->decls, d);
    switch (d->key) {
    case DECL_KV_CACHE_DTYPE:                          /* the last one wins, as with argparse, */
        if (!d->implicit || !g->kv)                    /* but a default never overrides a value */
            g->kv = d;
        break;
    case DECL_MODEL_DTYPE: g->model = d; break;
    case DECL_KV_SCALES: g->scales = d; break;
    case DECL_SKIP_LAYERS: g->skip = d; break;
    case DECL_ID_RANGE: ARENA_PUSH(r->a, g->ranges, d); break;
    case DECL_PLATFORM: g->platform = d; break;
    case DECL_KV_SCHEME:
    case DECL_CKPT_FIELD: break;
    }
}

typedef struct decl_ref {
    int group;
    size_t index;
} decl_ref;

static int by_group_then_index(const void *a, const void *b)
{
    const decl_ref *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int by_first_index(const void *a, const void *b)
{
    const decl_ref *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* One deployment per group of f, in the order the groups first appear (O(n log n)). */
static void file_deployments(resolver *r, const file_facts *f)
{
    size_t n = 0;
    decl_ref *refs = arena_alloc(r->a, (f->decls.n + 1) * sizeof *refs);
    for (size_t i = 0; i < f->decls.n; i++)
        if (!is_checkpoint_carrier(f->decls.v[i].carrier) && !not_a_deployment(r, f, &f->decls.v[i]))
            refs[n++] = (decl_ref){ f->decls.v[i].group, i };
    if (n == 0)
        return;
    qsort(refs, n, sizeof *refs, by_group_then_index);
    decl_ref *runs = arena_alloc(r->a, n * sizeof *runs); /* group, first index; run start in refs */
    size_t *start = arena_alloc(r->a, (n + 1) * sizeof *start);
    size_t nruns = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || refs[i].group != refs[i - 1].group) {
            runs[nruns] = (decl_ref){ (int)nruns, refs[i].index };
            start[nruns++] = i;
        }
    start[nruns] = n;
    decl_ref *order = arena_memdup(r->a, runs, nruns * sizeof *runs);
    qsort(order, nruns, sizeof *order, by_first_index);
    for (size_t k = 0; k < nruns; k++) {
        size_t run = (size_t)order[k].group;
        group_decls g = { .path = f->path };
        for (size_t i = start[run]; i < start[run + 1]; i++)
            take(&g, &f->decls.v[refs[i].index], r);
        ARENA_PUSH(r->a, r->groups, g);
    }
}

static bool same_path(const char *a, const char *b)
{
    char *x = fs_normalize(a), *y = fs_normalize(b);
    bool same = strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

/* The engine config file `FILE` names, seen from the command in path: FILE relative to the
 * command's directory, or to where kvlint runs, or absolute. Index into r->groups or -1. */
static long config_target(resolver *r, const char *path, const char *file)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
    char *near = file[0] == '/' ? xstrdup(file) : fs_join(dir, file);
    long hit = -1;
    for (size_t i = 0; i < r->groups.n && hit < 0; i++) {
        const group_decls *t = &r->groups.v[i];
        if ((t->carrier == CARRIER_VLLM_CONFIG || t->carrier == CARRIER_TRTLLM_OPTIONS) &&
            (same_path(t->path, near) || same_path(t->path, file)))
            hit = (long)i;
    }
    free(near);
    free(dir);
    return hit;
}

/* A command under --config FILE runs FILE's settings with its own flags on top. */
static void link_config_files(resolver *r, long *target)
{
    for (size_t i = 0; i < r->groups.n; i++) {
        group_decls *g = &r->groups.v[i];
        target[i] = -1;
        if (!g->config_file)
            continue;
        target[i] = config_target(r, g->path, g->config_file);
        if (target[i] >= 0)
            r->groups.v[target[i]].referenced = true;
        else
            g->config_missing = arena_printf(r->a, "set by --config %s, which is not among the scanned files "
                                                   "(scan it, or list it in .kvlint.yaml deployments:)",
                                             g->config_file);
    }
}

static void finish_groups(resolver *r)
{
    long *target = arena_alloc(r->a, (r->groups.n + 1) * sizeof *target);
    link_config_files(r, target);
    for (size_t i = 0; i < r->groups.n; i++) {
        const group_decls *g = &r->groups.v[i];
        if (g->referenced && !g->config_file)
            continue; /* part of the commands that name it */
        if (target[i] < 0) {
            finish(r, g);
            continue;
        }
        const group_decls *file = &r->groups.v[target[i]];
        /* vLLM/SGLang apply the command's flags over FILE; trtllm-serve applies its
         * --extra_llm_api_options FILE over the command's (update_llm_args_with_extra_options). */
        bool file_wins = file->carrier == CARRIER_TRTLLM_OPTIONS;
        const group_decls *under = file_wins ? g : file, *over = file_wins ? file : g;
        group_decls merged = { .path = g->path };
        for (size_t k = 0; k < under->decls.n; k++)
            take(&merged, under->decls.v[k], r);
        merged.first = NULL;
        merged.engine = g->engine;
        for (size_t k = 0; k < over->decls.n; k++)
            take(&merged, over->decls.v[k], r);
        merged.first = g->first;
        merged.carrier = g->carrier;
        finish(r, &merged);
    }
}

static void engine_defaults(resolver *r)
{
    if (!r->proj || r->proj->assume_kv.n == 0 ||
        (r->opt && r->opt->whatif_kv != KVN_DTYPE_INVALID)) {
        finish(r, NULL);
        return;
    }
    for (size_t i = 0; i < r->proj->assume_kv.n; i++) {
        finish(r, NULL);
        deployment *d = &r->out.v[r->out.n - 1];
        d->kv = (resolved_dtype){ on_platform(r->platform == KVN_PLAT_ROCM, NULL, r->proj->assume_kv.v[i]), NULL,
                                  "assumed (.kvlint.yaml assume.kv_cache_dtype)", NULL, SPELL_UNKNOWN };
        d->name = arena_printf(r->a, "engine default, assumed KV %s", kvn_dtype_name(d->kv.dtype));
    }
}

deployment_set *deployments_resolve(file_facts *const *files, size_t nfiles, const kv_project *proj,
                                    const resolve_options *opt, diag_list *diags)
{
    (void)diags;
    deployment_set *s = xcalloc(1, sizeof *s);
    s->arena = arena_new();
    resolver r = { .a = s->arena, .proj = proj, .opt = opt, .root_len = common_dir_len(files, nfiles) };
    r.platform = opt && opt->platform != KVN_PLAT_CUDA ? opt->platform : proj ? proj->platform : KVN_PLAT_CUDA;
    collect_checkpoints(&r, files, nfiles);
    r.read_fields = read_checkpoint_fields(r.a, files, nfiles, &r.nread_fields);
    for (size_t f = 0; f < nfiles; f++)
        file_deployments(&r, files[f]);
    finish_groups(&r);
    size_t declared = r.out.n;
    engine_defaults(&r);
    s->v = r.out.v;
    s->n = declared ? declared : r.out.n;
    /* code that no declared deployment applies to is checked against the (first) engine default */
    s->fallback = declared ? &r.out.v[declared] : NULL;
    s->root_len = r.root_len;
    return s;
}

void deployment_set_free(deployment_set *s)
{
    if (!s)
        return;
    arena_free(s->arena);
    free(s);
}

const id_range *deployment_range(const deployment *d, const char *name, const char *idc)
{
    if (!d)
        return NULL;
    for (size_t i = 0; name && i < d->nranges; i++)
        if (!strcmp(d->ranges[i].name, name))
            return &d->ranges[i];
    /* by id class: .kvlint.yaml's own names first (they were added last but state intent), then the
     * tightest engine bound (max_model_len before max_position_embeddings) */
    const id_range *best = NULL;
    for (size_t i = 0; idc && i < d->nranges; i++) {
        const id_range *x = &d->ranges[i];
        if (!x->id_class || strcmp(x->id_class, idc) != 0)
            continue;
        if (!x->decl)
            return x;
        if (!best || x->max_id < best->max_id)
            best = x;
    }
    return best;
}

dtype_spelling deployment_spelling(const deployment *d)
{
    if (!d)
        return (dtype_spelling){ SPELL_UNKNOWN, SPELL_UNKNOWN };
    return (dtype_spelling){ d->model.spelling, d->engine == ENGINE_TRTLLM ? SPELL_UNKNOWN : d->kv.spelling };
}
