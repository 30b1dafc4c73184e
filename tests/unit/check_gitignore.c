/*
 * check_gitignore.c: unit tests of the gitignore dialect of the glob matcher and of the walk that
 * respects .gitignore (scan/gitignore.h): fixed cases from git's documentation, and a differential
 * test that builds a scratch repository with tricky patterns and compares the walk with what
 * `git check-ignore --no-index` says of every file (skipped, with a message, when git is absent);
 * and the in-process reader of git's index (scan/gitdir.h) against `git ls-files` for index
 * versions 2, 3 and 4, with the cases where it must decline (a split index, a corrupt one).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "project/project.h"
#include "scan/gitdir.h"
#include "scan/gitignore.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

START_TEST(git_glob_dialect)
{
    ck_assert(kv_glob_match_git("*.py[cod]", "x.pyc"));
    ck_assert(!kv_glob_match_git("*.py[cod]", "x.py"));
    ck_assert(kv_glob_match_git("[!a]x", "bx"));
    ck_assert(!kv_glob_match_git("[!a]x", "ax"));
    ck_assert(kv_glob_match_git("[^a]x", "bx"));
    ck_assert(kv_glob_match_git("[a-c]1", "b1"));
    ck_assert(!kv_glob_match_git("[a-c]1", "d1"));
    ck_assert(kv_glob_match_git("[]]", "]"));
    ck_assert(!kv_glob_match_git("a[/]b", "a/b"));         /* a class never matches '/' */
    ck_assert(kv_glob_match_git("[ab", "[ab"));            /* unclosed: a literal '[' */
    ck_assert(kv_glob_match_git("\\#x", "#x"));
    ck_assert(kv_glob_match_git("\\*", "*"));
    ck_assert(!kv_glob_match_git("\\*", "a"));
    ck_assert(kv_glob_match_git("a/**/b", "a/b"));
    ck_assert(kv_glob_match_git("a/**/b", "a/x/y/b"));
    ck_assert(kv_glob_match_git("**/b", "x/y/b"));
    ck_assert(kv_glob_match_git("a/**", "a/x/y"));
    ck_assert(!kv_glob_match_git("a**b", "a/x/b"));        /* not a whole segment: one `*` */
    ck_assert(kv_glob_match_git("a**b", "axxb"));
    ck_assert(!kv_glob_match_git("*", "a/b"));
    /* the .kvlint.yaml dialect keeps '[' and '\' literal */
    ck_assert(kv_glob_match("x[1].py", "x[1].py"));
    ck_assert(!kv_glob_match("x[12].py", "x1.py"));
}
END_TEST

/* Linear time: a pattern that makes a backtracking matcher explode. */
START_TEST(git_glob_linear)
{
    char path[4096], pat[256];
    memset(path, 'a', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    strcpy(pat, "");
    for (int i = 0; i < 30; i++)
        strcat(pat, "*a");
    strcat(pat, "[b]");
    ck_assert(!kv_glob_match_git(pat, path));
}
END_TEST

static void write_file(const char *dir, const char *rel, const char *text)
{
    char *path = fs_join(dir, rel);
    for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    free(path);
}

static const char *const files[] = {
    "top.py", "a.pyc", "keep.log", "debug.log", "logs/x.txt", "logs/keep/y.txt", "doc/build/x.md",
    "build/out.py", "src/build/x.py", "requirements/build/r.txt", "src/gen/x.py", "src/a/generated/b/c.py",
    "src/#hash.py", "src/!bang.py", "src/trail .py", "src/sub/local.py", "src/sub/other.py",
    "src/sub/deep/local.py", "src/sub/deep/keep.py", "anchored.py", "src/anchored.py", "only_dir",
    "only_dir2/f", "x/vllm_flash_attn/a.py", "x/vllm_flash_attn/__init__.py", "cls1.txt", "cls9.txt",
    "excluded_by_info.py", "sub2/excluded_by_info.py", "a/b/c/d.py", "a/d.py", "esc/*star", "esc/plain",
    "docs/plain/file.md", "docs/plain/file.mdx", "x/docs/plain/file.md", "rooted_plain.txt", "z/rooted_plain.txt",
    "cmake-build-debug/x.py", "src/cmake-build-rel/y.py", "cmake-buil/z.py", "esc/plain2",
    "src/a_hip.cu", "src/hip.cu", "genqx_yaz", "gen]x_yaz", "genqx_ycz", "escabc", "esc]bc", "escxbc",
};

static const char top_gitignore[] =
    "# a comment\n"
    "\n"
    "*.py[cod]\n"
    "*.log\n"
    "!keep.log\n"
    "logs/\n"
    "!logs/keep/\n"           /* cannot re-include below an ignored folder */
    "build/\n"
    "!requirements/build/\n"
    "**/generated/**\n"
    "src/gen\n"
    "\\#hash.py\n"
    "\\!bang.py\n"
    "trail\\ .py\n"
    "/anchored.py\n"
    "only_dir/\n"
    "only_dir2/\n"
    "x/vllm_flash_attn/*\n"
    "!x/vllm_flash_attn/__init__.py\n"
    "cls[0-5].txt\n"
    "a/**/d.py\n"
    "esc/\\*star\n"
    "docs/plain/file.md\n"       /* a plain path: compared as a string */
    "/rooted_plain.txt\n"
    "cmake-build-*\n"            /* a literal start, then the automaton */
    "esc/plain\\2\n"
    "*_hip*\n"                    /* its plain run, _hip, is looked for first */
    "gen[!]]x_y[ab]z\n"
    "esc[\\]a]bc\n"             /* an escaped ']' inside a class */
    "   \n"
    "trailing_spaces.py   \n";

static const char sub_gitignore[] = "local.py\n!deep/local.py\n/other.py\n";

static bool in_list(const fs_list *l, const char *path)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->paths[i], path))
            return true;
    return false;
}

