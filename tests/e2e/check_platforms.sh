#!/bin/sh
# check_platforms.sh: the platform a deployment runs on changes the verdict (docs/deployments.md,
# docs/dtypes.md "conversion paths"). tests/fixtures/platforms/<tree> each hold the same vLLM head
# (V = -1e9) and one deployment: a T4 node (nodeSelector) runs the bfloat16 checkpoint as float16,
# so -1e9 is -inf (KV001); without the hint it is bfloat16 and safe; vLLM's CPU image clamps it to
# -57344 in fp8_e5m2 (KV002), where a GPU's Triton writer gives -inf (KV001); a Ray Serve
# LLMConfig's accelerator_type: T4 is a T4 node too (ray-t4). Goldens are
# platforms/<tree>.expected.json. --platform and .kvlint.yaml `platform:` name the same platforms.
. "$top_srcdir/tests/e2e/lib.sh"

trees="$fixtures/platforms"
run() { # TREE ARGS...
    t=$1
    shift
    (cd "$trees/$t" && "$KVLINT" check --format json "$@" .) >"$tmpdir/$t.json" 2>"$tmpdir/err"
}

run t4; expect_status "t4: a T4 node runs bfloat16 as float16" 1 $?
expect_contains "t4: -1e9 overflows float16" "$tmpdir/t4.json" '"rule": "KV001"'
expect_contains "t4: note at the node selector" "$tmpdir/t4.json" "runs on cuda-sm75: a GPU below sm80, without bfloat16"
compare_golden "t4 golden" "$trees/t4.expected.json" "$tmpdir/t4.json"

# Ray Serve's accelerator_type places the replicas: T4 is such a node
run ray-t4; expect_status "ray-t4: accelerator_type T4 runs bfloat16 as float16" 1 $?
expect_contains "ray-t4: -1e9 overflows float16" "$tmpdir/ray-t4.json" '"rule": "KV001"'
expect_contains "ray-t4: note at accelerator_type" "$tmpdir/ray-t4.json" "runs on cuda-sm75: a GPU below sm80, without bfloat16"
compare_golden "ray-t4 golden" "$trees/ray-t4.expected.json" "$tmpdir/ray-t4.json"
mkdir -p "$tmpdir/ray-l4" && cp "$trees/ray-t4/head.py" "$trees/ray-t4/config.json" "$tmpdir/ray-l4/"
sed 's/accelerator_type: T4/accelerator_type: L4/' "$trees/ray-t4/serve_config.yaml" >"$tmpdir/ray-l4/serve_config.yaml"
(cd "$tmpdir/ray-l4" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "ray: accelerator_type L4 (sm89) keeps bfloat16" 0 $?
sed 's/accelerator_type: T4/accelerator_type: AMD-Instinct-MI300X-OAM/' "$trees/ray-t4/serve_config.yaml" >"$tmpdir/ray-l4/serve_config.yaml"
(cd "$tmpdir/ray-l4" && "$KVLINT" facts .) >"$tmpdir/out" 2>&1
expect_contains "ray: an AMD Instinct accelerator_type is rocm" "$tmpdir/out" "vllm platform = rocm"

run ampere; expect_status "ampere: no hint, bfloat16 holds -1e9" 0 $?
compare_golden "ampere golden" "$trees/ampere.expected.json" "$tmpdir/ampere.json"
# the same tree on a pre-Ampere GPU named on the command line, and in .kvlint.yaml
run ampere --platform cuda-sm75; expect_status "ampere --platform cuda-sm75" 1 $?
expect_contains "--platform cuda-sm75: KV001" "$tmpdir/ampere.json" '"rule": "KV001"'
cp -R "$trees/ampere" "$tmpdir/proj"
printf 'platform: cuda-sm75\n' >"$tmpdir/proj/.kvlint.yaml"
(cd "$tmpdir/proj" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status ".kvlint.yaml platform: cuda-sm75" 1 $?
expect_contains ".kvlint.yaml platform: KV001" "$tmpdir/out" "[KV001]"

run cpu; expect_status "cpu: vLLM's CPU writer clamps" 1 $?
expect_contains "cpu: saturated, not -inf" "$tmpdir/cpu.json" '"rule": "KV002"'
expect_not_contains "cpu: no Triton writer" "$tmpdir/cpu.json" "Triton"
compare_golden "cpu golden" "$trees/cpu.expected.json" "$tmpdir/cpu.json"
# on a GPU the Triton writer's cast gives -inf
sed 's/vllm-cpu-release-repo/vllm-openai/' "$trees/cpu/deploy.yaml" >"$tmpdir/gpu.yaml"
mkdir -p "$tmpdir/gpu" && cp "$trees/cpu/head.py" "$trees/cpu/config.json" "$tmpdir/gpu/" && mv "$tmpdir/gpu.yaml" "$tmpdir/gpu/deploy.yaml"
(cd "$tmpdir/gpu" && "$KVLINT" check .) >"$tmpdir/out" 2>&1
expect_status "gpu image: Triton gives -inf" 1 $?
expect_contains "gpu image: KV001 by the Triton writer" "$tmpdir/out" "-inf by vLLM's Triton cache writer"

# matrix: the path that changes the verdict
"$KVLINT" matrix "$trees/cpu" >"$tmpdir/matrix" 2>&1
expect_status "matrix" 0 $?
expect_contains "matrix names the path that makes e5m2 unsafe" "$tmpdir/matrix" "[KV001] (unsafe only on: vLLM's Triton cache writer)"
"$KVLINT" matrix --format json "$trees/cpu" >"$tmpdir/matrix.json" 2>&1
expect_contains "matrix json unsafe_paths" "$tmpdir/matrix.json" '"unsafe_paths": ['
"$KVLINT" matrix --platform cpu "$trees/cpu" >"$tmpdir/matrix" 2>&1
expect_contains "matrix --platform cpu: e5m2 saturates" "$tmpdir/matrix" "fp8_e5m2              KV002 head.py:5"
"$KVLINT" check --platform sm75 "$trees/t4" >"$tmpdir/out" 2>&1
expect_status "--platform sm75 is a usage error" 2 $?
expect_contains "--platform names the valid values" "$tmpdir/out" "--platform is cuda, cuda-sm75, rocm or cpu, not 'sm75'"
(cd "$trees/t4" && "$KVLINT" facts .) >"$tmpdir/facts" 2>&1
expect_contains "facts: the node label is a platform declaration" "$tmpdir/facts" "vllm platform = cuda-sm75"
(cd "$trees/t4" && "$KVLINT" facts --format json .) >"$tmpdir/facts.json" 2>&1
expect_contains "facts: the deployment's platform" "$tmpdir/facts.json" '"platform": "cuda-sm75"'
finish
