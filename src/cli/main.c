/*
 * main.c: kvlint's entry point. Parses the global options, asks every front end whether it can
 * run (e.g. that the Python grammar this binary was linked with is one libtree-sitter can load),
 * and hands argv to a subcommand.
 */
#include "config.h"

#include <stdbool.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "frontend/frontend.h"
#include "util/outfile.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    { "check", cmd_check, "report values the declared KV-cache dtype cannot hold" },
    { "baseline", cmd_baseline, "record today's findings so that check --baseline reports only new ones" },
    { "facts", cmd_facts, "print what the front ends found (stores, constructions, dtypes, deployments)" },
    { "matrix", cmd_matrix, "verdict for every KV-cache dtype x model dtype" },
    { "cast", cmd_cast, "what values become when stored as a dtype" },
    { "dtypes", cmd_dtypes, "list the dtypes kvlint models" },
    { "explain", cmd_explain, "a rule's documentation with a worked example" },
};

static void print_help(FILE *f)
{
    fputs("usage: kvlint <command> [options] [args]\n"
          "\n"
          "kvlint finds the values LLM-serving code writes into the KV cache (attention masks such as\n"
          "-1e9 or finfo(dtype).min, adapter/position/token ids) and reports where the declared cache\n"
          "dtype cannot hold them.\n"
          "\n"
          "commands:\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("\n"
          "Run 'kvlint <command> --help' for a command's options; 'man kvlint' for everything.\n"
          "exit status: 0 clean, 1 findings, 2 usage, configuration or I/O error\n", f);
}

static void print_version(void)
{
    printf("kvlint %s\n", PACKAGE_VERSION);
    for (size_t i = 0; kv_frontends[i]; i++) {
        char buf[256] = "";
        if (kv_frontends[i]->version)
            kv_frontends[i]->version(buf, sizeof buf);
        if (*buf)
            printf("%s\n", buf);
    }
}

int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "kvlint %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'kvlint %s --help'.\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

static int file_exists(const char *p)
{
    return access(p, F_OK) == 0;
}

const char *kvlint_datadir(void)
{
    const char *env = getenv("KVLINT_DATADIR");
    if (env && *env)
        return env;
    /* Uninstalled: the binary sits in the build tree's src/; use the source tree's data. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (strcmp(exe, KVLINT_BUILD_SRCDIR_BIN) == 0 && file_exists(KVLINT_SOURCE_DIR "/rules"))
                return KVLINT_SOURCE_DIR;
        }
    }
    return KVLINT_PKGDATADIR;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_help(stdout);
        return EXIT_CLEAN;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        print_version();
        return EXIT_CLEAN;
    }
    char why[256];
    if (!kv_frontends_selfcheck(why, sizeof why)) {
        fprintf(stderr, "kvlint: %s\n", why);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "kvlint: '%s' is not a command. Commands:", cmd);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(stderr, " %s", commands[i].name);
    fputs(".\n", stderr);
    return EXIT_USAGE;
}

/* Every command's standard output goes through one checked stream (glibc lets a program assign
 * stdout): a write that failed at any point (full disk, a closed pipe) is a message naming the
 * error and exit 2, whatever the command itself checked. */
int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* Blocks of 128 KiB and more (the big chunks of a file's arenas, parse trees' arrays) are
     * mapped and go back to the system when freed. By default glibc raises this threshold on the
     * first such free, and each thread's heap then keeps the largest file's working memory for the
     * rest of the run (-5 MB of peak on vLLM, bench/python.results.md). */
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
#endif
    char err[512];
    out_file out;
    if (!out_file_open(&out, NULL, err, sizeof err)) {
        fprintf(stderr, "kvlint: %s\n", err);
        return EXIT_USAGE;
    }
    if (isatty(STDOUT_FILENO))
        setvbuf(out.f, NULL, _IOLBF, 0);
    FILE *real_stdout = stdout;
    stdout = out.f;
    int status = run_command(argc, argv);
    bool ok = out_file_commit(&out, err, sizeof err);
    stdout = real_stdout;
    if (!ok) {
        fprintf(stderr, "kvlint: %s\n", err);
        return EXIT_USAGE;
    }
    return status;
}