/* The files of all that git check-ignore (with opts) and the walk disagree on; *nignored: how many
 * git ignores. Runs in the repository (the working directory). */
static size_t compare_with_git(const fs_list *all, const fs_list *walked, const char *opts, size_t *nignored)
{
    FILE *in = fopen("paths.txt", "w");
    ck_assert_ptr_nonnull(in);
    for (size_t i = 0; i < all->n; i++)
        fprintf(in, "%s\n", all->paths[i]);
    fclose(in);
    strbuf cmd = STRBUF_INIT;
    sb_addf(&cmd, "GIT_CONFIG_NOSYSTEM=1 HOME=. git check-ignore %s --stdin <paths.txt >ignored.txt", opts);
    int st = system(sb_str(&cmd));
    sb_release(&cmd);
    ck_assert_int_le(WEXITSTATUS(st), 1);   /* 1: nothing ignored */
    fs_list ignored = { 0 };
    char line[4096];
    FILE *out = fopen("ignored.txt", "r");
    while (out && fgets(line, sizeof line, out)) {
        line[strcspn(line, "\n")] = '\0';
        ignored.paths = xgrow(ignored.paths, &ignored.cap, ignored.n + 1, sizeof *ignored.paths);
        ignored.paths[ignored.n++] = xstrdup(line);
    }
    if (out)
        fclose(out);
    size_t mismatches = 0;
    for (size_t i = 0; i < all->n; i++) {
        const char *p = all->paths[i];
        if (!strcmp(p, "paths.txt") || !strcmp(p, "ignored.txt"))
            continue;
        bool git_ignores = in_list(&ignored, p), we_walk = in_list(walked, p);
        if (git_ignores == we_walk) {
            fprintf(stderr, "check_gitignore: %s: git %s it, the walk %s it\n", p,
                    git_ignores ? "ignores" : "keeps", we_walk ? "keeps" : "leaves out");
            mismatches++;
        }
    }
    *nignored = ignored.n;
    fs_list_free(&ignored);
    return mismatches;
}

/* Run a shell command in dir with git's user and system configuration out of the way. */
static int sh_in(const char *dir, const char *command)
{
    strbuf cmd = STRBUF_INIT;
    sb_addf(&cmd, "cd '%s' && GIT_CONFIG_NOSYSTEM=1 HOME='%s' GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t "
            "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t %s", dir, dir, command);
    int st = system(sb_str(&cmd));
    sb_release(&cmd);
    return st;
}

