#!/bin/sh
# ci_recipes.sh: the recipes of docs/ci.md run as written. The YAML block after each
# `<!-- ci-recipe: NAME -->` marker is parsed (python3 + PyYAML) and its commands are run on the
# example, made a repository with an `origin` whose main branch has the compose replica on auto and
# a feature branch that switches it to fp8_e5m2:
#  - github: every `run:` step except the one that installs kvlint (this test uses the kvlint it
#    built), with the step's env and ${{ github.base_ref }} = main (a pull request) and empty (a
#    push); the SARIF file it uploads, the annotations, the step summary;
#  - gitlab: the job's variables and `script:` lines (not `before_script:`, the install), with
#    CI_MERGE_REQUEST_TARGET_BRANCH_NAME = main; the two report files its artifacts name;
#  - pre-commit: the config with `repo:` and `rev:` pointing at a clone of this tree's hooks,
#    installed and run on a commit (skipped loudly without pre-commit, except in CI).
. "$top_srcdir/tests/e2e/lib.sh"
export HOME="$tmpdir/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=kvlint GIT_AUTHOR_EMAIL=kvlint@example.invalid
export GIT_COMMITTER_NAME=kvlint GIT_COMMITTER_EMAIL=kvlint@example.invalid
mkdir -p "$HOME"
PATH="$(dirname "$KVLINT"):$PATH"; export PATH
py=${PYTHON3:-python3}
if ! "$py" -c 'import yaml' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then fail "python3 with PyYAML is required in CI"; finish; exit 1; fi
    echo "SKIP: *** python3 PyYAML missing: docs/ci.md recipes NOT tested ***"
    exit 77
fi

# extract NAME OUT [BASE_REF]: the recipe NAME as a shell script (or, for pre-commit, the YAML).
extract() {
    "$py" - "$top_srcdir/docs/ci.md" "$@" <<'PY'
import re, shlex, sys, yaml
doc, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
base = sys.argv[4] if len(sys.argv) > 4 else ""
text = open(doc).read()
m = re.search(r"<!-- ci-recipe: %s -->\s*```yaml\n(.*?)```" % re.escape(name), text, re.S)
if not m:
    sys.exit("no recipe %s in %s" % (name, doc))
src = m.group(1)
data = yaml.safe_load(src)
lines = ["set -e"]
if name == "github":
    steps = data["jobs"]["kvlint"]["steps"]
    assert any(s.get("uses", "").startswith("actions/checkout") for s in steps)
    upload = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    assert upload, "no SARIF upload step"
    lines.append("echo SARIF=%s" % shlex.quote(upload[0]["with"]["sarif_file"]))
    for s in steps:
        if "run" not in s or s.get("name", "").startswith("Install"):
            continue
        for k, v in (s.get("env") or {}).items():
            v = str(v).replace("${{ github.base_ref }}", base)
            assert "${{" not in v, v
            lines.append("export %s=%s" % (k, shlex.quote(v)))
        assert "${{" not in s["run"], s["run"]
        lines.append(s["run"])
elif name == "gitlab":
    job = data["kvlint"]
    for k, v in (job.get("variables") or {}).items():
        lines.append("export %s=%s" % (k, shlex.quote(str(v))))
    lines.append("export CI_MERGE_REQUEST_TARGET_BRANCH_NAME=%s" % shlex.quote(base))
    reports = job["artifacts"]["reports"]
    lines.append("echo REPORTS=%s,%s" % (reports["codequality"], reports["junit"]))
    lines.extend(job["script"])
else:
    repo, rev = sys.argv[4], sys.argv[5]
    data["repos"][0]["repo"], data["repos"][0]["rev"] = repo, rev
    open(out, "w").write(yaml.safe_dump(data))
    sys.exit(0)
open(out, "w").write("\n".join(lines) + "\n")
PY
}

# origin: main with the replica on auto; work: a clone on a feature branch that switches it.
origin="$tmpdir/origin"
cp -R "$top_srcdir/examples/adapter-router" "$origin" && chmod -R u+w "$origin"
sed -i 's/--kv-cache-dtype fp8_e5m2/--kv-cache-dtype auto/' "$origin/deploy/compose.yaml"
(cd "$origin" && git init -q -b main && git add -A && git commit -qm example) || fail "origin"
git clone -q "$origin" "$tmpdir/work"
cd "$tmpdir/work" || exit 1
git checkout -q -b feature
sed -i 's/--kv-cache-dtype auto/--kv-cache-dtype fp8_e5m2/' deploy/compose.yaml
git commit -qam "replica in fp8_e5m2"

