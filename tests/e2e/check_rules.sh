#!/bin/sh
# check_rules.sh: every rule has tests/fixtures/<ID>/positive and negative trees (code + deployment
# configs; extra options in <ID>/<kind>.args). `kvlint check --format json` on each must match
# <ID>/<kind>.expected.json (kept outside the scanned tree); a positive tree must report its rule (exit 1), a negative tree
# must report nothing at all (exit 0). Needs the Python and config front ends.
. "$top_srcdir/tests/e2e/lib.sh"

schema="$top_srcdir/docs/check-report.schema.json"
have_jsonschema=false
if [ -n "${PYTHON3:-}" ] && "$PYTHON3" -c 'import jsonschema' 2>/dev/null; then have_jsonschema=true
elif [ "${CI:-}" = true ]; then fail "python3 with jsonschema is required in CI"
else echo "SKIP: *** python3 jsonschema missing: reports NOT validated against docs/check-report.schema.json ***"; fi

validate_report() { # NAME FILE
    $have_jsonschema || return 0
    if "$PYTHON3" - "$schema" "$2" >"$tmpdir/val" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft7Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errors[:5]:
    print("/".join(map(str, e.path)), e.message[:300])
sys.exit(1 if errors else 0)
PY
    then pass "$1 matches docs/check-report.schema.json"; else fail "$1 does not match the report schema"; cat "$tmpdir/val"; fi
}

ids=$(cd "$top_srcdir/rules" && ls KV*.yaml | sed 's/-.*//')
for id in $ids; do
    for kind in positive negative; do
        dir="$fixtures/$id/$kind"
        if [ ! -d "$dir" ]; then
            fail "$id/$kind: no fixture directory"
            continue
        fi
        args=$(cat "$dir.args" 2>/dev/null || true)
        # shellcheck disable=SC2086
        (cd "$dir" && "$KVLINT" check --format json --fail-on note $args .) >"$tmpdir/out.json" 2>"$tmpdir/err"
        status=$?
        if [ "$kind" = positive ]; then
            expect_status "$id/$kind" 1 "$status"
            expect_contains "$id/$kind reports $id" "$tmpdir/out.json" "\"rule\": \"$id\""
        else
            expect_status "$id/$kind" 0 "$status"
            expect_contains "$id/$kind reports nothing" "$tmpdir/out.json" '"findings": []'
        fi
        if [ -s "$tmpdir/err" ]; then
            fail "$id/$kind: unexpected stderr"
            sed 's/^/    /' "$tmpdir/err" | head -n 20
        fi
        compare_golden "$id/$kind golden" "$dir.expected.json" "$tmpdir/out.json"
        validate_report "$id/$kind" "$tmpdir/out.json"
    done
