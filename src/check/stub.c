/* TEMPORARY scaffolding until check/matrix/explain land. */
#include <stdio.h>
#include "cli/commands.h"
int cmd_check(int argc, char **argv) { (void)argc; (void)argv; fputs("kvlint check: not built yet\n", stderr); return EXIT_USAGE; }
int cmd_matrix(int argc, char **argv) { (void)argc; (void)argv; fputs("kvlint matrix: not built yet\n", stderr); return EXIT_USAGE; }
int cmd_explain(int argc, char **argv) { (void)argc; (void)argv; fputs("kvlint explain: not built yet\n", stderr); return EXIT_USAGE; }
