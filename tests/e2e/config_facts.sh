#!/bin/sh
# config_facts.sh: `kvlint facts --format json` on every config fixture (tests/fixtures/config/<case>),
# compared with tests/fixtures/config/golden/<case>.golden (JSON on stdout, then diagnostics), plus the
# options that change resolution (--model-config, --platform, what-ifs, .kvlint.yaml).
. "$top_srcdir/tests/e2e/lib.sh"
cfg="$fixtures/config"
golden="$cfg/golden"

# run NAME DIR ARGS...: facts in DIR, stdout + "--- stderr" + stderr into $tmpdir/NAME.out
run() {
    name=$1 dir=$2
    shift 2
    (cd "$dir" && "$KVLINT" facts --format json "$@" >"$tmpdir/$name.out" 2>"$tmpdir/$name.err")
    status=$?
    { echo "--- stderr"; cat "$tmpdir/$name.err"; } >>"$tmpdir/$name.out"
    return $status
}

for case in vllm-config k8s helm kserve compose compose-quote ci sglang trtllm trtllm-engine checkpoint docker robust unrelated ray env merge; do
    run "$case" "$cfg/$case" .
    got=$?
    # robust/ nests YAML past the depth limit: that run is incomplete, so never clean (exit 2).
    want=0; [ "$case" = robust ] && want=2
    expect_status "$case: exit" $want $got
    compare_golden "$case: facts" "$golden/$case.golden" "$tmpdir/$case.out"
done

# compose-quote/: the .env that compose interpolates leaves its quote open (this crashed: the env
# file's warning went to a diagnostics list never set up). The value runs to the end of the file,
# newline included, and the text report shows that newline escaped, on the finding's one line.
(cd "$cfg" && "$KVLINT" check compose-quote) >"$tmpdir/quote.txt" 2>&1
expect_status "compose-quote: the odd value is a finding, not a crash" 1 $?
expect_contains "compose-quote: a control byte of a value is escaped in the text report" "$tmpdir/quote.txt" \
    "compose-quote/docker-compose.yaml:6:51: error: 'float16\\n' is not a model dtype any engine accepts"

# Precision: unrelated YAML (dataset card, training recipe, CI matrix, package.json) declares nothing.
expect_contains "unrelated: no dtypes" "$tmpdir/unrelated.out" '"dtypes": []'

# YAML merge keys (merge/): merged services are deployments; twins from one template are one.
"$PYTHON3" - "$tmpdir/merge.out" >"$tmpdir/merge.names" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().split("--- stderr")[0])
for x in d["deployments"]:
    print(x["name"])
PY
expect_contains "merge: a service's command over the template's image" "$tmpdir/merge.names" "docker-compose.yaml:18 (vllm, compose)"
expect_contains "merge: an own command overrides the merged one" "$tmpdir/merge.names" "docker-compose.yaml:14 (vllm, compose)"
expect_contains "merge: the earlier mapping of a list wins" "$tmpdir/merge.names" "docker-compose.list.yml:3 (vllm, compose)"
expect_not_contains "merge: the later mapping of a list loses" "$tmpdir/merge.out" '"raw": "8192"'
expect_contains "merge: a template and the two jobs merging it are one deployment" "$tmpdir/merge.names" ".gitlab-ci.yml:6 (vllm, yaml)"
[ "$(grep -c . "$tmpdir/merge.names")" = 5 ] && pass "merge: five deployments" || fail "merge: five deployments"

# Resolution options.
run model-config "$cfg/k8s" --model-config ../checkpoint/config.json .
expect_status "model-config: exit" 0 $?
compare_golden "model-config: auto resolves from the named checkpoint" "$golden/model-config.golden" "$tmpdir/model-config.out"

run rocm "$cfg/k8s" --platform rocm .
expect_contains "rocm: fp8 is e4m3fnuz" "$tmpdir/rocm.out" '"dtype": "fp8_e4m3fnuz"'
expect_contains "rocm: flag in deployments" "$tmpdir/rocm.out" '"rocm": true'

