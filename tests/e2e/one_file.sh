#!/bin/sh
# one_file.sh: `kvlint check FILE...` (a pre-commit run) reads the named files' context and reports
# what involves them (docs/check.md, "Runs on named files"), on scratch repositories made from the
# example: without .kvlint.yaml (git top, every config), with one (code:, deployments:,
# model_config:), outside any repository, and with --config naming the deployments.
. "$top_srcdir/tests/e2e/lib.sh"
git_home
ex="$top_srcdir/examples/adapter-router"
mkrepo() { git_tree "$ex" "$1"; }   # mkrepo DIR: the example as a git work tree of its own
check() { (cd "$repo" && "$KVLINT" check "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

repo="$tmpdir/plain"
mkrepo "$repo"
check deploy/compose.yaml
expect_status "deployment only: the repository's code is read" 1 $?
expect_contains "KV001 from the code" "$tmpdir/out" "adapter_router/layers.py:14:12: error: -1e9 is stored as -57344"
expect_contains "KV003 with the checkpoint's range" "$tmpdir/out" "ids up to 20 (num_adapters = 20, checkpoint/config.json:9:19) but fp8_e5m2"
expect_not_contains "the other deployments' findings are not reported" "$tmpdir/out" "vllm-fp8.yaml"
expect_contains "summary" "$tmpdir/out" "kvlint: 2 errors in 5 files, 3 deployments"
check adapter_router/layers.py
expect_status "code only: the repository's deployments are read" 1 $?
# one finding per site: the e4m3 deployment is listed with the e5m2 one the message speaks of
expect_contains "e4m3 deployment found" "$tmpdir/out" "under 2 deployments: deploy/compose.yaml:7 (vllm, compose) (fp8_e5m2) and deploy/vllm-fp8.yaml:21 (vllm, k8s-args) (fp8_e4m3)"
expect_contains "range kept" "$tmpdir/out" "ids up to 20 (num_adapters = 20, checkpoint/config.json:9:19)"
check deploy/serve.yaml
expect_status "the bfloat16 deployment alone is clean" 0 $?
(cd "$repo/deploy" && "$KVLINT" check compose.yaml) >"$tmpdir/out" 2>&1
expect_status "from a subfolder: the git top is the project" 1 $?
expect_contains "code found from a subfolder" "$tmpdir/out" "[KV001]"
printf 'a: [unclosed\n  vllm: dtype\n' >"$repo/deploy/broken.yaml"
check adapter_router/layers.py
expect_status "an unrelated malformed config does not make the run fail" 1 $?
expect_not_contains "nor is it printed" "$tmpdir/err" "broken.yaml"
check deploy/broken.yaml
expect_contains "a malformed named config is reported" "$tmpdir/err" "broken.yaml:2:7: warning: malformed YAML"
rm "$repo/deploy/broken.yaml"
head -c 9000000 /dev/zero | tr '\0' a >"$repo/big.py"
check deploy/compose.yaml
expect_status "a context file over the size limit does not make the run incomplete" 1 $?
check big.py
expect_status "a named file over the limit does" 2 $?
rm "$repo/big.py"
check --config deploy/serve.yaml adapter_router/layers.py
expect_status "--config names the deployments: no others are read" 0 $?

# libclang is loaded only when a C/C++ file is parsed (src/cxx/libclang.c): loading it costs about
# 30 ms of CPU, several times what a one-file Python run needs. The sanitizer build links it, so it
# loads with the program there (docs/building.md); the lazy load is a release build's.
(cd "$repo" && LD_DEBUG=files "$KVLINT" check adapter_router/layers.py) >/dev/null 2>"$tmpdir/ld"
expect_contains "the dynamic loader reports" "$tmpdir/ld" "file="
if grep -q "file=libasan" "$tmpdir/ld"; then
    expect_contains "sanitizer build: libclang loads with the program" "$tmpdir/ld" "libclang"
else
    expect_not_contains "a Python file does not load libclang" "$tmpdir/ld" "libclang"
fi
cp "$top_srcdir/tests/fixtures/cxx/suppress/sup.cu" "$repo/sup.cu"
(cd "$repo" && LD_DEBUG=files "$KVLINT" check sup.cu) >/dev/null 2>"$tmpdir/ld"
expect_contains "a CUDA file does" "$tmpdir/ld" "libclang"
rm "$repo/sup.cu"

# With .kvlint.yaml: its globs decide.
repo="$tmpdir/proj"
mkrepo "$repo"
mkdir -p "$repo/other"
cp "$ex/adapter_router/layers.py" "$repo/other/copy.py"
cat >"$repo/.kvlint.yaml" <<'YAML'
code: [adapter_router/**]
deployments: [deploy/compose.yaml]
model_config: [checkpoint/config.json]
YAML
check deploy/compose.yaml
expect_status ".kvlint.yaml code: read for a deployment-only run" 1 $?
expect_contains "code: glob's file" "$tmpdir/out" "adapter_router/layers.py:14:12"
expect_not_contains "a file outside code: is not read" "$tmpdir/out" "other/copy.py"
check adapter_router/layers.py
expect_status "deployments: and model_config: for a code-only run" 1 $?
expect_contains "model_config: keeps the range" "$tmpdir/out" "ids up to 20 (num_adapters = 20, checkpoint/config.json:9:19)"
expect_not_contains "a deployment outside deployments: is not read" "$tmpdir/out" "vllm-fp8.yaml"
printf 'model_config: 3: x\n' >"$repo/.kvlint.yaml"
check adapter_router/layers.py
expect_status "a bad model_config: is an error" 2 $?

# Outside a repository and without .kvlint.yaml: the named file alone.
repo="$tmpdir/norepo"
cp -R "$ex" "$repo" && chmod -R u+w "$repo"
check deploy/compose.yaml
expect_status "no project: the named deployment alone" 0 $?
expect_contains "one file read" "$tmpdir/out" "in 1 file, 1 deployment"
finish
