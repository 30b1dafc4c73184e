#!/bin/sh
# ci_workflow.sh: the pull-request workflow on a scratch git repository made from the example:
# `check --diff REF` (merge-base semantics, --diff-filter, a missing REF and a shallow clone),
# `kvlint baseline` + `check --baseline` (+ --prune), and the CI formats: gitlab (Code Quality),
# junit, github (caps, errors first, $GITHUB_STEP_SUMMARY, paths from the repository top), SARIF
# helpUri and invocations, the JSON diagnostics array, several --format F=FILE in one run.
# The formats are checked against the facts of their public schemas written down below (GitLab's
# Code Quality fields, the JUnit XML attributes CI services read); SARIF against the OASIS schema
# when it is available (as in check_sarif.sh).
. "$top_srcdir/tests/e2e/lib.sh"
export HOME="$tmpdir/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=kvlint GIT_AUTHOR_EMAIL=kvlint@example.invalid
export GIT_COMMITTER_NAME=kvlint GIT_COMMITTER_EMAIL=kvlint@example.invalid
mkdir -p "$HOME"
py=${PYTHON3:-python3}

repo="$tmpdir/repo"
cp -R "$top_srcdir/examples/adapter-router" "$repo" && chmod -R u+w "$repo"
cd "$repo" || exit 1
sed -i 's/--kv-cache-dtype fp8_e5m2/--kv-cache-dtype auto/' deploy/compose.yaml
git init -q -b main && git add -A && git commit -qm "the example, compose on auto"
git checkout -q -b feature
"$KVLINT" baseline -o .kvlint-baseline.json . >"$tmpdir/b.out" 2>&1
expect_status "baseline recorded" 0 $?
sed -i 's/--kv-cache-dtype auto/--kv-cache-dtype fp8_e5m2/' deploy/compose.yaml
git commit -qam "compose replica in fp8_e5m2"

# ---- --diff ----
"$KVLINT" check --diff HEAD~1 . >"$tmpdir/d.txt" 2>&1
expect_status "--diff HEAD~1: the new findings fail" 1 $?
expect_contains "KV001 brought in by the changed deployment line" "$tmpdir/d.txt" "layers.py:14:12: error: -1e9"
expect_contains "KV003 for fp8_e5m2" "$tmpdir/d.txt" "but fp8_e5m2 (declared at deploy/compose.yaml:7:24)"
expect_not_contains "the old e4m3 finding is not shown" "$tmpdir/d.txt" "but fp8_e4m3"
# one finding per site: the adapter-id site is unsafe under compose's e5m2 too, and its finding speaks
# of compose (the first deployment), so the changed line brings both sites in
expect_contains "how many were left out" "$tmpdir/d.txt" "kvlint: 2 errors in 5 files, 3 deployments"
"$KVLINT" check --changed-since main --format json . >"$tmpdir/d.json" 2>&1
expect_contains "--changed-since is --diff (merge-base with main)" "$tmpdir/d.json" '"outside_diff": 0'
"$KVLINT" check --diff HEAD~1 --diff-filter all . >"$tmpdir/d.txt" 2>&1
expect_contains "--diff-filter all keeps every finding" "$tmpdir/d.txt" "kvlint: 2 errors in 5 files"
echo "# note" >>adapter_router/layers.py
git commit -qam "touch the code"
"$KVLINT" check --diff HEAD~1 --diff-filter file . >"$tmpdir/d.txt" 2>&1
expect_contains "--diff-filter file: findings in a changed file" "$tmpdir/d.txt" "kvlint: 2 errors"
"$KVLINT" check --diff HEAD~1 . >"$tmpdir/d.txt" 2>&1
expect_status "--diff-filter added: a comment line brings nothing in" 0 $?
(cd adapter_router && "$KVLINT" check --diff HEAD~2 ..) >"$tmpdir/d.txt" 2>&1
expect_contains "--diff from a subfolder: paths from the repository top" "$tmpdir/d.txt" "kvlint: 2 errors in 5 files"
"$KVLINT" check --diff no-such-ref . >"$tmpdir/d.txt" 2>&1
expect_status "a missing REF is a usage error" 2 $?
expect_contains "and says so" "$tmpdir/d.txt" "'no-such-ref' is not a commit in this repository"
git clone -q --depth 1 "file://$repo" "$tmpdir/shallow" 2>/dev/null
(cd "$tmpdir/shallow" && "$KVLINT" check --diff HEAD~1 .) >"$tmpdir/d.txt" 2>&1
expect_status "a shallow clone without REF: exit 2" 2 $?
expect_contains "with what to fetch" "$tmpdir/d.txt" "fetch-depth: 0"
mkdir -p "$tmpdir/nogit" && cp adapter_router/layers.py "$tmpdir/nogit/"
(cd "$tmpdir/nogit" && GIT_CEILING_DIRECTORIES="$tmpdir" "$KVLINT" check --diff HEAD .) >"$tmpdir/d.txt" 2>&1
expect_status "--diff outside a repository: exit 2" 2 $?
expect_contains "says it is not a work tree" "$tmpdir/d.txt" "is not in a git work tree"
"$KVLINT" check --diff-filter file . >"$tmpdir/d.txt" 2>&1
expect_status "--diff-filter without --diff" 2 $?

