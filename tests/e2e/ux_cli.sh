#!/bin/sh
# ux_cli.sh: command-line defects found while trying kvlint as a new user (issue 9, item 7), each
# checked here so it cannot come back:
#  - --warn-unused-ignores under --select/--ignore, what-ifs and named files without their project
#    called valid suppressions unused (KV011): it is now off for such runs, with a note;
#  - an unknown rule id in .kvlint.yaml rules.select/ignore was accepted (select turned every rule
#    off): it is an error, as on the command line;
#  - a binary whose data folder is missing (DESTDIR-staged) said only "rules directory not found";
#  - getopt's message and ours were both printed for a bad option;
#  - diagnostics were printed after the findings;
#  - --stats said "1 deployments";
#  - --config/--model-config naming a file that is not a serving config was accepted silently, and
#    a malformed JSON one was a warning ("malformed YAML") with exit 1;
#  - docs/output-formats.md showed matrix cells as `unsafe RULE path:line`, not as printed;
#  - an unknown id in a suppression comment (ignore[KV03]) was not reported;
#  - --quiet, and "did you mean" for a mistyped what-if dtype.
. "$top_srcdir/tests/e2e/lib.sh"
git_home
kv011="$fixtures/KV011/negative"
run() { (cd "$dir" && "$KVLINT" "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

dir=$kv011
run check --warn-unused-ignores .
expect_status "KV011 fixture: the suppression is used" 0 $?
for opts in "--select KV003" "--ignore KV002" "--kv-cache-dtype fp8_e5m2" "--dtype float16"; do
    # shellcheck disable=SC2086
    run check --warn-unused-ignores $opts .
    expect_not_contains "KV011 not reported under $opts" "$tmpdir/out" "[KV011]"
    expect_contains "a note says why ($opts)" "$tmpdir/err" "--warn-unused-ignores is off for this run"
done
cp -R "$kv011" "$tmpdir/alone"
dir="$tmpdir/alone"
GIT_CEILING_DIRECTORIES="$tmpdir" run check --warn-unused-ignores head.py
expect_not_contains "KV011 not reported for a file read without its project" "$tmpdir/out" "[KV011]"

dir="$tmpdir/proj"
mkdir -p "$dir" && cp "$kv011"/* "$dir/"
printf 'rules:\n  select: [KV001, KV999]\n  ignore: [no-such-rule]\n' >"$dir/.kvlint.yaml"
run check .
expect_status "unknown rule ids in .kvlint.yaml rules: exit 2" 2 $?
expect_contains "select id named with the file" "$tmpdir/err" ".kvlint.yaml: error: rules.select: no rule is called 'KV999'"
expect_contains "ignore name named" "$tmpdir/err" "rules.ignore: no rule is called 'no-such-rule'"

# rules.severity: a project makes a rule's findings warnings (text, exit status with --fail-on error)
dir="$tmpdir/sev"
mkdir -p "$dir"
printf 'import torch\nx = torch.full((2,), -1e9, dtype=torch.float16)\nkv_cache[0] = x\n' >"$dir/m.py"
printf 'rules:\n  severity: {KV006: warning}\n' >"$dir/.kvlint.yaml"
run check --format json .
expect_status "rules.severity: still a finding" 1 $?
expect_contains "rules.severity: KV006 is a warning here" "$tmpdir/out" '"severity": "warning"'
expect_not_contains "rules.severity: no error left" "$tmpdir/out" '"severity": "error"'
run check --fail-on error .
expect_status "rules.severity: --fail-on error passes a warning" 0 $?
printf 'rules:\n  severity: {KV999: warning}\n' >"$dir/.kvlint.yaml"
run check .
expect_status "rules.severity: unknown rule exits 2" 2 $?
expect_contains "rules.severity: unknown rule with file:line" "$tmpdir/err" ".kvlint.yaml:2:14: error: rules.severity: no rule is called 'KV999'"
printf 'rules:\n  severity: {KV006: loud}\n' >"$dir/.kvlint.yaml"
run check .
expect_status "rules.severity: unknown severity exits 2" 2 $?
expect_contains "rules.severity: unknown severity" "$tmpdir/err" "rules.severity: 'loud' is no severity (error, warning or note)"

dir=$kv011
(cd "$dir" && KVLINT_DATADIR="$tmpdir/staged/share/kvlint" "$KVLINT" check .) >"$tmpdir/out" 2>"$tmpdir/err"
expect_status "missing data folder: exit 2" 2 $?
expect_contains "the path it tried" "$tmpdir/err" "$tmpdir/staged/share/kvlint/rules"
expect_contains "names KVLINT_DATADIR" "$tmpdir/err" "KVLINT_DATADIR names the folder holding rules/ and grammars/"

for cmd in check facts matrix explain; do
    run "$cmd" --bogus-option .
    expect_status "$cmd: bad option" 2 $?
    n=$(grep -vc "^Try " "$tmpdir/err")
    if [ "$n" = 1 ]; then pass "$cmd: the bad option is reported once"; else fail "$cmd: $n messages"; cat "$tmpdir/err"; fi
    expect_contains "$cmd: and named" "$tmpdir/err" "'--bogus-option'"
done

kv001="$fixtures/KV001/positive"
(cd "$kv001" && "$KVLINT" check --config missing.yaml .) >"$tmpdir/both" 2>&1
first_diag=$(grep -n "missing.yaml: error" "$tmpdir/both" | head -n 1 | cut -d: -f1)
first_finding=$(grep -n ": error: .*\[KV001\]" "$tmpdir/both" | head -n 1 | cut -d: -f1)
if [ -n "$first_diag" ] && [ -n "$first_finding" ] && [ "$first_diag" -lt "$first_finding" ]; then
    pass "diagnostics come before the findings"
else
    fail "diagnostics after the findings (diag line $first_diag, finding line $first_finding)"; cat "$tmpdir/both"
fi

run check --stats .
expect_contains "--stats: 1 deployment, singular" "$tmpdir/err" "(2 files, 1 deployment, 0 findings)"

dir=$kv001
run check --quiet .
expect_status "--quiet keeps the exit status" 1 $?
expect_not_contains "--quiet: no summary line" "$tmpdir/out" "kvlint: "
expect_contains "--quiet: the finding" "$tmpdir/out" "[KV001]"
dir=$kv011
run check -q .
if [ -s "$tmpdir/out" ]; then fail "--quiet on a clean run prints something"; cat "$tmpdir/out"; else pass "--quiet on a clean run prints nothing"; fi

run check --kv-cache-dtype fp8-e5m2 .
expect_status "mistyped what-if dtype" 2 $?
expect_contains "did you mean" "$tmpdir/err" "unknown dtype 'fp8-e5m2'; did you mean 'fp8_e5m2'?"
run check --dtype bfloat61 .
expect_contains "did you mean (model dtype)" "$tmpdir/err" "did you mean 'bfloat16'?"
dir=$kv011
printf '{"torch_dtype": "bfloat16",\n' >"$tmpdir/bad.json"
run check --model-config "$tmpdir/bad.json" .
expect_status "malformed JSON --model-config: exit 2" 2 $?
expect_contains "called JSON and an error" "$tmpdir/err" "error: --model-config: not valid JSON"
printf 'foo: bar\n' >"$tmpdir/other.yaml"
run check --config "$tmpdir/other.yaml" .
expect_contains "a --config that declares nothing is not silent" "$tmpdir/err" "other.yaml: warning: --config: declares nothing kvlint reads"
run check --config serve.yaml .
expect_not_contains "a real --config: no such warning" "$tmpdir/err" "declares nothing"

mkdir -p "$tmpdir/typo"
cp "$kv011"/* "$tmpdir/typo/"
sed -i 's/ignore\[KV001\]/ignore[KV03,KV001]/' "$tmpdir/typo/head.py"
dir="$tmpdir/typo"
run check .
expect_contains "unknown id in a suppression is reported at the comment" "$tmpdir/err" \
    "head.py:5:14: warning: kvlint: ignore[KV03]: no rule is called 'KV03'"
expect_contains "the valid id still suppresses" "$tmpdir/out" "(1 suppressed)"

# The matrix example in docs/output-formats.md is what kvlint prints (those rows, in that form).
awk '/<!-- matrix-example -->/ { on = 1; next } on && /^```/ { if (++fence == 2) exit; next } on && fence == 1' \
    "$top_srcdir/docs/output-formats.md" >"$tmpdir/doc-matrix"
(cd "$top_srcdir" && "$KVLINT" matrix examples/) >"$tmpdir/matrix" 2>&1
missing=0
while IFS= read -r line; do grep -qxF -- "$line" "$tmpdir/matrix" || { missing=1; echo "    not printed: $line"; }; done <"$tmpdir/doc-matrix"
if [ -s "$tmpdir/doc-matrix" ] && [ "$missing" = 0 ]; then pass "docs' matrix rows are printed as shown"; else fail "docs' matrix rows differ from the output"; fi
finish
