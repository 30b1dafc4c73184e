/* fuzz_common.c: see fuzz.h. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "facts/facts_json.h"
#include "project/project.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* One process-wide set-up, as kvlint's scanner does before its threads: a fuzzing process runs
 * one input at a time, so this is the only state, and it is read-only after the first call. */
static struct {
    kv_project *project;
    void *states[8];
    bool ready;
} fz;

static void setup(void)
{
    if (fz.ready)
        return;
    fz.project = project_default(".");
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    for (size_t k = 0; kv_frontends[k] && k < 8; k++)
        if (kv_frontends[k]->init)
            fz.states[k] = kv_frontends[k]->init(KVLINT_SOURCE_DIR, fz.project, &d);
    arena_free(a);     /* the diagnostics of init (none with the source tree's data) are dropped */
    fz.ready = true;
}

/* Every fact as `kvlint facts --format json` prints it (into memory, then dropped): a fact is only
 * sound if a report can read it (an expression printed, a step list walked). */
static void render_facts(const file_facts *f)
{
    strbuf sb = STRBUF_INIT;
    json_writer w;
    json_init(&w, &sb, false);
    json_fact_list(&w, f);
    json_finish(&w);
    sb_release(&sb);
}

void fuzz_frontend(const frontend *fe, const char *path, const uint8_t *data, size_t size)
{
    setup();
    char *buf = xmalloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    const char *lang = NULL;
    if (!fe->claim || !(lang = fe->claim(path, NULL, 0)))
        lang = fe->name;
    if (lang == FE_CLAIM_BY_CONTENT && !(lang = fe->claim(path, buf, size)))
        lang = fe->name;
    fe_source src = { .path = path, .data = buf, .len = size, .lang = lang };
    file_facts *out = file_facts_new(path);
    size_t k = kv_frontend_index(fe);
    fe_file_index idx = { path, fe->index ? fe->index(&src, k < 8 ? fz.states[k] : NULL, out->arena) : NULL };
    kv_arena *link_arena = arena_new();
    fe_context ctx = {
        .project = fz.project,
        .state = k < 8 ? fz.states[k] : NULL,
        .indexes = idx.exports ? &idx : NULL,
        .nindexes = idx.exports ? 1 : 0,
    };
    if (fe->link)
        ctx.link = fe->link(ctx.indexes, ctx.nindexes, link_arena);
    fe->analyze(&src, &ctx, out);
    render_facts(out);
    if (fe->imports) {   /* the files it imports (a run on named files tries them) */
        const fe_import *v = NULL;
        size_t n = fe->imports(&src, out->arena, &v);
        for (size_t i = 0; i < n; i++)
            if (!v[i].path || strlen(v[i].path) > 4 * size + 32)
                abort();
    }
    if (fe->declares)   /* whether it is a deployment (a run on named files asks) */
        (void)fe->declares(&src);
    arena_free(link_arena);
    file_facts_free(out);
    free(buf);
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("kvlint-fuzz", MFD_CLOEXEC);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz_file");
        abort();
    }
    return path;
}
