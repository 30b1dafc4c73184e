/* TEMPORARY scaffolding until resolution lands. */
#include <stdlib.h>
#include "resolve/deploy.h"
#include "util/json.h"
#include "util/xalloc.h"
deployment_set *deployments_resolve(file_facts *const *files, size_t nfiles, const kv_project *proj, const resolve_options *opt, diag_list *diags)
{ (void)files; (void)nfiles; (void)proj; (void)opt; (void)diags; deployment_set *s = xcalloc(1, sizeof *s); s->arena = arena_new(); return s; }
void deployment_set_free(deployment_set *s) { if (s) { arena_free(s->arena); free(s); } }
const id_range *deployment_range(const deployment *d, const char *name, const char *family) { (void)d; (void)name; (void)family; return NULL; }
void json_deployment(struct json_writer *w, const deployment *d) { (void)d; json_null(w); }
