/*
 * check_util.c: unit tests for the shared utilities (arena, strbuf, json writer, fsutil) and for
 * the scanner's ordering and limits. These are the pieces every front end and reporter rely on.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/strlist.h"
#include "util/tsv.h"
#include "util/numfmt.h"

START_TEST(arena_alignment_and_growth)
{
    kv_arena *a = arena_new();
    size_t total = 0;
    for (int i = 1; i < 2000; i++) {
        unsigned char *p = arena_alloc(a, (size_t)i);
        ck_assert_uint_eq((uintptr_t)p % _Alignof(max_align_t), 0);
        memset(p, 0xAB, (size_t)i);
        total += (size_t)i;
    }
    ck_assert_uint_ge(arena_bytes(a), total);
    char *big = arena_alloc(a, 5u << 20); /* larger than any chunk */
    memset(big, 1, 5u << 20);
    ck_assert_str_eq(arena_printf(a, "%s-%d", "x", 42), "x-42");
    ck_assert_str_eq(arena_strndup(a, "abcdef", 3), "abc");
    ck_assert_str_eq(arena_join(a, "self.impl", '.', "kv_cache"), "self.impl.kv_cache");
    ck_assert_str_eq(arena_join(a, "", '.', ""), ".");
    arena_free(a);
}
END_TEST

START_TEST(arena_vec_push)
{
    kv_arena *a = arena_new();
    ARENA_VEC(int) v = {0};
    for (int i = 0; i < 1000; i++)
        ARENA_PUSH(a, v, i * 3);
    ck_assert_uint_eq(v.n, 1000);
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(v.v[i], i * 3);
    arena_free(a);
}
END_TEST

START_TEST(strbuf_basics)
{
    strbuf sb = STRBUF_INIT;
    ck_assert_str_eq(sb_str(&sb), "");
    sb_adds(&sb, "hello");
    sb_addc(&sb, ' ');
    sb_addf(&sb, "%d-%s", 7, "x");
    ck_assert_str_eq(sb_str(&sb), "hello 7-x");
    ck_assert_uint_eq(sb.len, 9);
    sb_reset(&sb);
    ck_assert_str_eq(sb_str(&sb), "");
    for (int i = 0; i < 10000; i++)
        sb_addc(&sb, 'a');
    ck_assert_uint_eq(strlen(sb_str(&sb)), 10000);
    char *d = sb_detach(&sb);
    ck_assert_ptr_null(sb.buf);
    free(d);
}
END_TEST

static const char *fmt(double x)
{
    static char buf[64];
    fmt_number(buf, sizeof buf, x, NUMFMT_DATA);
    return buf;
}

/* One formatter, two styles: where data and prose differ, and where they agree. */
START_TEST(number_styles)
{
    static const struct { double x; const char *data, *prose; } t[] = {
        { -1e9, "-1000000000", "-1000000000" },
        { -1e12, "-1000000000000", "-1e12" },
        { 1e20, "1e+20", "1e20" },
        { 1e-7, "1e-07", "1e-7" },
        { -25.71875, "-25.71875", "-25.71875" },
        { -0.0, "-0", "-0" },
        { -INFINITY, "-inf", "-inf" },
        { NAN, "nan", "NaN" },
    };
    char b[32];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        fmt_number(b, sizeof b, t[i].x, NUMFMT_DATA);
        ck_assert_str_eq(b, t[i].data);
        fmt_number(b, sizeof b, t[i].x, NUMFMT_PROSE);
        ck_assert_str_eq(b, t[i].prose);
    }
}
END_TEST