run whatif "$cfg/checkpoint" --kv-cache-dtype fp8_e5m2 --dtype float16 .
expect_contains "what-if kv" "$tmpdir/whatif.out" '"how": "what-if --kv-cache-dtype"'
expect_contains "what-if model" "$tmpdir/whatif.out" '"how": "what-if --dtype"'
# `--kv-cache-dtype auto` / `--dtype auto` replace declared dtypes with the engines' auto chains.
run whatif-auto "$top_srcdir/examples/adapter-router" --kv-cache-dtype auto --dtype auto .
expect_contains "what-if auto kv follows the model" "$tmpdir/whatif-auto.out" '"how": "auto: model dtype"'
expect_contains "what-if auto model from the checkpoint" "$tmpdir/whatif-auto.out" '"how": "auto: checkpoint torch_dtype"'
expect_not_contains "what-if auto replaces declared fp8" "$tmpdir/whatif-auto.out" '"dtype": "fp8_e4m3"'

# The tree's one checkpoint is the checkpoint of the deployments beside it only (ckpt-beside/README.md):
# a unit test's fake weights are not the checkpoint of an example serving a Hub model.
run ckpt-beside "$cfg/ckpt-beside" .
expect_status "ckpt-beside: exit" 0 $?
expect_contains "ckpt-beside: the test's deployment runs the fake weights" "$tmpdir/ckpt-beside.out" \
    '"how": "auto: checkpoint torch_dtype"'
expect_contains "ckpt-beside: the example's model dtype is unresolved" "$tmpdir/ckpt-beside.out" \
    "the tree's one checkpoint config is in tests/ut/fake_weight, not beside this deployment; name it with --model-config"
(cd "$cfg/ckpt-beside" && "$KVLINT" check --format json . >"$tmpdir/ckpt-beside-check.out" 2>&1)
expect_status "ckpt-beside: check finds the pad under the test's deployment" 1 $?
expect_contains "ckpt-beside: KV006 under tests/ut/run_fake.sh" "$tmpdir/ckpt-beside-check.out" '"name": "tests/ut/run_fake.sh:2 (vllm, cli)"'
expect_not_contains "ckpt-beside: not under examples/serve.sh" "$tmpdir/ckpt-beside-check.out" '"name": "examples/serve.sh:2 (vllm, cli)"'

# .kvlint.yaml: assume, ranges, platform, and errors with line:col.
run project "$cfg/project/good" .
expect_status "project: exit" 0 $?
compare_golden "project: assume and ranges" "$golden/project.golden" "$tmpdir/project.out"

run project-bad "$cfg/project/bad" .
expect_status "bad project: exit 2" 2 $?
expect_contains "bad project: unknown key at line:col" "$tmpdir/project-bad.out" \
    ".kvlint.yaml:3:1: error: unknown key 'platfrom'"
expect_contains "bad project: bad dtype at line:col" "$tmpdir/project-bad.out" \
    ".kvlint.yaml:5:10: error: assume: unknown dtype 'bfloat17'"

# `deployments:` globs are read even when the command line names one Python file (pre-commit).
run precommit "$cfg/project/precommit" src/model.py
expect_status "pre-commit: exit" 0 $?
expect_contains "pre-commit: deployment from the glob" "$tmpdir/precommit.out" '"name": "deploy/serve.yaml:2 (vllm, vllm-config)"'
expect_contains "pre-commit: platform rocm from .kvlint.yaml" "$tmpdir/precommit.out" '"dtype": "fp8_e4m3fnuz"'
# a glob that names no file is a warning (the second glob matches the file the first one took)
expect_contains "pre-commit: glob without files" "$tmpdir/precommit.out" \
    ".kvlint.yaml: warning: deployments: 'docker/*.Dockerfile' matches no file under ."
expect_not_contains "pre-commit: glob with files" "$tmpdir/precommit.out" "'deploy/serve.yaml' matches no file"

finish
