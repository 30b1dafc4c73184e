/*
 * check_frontend.c: unit tests for what the front ends share: the registry's claims and the
 * suppression-comment parser with each comment prefix.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "frontend/suppress.h"

START_TEST(registry_claims_by_name)
{
    const char *lang = NULL;
    ck_assert_ptr_eq(kv_frontend_for("a/model.py", &lang), &python_frontend);
    ck_assert_str_eq(lang, "python");
    ck_assert_ptr_eq(kv_frontend_for("deploy/k8s.yaml", &lang), &config_frontend);
    ck_assert_str_eq(lang, "config");
    ck_assert_ptr_null(kv_frontend_for("README.md", &lang));
    ck_assert_uint_eq(kv_frontend_index(&config_frontend), 1);
    ck_assert_uint_eq(kv_frontend_index(kv_frontends[kv_frontend_count() - 1]), kv_frontend_count() - 1);
}
END_TEST

START_TEST(suppression_hash_prefix)
{
    kv_arena *a = arena_new();
    suppression s;
    const char *c = "# kvlint: ignore[KV001, KV002] -- bf16 only";
    ck_assert(suppress_parse(c, strlen(c), "#", a, &s));
    ck_assert_str_eq(s.ids[0], "KV001");
    ck_assert_str_eq(s.ids[1], "KV002");
    ck_assert_ptr_null(s.ids[2]);
    ck_assert_str_eq(s.reason, "bf16 only");
    c = "#kvlint: ignore";
    ck_assert(suppress_parse(c, strlen(c), "#", a, &s));
    ck_assert_ptr_null(s.ids);
    ck_assert_ptr_null(s.reason);
    c = "## kvlint: ignore[fp16-overflow]";
    ck_assert(suppress_parse(c, strlen(c), "#", a, &s));
    ck_assert_str_eq(s.ids[0], "fp16-overflow");
    c = "# kvlint: check this";
    ck_assert(!suppress_parse(c, strlen(c), "#", a, &s));
    c = "# ignore[KV001]";
    ck_assert(!suppress_parse(c, strlen(c), "#", a, &s));
    c = "# kvlint: ignore[KV001";  /* unclosed list: not a suppression */
    ck_assert(!suppress_parse(c, strlen(c), "#", a, &s));
    c = "// kvlint: ignore";      /* wrong prefix */
    ck_assert(!suppress_parse(c, strlen(c), "#", a, &s));
    arena_free(a);
}
END_TEST

START_TEST(suppression_slash_prefix)
{
    kv_arena *a = arena_new();
    suppression s;
    const char *c = "// kvlint: ignore[KV001] -- saturating writer  \r";
    ck_assert(suppress_parse(c, strlen(c), "//", a, &s));
    ck_assert_str_eq(s.ids[0], "KV001");
    ck_assert_ptr_null(s.ids[1]);
    ck_assert_str_eq(s.reason, "saturating writer");
    c = "/// kvlint: ignore";
    ck_assert(suppress_parse(c, strlen(c), "//", a, &s));
    c = "# kvlint: ignore";
    ck_assert(!suppress_parse(c, strlen(c), "//", a, &s));
    arena_free(a);

    file_facts *f = file_facts_new("k.cu");
    const char *src = "int x; // kvlint: ignore[KV001] -- why\n"
                      "/* kvlint: ignore */ int y;\n"
                      "\tcache[i] = v;  //kvlint: ignore\n"
                      "// a comment that mentions kvlint: only\n";
    suppress_collect_lines(src, strlen(src), "//", f);
    ck_assert_uint_eq(f->suppressions.n, 2);
    ck_assert_uint_eq(f->suppressions.v[0].line, 1);
    ck_assert_uint_eq(f->suppressions.v[0].col, 8);
    ck_assert_str_eq(f->suppressions.v[0].reason, "why");
    ck_assert_uint_eq(f->suppressions.v[1].line, 3);
    ck_assert_uint_eq(f->suppressions.v[1].col, 17);
    ck_assert_ptr_null(f->suppressions.v[1].ids);
    file_facts_free(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("frontend");
    TCase *t = tcase_create("core");
    tcase_add_test(t, registry_claims_by_name);
    tcase_add_test(t, suppression_hash_prefix);
    tcase_add_test(t, suppression_slash_prefix);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