START_TEST(strlist_suffixes_and_lists)
{
    static const char *const words[] = { "tests", "test", "examples", NULL };
    ck_assert(str_ends_with("deploy/k8s.yaml", ".yaml"));
    ck_assert(str_ends_with(".yaml", ".yaml"));
    ck_assert(!str_ends_with("yaml", ".yaml"));
    ck_assert(!str_ends_with(NULL, ".yaml"));
    ck_assert(mem_ends_with("m/__init__.pyc", 13, "__init__.py"));  /* only the first n bytes */
    ck_assert(!mem_ends_with("a.py", 3, ".py"));
    ck_assert(str_in_list(words, "test"));
    ck_assert(!str_in_list(words, "tes"));
    ck_assert(mem_in_list(words, "tests/x", 5));
    ck_assert(mem_in_list(words, "tests/x", 4));   /* "test" */
    ck_assert(!mem_in_list(words, "testsx", 6));
    ck_assert(mem_in_array(words, 3, "examples", 8));
    ck_assert(!mem_in_array(words, 2, "examples", 8));  /* only the first count strings */
}
END_TEST

START_TEST(json_numbers_round_trip)
{
    ck_assert_str_eq(fmt(-1e9), "-1000000000");
    ck_assert_str_eq(fmt(448), "448");
    ck_assert_str_eq(fmt(0.1), "0.1");
    ck_assert_str_eq(fmt(-INFINITY), "-inf");
    ck_assert_str_eq(fmt(NAN), "nan");
    ck_assert_str_eq(fmt(-0.0), "-0");
    ck_assert_str_eq(fmt(65504), "65504");
    /* Every printed number reads back as the same binary64. */
    double xs[] = { 1.0 / 3, 5e-324, 1.7976931348623157e308, -25.703125, 3.4028234663852886e38 };
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        ck_assert(strtod(fmt(xs[i]), NULL) == xs[i]);
}
END_TEST

START_TEST(json_writer_shape_and_escapes)
{
    strbuf sb = STRBUF_INIT;
    json_writer w;
    json_init(&w, &sb, false);
    json_object_begin(&w);
    json_kv_string(&w, "s", "a\"b\\c\n\x01");
    json_kv_number(&w, "inf", INFINITY);
    json_key(&w, "arr");
    json_array_begin(&w);
    json_int(&w, 1);
    json_bool(&w, true);
    json_null(&w);
    json_string(&w, "\xff bad");
    json_array_end(&w);
    json_key(&w, "empty");
    json_object_begin(&w);
    json_object_end(&w);
    json_object_end(&w);
    ck_assert_str_eq(sb_str(&sb),
                     "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"inf\":\"inf\",\"arr\":[1,true,null,\"\\ufffd bad\"],\"empty\":{}}");
    sb_release(&sb);
}
END_TEST

/* The same document through a strbuf and streamed to a file: the same bytes, and the streaming
 * writer never holds much more than JSON_SPILL_BYTES (so a report's memory does not grow with it). */
static void big_document(json_writer *w, size_t *most, const strbuf *held)
{
    json_object_begin(w);
    json_key(w, "items");
    json_array_begin(w);
    for (int i = 0; i < 20000; i++) {
        json_object_begin(w);
        json_kv_int(w, "i", i);
        json_kv_string(w, "text", "a message of a finding, \"quoted\", with a tab\t");
        json_object_end(w);
        if (held && held->len > *most)
            *most = held->len;
    }
    json_array_end(w);
    json_object_end(w);
}

START_TEST(json_writer_streams_to_file)
{
    strbuf sb = STRBUF_INIT;
    json_writer w;
    size_t most = 0;
    json_init(&w, &sb, true);
    big_document(&w, &most, NULL);
    ck_assert_uint_gt(sb.len, 16 * JSON_SPILL_BYTES);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    json_writer fw;
    json_init_file(&fw, f, true);
    big_document(&fw, &most, &fw.spill);
    json_finish(&fw);
    ck_assert_uint_lt(most, JSON_SPILL_BYTES + 256);
    ck_assert_ptr_null(fw.spill.buf);   /* json_finish released the buffer */
    ck_assert_int_eq(fflush(f), 0);
    ck_assert_int_eq(ferror(f), 0);
    long n = ftell(f);
    ck_assert_int_eq(n, (long)sb.len);
    char *got = malloc((size_t)n);
    ck_assert_ptr_nonnull(got);
    rewind(f);
    ck_assert_uint_eq(fread(got, 1, (size_t)n, f), (size_t)n);
    ck_assert_int_eq(memcmp(got, sb.buf, (size_t)n), 0);
    free(got);
    fclose(f);
    sb_release(&sb);
}
END_TEST

