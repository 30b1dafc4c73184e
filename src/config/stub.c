/* TEMPORARY scaffolding until the config front end lands. */
#include <stdlib.h>
#include <string.h>
#include "config/project.h"
#include "scan/frontend.h"
#include "util/xalloc.h"
static bool wants(const char *path, const char *h, size_t n) { (void)path; (void)h; (void)n; return false; }
static void analyze(const char *p, const char *d, size_t n, const fe_context *c, file_facts *o) { (void)p; (void)d; (void)n; (void)c; (void)o; }
const frontend config_frontend = { "config", NULL, NULL, wants, NULL, NULL, analyze };
kv_project *project_default(const char *root) { kv_project *p = xcalloc(1, sizeof *p); p->arena = arena_new(); p->root = arena_strdup(p->arena, root); p->assume_model = KVN_DTYPE_INVALID; return p; }
kv_project *project_discover(const char *start, diag_list *diags) { (void)start; (void)diags; return project_default("."); }
kv_project *project_load(const char *path, diag_list *diags) { (void)path; (void)diags; return project_default("."); }
void project_free(kv_project *p) { if (p) { arena_free(p->arena); free(p); } }
bool project_path_included(const kv_project *p, const char *path) { (void)p; (void)path; return true; }
bool kv_glob_match(const char *pattern, const char *path) { return strcmp(pattern, path) == 0; }
