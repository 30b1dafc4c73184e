/*
 * check_limits.c: unit tests of the pre-checks that keep hostile input off faulty or slow paths:
 * the Python bracket-nesting measure (libtree-sitter 0.20.7 aborts on 65,533 unclosed brackets).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyfe.h"

static size_t depth_of(const char *s, uint32_t *line)
{
    return py_bracket_depth(s, strlen(s), line);
}

START_TEST(bracket_depth_counts_code)
{
    uint32_t line;
    ck_assert_uint_eq(depth_of("x = f(a[1], {2: (3,)})\n", &line), 3);
    ck_assert_uint_eq(line, 1);
    ck_assert_uint_eq(depth_of("a = 1\nb = ((\n(\n", &line), 3);
    ck_assert_uint_eq(line, 3);
    ck_assert_uint_eq(depth_of(")))(((\n", &line), 3);     /* stray closers do not go below 0 */
}
END_TEST

START_TEST(bracket_depth_skips_strings_and_comments)
{
    uint32_t line;
    ck_assert_uint_eq(depth_of("x = '((((' + \"[[[\" # (((((\n", &line), 0);
    ck_assert_uint_eq(depth_of("x = '''(((\n((('''\n", &line), 0);
    ck_assert_uint_eq(depth_of("x = r'\\'((('\n", &line), 0);
    ck_assert_uint_eq(depth_of("x = b\"(((\"\n", &line), 0);
    /* a closer inside a string never lowers the depth: "( ')' (" is 2 deep, as tree-sitter sees it */
    ck_assert_uint_eq(depth_of("x = ( ')' (\n", &line), 2);
    /* a single-quoted string cut by a newline ends there, as Python's tokenizer ends it */
    ck_assert_uint_eq(depth_of("x = '(((\ny = ((\n", &line), 2);
    ck_assert_uint_eq(line, 2);
    /* f-string text counts: its replacement fields are code to tree-sitter */
    ck_assert_uint_eq(depth_of("x = f'{((a'\n", &line), 3);
    /* a name ending in a prefix letter is not a prefix */
    ck_assert_uint_eq(depth_of("elif'(('\n", &line), 0);
}
END_TEST

START_TEST(bracket_depth_of_the_crash)
{
    size_t n = 70000;
    char *s = malloc(n + 8);
    memcpy(s, "x = ", 4);
    memset(s + 4, '(', n);
    s[4 + n] = '\0';
    uint32_t line;
    ck_assert_uint_eq(py_bracket_depth(s, strlen(s), &line), n);
    ck_assert_uint_gt(n, PY_MAX_BRACKET_DEPTH);
    ck_assert_int_lt(PY_MAX_BRACKET_DEPTH, 65533);
    ck_assert_int_gt(PY_MAX_BRACKET_DEPTH, 200);
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("limits");
    TCase *t = tcase_create("core");
    tcase_add_test(t, bracket_depth_counts_code);
    tcase_add_test(t, bracket_depth_skips_strings_and_comments);
    tcase_add_test(t, bracket_depth_of_the_crash);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
