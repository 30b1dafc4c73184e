#!/bin/sh
# check_multiswitch.sh: the MultiSwitch case (DOMAIN.md section 1) end to end: a vLLM plugin whose
# counting head stores a -1e9 key mask and whose memory head stores adapter ids in V and +-3.5
# codeword keys in K, checked against one deployment config at a time. Goldens in
# tests/fixtures/multiswitch/expected/. Needs the Python and config front ends.
. "$top_srcdir/tests/e2e/lib.sh"

ms="$fixtures/multiswitch"
scenario() { # NAME WANT-STATUS CONFIG CHECKPOINT
    (cd "$ms" && "$KVLINT" check --format json switch --config "deploy/$3.yaml" \
        --model-config "$4/config.json") >"$tmpdir/$1.json" 2>"$tmpdir/err"
    expect_status "$1" "$2" $?
    compare_golden "$1 golden" "$ms/expected/$1.json" "$tmpdir/$1.json"
}
scenario float16 1 float16 checkpoint-20
expect_contains "float16: mask overflows" "$tmpdir/float16.json" '"rule": "KV001"'
expect_contains "float16: torch.full raises" "$tmpdir/float16.json" '"rule": "KV006"'
scenario fp8_e5m2 1 fp8_e5m2 checkpoint-20
expect_contains "e5m2: -inf on the Triton path" "$tmpdir/fp8_e5m2.json" "as -57344 by vLLM's CUDA cache writer and as -inf by vLLM's Triton cache writer"
scenario fp8_e4m3-20-adapters 1 fp8_e4m3 checkpoint-20
expect_contains "e4m3/20: adapter 17 reads back as 16" "$tmpdir/fp8_e4m3-20-adapters.json" "17 is stored as 16"
expect_not_contains "e4m3/20: the saturated key mask still masks" "$tmpdir/fp8_e4m3-20-adapters.json" '"rule": "KV001"'
scenario fp8_e4m3-8-adapters 0 fp8_e4m3 checkpoint-8
expect_contains "e4m3/8: clean" "$tmpdir/fp8_e4m3-8-adapters.json" '"findings": []'
scenario bfloat16 0 bfloat16 checkpoint-20
expect_contains "bfloat16: clean" "$tmpdir/bfloat16.json" '"findings": []'

# A what-if dtype from the command line has no origin in a file.
(cd "$ms" && "$KVLINT" check --format json switch --kv-cache-dtype fp8_e5m2 \
    --model-config checkpoint-20/config.json) >"$tmpdir/whatif.json" 2>&1
expect_status "what-if --kv-cache-dtype fp8_e5m2" 1 $?
expect_contains "what-if: KV001" "$tmpdir/whatif.json" '"rule": "KV001"'
expect_contains "what-if: dtype_origin null" "$tmpdir/whatif.json" '"dtype_origin": null'

# The +-3.5 codeword keys alone are exact in every 8-bit format.
for d in fp8_e4m3 fp8_e5m2; do
    (cd "$ms" && "$KVLINT" check codeword --kv-cache-dtype "$d") >"$tmpdir/cw" 2>&1
    expect_status "codeword keys under $d" 0 $?
done

# Text output: one finding per site (its deployments listed), primary location at the value's origin.
(cd "$ms" && "$KVLINT" check switch --config deploy/fp8_e5m2.yaml --config deploy/fp8_e4m3.yaml \
    --config deploy/bfloat16.yaml --model-config checkpoint-20/config.json) >"$tmpdir/all.txt" 2>&1
expect_status "three deployments" 1 $?
expect_contains "summary counts" "$tmpdir/all.txt" "kvlint: 2 errors in 5 files, 3 deployments"
expect_contains "adapter ids: one site, two deployments" "$tmpdir/all.txt" "switch/multi.py:41:37: note: under 2 deployments: deploy/fp8_e4m3.yaml:3 (vllm, vllm-config) (fp8_e4m3) and deploy/fp8_e5m2.yaml:3 (vllm, vllm-config) (fp8_e5m2)"
expect_contains "origin first" "$tmpdir/all.txt" "switch/multi.py:12:12: error: -1e9 is stored"
expect_contains "sink note" "$tmpdir/all.txt" "switch/multi.py:31:16: note: stored into the KV cache as the key by self.attn"
expect_contains "dtype note" "$tmpdir/all.txt" "deploy/fp8_e5m2.yaml:3:17: note: KV-cache dtype fp8_e5m2 declared here"

# Deterministic whatever the thread count.
for j in 1 2 4; do
    (cd "$ms" && "$KVLINT" check --format json -j "$j" switch --config deploy/fp8_e5m2.yaml \
        --config deploy/float16.yaml --model-config checkpoint-20/config.json) >"$tmpdir/j$j.json" 2>&1
done
if cmp -s "$tmpdir/j1.json" "$tmpdir/j2.json" && cmp -s "$tmpdir/j1.json" "$tmpdir/j4.json"; then
    pass "same report with -j 1, 2, 4"; else fail "report depends on -j"; fi

# The matrix: safe only where the cache holds bfloat16 or float32.
(cd "$ms" && "$KVLINT" matrix --format json switch --model-config checkpoint-20/config.json) >"$tmpdir/matrix.json" 2>"$tmpdir/err"
expect_status "matrix" 0 $?
compare_golden "matrix golden" "$ms/expected/matrix.json" "$tmpdir/matrix.json"
if "$PYTHON3" - "$tmpdir/matrix.json" >"$tmpdir/why" 2>&1 <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
safe = {(c["kv_cache_dtype"], c["dtype"]) for c in m["cells"] if c["verdict"] == "safe"}
bad = [c for c in safe if c[0] not in ("bfloat16", "float32")]
need = {("bfloat16", "bfloat16"), ("float32", "bfloat16"), ("bfloat16", "float32"), ("float32", "float32")}
missing = need - safe
print("unexpected safe:", bad, "missing safe:", sorted(missing))
sys.exit(1 if bad or missing else 0)
PY
then pass "matrix: safe only for bfloat16/float32 caches"; else fail "matrix verdicts"; cat "$tmpdir/why"; fi
(cd "$ms" && "$KVLINT" matrix switch --model-config checkpoint-20/config.json) >"$tmpdir/matrix.txt" 2>&1
expect_contains "matrix table names the first offending line" "$tmpdir/matrix.txt" "KV001 multi.py:12"
expect_contains "matrix list gives the full location" "$tmpdir/matrix.txt" "switch/multi.py:12:"
finish
