#!/bin/sh
# precommit.sh: the pre-commit hooks (.pre-commit-hooks.yaml) with Debian's pre-commit, end to end
# on a scratch repository made from the example (model code, a bfloat16 deployment, a compose
# replica and the checkpoint): the hook is installed from a clone of this tree's manifest, and
#  - a commit that only switches the compose replica to fp8_e5m2 is blocked with the KV001 finding
#    (the code is read from the repository although only the deployment is staged);
#  - a commit that only touches the code keeps the checkpoint's id range (KV003, ids up to 20);
#  - a commit that makes the deployment safe again passes.
# The `kvlint-build` hook (a full build from source) runs too when CI=true or KVLINT_SLOW_TESTS=1.
# Without pre-commit the test is skipped loudly, except in CI where it must run.
. "$top_srcdir/tests/e2e/lib.sh"

if ! command -v pre-commit >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        fail "pre-commit is not installed (scripts/install-deps --tests installs it); CI must run this test"
        finish
        exit 1
    fi
    echo "SKIP: ************************************************************"
    echo "SKIP: pre-commit is not installed: the pre-commit hook is NOT tested"
    echo "SKIP: (apt-get install pre-commit, or scripts/install-deps --tests)"
    echo "SKIP: ************************************************************"
    exit 77
fi

# A private HOME and pre-commit cache: nothing of the user's git or pre-commit setup leaks in.
export HOME="$tmpdir/home" PRE_COMMIT_HOME="$tmpdir/pre-commit-cache" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=kvlint GIT_AUTHOR_EMAIL=kvlint@example.invalid
export GIT_COMMITTER_NAME=kvlint GIT_COMMITTER_EMAIL=kvlint@example.invalid
mkdir -p "$HOME"
PATH="$(dirname "$KVLINT"):$PATH"; export PATH

# The hook repository: this tree's manifest (and the build script), committed.
hook="$tmpdir/hook"
mkdir -p "$hook/scripts"
cp "$top_srcdir/.pre-commit-hooks.yaml" "$hook/"
cp "$top_srcdir/scripts/pre-commit-kvlint" "$hook/scripts/"
(cd "$hook" && git init -q && git add -A && git commit -qm hooks) || fail "hook repository"
rev=$(git -C "$hook" rev-parse HEAD)

# The project: the example, with the compose replica on auto and no fp8 Kubernetes deployment.
proj="$tmpdir/proj"
cp -R "$top_srcdir/examples/adapter-router" "$proj"
chmod -R u+w "$proj"
rm "$proj/deploy/vllm-fp8.yaml"
sed 's/--kv-cache-dtype fp8_e5m2/--kv-cache-dtype auto/' "$top_srcdir/examples/adapter-router/deploy/compose.yaml" \
    >"$proj/deploy/compose.yaml"
cat >"$proj/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $hook
    rev: $rev
    hooks:
      - id: kvlint
YAML
cd "$proj" || exit 1
git init -q && git add -A && git commit -qm "the example" || fail "project repository"
pre-commit install >"$tmpdir/install.log" 2>&1
expect_status "pre-commit install" 0 $?

sed -i 's/--kv-cache-dtype auto/--kv-cache-dtype fp8_e5m2/' deploy/compose.yaml
git add deploy/compose.yaml
git commit -m "long-context replica in fp8_e5m2" >"$tmpdir/c1.log" 2>&1
expect_status "a deployment-only commit to fp8_e5m2 is blocked" 1 $?
expect_contains "blocked with the KV001 finding" "$tmpdir/c1.log" \
    "adapter_router/layers.py:14:12: error: -1e9 is stored as -57344"
expect_contains "the staged deployment is named" "$tmpdir/c1.log" "deploy/compose.yaml:7:24: note: KV-cache dtype fp8_e5m2 declared here"
expect_contains "pre-commit says the hook failed" "$tmpdir/c1.log" "Failed"
git log --oneline | grep -q "fp8_e5m2" && fail "the blocked commit was made"

git commit -q --no-verify -m "accept the fp8_e5m2 replica for now" || fail "commit --no-verify"
echo "# router heads" >>adapter_router/layers.py
git add adapter_router/layers.py
git commit -m "code only" >"$tmpdir/c2.log" 2>&1
expect_status "a code-only commit is checked against the repository's deployments" 1 $?
expect_contains "and keeps the checkpoint's id range" "$tmpdir/c2.log" \
    "adapter_ids holds ids up to 20 (num_adapters = 20, checkpoint/config.json:9:19)"
expect_not_contains "no range is lost" "$tmpdir/c2.log" "unknown range"
git reset -q --hard

sed -i 's/--kv-cache-dtype fp8_e5m2/--kv-cache-dtype bfloat16/' deploy/compose.yaml
git add deploy/compose.yaml
git commit -m "back to bfloat16" >"$tmpdir/c3.log" 2>&1
expect_status "a commit that makes the replica safe passes" 0 $?
expect_contains "the hook ran" "$tmpdir/c3.log" "kvlint"

if [ "${CI:-}" = true ] || [ "${KVLINT_SLOW_TESTS:-0}" = 1 ]; then
    # The build hook needs the whole source tree in the hook repository.
    src="$tmpdir/hook-src"
    # a checkout is the top of its own repository; a dist tree (make distcheck unpacks it inside
    # the checkout it was made from) is not, and git would list the enclosing repository's files
    top=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null || true)
    if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$top_srcdir" && pwd -P)" ]; then
        mkdir -p "$src"
        (cd "$top_srcdir" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src")
    else
        cp -R "$top_srcdir" "$src"   # a dist tree: every file is a source
        rm -rf "$src/_build"          # except distcheck's build directory inside it
    fi
    chmod -R u+w "$src"
    (cd "$src" && git init -q && git add -A && git commit -qm src) || fail "build hook repository"
    cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $src
    rev: $(git -C "$src" rev-parse HEAD)
    hooks:
      - id: kvlint-build
YAML
    git add .pre-commit-config.yaml && git commit -q --no-verify -m "build hook"
    sed -i 's/--kv-cache-dtype bfloat16/--kv-cache-dtype fp8_e5m2/' deploy/compose.yaml
    git add deploy/compose.yaml
    KVLINT_BUILD_JOBS=2 PATH=$(echo "$PATH" | sed "s|$(dirname "$KVLINT"):||") git commit -m "fp8_e5m2 again" >"$tmpdir/c4.log" 2>&1
    expect_status "kvlint-build: built on first use, blocks the commit" 1 $?
    expect_contains "kvlint-build reports the finding" "$tmpdir/c4.log" "[KV001]"
    git commit -m "fp8_e5m2 again" >"$tmpdir/c5.log" 2>&1
    expect_status "kvlint-build: the cached build is reused" 1 $?
    expect_not_contains "no second build" "$tmpdir/c5.log" "building kvlint"
else
    echo "SKIP: the kvlint-build hook (a full build) runs only with CI=true or KVLINT_SLOW_TESTS=1"
fi
finish
