#!/bin/sh
# tscore_headers.sh: every object built against <tree_sitter/api.h> used the api.h of the core
# kvlint links (configure's --with-tree-sitter-core): the bundled core's copy in the build tree, or
# the system's, never a mix. It reads the dependency files the compiler wrote (.deps/*.Po), so it
# needs automake's dependency tracking (skipped without it).
. "$top_srcdir/tests/e2e/lib.sh"

[ -d "$top_builddir/src/python/.deps" ] || { echo "SKIP: no dependency files (--disable-dependency-tracking?)"; exit 77; }
find "$top_builddir" -path '*/.deps/*.Po' -exec grep -h 'tree_sitter/api\.h' {} + 2>/dev/null |
    sed 's/[: \\]*$//; s/^ *//' | sort -u >"$tmpdir/headers"
expect_contains "objects include api.h" "$tmpdir/headers" "tree_sitter/api.h"
if "$KVLINT" --version | grep -q '^tree-sitter core: bundled'; then
    what="bundled core: every object has its api.h"
    grep -v 'grammars/tree-sitter-core/lib/include/tree_sitter/api\.h$' "$tmpdir/headers" >"$tmpdir/other" || true
else
    what="system core: no object has the bundled api.h"
    grep 'grammars/tree-sitter-core/' "$tmpdir/headers" >"$tmpdir/other" || true
fi
if [ -s "$tmpdir/other" ]; then fail "$what"; sed 's/^/    /' "$tmpdir/other"; else pass "$what"; fi
finish
