/* TEMPORARY scaffolding until cast/dtypes land. */
#include <stdio.h>
#include "cli/commands.h"
int cmd_cast(int argc, char **argv) { (void)argc; (void)argv; fputs("kvlint cast: not built yet\n", stderr); return EXIT_USAGE; }
int cmd_dtypes(int argc, char **argv) { (void)argc; (void)argv; fputs("kvlint dtypes: not built yet\n", stderr); return EXIT_USAGE; }