START_TEST(json_writer_pretty)
{
    strbuf sb = STRBUF_INIT;
    json_writer w;
    json_init(&w, &sb, true);
    json_object_begin(&w);
    json_key(&w, "a");
    json_array_begin(&w);
    json_int(&w, 1);
    json_int(&w, 2);
    json_array_end(&w);
    json_key(&w, "b");
    json_array_begin(&w);
    json_array_end(&w);
    json_object_end(&w);
    ck_assert_str_eq(sb_str(&sb), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": []\n}\n");
    sb_release(&sb);
}
END_TEST

START_TEST(normalize_paths)
{
    const char *cases[][2] = {
        { "./a/b", "a/b" }, { "a//b/", "a/b" }, { "a/./b/../c", "a/c" }, { ".", "." },
        { "./", "." }, { "../x", "../x" }, { "/a/../b", "/b" }, { "/", "/" }, { "a/..", "." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *n = fs_normalize(cases[i][0]);
        ck_assert_str_eq(n, cases[i][1]);
        free(n);
    }
}
END_TEST

static char *make_tree(void)
{
    char tmpl[] = "/tmp/kvlint-util-XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    char *root = strdup(d);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p b a/.git a/__pycache__ a/sub a/empty && echo x > b/z.py && echo y > a/y.py && "
             "echo g > a/.git/g.py && echo c > a/__pycache__/c.py && echo s > a/sub/s.yaml && "
             "ln -s .. a/sub/loop && ln -s ../b/z.py a/link.py",
             root);
    ck_assert_int_eq(system(cmd), 0);
    return root;
}

START_TEST(walk_sorted_skips_and_no_loops)
{
    char *root = make_tree();
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    fs_list l = {0};
    ck_assert(fs_walk(root, &l, &d));
    ck_assert_uint_eq(l.n, 3);
    char want[3][300];
    snprintf(want[0], sizeof want[0], "%s/a/sub/s.yaml", root);
    snprintf(want[1], sizeof want[1], "%s/a/y.py", root);
    snprintf(want[2], sizeof want[2], "%s/b/z.py", root);
    fs_list_sort_unique(&l);
    for (int i = 0; i < 3; i++)
        ck_assert_str_eq(l.paths[i], want[i]);
    ck_assert(!fs_walk("/nonexistent/kvlint", &l, &d));
    ck_assert(diag_has_errors(&d));
    fs_list_free(&l);
    arena_free(a);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    ck_assert_int_eq(system(cmd), 0);
    free(root);
}
END_TEST

START_TEST(read_file_limits)
{
    char path[] = "/tmp/kvlint-read-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "abc\0def", 7), 7);
    close(fd);
    char *data;
    size_t len;
    const char *err;
    ck_assert_int_eq(fs_read_file(path, 100, &data, &len, &err), FS_OK);
    ck_assert_uint_eq(len, 7);
    ck_assert(fs_looks_binary(data, len));
    free(data);
    ck_assert_int_eq(fs_read_file(path, 6, &data, &len, &err), FS_TOO_LARGE);
    ck_assert_int_eq(fs_read_file("/nonexistent/kvlint", 6, &data, &len, &err), FS_ERROR);
    ck_assert_ptr_nonnull(err);
    ck_assert_int_eq(fs_read_file("/tmp", 6, &data, &len, &err), FS_ERROR);
    unlink(path);
}
END_TEST

