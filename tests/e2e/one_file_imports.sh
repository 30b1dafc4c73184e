#!/bin/sh
# one_file_imports.sh: a run on named files (a pre-commit hook's) indexes the modules the named
# Python files import, two levels deep (docs/check.md, "Runs on named files"): a helper, a class
# and a constant of sibling modules reach the named file's stores as in a run on the whole tree.
# Fixture: tests/fixtures/python/named_imports (every sentinel plugin/model.py stores comes from
# plugin/consts.py, through plugin/helpers.py, plugin/maskers.py, plugin/layers.py and
# plugin/lazy.py, which model.py imports inside a method).
. "$top_srcdir/tests/e2e/lib.sh"
git_home
repo="$tmpdir/repo"
git_tree "$fixtures/python/named_imports" "$repo"
check() { (cd "$repo" && "$KVLINT" check "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

check plugin/model.py
expect_status "model.py alone: the stores of imported values are found" 1 $?
expect_contains "a function of a sibling module, its constant from a third file" "$tmpdir/out" \
    "plugin/consts.py:2:7: error: -1e9 is stored as -inf"
expect_contains "stored in the named file" "$tmpdir/out" "plugin/model.py:15:9: note: stored into the KV cache as the key"
expect_contains "a class of a sibling module naming a third file's constant" "$tmpdir/out" \
    "plugin/consts.py:3:7: error: float(\"-inf\") is stored as -inf"
expect_contains "a module imported by its absolute name" "$tmpdir/out" "plugin/consts.py:4:7: error: -1e5 is stored as -inf"
expect_contains "a module imported inside a method (a lazy import)" "$tmpdir/out" \
    "plugin/consts.py:5:7: error: -1e6 is stored as -inf"
expect_contains "summary: the named file and the deployment, not the imported modules" "$tmpdir/out" \
    "kvlint: 4 errors in 2 files, 1 deployment"
expect_not_contains "a module nothing imports is not read" "$tmpdir/out" "unrelated.py"
expect_not_contains "an imported module's syntax errors are not shown" "$tmpdir/err" "broken.py"

(cd "$repo/plugin" && "$KVLINT" check model.py) >"$tmpdir/out" 2>&1
expect_status "from the package's folder" 1 $?
expect_contains "the same four" "$tmpdir/out" "kvlint: 4 errors in 2 files, 1 deployment"

(cd "$repo" && "$KVLINT" check --stdin-filename plugin/model.py <plugin/model.py) >"$tmpdir/out" 2>&1
expect_status "the file on standard input: its imports are followed too" 1 $?
expect_contains "standard input: the same four" "$tmpdir/out" "kvlint: 4 errors in 2 files, 1 deployment"

check plugin/helpers.py
expect_status "helpers.py alone: the store is in a file it does not import (not read)" 0 $?

rm -rf "$repo/.git"
check plugin/model.py
expect_status "outside a repository and without .kvlint.yaml the file is checked alone" 0 $?
finish
