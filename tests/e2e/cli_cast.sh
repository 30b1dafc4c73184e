#!/bin/sh
# cli_cast.sh: the command line of `kvlint cast` and `kvlint dtypes`: help, usage errors (exit 2
# with a one-line reason), negative VALUEs without "--", option forms, text and JSON output
# (golden files under tests/fixtures/numerics/).
. "$top_srcdir/tests/e2e/lib.sh"
golden="$fixtures/numerics"

# run NAME WANT_STATUS ARGS...: run kvlint, keep stdout/stderr in $tmpdir/out and $tmpdir/err
run() {
    name=$1 want=$2
    shift 2
    "$KVLINT" "$@" >"$tmpdir/out" 2>"$tmpdir/err"
    expect_status "$name" "$want" "$?"
}

run "cast --help" 0 cast --help
expect_contains "cast --help text" "$tmpdir/out" "usage: kvlint cast --dtype D"
run "dtypes --help" 0 dtypes --help
expect_contains "dtypes --help text" "$tmpdir/out" "usage: kvlint dtypes"

run "cast without --dtype" 2 cast 1
expect_contains "missing --dtype reason" "$tmpdir/err" "--dtype is required"
run "cast unknown dtype" 2 cast --dtype bogus 1
expect_contains "unknown dtype reason" "$tmpdir/err" "unknown dtype 'bogus'; valid: float32, bfloat16"
expect_contains "unknown dtype lists block formats" "$tmpdir/err" "mxfp4, nvfp4"
run "cast unmodelled dtype" 2 cast --dtype turboquant_k8v4 1
expect_contains "unmodelled reason" "$tmpdir/err" "is not modelled"
run "cast unmodelled family" 2 cast --dtype turboquant_9bit_future 1
expect_contains "unmodelled family reason" "$tmpdir/err" "is not modelled"
run "cast auto" 2 cast --dtype auto 1
expect_contains "auto reason" "$tmpdir/err" "dtype 'auto' is not modelled by itself"
run "cast no value" 2 cast --dtype fp8
expect_contains "no value reason" "$tmpdir/err" "no VALUE given"
run "cast bad value" 2 cast --dtype fp8 1 abc
expect_contains "bad value reason" "$tmpdir/err" "'abc' is not a number"
run "cast bad overflow" 2 cast --dtype fp8 --overflow maybe 1
expect_contains "bad overflow reason" "$tmpdir/err" "--overflow must be saturate, nonsaturate or truncate"
run "cast bad format" 2 cast --dtype fp8 --format xml 1
run "cast --scale on an unscaled dtype" 2 cast --dtype bf16 --scale 2 1
expect_contains "scale reason" "$tmpdir/err" "--scale does not apply to bfloat16"
run "cast negative scale" 2 cast --dtype fp8 --scale -1 1
run "cast unknown option" 2 cast --dtype fp8 --frobnicate 1
expect_contains "usage errors are one reason plus a hint" "$tmpdir/err" "Try 'kvlint cast --help'."
if [ "$(wc -l <"$tmpdir/err")" -eq 2 ]; then pass "usage error is two lines"; else fail "usage error is not two lines"; cat "$tmpdir/err"; fi