START_TEST(walk_agrees_with_git_check_ignore)
{
    if (system("git --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "check_gitignore: git not found, differential test skipped\n");
        return;
    }
    char tmpl[] = "/tmp/kvlint-gitignore.XXXXXX";
    char *dir = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(dir);
    ck_assert_int_eq(sh_in(dir, "git init -q ."), 0);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        write_file(dir, files[i], "x = 1\n");
    write_file(dir, ".gitignore", top_gitignore);
    write_file(dir, "src/sub/.gitignore", sub_gitignore);
    write_file(dir, ".git/info/exclude", "excluded_by_info.py\n");
    write_file(dir, "trailing_spaces.py", "x\n");

    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(dir), 0);
    kv_arena *a = arena_new();
    diag_list diags;
    diag_init(&diags, a);
    fs_list all = { 0 }, walked = { 0 };
    fs_walk(".", &all, &diags);
    gitignore_walk(".", true, &walked, &diags);
    size_t nignored = 0;
    ck_assert_uint_eq(compare_with_git(&all, &walked, "--no-index", &nignored), 0);
    /* the differential test is only worth something if both verdicts occur */
    ck_assert_uint_gt(nignored, 10);
    ck_assert(in_list(&walked, "keep.log"));
    ck_assert(in_list(&walked, "x/vllm_flash_attn/__init__.py"));
    ck_assert(!in_list(&walked, "logs/keep/y.txt"));
    ck_assert(!in_list(&walked, "src/sub/local.py"));
    ck_assert(in_list(&walked, "src/sub/deep/local.py"));
    ck_assert(in_list(&walked, "src/anchored.py"));
    ck_assert(!in_list(&walked, "anchored.py"));
    ck_assert(!in_list(&walked, "excluded_by_info.py"));
    ck_assert(!in_list(&walked, "docs/plain/file.md") && in_list(&walked, "docs/plain/file.mdx"));
    ck_assert(in_list(&walked, "x/docs/plain/file.md"));   /* a path with a '/' is anchored */
    ck_assert(!in_list(&walked, "rooted_plain.txt") && in_list(&walked, "z/rooted_plain.txt"));
    ck_assert(!in_list(&walked, "cmake-build-debug/x.py") && !in_list(&walked, "src/cmake-build-rel/y.py"));
    ck_assert(in_list(&walked, "cmake-buil/z.py") && !in_list(&walked, "esc/plain2"));
    ck_assert(!in_list(&walked, "src/a_hip.cu") && in_list(&walked, "src/hip.cu"));
    ck_assert(!in_list(&walked, "genqx_yaz") && in_list(&walked, "gen]x_yaz") && in_list(&walked, "genqx_ycz"));
    ck_assert(!in_list(&walked, "escabc") && !in_list(&walked, "esc]bc") && in_list(&walked, "escxbc"));

    /* from a subfolder: the .gitignore files above it apply */
    fs_list sub = { 0 };
    gitignore_walk("src/sub", true, &sub, &diags);
    ck_assert(!in_list(&sub, "src/sub/local.py"));
    ck_assert(in_list(&sub, "src/sub/deep/local.py"));
    ck_assert(!in_list(&sub, "src/sub/other.py"));
    fs_list_free(&sub);

    /* git never ignores a tracked file, even below an ignored folder: check-ignore with the index */
    ck_assert_int_eq(system("GIT_CONFIG_NOSYSTEM=1 HOME=. git add -f logs/x.txt src/gen/x.py a.pyc"), 0);
    fs_list tracked_walk = { 0 };
    gitignore_walk(".", true, &tracked_walk, &diags);
    ck_assert_uint_eq(compare_with_git(&all, &tracked_walk, "", &nignored), 0);
    ck_assert(in_list(&tracked_walk, "logs/x.txt"));
    ck_assert(in_list(&tracked_walk, "src/gen/x.py"));
    ck_assert(!in_list(&tracked_walk, "logs/keep/y.txt"));
    fs_list_free(&tracked_walk);
    fs_list_free(&all);
    fs_list_free(&walked);
    arena_free(a);
    ck_assert_int_eq(chdir(cwd), 0);
    strbuf cmd = STRBUF_INIT;
    sb_addf(&cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(sb_str(&cmd)), 0);
    sb_release(&cmd);
}
END_TEST

/* Whether the index reader lists exactly what `git ls-files -z` lists (each path once). */
static bool index_agrees_with_ls_files(const char *dir)
{
    ck_assert_int_eq(sh_in(dir, "git ls-files -z | tr '\\0' '\\n' | LC_ALL=C sort -u >../ls.txt"), 0);
    char *want = NULL, *path = fs_join(dir, "../ls.txt");
    size_t len;
    const char *why;
    ck_assert_int_eq(fs_read_file(path, 1 << 20, &want, &len, &why), FS_OK);
    char *dotgit = fs_join(dir, ".git"), **paths;
    size_t n;
    kv_arena *a = arena_new();
    ck_assert(gitdir_index_paths(dir, dotgit, a, &paths, &n));
    strbuf got = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        sb_addf(&got, "%s\n", paths[i]);
    bool same = !strcmp(sb_str(&got), want);
    if (!same)
        fprintf(stderr, "check_gitignore: index reader:\n%s\ngit ls-files:\n%s\n", sb_str(&got), want);
    ck_assert_uint_gt(n, 5);
    sb_release(&got);
    arena_free(a);
    free(dotgit);
    free(want);
    free(path);
    return same;
}

static bool index_readable(const char *dir)
{
    char *dotgit = fs_join(dir, ".git"), **paths;
    size_t n;
    kv_arena *a = arena_new();
    bool ok = gitdir_index_paths(dir, dotgit, a, &paths, &n);
    arena_free(a);
    free(dotgit);
    return ok;
}