done
# KV005 under --calculate-kv-scales: the per-tensor scale is computed from the mask.
cp -R "$fixtures/KV005/positive" "$tmpdir/kvscales"
printf 'model: /models/m\ndtype: bfloat16\nkv-cache-dtype: fp8\ncalculate-kv-scales: true\n' >"$tmpdir/kvscales/serve.yaml"
(cd "$tmpdir/kvscales" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "calculate-kv-scales" 1 $?
expect_contains "calculate-kv-scales crushes the anchor column" "$tmpdir/out" "per-tensor scale computed by --calculate-kv-scales (absmax / 200) with the other values of this key (fp8_e4m3, declared at serve.yaml:3:17, dynamic scales enabled at serve.yaml:4:22): 0.5 is stored as 0."
expect_contains "calculate-kv-scales: note on the flag" "$tmpdir/out" "serve.yaml:4:22: note: dynamic KV scales enabled here"
printf 'model: /models/m\ndtype: bfloat16\nkv-cache-dtype: fp8\n' >"$tmpdir/kvscales/serve.yaml"
(cd "$tmpdir/kvscales" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "static fp8 scale, key mask: clean" 0 $?

# A direct write into a cache tensor is a PyTorch cast under any engine: KV001/positive's torch
# writer under vLLM's fp8_e4m3 cache is NaN, not the -448 its compiled writer would saturate to
# (a mask that still masks, not reported), which the store was judged by before.
mkdir -p "$tmpdir/torchwriter"
cp "$fixtures/KV001/positive/torch_writer.py" "$tmpdir/torchwriter/"
printf '#!/bin/sh\nexec vllm serve /models/m --dtype bfloat16 --kv-cache-dtype fp8_e4m3\n' >"$tmpdir/torchwriter/serve.sh"
(cd "$tmpdir/torchwriter" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "direct write under vLLM" 1 $?
expect_contains "direct write under vLLM: a PyTorch cast, NaN" "$tmpdir/out" \
    "torch_writer.py:7:12: error: -1e4 is stored as NaN by a PyTorch cast (fp8_e4m3, declared at serve.sh:2:61)"

# KV004's advice works: declaring the range in .kvlint.yaml turns the warning into a decision.
cp -R "$fixtures/KV004/positive" "$tmpdir/declared"
printf 'ranges:\n  num_adapters: {max: 12}\n' >"$tmpdir/declared/.kvlint.yaml"
(cd "$tmpdir/declared" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "declared range: decided" 1 $?
expect_contains "declared range: KV003 with the range's origin" "$tmpdir/out" "holds ids up to 12 (num_adapters = 12, .kvlint.yaml:2:23)"
expect_not_contains "declared range: no KV004" "$tmpdir/out" "[KV004]"
printf 'ranges:\n  num_adapters: {max: 8}\n' >"$tmpdir/declared/.kvlint.yaml"
(cd "$tmpdir/declared" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "declared range within e5m2's 8: clean" 0 $?

# Which code a deployment checks (docs/deployments.md): the model test's and the example's LLM(...)
# run the library, so lib/rotary.py is one finding listing both; neither runs the other test
# directory, and set_default_dtype there is no deployment.
(cd "$fixtures/scope" && "$KVLINT" check --format json .) >"$tmpdir/scope.json" 2>"$tmpdir/err"
expect_status "scope: library code under two script deployments" 1 $?
compare_golden "scope golden" "$fixtures/scope.expected.json" "$tmpdir/scope.json"
validate_report "scope" "$tmpdir/scope.json"
(cd "$fixtures/scope" && "$KVLINT" check .) >"$tmpdir/scope.txt" 2>&1
# The message speaks of the test named after the file (test_rotary.py for rotary.py), then the rest.
expect_contains "scope: deployments listed" "$tmpdir/scope.txt" "note: under 2 deployments: tests/models/test_rotary.py:6 (vllm, python-call) (bfloat16) and examples/offline.py:4 (vllm, python-call) (float16)"
expect_contains "scope: the named test speaks" "$tmpdir/scope.txt" "positions holds ids up to 4095 (max_model_len = 4096, tests/models/test_rotary.py:6:66) but bfloat16"
expect_not_contains "scope: other test directory unchecked" "$tmpdir/scope.txt" "test_cast.py"
# A test of the KV-cache dtype's string (KV001/spelled/backend.py, grammars/dtype_strings.tsv):
# under fp8, fp8_e4m3 and fp8_e5m2 only the test of a spelling no engine has keeps its -1e9; under
# float16 the tests of "auto" are false; under auto (a float16 model) every -1e9 is stored; under a
# checkpoint's FP8 scheme chosen through auto, and under TensorRT-LLM (its code tests QuantAlgo
# values), the tests are not trusted.
spelled_lines() { # ARGS...: the KV001 sites (file without .py : line), space-separated
    (cd "$fixtures/KV001/spelled" && "$KVLINT" check --format json "$@" .) 2>/dev/null |
        "$PYTHON3" -c 'import json, sys; print(" ".join(f["path"][:-3] + ":" + str(f["line"]) for f in json.load(sys.stdin)["findings"] if f["rule"] == "KV001"))'
}
expect_spelled() { # TEST WANT ARGS...
    name=$1 want=$2
    shift 2
    got=$(spelled_lines "$@")
    if [ "$got" = "$want" ]; then pass "$name"; else fail "$name: KV001 at '$got', want '$want'"; fi
}
# not_refined.py: tests that say nothing (a substring of a word, a tensor's dtype, lists appended to)
kept="not_refined:16 not_refined:21 not_refined:26 not_refined:32 not_refined:38"
if [ -n "${PYTHON3:-}" ]; then
    for kv in fp8 fp8_e4m3 fp8_e5m2; do
        expect_spelled "spelled guards under $kv: only the unknown spelling and what says nothing" \
            "backend:56 $kept" --dtype bfloat16 --kv-cache-dtype "$kv"
    done
    expect_spelled "spelled guards under float16: the tests of auto are false" \
        "backend:21 backend:37 backend:40 backend:46 backend:51 backend:56 backend:67 $kept" \
        --dtype bfloat16 --kv-cache-dtype float16
    expect_spelled "spelled guards under auto (float16 model): every -1e9" \
        "backend:21 backend:25 backend:29 backend:37 backend:40 backend:46 backend:51 backend:56 backend:61 backend:67 $kept" \
        --dtype float16 --kv-cache-dtype auto
    cp -R "$fixtures/KV001/spelled" "$tmpdir/spelled-ckpt"
    printf 'model: ckpt\ndtype: bfloat16\n' >"$tmpdir/spelled-ckpt/serve.yaml"
    mkdir -p "$tmpdir/spelled-ckpt/ckpt"
    printf '{"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}\n' >"$tmpdir/spelled-ckpt/ckpt/hf_quant_config.json"
    (cd "$tmpdir/spelled-ckpt" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
    expect_status "spelled guards under a checkpoint's FP8 scheme: not trusted" 1 $?
    expect_contains "spelled guards: the checkpoint's e4m3 cache" "$tmpdir/out" "backend.py:21:19: error: -1e9 is stored as NaN by a PyTorch cast (fp8_e4m3"
    cp -R "$fixtures/KV001/spelled" "$tmpdir/spelled-trt"
    printf 'kv_cache_config:\n  dtype: fp8\n' >"$tmpdir/spelled-trt/extra.yaml"
    printf '#!/bin/sh\ntrtllm-serve /models/m --backend pytorch --extra_llm_api_options extra.yaml\n' >"$tmpdir/spelled-trt/serve.sh"
    (cd "$tmpdir/spelled-trt" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
    expect_status "spelled guards under TensorRT-LLM: not trusted" 1 $?
    expect_contains "spelled guards: TensorRT-LLM's fp8 cache" "$tmpdir/out" "backend.py:21:19: error: -1e9 is stored as NaN by a PyTorch cast (fp8_e4m3"
fi
# A key widened to float32 first is stored from float32 (python/torchapi/widened.py): under a
# float16 model with a bfloat16 cache only the key narrowed to float16 and the one filled in the
# model dtype are -inf.
mkdir -p "$tmpdir/widened"
cp "$fixtures/python/torchapi/widened.py" "$tmpdir/widened/"
printf 'model: /models/m\ndtype: float16\nkv-cache-dtype: bfloat16\n' >"$tmpdir/widened/serve.yaml"
(cd "$tmpdir/widened" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "widened keys: the narrowed ones reported" 1 $?
expect_contains "widened keys: narrowed to float16 first" "$tmpdir/out" "widened.py:15:54: error: -1e9 is stored as -inf"
expect_contains "widened keys: filled in the model dtype" "$tmpdir/out" "widened.py:25:63: error: -1e9 is stored as -inf"
expect_not_contains "widened keys: float32 to bfloat16 holds -1e9" "$tmpdir/out" "widened.py:10:"
expect_not_contains "widened keys: a float32 tensor stored directly" "$tmpdir/out" "widened.py:20:"
finish