# negative values without "--", values before options, --opt=value forms
run "cast -1e9 without --" 0 cast --dtype fp8 --format json -1e9 -10000 17 464 465 0.001 -0.0 inf nan
compare_golden "cast fp8 json" "$golden/cast_fp8.json" "$tmpdir/out"
run "cast value before options" 0 cast -1e9 --dtype float16 --format=json
expect_contains "float16 -1e9 is -inf" "$tmpdir/out" '"stored": "-inf"'
run "cast --opt=value and --" 0 cast --dtype=fp8_e5m2 --overflow=saturate -- -1e9 1e9f
expect_contains "e5m2 saturates to -57344" "$tmpdir/out" "-57344"
run "cast --rocm" 0 cast --dtype fp8 --rocm --overflow saturate -- -1e9
expect_contains "rocm fp8 is e4m3fnuz" "$tmpdir/out" "dtype fp8_e4m3fnuz, overflow saturate"
expect_contains "rocm fp8 saturates to -240" "$tmpdir/out" "-240"
# conversion paths: vLLM's CPU writer truncates (19 -> 18), CUDA rounds (19 -> 20); a c10 cast on
# ROCm gives NaN where the ROCm writer saturates
run "cast --path cpu" 0 cast --dtype fp8_e4m3 --path cpu -- 19 1920 nan 3.5
expect_contains "cpu path header" "$tmpdir/out" "dtype fp8_e4m3, path cpu (vLLM's CPU cache writer), overflow truncate"
expect_contains "cpu truncates 19 to 18" "$tmpdir/out" "19                       18                       rounded"
expect_contains "cpu clamps NaN to 448" "$tmpdir/out" "nan                      448                      saturated"
run "cast --path cuda" 0 cast --dtype fp8_e4m3 --path cuda -- 19
expect_contains "cuda rounds 19 to 20" "$tmpdir/out" "19                       20                       rounded"
run "cast --path rocm-c10" 0 cast --dtype fp8 --path rocm-c10 --format json -- -300 320 3.5
expect_contains "rocm-c10 json names the path" "$tmpdir/out" '"path": "rocm-c10"'
expect_contains "rocm-c10 reads fp8 as fnuz" "$tmpdir/out" '"dtype": "fp8_e4m3fnuz"'
expect_contains "-300 is NaN by a c10 cast" "$tmpdir/out" '"stored": "nan"'
run "cast --path rocm" 0 cast --dtype fp8 --path rocm -- 320
expect_contains "the ROCm writer saturates 320 to 240" "$tmpdir/out" "320                      240                      saturated"
run "cast --path triton e5m2" 0 cast --dtype fp8_e5m2 --path triton -- -1e9
expect_contains "triton e5m2 keeps the overflow" "$tmpdir/out" "-inf"
run "cast bad path" 2 cast --dtype fp8 --path sm70 1
expect_contains "bad path lists the paths" "$tmpdir/err" "--path must be one of torch, cuda, cuda-sm75, rocm, rocm-c10, cpu, triton, not 'sm70'"
run "cast --path with --overflow" 2 cast --dtype fp8 --path cpu --overflow saturate 1
expect_contains "path excludes overflow" "$tmpdir/err" "--path and --overflow exclude each other"
# --calculate-kv-scales: the row's absmax sets the scale; the threshold below which values are 0
run "cast --calculate-kv-scales key" 0 cast --dtype fp8 --calculate-kv-scales key -- -30000 1 0.1
expect_contains "calculated K scale 150 and its flush threshold" "$tmpdir/out" "scale 150 (absmax / 200 (--calculate-kv-scales, keys)); values up to 0.146484375 in magnitude read back 0"
expect_contains "0.1 is crushed" "$tmpdir/out" "0.1                      0                        crushed"
# fp8_ds_mla: each 128-element tile of the NoPE latents has its own scale max(amax / 448, FLT_MIN)
run "cast fp8_ds_mla" 0 cast --dtype fp8_ds_mla -- -30000 0.05 1
expect_contains "fp8_ds_mla tile scale and its flush threshold" "$tmpdir/out" "scale 66.96428680419922 (tile absmax / 448, the tile of the largest value); values up to 0.06539481505751608 in magnitude read back 0"
expect_contains "fp8_ds_mla: 0.05 beside -30000 is crushed" "$tmpdir/out" "crushed"
# a value 128 places on is in the next tile, whose own scale keeps it
vals=$(i=0; while [ $i -lt 127 ]; do printf '0 '; i=$((i + 1)); done)
run "cast fp8_ds_mla next tile" 0 cast --dtype fp8_ds_mla --format json -- -30000 $vals 0.05
expect_contains "fp8_ds_mla: the next tile keeps 0.05" "$tmpdir/out" '"stored": 0.05000000027939677'
run "cast --calculate-kv-scales with --scale" 2 cast --dtype fp8 --calculate-kv-scales key --scale 2 1
run "cast --calculate-kv-scales on bf16" 2 cast --dtype bf16 --calculate-kv-scales value 1
run "cast text" 0 cast --dtype bf16 15962 -1e9 2048.5
compare_golden "cast bf16 text" "$golden/cast_bf16.txt" "$tmpdir/out"
run "cast mxfp4 row" 0 cast --dtype mxfp4 --format json -- -1e9 0 1 2 3 17
compare_golden "cast mxfp4 json" "$golden/cast_mxfp4.json" "$tmpdir/out"
run "cast nvfp4 with k_scale" 0 cast --dtype NVFP4 --scale 0.5 --format json -- 6 -3 0.5 1
compare_golden "cast nvfp4 json" "$golden/cast_nvfp4.json" "$tmpdir/out"

run "dtypes json" 0 dtypes --format json
compare_golden "dtypes json" "$golden/dtypes.json" "$tmpdir/out"
if [ -n "${PYTHON3:-}" ]; then
    if "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["dtypes"]) > 20' "$tmpdir/out"; then
        pass "dtypes json parses"
    else
        fail "dtypes json does not parse"
    fi
fi
run "dtypes text" 0 dtypes
expect_contains "dtypes text lists nvfp4" "$tmpdir/out" "nvfp4"
run "dtypes extra argument" 2 dtypes extra
run "dtypes bad format" 2 dtypes --format yaml
finish
