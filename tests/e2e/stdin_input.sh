#!/bin/sh
# stdin_input.sh: `kvlint check --stdin-filename NAME [-]` reads the code from standard input and
# reports it as NAME (docs/check.md, "Code on standard input"): NAME's language, its suppressions
# and its project (.kvlint.yaml or the git top, the deployments and the checkpoint) apply, NAME's
# copy on disk is not read as well, and the size limit bounds standard input like a file.
. "$top_srcdir/tests/e2e/lib.sh"
git_home
ex="$top_srcdir/examples/adapter-router"
repo="$tmpdir/repo"
git_tree "$ex" "$repo"
layers="$repo/adapter_router/layers.py"
run() { (cd "$repo" && "$KVLINT" check "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

run --stdin-filename adapter_router/layers.py - <"$layers"
expect_status "the file on stdin, with '-'" 1 $?
expect_contains "reported as NAME, the deployment found" "$tmpdir/out" "adapter_router/layers.py:14:12: error: -1e9 is stored as -57344"
expect_contains "the checkpoint's range found" "$tmpdir/out" "ids up to 20 (num_adapters = 20, checkpoint/config.json:9:19)"
expect_contains "the source line comes from stdin" "$tmpdir/out" "   14 | _NEG_INF = -1e9"
expect_contains "the project's files are read, NAME once" "$tmpdir/out" "kvlint: 2 errors in 5 files, 3 deployments"

# Two lines more on stdin than on disk: only stdin's copy is read (no finding at the disk lines).
{ printf '# edited\n# in the editor\n'; cat "$layers"; } | run --format json --stdin-filename adapter_router/layers.py
expect_status "without '-' (as ruff and eslint)" 1 $?
expect_contains "the finding at stdin's line" "$tmpdir/out" '"line": 16'
expect_not_contains "not at the disk copy's line" "$tmpdir/out" '"line": 14,'
n=$(grep -c '"rule": "KV00' "$tmpdir/out")
expect_status "two findings, not four (no double facts)" 2 "$n"

sed 's/^_NEG_INF = -1e9$/_NEG_INF = -1e9  # kvlint: ignore[KV001]/' "$layers" >"$tmpdir/suppressed.py"
run --stdin-filename adapter_router/layers.py <"$tmpdir/suppressed.py"
expect_status "NAME's own suppressions apply" 1 $?
expect_contains "KV001 suppressed" "$tmpdir/out" "1 error (1 suppressed)"

# A name that does not exist on disk: the project is still found from its folder.
run --stdin-filename newpkg/sub/model.py <"$layers"
expect_status "a new file's name" 1 $?
expect_contains "reported as the new name" "$tmpdir/out" "newpkg/sub/model.py:14:12: error:"

# A deployment on stdin: its language is chosen from NAME; the fp8_e5m2 line edited away.
sed 's/fp8_e5m2/auto/' "$repo/deploy/compose.yaml" | run --stdin-filename deploy/compose.yaml
expect_status "a deployment edited on stdin is checked against the code" 0 $?
expect_not_contains "the disk's fp8_e5m2 is not read" "$tmpdir/out" "fp8_e5m2"

# With .kvlint.yaml: its rules and globs are NAME's project.
printf 'deployments: [deploy/*.yaml]\nmodel_config: [checkpoint/config.json]\nrules:\n  ignore: [KV003]\n' >"$repo/.kvlint.yaml"
run --stdin-filename adapter_router/layers.py <"$layers"
expect_status ".kvlint.yaml found for NAME" 1 $?
expect_not_contains ".kvlint.yaml rules.ignore applies" "$tmpdir/out" "[KV003]"
rm "$repo/.kvlint.yaml"

# Bounded like a file: a huge stdin is a diagnostic at NAME (exit 2), not an allocation of its size.
head -c 3000 /dev/zero | tr '\0' a | run --max-file-size 1K --stdin-filename adapter_router/layers.py
expect_status "stdin over --max-file-size" 2 $?
expect_contains "said at NAME" "$tmpdir/err" "adapter_router/layers.py: warning: skipped: standard input is over the 1024-byte limit"

run - <"$layers"
expect_status "'-' without --stdin-filename" 2 $?
expect_contains "says what is missing" "$tmpdir/err" "needs --stdin-filename NAME"
run --stdin-filename notes.txt <"$layers"
expect_status "a NAME no front end reads" 2 $?
run --stdin-filename a.py adapter_router/layers.py <"$layers"
expect_status "a PATH besides stdin" 2 $?
"$KVLINT" check --help >"$tmpdir/help"
expect_contains "--help" "$tmpdir/help" "--stdin-filename NAME"
finish