START_TEST(tsv_rows)
{
    char text[] = "# header\n\na\tb\r\n#x\ty\none\nc\td\te\tf\n\r\nlast\tfield";
    tsv_reader r;
    tsv_begin(&r, text);
    char *f[4];
    ck_assert_uint_eq(tsv_next(&r, f, 3), 2);   /* the '\r' before '\n' is dropped */
    ck_assert_uint_eq(r.line, 3);
    ck_assert_str_eq(f[0], "a");
    ck_assert_str_eq(f[1], "b");
    ck_assert_uint_eq(tsv_next(&r, f, 3), 1);
    ck_assert_uint_eq(r.line, 5);
    ck_assert_str_eq(f[0], "one");
    ck_assert_uint_eq(tsv_next(&r, f, 3), 4);   /* more than 3 columns: max + 1 */
    ck_assert_uint_eq(r.line, 6);
    ck_assert_uint_eq(tsv_next(&r, f, 3), 2);   /* a last line without '\n'; "\r" alone is blank */
    ck_assert_uint_eq(r.line, 8);
    ck_assert_str_eq(f[1], "field");
    ck_assert_uint_eq(tsv_next(&r, f, 3), 0);
    ck_assert_uint_eq(tsv_next(&r, f, 3), 0);
}
END_TEST

START_TEST(diag_order)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    diag_add(&d, DIAG_NOTE, "b.py", 1, 1, "n");
    diag_add(&d, DIAG_ERROR, "a.py", 10, 2, "e %d", 1);
    diag_add(&d, DIAG_WARNING, "a.py", 2, 5, "w");
    qsort(d.items.v, d.items.n, sizeof *d.items.v, diag_cmp);
    ck_assert_str_eq(d.items.v[0].msg, "w");
    ck_assert_str_eq(d.items.v[1].msg, "e 1");
    ck_assert_str_eq(d.items.v[2].path, "b.py");
    arena_free(a);
}
END_TEST

static char *slurp(const char *path)
{
    char *data;
    size_t len;
    const char *err;
    return fs_read_file(path, 1 << 20, &data, &len, &err) == FS_OK ? data : NULL;
}

START_TEST(outfile_commit_and_abort)
{
    char dir[] = "/tmp/kvlint-outfile.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    out_file o;
    ck_assert(out_file_open(&o, path, err, sizeof err));
    fputs("new", o.f);
    char *mid = slurp(path);
    ck_assert_str_eq(mid, "old");          /* the target is untouched while writing */
    free(mid);
    out_file_abort(&o);
    char *kept = slurp(path);
    ck_assert_str_eq(kept, "old");         /* an aborted run keeps the earlier report */
    free(kept);
    ck_assert(out_file_open(&o, path, err, sizeof err));
    fputs("new", o.f);
    ck_assert(out_file_commit(&o, err, sizeof err));
    char *now = slurp(path);
    ck_assert_str_eq(now, "new");
    free(now);
    ck_assert(!out_file_usable(dir, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "is a directory"));
    ck_assert(!out_file_usable("/nonexistent-kvlint/x", err, sizeof err));
    ck_assert(out_file_open(&o, "/dev/full", err, sizeof err));
    fputs("x", o.f);
    ck_assert(!out_file_commit(&o, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "No space left on device"));
    unlink(path);
    ck_assert_int_eq(rmdir(dir), 0);       /* no temporary file left behind */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *t = tcase_create("core");
    tcase_add_test(t, arena_alignment_and_growth);
    tcase_add_test(t, arena_vec_push);
    tcase_add_test(t, strbuf_basics);
    tcase_add_test(t, strlist_suffixes_and_lists);
    tcase_add_test(t, number_styles);
    tcase_add_test(t, json_numbers_round_trip);
    tcase_add_test(t, json_writer_shape_and_escapes);
    tcase_add_test(t, json_writer_pretty);
    tcase_add_test(t, json_writer_streams_to_file);
    tcase_add_test(t, normalize_paths);
    tcase_add_test(t, walk_sorted_skips_and_no_loops);
    tcase_add_test(t, read_file_limits);
    tcase_add_test(t, tsv_rows);
    tcase_add_test(t, diag_order);
    tcase_add_test(t, outfile_commit_and_abort);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
