#!/bin/sh
# one_file_py_deploy.sh: a run on named files (a pre-commit hook's) reads the deployments declared
# in Python (LLM(...), EngineArgs(...) in tests and examples) only from the files .kvlint.yaml's
# `deployments:` lists, not from every Python file of the repository (docs/check.md, "Runs on named
# files"). Fixture: tests/fixtures/python/named_py_deploy (plugin/attn.py stores -1e9; the only
# deployment, float16, is tests/test_serve.py's LLM(dtype="float16")).
. "$top_srcdir/tests/e2e/lib.sh"
git_home
repo="$tmpdir/repo"
git_tree "$fixtures/python/named_py_deploy" "$repo"
check() { (cd "$repo" && "$KVLINT" check "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

check .
expect_status "the tree: the test's float16 deployment makes -1e9 -inf" 1 $?
expect_contains "KV001 in the tree run" "$tmpdir/out" "plugin/attn.py:9:32: error: -1e9 is stored as -inf"

check plugin/attn.py
expect_status "the model file alone: the Python deployment is not read" 0 $?
expect_contains "said as unknown, not guessed" "$tmpdir/out" \
    "note: kvlint cannot check -1e9 stored at plugin/attn.py:10:9 against the KV-cache dtype of engine default"
expect_not_contains "no error without the deployment" "$tmpdir/out" "error:"

printf 'deployments: [tests/test_*.py]\n' >"$repo/.kvlint.yaml"
check plugin/attn.py
expect_status "deployments: lists the Python file: the model file alone is checked against it" 1 $?
expect_contains "the same KV001 as the tree run" "$tmpdir/out" "plugin/attn.py:9:32: error: -1e9 is stored as -inf"
expect_contains "summary: the named file and the listed deployment" "$tmpdir/out" "kvlint: 1 error in 2 files, 1 deployment"

check tests/test_serve.py
expect_status "the deployment file alone: the project's code is read for it" 1 $?
expect_contains "the code's KV001 under the staged deployment" "$tmpdir/out" "plugin/attn.py:9:32: error: -1e9 is stored as -inf"

rm "$repo/.kvlint.yaml"
check tests/test_serve.py
expect_status "without .kvlint.yaml too: a staged Python deployment reads the repository's code" 1 $?
expect_contains "the same KV001" "$tmpdir/out" "plugin/attn.py:9:32: error: -1e9 is stored as -inf"

printf 'from vllm import LLM\n\n\ndef serve(name, dtype):\n    return LLM(model=name, dtype=dtype)\n' \
    >"$repo/tests/helper.py"
check tests/helper.py
expect_status "an engine call with no literal declares nothing lexically: the file is code, checked alone" 0 $?
expect_not_contains "so the plugin's store is not read" "$tmpdir/out" "plugin/attn.py"
finish
