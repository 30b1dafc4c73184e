#!/bin/sh
# input_files.sh: only regular files are read, and never by blocking: a FIFO named .kvlint.yaml on
# the discovery path, given to --project or --config, is a diagnostic, not a hang. The same tree
# given twice (a symlinked directory, an absolute path) is read once: deployments are not doubled.
. "$top_srcdir/tests/e2e/lib.sh"

proj="$tmpdir/proj"
mkdir -p "$proj"
cp -R "$fixtures/KV009/positive/." "$proj/"
mkfifo "$proj/.kvlint.yaml"
run() { (cd "$proj" && timeout 20 "$KVLINT" "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

run check .; expect_status "FIFO .kvlint.yaml discovered: no hang" 2 $?
expect_contains "FIFO .kvlint.yaml: named" "$tmpdir/err" ".kvlint.yaml: error: cannot read project file: not a regular file"
expect_contains "FIFO .kvlint.yaml: findings still reported" "$tmpdir/out" "[KV009]"
run check --project .kvlint.yaml .; expect_status "FIFO --project: no hang" 2 $?
expect_contains "FIFO --project: named" "$tmpdir/err" "not a regular file"
rm "$proj/.kvlint.yaml"
mkfifo "$proj/pipe.yaml"
run check --config pipe.yaml .; expect_status "FIFO --config: no hang" 2 $?
expect_contains "FIFO --config: named" "$tmpdir/err" "pipe.yaml: error:"
rm "$proj/pipe.yaml"

# The same tree twice.
kv003="$fixtures/KV003/positive"
ln -s "$kv003" "$tmpdir/link"
(cd "$kv003" && "$KVLINT" check --format json .) >"$tmpdir/once.json" 2>/dev/null
(cd "$kv003" && "$KVLINT" check --format json . "$tmpdir/link" "$kv003") >"$tmpdir/thrice.json" 2>/dev/null
expect_status "same tree three ways: findings" 1 $?
if cmp -s "$tmpdir/once.json" "$tmpdir/thrice.json"; then pass "same tree three ways: same report as once"
else fail "same tree three ways: report differs"; diff "$tmpdir/once.json" "$tmpdir/thrice.json" | head -20; fi
expect_contains "same tree: one deployment" "$tmpdir/thrice.json" '"deployments": 1'

# Lone-CR line ends (old Mac): read as Python and YAML read them, so the same findings at the
# same lines as the LF original (they were all lost to syntax errors before).
lf="$tmpdir/lf" cr="$tmpdir/cr"
mkdir -p "$lf" "$cr"
cp -R "$fixtures/KV001/positive/." "$lf/"
for f in "$lf"/*; do tr '\n' '\r' <"$f" >"$cr/$(basename "$f")"; done
(cd "$lf" && "$KVLINT" check --format json .) >"$tmpdir/lf.json" 2>/dev/null
(cd "$cr" && "$KVLINT" check --format json .) >"$tmpdir/cr.json" 2>"$tmpdir/cr.err"
expect_status "lone CR: findings" 1 $?
expect_not_contains "lone CR: no syntax error" "$tmpdir/cr.err" "syntax error"
if cmp -s "$tmpdir/lf.json" "$tmpdir/cr.json"; then pass "lone CR: same report as LF"
else fail "lone CR: report differs from LF"; diff "$tmpdir/lf.json" "$tmpdir/cr.json" | head -20; fi
# The walk skips tools' folders (docs/check.md, "What a directory walk skips"); a named file is read.
mkdir -p "$tmpdir/skips/build" "$tmpdir/skips/node_modules/p" "$tmpdir/skips/pkg.egg-info" "$tmpdir/skips/src"
for d in build node_modules/p pkg.egg-info src; do
    printf 'import torch\nx = torch.full((2,), -1e9, dtype=torch.float16)\nkv_cache[0] = x\n' >"$tmpdir/skips/$d/m.py"
done
(cd "$tmpdir/skips" && "$KVLINT" check --format json .) >"$tmpdir/skips.json" 2>/dev/null
expect_status "walk: the one file outside skipped folders" 1 $?
expect_contains "walk: only src/ is read" "$tmpdir/skips.json" '"files": 1,'
expect_not_contains "walk: build/ is skipped" "$tmpdir/skips.json" '"path": "build/m.py"'
(cd "$tmpdir/skips" && "$KVLINT" check --format json build/m.py) >"$tmpdir/named.json" 2>/dev/null
expect_status "a named file in build/ is read" 1 $?
expect_contains "named file reported" "$tmpdir/named.json" '"path": "build/m.py"'
finish
