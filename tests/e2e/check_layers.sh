#!/bin/sh
# check_layers.sh: every `#include "folder/file.h"` under src/ is one that src/README.md allows.
# The README's folder table says which folders (or single headers) a folder may include; its
# restricted-header table names headers that must be granted by name even where their folder is.
# A folder missing from the table, or an include the table does not allow, fails the test; so does a
# folder's local.mk that lists another folder's sources (the build follows the folders).
. "$top_srcdir/tests/e2e/lib.sh"

# layer_violations ROOT OUT: the disallowed includes under ROOT/src, one line each, into OUT
layer_violations() {
    readme="$1/src/README.md"
    [ -f "$readme" ] || { echo "src/README.md is missing" >"$2"; return; }
    # folder<TAB>allowed entries, from rows like: | `util/` | stage | owns | `a`, `b/c.h` |
    awk -F'|' '/^\| `[a-z_]+\/` \|/ {
        f = $2; gsub(/[ `\/]/, "", f)
        a = $(NF - 1); gsub(/`/, "", a); gsub(/,/, " ", a); gsub(/—/, "", a)
        print f "\t" a
    }' "$readme" >"$tmpdir/allowed"
    awk -F'|' '/^\| `[a-z_]+\/[a-z_]+\.h` \|/ { h = $2; gsub(/[ `]/, "", h); print h }' "$readme" >"$tmpdir/restricted"
    for dir in "$1"/src/*/; do
        folder=$(basename "$dir")
        ls "$dir" | grep -qE '\.(c|h)$' || continue
        if ! grep -q "^$folder	" "$tmpdir/allowed"; then
            echo "src/$folder/ is not in the src/README.md table"
            continue
        fi
        allowed=" $(grep "^$folder	" "$tmpdir/allowed" | cut -f2) "
        for f in "$dir"*.c "$dir"*.h; do
            [ -f "$f" ] || continue
            grep -oE '^#include "[a-z_]+/[a-z_]+\.h"' "$f" | sed 's/^#include "//; s/"$//' | while read -r inc; do
                other=${inc%%/*}
                [ "$other" = "$folder" ] && continue
                case "$allowed" in *" $inc "*) continue ;; esac
                if grep -qx "$inc" "$tmpdir/restricted"; then
                    echo "src/$folder/$(basename "$f") includes $inc: restricted, not granted to $folder/"
                else
                    case "$allowed" in *" $other "*) continue ;; esac
                    echo "src/$folder/$(basename "$f") includes $inc: $folder/ may not include $other/"
                fi
            done
        done
    done >"$2"
}

layer_violations "$top_srcdir" "$tmpdir/violations"
[ -s "$tmpdir/allowed" ] || fail "src/README.md has no folder table"
[ -s "$tmpdir/restricted" ] || fail "src/README.md has no restricted-header table"
if [ -s "$tmpdir/violations" ]; then
    fail "includes the layer table in src/README.md does not allow"
    sed 's/^/    /' "$tmpdir/violations"
else
    pass "every include under src/ is allowed by src/README.md"
fi

# The check itself: a tree with one include of each kind the table forbids must be caught.
fake="$tmpdir/fake"
mkdir -p "$fake/src/numerics" "$fake/src/check" "$fake/src/newstage"
cp "$top_srcdir/src/README.md" "$fake/src/README.md"
printf '#include "check/eval.h"\n' >"$fake/src/numerics/bad.c"
printf '#include "util/json.h"\n#include "facts/facts.h"\n' >"$fake/src/check/bad.c"
printf '#include "util/xalloc.h"\n' >"$fake/src/newstage/x.c"
layer_violations "$fake" "$tmpdir/fake.out"
expect_contains "a folder including a later stage is caught" "$tmpdir/fake.out" "src/numerics/bad.c includes check/eval.h"
expect_contains "a restricted header is caught" "$tmpdir/fake.out" "src/check/bad.c includes util/json.h: restricted"
expect_not_contains "an allowed include passes" "$tmpdir/fake.out" "facts/facts.h"
expect_contains "a folder missing from the table is caught" "$tmpdir/fake.out" "src/newstage/ is not in the src/README.md table"

# The build follows the folders: a folder's local.mk lists only its own sources (comments aside).
foreign_sources() { # ROOT OUT
    : >"$2"
    for mk in "$1"/src/*/local.mk; do
        dir=$(basename "$(dirname "$mk")")
        sed 's/#.*//' "$mk" | grep -oE 'src/[A-Za-z0-9_]+/[A-Za-z0-9_.-]+\.(c|h|def)' | grep -v "^src/$dir/" |
            sed "s|^|src/$dir/local.mk builds |" >>"$2"
    done
}
foreign_sources "$top_srcdir" "$tmpdir/foreign"
if [ -s "$tmpdir/foreign" ]; then fail "a local.mk builds another folder's files"; sed 's/^/    /' "$tmpdir/foreign"
else pass "each local.mk builds only its own folder"; fi
mkdir -p "$fake/src/check"
printf 'src_libkvlint_a_SOURCES += src/check/eval.c src/cli/cmd_check.c # src/cli/x.c\n' >"$fake/src/check/local.mk"
foreign_sources "$fake" "$tmpdir/fake.mk"
expect_contains "another folder's file in a local.mk is caught" "$tmpdir/fake.mk" "src/check/local.mk builds src/cli/cmd_check.c"
expect_not_contains "a comment is not a source" "$tmpdir/fake.mk" "src/cli/x.c"
finish
