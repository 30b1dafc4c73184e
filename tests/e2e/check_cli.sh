#!/bin/sh
# check_cli.sh: `kvlint check` options, exit codes and the text/github/json formats on a
# config-only fixture (an invalid dtype name: no Python front end involved), user rule files
# (--rules) and malformed ones (file:line, exit 2).
. "$top_srcdir/tests/e2e/lib.sh"

kv009="$fixtures/KV009/positive"
run() { (cd "$kv009" && "$KVLINT" "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

run check; expect_status "no PATH" 2 $?
run check --format xml .; expect_status "bad --format" 2 $?
run check --fail-on sometimes .; expect_status "bad --fail-on" 2 $?
run check --select KV999 .; expect_status "unknown --select" 2 $?
expect_contains "unknown --select names it" "$tmpdir/err" "no rule is called 'KV999'"
run check does-not-exist; expect_status "missing path" 2 $?
run check --config nope.yaml .; expect_status "I/O error wins over findings" 2 $?
expect_contains "findings still printed" "$tmpdir/out" "[KV009]"
expect_contains "I/O error named" "$tmpdir/err" "nope.yaml: error: cannot open"
run check -o /nonexistent-dir/report.json .; expect_status "unwritable --output" 2 $?

run check --color never .; expect_status "finding: exit 1" 1 $?
expect_contains "gcc style" "$tmpdir/out" "deploy.yaml:14:15: error: 'fp8-e4m3' is not a KV-cache dtype"
expect_contains "rule id" "$tmpdir/out" "[KV009]"
expect_contains "source line" "$tmpdir/out" "   14 |             - fp8-e4m3"
expect_contains "caret" "$tmpdir/out" "      |               ^~~~~~~~"
expect_contains "summary" "$tmpdir/out" "kvlint: 1 error in 1 file, 1 deployment"
expect_contains "a near miss gets a suggestion" "$tmpdir/out" "(vllm k8s-args); did you mean 'fp8_e4m3'? valid names: float32,"
mkdir -p "$tmpdir/farname"
printf 'model: /m\nkv-cache-dtype: banana\n' >"$tmpdir/farname/serve.yaml"
(cd "$tmpdir/farname" && "$KVLINT" check .) >"$tmpdir/out2" 2>&1
expect_status "far name: a finding" 1 $?
expect_contains "a far name gets the list only" "$tmpdir/out2" "(vllm vllm-config); valid names: float32,"
expect_not_contains "a far name gets no guess" "$tmpdir/out2" "did you mean"
expect_not_contains "no color when asked" "$tmpdir/out" "$(printf '\033')"
run check .; expect_not_contains "no color on a pipe" "$tmpdir/out" "$(printf '\033')"
run check --color always .; expect_contains "color when forced" "$tmpdir/out" "$(printf '\033[1;31m')"

# On a terminal (script(1) gives one): color unless NO_COLOR is set and non-empty.
if command -v script >/dev/null 2>&1; then
    (cd "$kv009" && script -qec "'$KVLINT' check ." /dev/null) >"$tmpdir/tty" 2>&1
    expect_contains "color on a tty" "$tmpdir/tty" "$(printf '\033[1;31m')"
    (cd "$kv009" && NO_COLOR=1 script -qec "'$KVLINT' check ." /dev/null) >"$tmpdir/tty" 2>&1
    expect_contains "NO_COLOR: still reported" "$tmpdir/tty" "[KV009]"
    expect_not_contains "NO_COLOR honoured on a tty" "$tmpdir/tty" "$(printf '\033[')"
else
    echo "SKIP: script(1) not installed: tty color tests not run"
fi

run check --fail-on never .; expect_status "--fail-on never" 0 $?
run check --fail-on error .; expect_status "--fail-on error" 1 $?
run check --ignore KV009 .; expect_status "--ignore" 0 $?
expect_contains "--ignore: no findings" "$tmpdir/out" "no findings"

run check --format github .; expect_status "github" 1 $?
expect_contains "workflow command (path relative to the repository top, which differs in a dist tree)" "$tmpdir/out" "deploy.yaml,line=14,col=15,endLine=14"
expect_contains "workflow title" "$tmpdir/out" "title=KV009 unknown-dtype-name::"

run check --format json -o "$tmpdir/report.json" .; expect_status "--output" 1 $?
expect_contains "--output file written" "$tmpdir/report.json" '"rule": "KV009"'
expect_contains "json dtype_origin null" "$tmpdir/report.json" '"dtype_origin": null'
expect_contains "json summary" "$tmpdir/report.json" '"errors": 1'

# Suppressions in a config file: on the line of the declaration, by id or name; stale ones.
mkdir -p "$tmpdir/sup"
sed 's/- fp8-e4m3/- fp8-e4m3  # kvlint: ignore[KV009] -- a typo kept for the test/' "$kv009/deploy.yaml" >"$tmpdir/sup/deploy.yaml"
(cd "$tmpdir/sup" && "$KVLINT" check --warn-unused-ignores .) >"$tmpdir/out" 2>&1
expect_status "suppressed in YAML" 0 $?
expect_contains "suppressed count" "$tmpdir/out" "no findings (1 suppressed)"
sed 's/- fp8-e4m3/- fp8-e4m3  # kvlint: ignore[sentinel-overflow]/' "$kv009/deploy.yaml" >"$tmpdir/sup/deploy.yaml"
(cd "$tmpdir/sup" && "$KVLINT" check --warn-unused-ignores .) >"$tmpdir/out" 2>&1
expect_status "other rule's ignore does not suppress" 1 $?
expect_contains "stale ignore reported" "$tmpdir/out" "deploy.yaml:14:25: warning: kvlint: ignore[sentinel-overflow] suppresses nothing on this line. Remove the comment. [KV011]"
(cd "$tmpdir/sup" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_not_contains "stale ignores only with --warn-unused-ignores" "$tmpdir/out" "[KV011]"

# A user rule reusing a family with another severity.
mkdir -p "$tmpdir/rules"
cat >"$tmpdir/rules/org.yaml" <<'YAML'
id: ORG001
name: org-dtype-typo
severity: warning
summary: Our deployments must spell dtypes the way vLLM does.
condition: {family: invalid-dtype-name}
message: "'{raw}' is not a dtype name ({declared})"
YAML
run check --rules "$tmpdir/rules" --select ORG001 --fail-on error .; expect_status "user rule below --fail-on" 0 $?
expect_contains "user rule reports" "$tmpdir/out" "warning: 'fp8-e4m3' is not a dtype name (vllm k8s-args) [ORG001]"
run check --rules "$tmpdir/rules" --select ORG001 .; expect_status "user rule at --fail-on" 1 $?

# Malformed rule files: file:line:col, exit 2.
printf 'id: BAD1\nname: bad\nsummary: s\nmessage: "{nonsense}"\ncondition: {family: arithmetic}\n' >"$tmpdir/rules/bad.yaml"
run check --rules "$tmpdir/rules" .; expect_status "malformed rule file" 2 $?
expect_contains "malformed: file:line" "$tmpdir/err" "bad.yaml:4:10: error: unknown placeholder {nonsense}"
# A setting another family has, a placeholder this one does not fill: rejected at their lines.
printf 'id: BAD1\nname: bad\nsummary: s\nmessage: "{value} holds {limit}"\ncondition:\n  family: store-value\n  range: known\n' >"$tmpdir/rules/bad.yaml"
run check --rules "$tmpdir/rules" .; expect_status "setting of another family" 2 $?
expect_contains "foreign setting: file:line" "$tmpdir/err" "bad.yaml:7:10: error: unknown condition key 'range': family 'store-value' has the settings values, outcomes, operands, mask_floor"
expect_contains "foreign placeholder: file:line" "$tmpdir/err" "bad.yaml:4:10: error: unknown placeholder {limit} in message: family 'store-value' fills"
printf 'id: [\n' >"$tmpdir/rules/bad.yaml"
run check --rules "$tmpdir/rules" .; expect_status "YAML syntax error in rule file" 2 $?
expect_contains "syntax error located" "$tmpdir/err" "bad.yaml:2:1: error: malformed rule file"
run check --rules "$tmpdir/nowhere" .; expect_status "missing rules dir" 2 $?
finish
