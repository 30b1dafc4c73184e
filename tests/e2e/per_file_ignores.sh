#!/bin/sh
# per_file_ignores.sh: .kvlint.yaml `rules.per_file_ignores` (docs/configuration.md): the listed
# rules' findings are not reported in the files a glob matches (relative to the .kvlint.yaml
# folder), in every format, and the summary says how many were hidden; the rules still run there,
# so KV011 judges a suppression comment in such a file as usual; an unknown rule id or a glob
# kvlint cannot read is an error with file:line.
. "$top_srcdir/tests/e2e/lib.sh"
proj="$tmpdir/proj"
mkmodel() {   # mkmodel FILE [COMMENT]: a model storing a -1e9 key (KV001 under float16)
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<PY
import torch
from vllm.attention import Attention

class M(torch.nn.Module):
    def __init__(self):
        self.attn = Attention(8, 64, 1.0)

    def forward(self, q, k, v, pad):
        k = k.masked_fill(pad, -1e9)${2:-}
        return self.attn(q, k, v)
PY
}
mkmodel "$proj/model/layers.py"
mkmodel "$proj/tests/test_layers.py"
mkmodel "$proj/tests/test_suppressed.py" "  # kvlint: ignore[KV001] -- a test of the mask"
mkmodel "$proj/bench/test_speed.py"
mkdir -p "$proj/deploy"
printf 'services:\n  vllm:\n    image: vllm/vllm-openai\n    command: ["--model", "m", "--dtype", "float16"]\n' >"$proj/deploy/compose.yaml"
run() { (cd "$proj" && "$KVLINT" check "$@" .) >"$tmpdir/out" 2>"$tmpdir/err"; }

run
expect_status "without per_file_ignores" 1 $?
expect_contains "tests/ reported" "$tmpdir/out" "tests/test_layers.py:9:32: error:"

cat >"$proj/.kvlint.yaml" <<'YAML'
rules:
  per_file_ignores:
    "tests/**": [KV001]
    "test_speed.py": sentinel-overflow
YAML
run
expect_status "per_file_ignores: model/ still fails" 1 $?
expect_contains "model/ reported" "$tmpdir/out" "model/layers.py:9:32: error:"
expect_not_contains "tests/** hidden" "$tmpdir/out" "tests/test_layers.py"
expect_not_contains "a name without '/' matches in any folder, a rule by name" "$tmpdir/out" "bench/test_speed.py"
expect_contains "the summary counts them" "$tmpdir/out" "kvlint: 1 error (1 suppressed, 2 ignored in their files)"
run --format json
expect_contains "JSON summary" "$tmpdir/out" '"per_file_ignored": 2'
n=$(grep -c '"rule": "KV001"' "$tmpdir/out")
expect_status "JSON: one finding" 1 "$n"
run --format sarif
expect_not_contains "SARIF honours it" "$tmpdir/out" "tests/test_layers.py"
run --format gitlab
expect_not_contains "gitlab honours it" "$tmpdir/out" "tests/test_layers.py"
run --format junit
expect_not_contains "junit honours it" "$tmpdir/out" "tests/test_layers.py"

# The rule still ran in tests/: the comment there suppressed a finding, so it is used (no KV011).
run --warn-unused-ignores
expect_not_contains "KV011 stays quiet for a used suppression" "$tmpdir/out" "[KV011]"
mkmodel "$proj/tests/test_unused.py"
printf 'x = 1  # kvlint: ignore[KV001]\n' >>"$proj/tests/test_unused.py"
run --warn-unused-ignores
expect_contains "KV011 still reports an unused one" "$tmpdir/out" "tests/test_unused.py:11:"
rm "$proj/tests/test_unused.py"

cat >"$proj/.kvlint.yaml" <<'YAML'
rules:
  per_file_ignores:
    "tests/**": [KV001, KV999]
YAML
run
expect_status "an unknown rule id" 2 $?
expect_contains "with file:line" "$tmpdir/err" ".kvlint.yaml:3:25: error: rules.per_file_ignores: 'tests/**': no rule is called 'KV999'"
cat >"$proj/.kvlint.yaml" <<'YAML'
rules:
  per_file_ignores:
    "tests/{a,b}/**": [KV001]
    "/abs/**": [KV001]
YAML
run
expect_status "globs kvlint cannot read" 2 $?
expect_contains "braces, with file:line" "$tmpdir/err" ".kvlint.yaml:3:5: error: rules.per_file_ignores: 'tests/{a,b}/**': globs have no character classes or braces"
expect_contains "absolute" "$tmpdir/err" ".kvlint.yaml:4:5: error: rules.per_file_ignores: '/abs/**': globs are relative"
printf 'rules:\n  per_file_ignores: [KV001]\n' >"$proj/.kvlint.yaml"
run
expect_status "not a mapping" 2 $?
finish