START_TEST(index_reader_agrees_with_git_ls_files)
{
    if (system("git --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "check_gitignore: git not found, index test skipped\n");
        return;
    }
    char tmpl[] = "/tmp/kvlint-gitindex.XXXXXX";
    char *top = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(top);
    char *dir = fs_join(top, "repo");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    ck_assert_int_eq(sh_in(dir, "git init -q ."), 0);
    ck_assert(index_readable(dir));   /* no index yet: nothing tracked, and that is an answer */
    static const char *const names[] = {
        "a.py", "b/c.py", "b/c/d.py", "b.py", "b-c.py", "with space.py", "\xc3\xa9t\xc3\xa9.py", "z/y/x/w.yaml",
        "deep/one/two/three/four/five/six/seven/eight/nine/ten/a_rather_long_file_name_for_prefixes.py",
        "deep/one/two/three/four/five/six/seven/eight/nine/ten/a_rather_long_file_name_for_prefixes2.py",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        write_file(dir, names[i], "x = 1\n");
    ck_assert_int_eq(sh_in(dir, "git add -A && git commit -qm one && git add -N --ignore-removal . "
                                "&& echo y >new.py && git add -N new.py"), 0);
    ck_assert(index_agrees_with_ls_files(dir));                       /* version 3: intent-to-add */
    ck_assert_int_eq(sh_in(dir, "git update-index --index-version 2 2>/dev/null || true"), 0);
    ck_assert_int_eq(sh_in(dir, "git rm -q --cached new.py && git update-index --index-version 2"), 0);
    ck_assert(index_agrees_with_ls_files(dir));                       /* version 2 */
    ck_assert_int_eq(sh_in(dir, "git update-index --index-version 4 && git update-index --untracked-cache "
                                ">/dev/null 2>&1; git status -s >/dev/null"), 0);
    ck_assert(index_agrees_with_ls_files(dir));                       /* version 4, extensions */
    /* an unmerged path has one entry per stage and is listed once */
    ck_assert_int_eq(sh_in(dir, "h=$(git hash-object -w a.py) && printf '100644 %s 1\\ta.py\\n100644 %s 2\\ta.py\\n"
                                "100644 %s 3\\ta.py\\n' $h $h $h | git update-index --index-info"), 0);
    ck_assert(index_agrees_with_ls_files(dir));
    /* a split index holds only changes to a shared one: git must answer */
    ck_assert_int_eq(sh_in(dir, "git update-index --index-version 2 && git update-index --split-index"), 0);
    ck_assert(!index_readable(dir));
    ck_assert_int_eq(sh_in(dir, "git update-index --no-split-index"), 0);
    ck_assert(index_agrees_with_ls_files(dir));
    /* a corrupt or truncated index is declined, not half-read */
    ck_assert_int_eq(sh_in(dir, "head -c 200 .git/index >../short && cp ../short .git/index"), 0);
    ck_assert(!index_readable(dir));
    write_file(dir, ".git/index", "DIRC not an index at all, just words to fill the header");
    ck_assert(!index_readable(dir));
    /* the environment can point git elsewhere: only git can say then */
    setenv("GIT_INDEX_FILE", "/nonexistent", 1);
    ck_assert(!index_readable(dir));
    unsetenv("GIT_INDEX_FILE");
    strbuf cmd = STRBUF_INIT;
    sb_addf(&cmd, "rm -rf '%s'", top);
    ck_assert_int_eq(system(sb_str(&cmd)), 0);
    sb_release(&cmd);
    free(dir);
}
END_TEST

START_TEST(outside_a_work_tree_nothing_is_ignored)
{
    char tmpl[] = "/tmp/kvlint-nogit.XXXXXX";
    char *dir = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(dir);
    write_file(dir, ".gitignore", "*.py\n");
    write_file(dir, "a.py", "x\n");
    ck_assert_ptr_null(gitignore_open(dir));
    kv_arena *a = arena_new();
    diag_list diags;
    diag_init(&diags, a);
    fs_list l = { 0 };
    gitignore_walk(dir, true, &l, &diags);
    ck_assert_uint_eq(l.n, 2);
    fs_list_free(&l);
    arena_free(a);
    strbuf cmd = STRBUF_INIT;
    sb_addf(&cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(sb_str(&cmd)), 0);
    sb_release(&cmd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gitignore");
    TCase *t = tcase_create("core");
    tcase_add_test(t, git_glob_dialect);
    tcase_add_test(t, git_glob_linear);
    tcase_add_test(t, walk_agrees_with_git_check_ignore);
    tcase_add_test(t, index_reader_agrees_with_git_ls_files);
    tcase_add_test(t, outside_a_work_tree_nothing_is_ignored);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
