#!/bin/sh
# gitignore_walk.sh: directory walks leave out what .gitignore ignores inside a git work tree
# (docs/check.md, "What a directory walk skips"): per-folder .gitignore files, negation, anchoring
# and info/exclude on a scratch repository; a PATH named on the command line is still read;
# --no-ignore and `respect_gitignore: false` read everything; outside a work tree .gitignore is
# not read; a one-file run does not take an ignored deployment as context. The matcher's
# semantics are compared with `git check-ignore` in tests/unit/check_gitignore.c.
. "$top_srcdir/tests/e2e/lib.sh"
git_home
mkmodel() {   # mkmodel FILE: a model that stores a -1e9 key (KV001 under float16)
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<'PY'
import torch
from vllm.attention import Attention

class M(torch.nn.Module):
    def __init__(self):
        self.attn = Attention(8, 64, 1.0)

    def forward(self, q, k, v, pad):
        k = k.masked_fill(pad, -1e9)
        return self.attn(q, k, v)
PY
}
mktree() {   # mktree DIR: the model in four places, a float16 deployment, .gitignore files
    mkmodel "$1/model/layers.py"
    mkmodel "$1/generated/layers.py"
    mkmodel "$1/vendor/keep/layers.py"
    mkmodel "$1/vendor/drop/layers.py"
    mkmodel "$1/scratch_local.py"
    mkdir -p "$1/deploy" "$1/local"
    printf 'services:\n  vllm:\n    image: vllm/vllm-openai\n    command: ["--model", "m", "--dtype", "float16"]\n' >"$1/deploy/compose.yaml"
    printf 'services:\n  vllm:\n    image: vllm/vllm-openai\n    command: ["--model", "m", "--dtype", "float16", "--kv-cache-dtype", "fp8_e5m2"]\n' >"$1/local/compose.yaml"
    printf '# generated code\ngenerated/\n/local/\nvendor/*\n!vendor/keep/\n' >"$1/.gitignore"
}
run() { (cd "$repo" && "$KVLINT" check --format json "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }
files() { grep -o '"path": "[^"]*layers.py"' "$tmpdir/out" | sort -u | tr '\n' ' '; }

repo="$tmpdir/repo"
mktree "$repo"
git -C "$repo" init -q
printf 'scratch_local.py\n' >"$repo/.git/info/exclude"
run .
expect_status "a walk with findings" 1 $?
expect_status "model/ and vendor/keep/ only" \
    '"path": "model/layers.py" "path": "vendor/keep/layers.py" ' "$(files)"
expect_not_contains "ignored folder not read" "$tmpdir/out" "generated/layers.py"
expect_not_contains "info/exclude applies" "$tmpdir/out" "scratch_local.py"
expect_not_contains "an ignored deployment is not read" "$tmpdir/out" "fp8_e5m2"
run model generated deploy
expect_status "a named ignored folder is read" 1 $?
expect_contains "named folder's file" "$tmpdir/out" '"path": "generated/layers.py"'
run generated/layers.py
expect_status "a named ignored file is read" 1 $?
expect_contains "named file's finding" "$tmpdir/out" '"path": "generated/layers.py"'
run model/layers.py
expect_status "one-file run: the ignored local/ deployment is no context" 1 $?
expect_not_contains "only deploy/compose.yaml's float16" "$tmpdir/out" "local/compose.yaml"
run --no-ignore .
expect_status "--no-ignore" 1 $?
expect_contains "--no-ignore reads generated/" "$tmpdir/out" '"path": "generated/layers.py"'
expect_contains "--no-ignore reads info/exclude's" "$tmpdir/out" '"path": "scratch_local.py"'
# What .kvlint.yaml names is read even if ignored: a deployment under the ignored local/.
printf 'deployments: [deploy/compose.yaml, local/compose.yaml]\n' >"$repo/.kvlint.yaml"
run model/layers.py
expect_status "deployments: names an ignored file: it is read" 1 $?
expect_contains "its fp8_e5m2 finding" "$tmpdir/out" "local/compose.yaml"
expect_not_contains "no 'matches no file' warning" "$tmpdir/err" "matches no file"
run .
expect_contains "also in a directory walk" "$tmpdir/out" "local/compose.yaml"
printf 'respect_gitignore: false\n' >"$repo/.kvlint.yaml"
run .
expect_contains "respect_gitignore: false" "$tmpdir/out" '"path": "vendor/drop/layers.py"'
printf 'respect_gitignore: sometimes\n' >"$repo/.kvlint.yaml"
run .
expect_status "a bad respect_gitignore: is an error" 2 $?
expect_contains "with its line" "$tmpdir/err" ".kvlint.yaml:1:20: error: respect_gitignore: expected true or false"
rm "$repo/.kvlint.yaml"
git -C "$repo" add -f generated/layers.py
run .
expect_contains "a tracked file is never ignored (git's rule)" "$tmpdir/out" '"path": "generated/layers.py"'
git -C "$repo" rm -q --cached generated/layers.py
(cd "$repo/vendor" && "$KVLINT" check --format json .) >"$tmpdir/out" 2>"$tmpdir/err"
expect_status "from a subfolder, the top's .gitignore applies" \
    '"path": "keep/layers.py" ' "$(files)"

norepo="$tmpdir/norepo"
mktree "$norepo"
repo=$norepo
run .
expect_status "outside a work tree .gitignore is not read" 1 $?
expect_contains "generated/ read" "$tmpdir/out" '"path": "generated/layers.py"'
finish