# ---- GitHub Actions ----
extract github "$tmpdir/gh.sh" main || fail "github recipe extracted"
GITHUB_STEP_SUMMARY="$tmpdir/summary.md" sh "$tmpdir/gh.sh" >"$tmpdir/gh.out" 2>&1
expect_status "github recipe (pull request): the new finding fails the step" 1 $?
sarif=$(sed -n 's/^SARIF=//p' "$tmpdir/gh.out")
expect_contains "annotation for the new KV001" "$tmpdir/gh.out" "::error file=adapter_router/layers.py,line=14"
expect_not_contains "the e4m3 finding main already had is not annotated" "$tmpdir/gh.out" "fp8_e4m3 (declared"
if "$py" -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; assert len(r["results"]) == 2, r["results"]' "$sarif" 2>"$tmpdir/v"; then
    pass "github recipe wrote $sarif with the 2 new results"; else fail "github recipe SARIF"; cat "$tmpdir/v"; fi
expect_contains "step summary" "$tmpdir/summary.md" "2 errors, 0 warnings, 0 notes"
extract github "$tmpdir/gh-push.sh" "" || fail "github recipe extracted (push)"
sh "$tmpdir/gh-push.sh" >"$tmpdir/gh.out" 2>&1
expect_status "github recipe (push): the whole tree" 1 $?
# one finding per site: the adapter-id site lists the e4m3 deployment next to compose's e5m2
expect_contains "push run has the e4m3 finding too" "$tmpdir/gh.out" "deploy/vllm-fp8.yaml:21 (vllm, k8s-args) (fp8_e4m3)"

# ---- GitLab CI ----
extract gitlab "$tmpdir/gl.sh" main || fail "gitlab recipe extracted"
sh "$tmpdir/gl.sh" >"$tmpdir/gl.out" 2>&1
expect_status "gitlab recipe (merge request): findings fail the job" 1 $?
expect_contains "text report in the log" "$tmpdir/gl.out" "kvlint: 2 errors in"
reports=$(sed -n 's/^REPORTS=//p' "$tmpdir/gl.out")
cq=${reports%,*}; junit=${reports#*,}
if "$py" -c 'import json,sys; a=json.load(open(sys.argv[1])); assert len(a) == 2 and all(i["location"]["path"] == "adapter_router/layers.py" for i in a), a' "$cq" 2>"$tmpdir/v"; then
    pass "gitlab recipe wrote the Code Quality report $cq"; else fail "gitlab Code Quality report"; cat "$tmpdir/v"; fi
if "$py" -c 'import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert r.get("failures") == "2", r.attrib' "$junit" 2>"$tmpdir/v"; then
    pass "gitlab recipe wrote the JUnit report $junit"; else fail "gitlab JUnit report"; cat "$tmpdir/v"; fi
sh "$tmpdir/gl.sh" >"$tmpdir/gl.out" 2>&1
expect_status "the job run again in the same tree: its own reports are not inputs" 1 $?
expect_not_contains "nothing refused" "$tmpdir/gl.out" "refusing"

# ---- pre-commit ----
if ! command -v pre-commit >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then fail "pre-commit is required in CI"; else
        echo "SKIP: *** pre-commit not installed: the pre-commit recipe is NOT tested ***"; fi
    finish
    exit
fi
hook="$tmpdir/hook"
mkdir -p "$hook/scripts"
cp "$top_srcdir/.pre-commit-hooks.yaml" "$hook/" && cp "$top_srcdir/scripts/pre-commit-kvlint" "$hook/scripts/"
(cd "$hook" && git init -q && git add -A && git commit -qm hooks) || fail "hook repository"
export PRE_COMMIT_HOME="$tmpdir/pre-commit-cache"
git checkout -q main
extract pre-commit .pre-commit-config.yaml "$hook" "$(git -C "$hook" rev-parse HEAD)" || fail "pre-commit recipe extracted"
git add .pre-commit-config.yaml && git commit -qm "pre-commit config"
pre-commit install >"$tmpdir/pc.out" 2>&1
expect_status "pre-commit recipe installs" 0 $?
sed -i 's/--kv-cache-dtype auto/--kv-cache-dtype fp8_e5m2/' deploy/compose.yaml
git commit -qam "replica in fp8_e5m2" >"$tmpdir/pc.out" 2>&1
expect_status "pre-commit recipe blocks the deployment-only commit" 1 $?
expect_contains "with the finding" "$tmpdir/pc.out" "[KV001]"
finish