# ---- baseline ----
"$KVLINT" check --baseline .kvlint-baseline.json . >"$tmpdir/b.txt" 2>&1
expect_status "--baseline: new findings still fail" 1 $?
# the recorded adapter-id site (under e4m3) is now also unsafe under compose's e5m2: its finding
# speaks of the new deployment, a new fingerprint, so it is reported, not hidden
expect_contains "a recorded site broken by a new deployment is reported" "$tmpdir/b.txt" "kvlint: 2 errors in 5 files"
expect_not_contains "it is not shown" "$tmpdir/b.txt" "but fp8_e4m3"
git stash -q 2>/dev/null; git checkout -q HEAD~2 -- deploy/compose.yaml
"$KVLINT" check --baseline .kvlint-baseline.json . >"$tmpdir/b.txt" 2>&1
expect_status "--baseline: only recorded findings: clean" 0 $?
git checkout -q HEAD -- deploy/compose.yaml
sed -i 's/            - fp8$/            - bfloat16/' deploy/vllm-fp8.yaml
cp .kvlint-baseline.json "$tmpdir/before.json"
"$KVLINT" check --baseline .kvlint-baseline.json --prune . >"$tmpdir/b.txt" 2>&1
expect_status "--prune: the run still reports the new findings" 1 $?
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); e=json.load(open(sys.argv[2])); print(len(d["findings"]), len(e["findings"]))' \
    "$tmpdir/before.json" .kvlint-baseline.json >"$tmpdir/n" 2>&1
expect_contains "--prune dropped the fixed finding" "$tmpdir/n" "1 0"
git checkout -q -- deploy/vllm-fp8.yaml
echo '{"not": "a baseline"}' >"$tmpdir/other.json"
"$KVLINT" check --baseline "$tmpdir/other.json" . >"$tmpdir/b.txt" 2>&1
expect_status "a file that is not a baseline" 2 $?
expect_contains "is named" "$tmpdir/b.txt" "is not a kvlint baseline"
"$KVLINT" baseline -o "$tmpdir/other.json" . >"$tmpdir/b.txt" 2>&1
expect_status "baseline refuses to replace another file" 2 $?
expect_contains "the other file is kept" "$tmpdir/other.json" '"not"'

# ---- formats ----
"$KVLINT" check --format text --format gitlab=gl.json --format junit=junit.xml --format sarif=k.sarif \
    --format json=k.json --format github=gh.txt . >"$tmpdir/all.txt" 2>&1
expect_status "several --format F=FILE in one run" 1 $?
expect_contains "text to standard output" "$tmpdir/all.txt" "kvlint: 2 errors"
"$KVLINT" check --format gitlab . >"$tmpdir/gl1.json" 2>/dev/null
if cmp -s gl.json "$tmpdir/gl1.json"; then pass "gitlab=FILE is the same report"; else fail "gitlab=FILE differs"; fi
"$KVLINT" check --format json --format sarif . >"$tmpdir/x" 2>&1
expect_status "two reports to standard output are refused" 2 $?

# GitLab Code Quality (docs.gitlab.com, "Code Quality report format"): an array of issues, each with
# description, check_name, fingerprint (unique), severity in info|minor|major|critical|blocker,
# location.path (relative to the repository) and location.lines.begin (integer).
"$py" - gl.json >"$tmpdir/v" 2>&1 <<'PY'
import json, sys
issues = json.load(open(sys.argv[1]))
assert isinstance(issues, list) and len(issues) == 2, issues
seen = set()
for i in issues:
    for k in ("description", "check_name", "fingerprint", "severity", "location"):
        assert isinstance(i.get(k), (str, dict)) and i[k], (k, i)
    assert i["severity"] in ("info", "minor", "major", "critical", "blocker"), i["severity"]
    assert i["fingerprint"] not in seen, "duplicate fingerprint"
    seen.add(i["fingerprint"])
    loc = i["location"]
    assert isinstance(loc["path"], str) and not loc["path"].startswith("/"), loc
    assert isinstance(loc["lines"]["begin"], int) and loc["lines"]["begin"] >= 1, loc
print("ok", sorted(x["check_name"] for x in issues))
PY
expect_contains "gitlab report has the Code Quality fields" "$tmpdir/v" "ok ['KV001', 'KV003']"

