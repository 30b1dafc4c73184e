/*
 * facts_json.h: the JSON shape of facts, shared by `kvlint facts` and the reports that embed them.
 * The schema is documented in docs/facts.md; keep the two in step.
 */
#ifndef KV_FACTS_JSON_H
#define KV_FACTS_JSON_H
#include "facts/facts.h"
#include "util/json.h"

void json_loc_fields(json_writer *w, const kv_loc *l);          /* "path","line","column" (+ends) */
void json_loc(json_writer *w, const char *key, const kv_loc *l); /* "key": {path,line,column} or null */
void json_dtype_ref(json_writer *w, const char *key, const dtype_ref *r);
void json_value(json_writer *w, const char *key, const kv_value *v);
void json_value_object(json_writer *w, const kv_value *v);
void json_store_fact(json_writer *w, const store_fact *s);
void json_construction_fact(json_writer *w, const construction_fact *c);
void json_intcast_fact(json_writer *w, const intcast_fact *c);
void json_arith_fact(json_writer *w, const arith_fact *a);
void json_deploy_decl(json_writer *w, const deploy_decl *d);
/* Every fact of f in one array, in the order stores, constructions, casts, ariths, decls, each as
 * above (diagnostics and suppressions apart): what the tests compare and the fuzz targets print. */
void json_fact_list(json_writer *w, const file_facts *f);

#endif