# JUnit XML (the attributes GitLab, Jenkins and Azure read): testsuites > testsuite(name, tests,
# failures, errors) > testcase(name, classname) > failure(message, type); counts add up.
"$py" - junit.xml >"$tmpdir/v" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
total = fails = 0
for s in root.findall("testsuite"):
    for a in ("name", "tests", "failures", "errors"):
        assert a in s.attrib, (a, s.attrib)
    cases = s.findall("testcase")
    assert int(s.get("tests")) == len(cases)
    nf = sum(1 for c in cases if c.find("failure") is not None)
    assert int(s.get("failures")) == nf
    for c in cases:
        assert c.get("name") and c.get("classname"), c.attrib
        f = c.find("failure")
        if f is not None:
            assert f.get("message") and f.get("type"), f.attrib
    total += len(cases); fails += nf
assert int(root.get("tests")) == total and int(root.get("failures")) == fails
print("ok", total, fails)
PY
expect_contains "junit report is well-formed and adds up" "$tmpdir/v" "ok 2 2"
"$KVLINT" check --format junit --config nope.yaml . >"$tmpdir/j.xml" 2>/dev/null
expect_contains "a failed run has a junit <error>" "$tmpdir/j.xml" '<error type="diagnostic" message="cannot open'

# SARIF: helpUri per rule, invocations with executionSuccessful and the diagnostics.
"$KVLINT" check --format sarif --config nope.yaml . >"$tmpdir/bad.sarif" 2>/dev/null
"$py" - k.sarif "$tmpdir/bad.sarif" >"$tmpdir/v" 2>&1 <<'PY'
import json, sys
good, bad = (json.load(open(p))["runs"][0] for p in sys.argv[1:3])
assert all(r["helpUri"].endswith("/%s.md" % r["id"]) for r in good["tool"]["driver"]["rules"])
assert good["invocations"][0]["executionSuccessful"] is True
inv = bad["invocations"][0]
assert inv["executionSuccessful"] is False
n = inv["toolExecutionNotifications"][0]
assert n["level"] == "error" and "cannot open" in n["message"]["text"]
assert n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "nope.yaml"
print("ok")
PY
expect_contains "SARIF helpUri and invocations" "$tmpdir/v" "ok"
schema="${KVLINT_SARIF_SCHEMA:-$top_srcdir/../shared/schemas/sarif-schema-2.1.0.json}"
if [ -f "$schema" ] && "$py" -c 'import jsonschema' 2>/dev/null; then
    "$py" -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1]))); print("valid")' \
        "$schema" "$tmpdir/bad.sarif" >"$tmpdir/v" 2>&1
    expect_contains "SARIF with notifications validates against SARIF 2.1.0" "$tmpdir/v" "valid"
else
    echo "SKIP: *** SARIF schema or python3 jsonschema missing: invocations not schema-validated ***"
fi

# JSON: the diagnostics array (and the schema in docs/).
"$KVLINT" check --format json --config nope.yaml . >"$tmpdir/bad.json" 2>/dev/null
expect_status "a failed run exits 2" 2 $?
"$py" - "$tmpdir/bad.json" k.json "$top_srcdir/docs/check-report.schema.json" >"$tmpdir/v" 2>&1 <<'PY'
import json, sys
bad, good = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
d = bad["diagnostics"]
assert [x["level"] for x in d] == ["error"] and d[0]["path"] == "nope.yaml", d
assert good["diagnostics"] == []
try:
    import jsonschema
    schema = json.load(open(sys.argv[3]))
    jsonschema.validate(bad, schema); jsonschema.validate(good, schema)
except ImportError:
    pass
print("ok")
PY
expect_contains "JSON diagnostics array" "$tmpdir/v" "ok"

# GitHub: errors first, at most 10 of each kind, a notice for the rest, the step summary, paths
# from the repository top when run from a subfolder. Seven copies of the code: 14 sites (one
# finding per site, whatever the number of deployments).
for i in 1 2 3 4 5 6; do cp adapter_router/layers.py "adapter_router/copy$i.py"; done
(cd deploy && GITHUB_STEP_SUMMARY="$tmpdir/summary.md" "$KVLINT" check --format github ..) >"$tmpdir/gh.txt" 2>&1
expect_status "github format exit status" 1 $?
n=$(grep -c '^::error ' "$tmpdir/gh.txt")
if [ "$n" = 10 ]; then pass "10 errors annotated (GitHub's cap per step)"; else fail "$n errors annotated, want 10"; fi
expect_contains "the rest are log lines" "$tmpdir/gh.txt" ": error: "
expect_contains "a notice says how many" "$tmpdir/gh.txt" "::notice title=kvlint::4 more findings are not annotated"
expect_contains "paths from the repository top" "$tmpdir/gh.txt" "::error file=adapter_router/"
expect_contains "step summary written" "$tmpdir/summary.md" "14 errors, 0 warnings, 0 notes"
expect_contains "step summary table" "$tmpdir/summary.md" "| error | KV001 sentinel-overflow | \`adapter_router/copy1.py:14\` |"
finish
