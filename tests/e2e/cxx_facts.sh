#!/bin/sh
# cxx_facts.sh: the C/C++/CUDA front end on every fixture (tests/fixtures/cxx/<case>): each case is
# copied to a temporary folder whose compile_commands.json is made from compile_commands.json.in with
# the copy's absolute path (the form CMake writes), then `kvlint facts` (store facts and suppressions)
# and `kvlint check` (findings, exit status, diagnostics) are compared with
# tests/fixtures/cxx/golden/<case>.json. Then the properties the goldens exist for, stated on their own.
. "$top_srcdir/tests/e2e/lib.sh"
cxx="$fixtures/cxx"
golden="$cxx/golden"
if [ -z "${PYTHON3:-}" ]; then
    echo "SKIP: no python3 to filter JSON"
    exit 77
fi

# prepare CASE: a copy in $tmpdir/cases/CASE with its compile_commands.json; prints the copy's path.
prepare() {
    dst="$tmpdir/cases/$1"
    mkdir -p "$tmpdir/cases"
    cp -R "$cxx/$1" "$dst"
    abs=$(cd "$dst" && pwd -P)
    if [ -f "$dst/compile_commands.json.in" ]; then
        sed "s|@DIR@|$abs|g" "$dst/compile_commands.json.in" >"$dst/compile_commands.json"
        rm "$dst/compile_commands.json.in"
    fi
    echo "$abs"
}

# run CASE ARGS...: facts and check JSON of the prepared copy, merged into $tmpdir/CASE.json.
run() {
    name=$1
    shift
    dir=$(prepare "$name")
    (cd "$dir" && "$KVLINT" facts --format json -j 2 "$@" . >"$tmpdir/$name.facts" 2>"$tmpdir/$name.ferr")
    (cd "$dir" && "$KVLINT" check --format json -j 2 "$@" . >"$tmpdir/$name.check" 2>"$tmpdir/$name.err")
    status=$?
    "$PYTHON3" -c '
import json, sys
f = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
out = {"stores": f["stores"], "suppressions": f["suppressions"], "findings": c["findings"], "summary": c["summary"],
       "exit": int(sys.argv[4]), "stderr": open(sys.argv[3]).read().splitlines()}
json.dump(out, sys.stdout, indent=2, sort_keys=True)
print()' "$tmpdir/$name.facts" "$tmpdir/$name.check" "$tmpdir/$name.err" "$status" >"$tmpdir/$name.json" || return 99
    return $status
}

# count NAME EXPR: a Python expression over the merged JSON `d` of NAME.
query() {
    "$PYTHON3" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$tmpdir/$1.json"
}

expect_query() {
    got=$(query "$2" "$3")
    if [ "$got" = "$4" ]; then pass "$1"; else fail "$1: got '$got', want '$4'"; fi
}

for case in cast_cache_t half_cache limits bf16_key logits fp8_satfinite nvcc_db suppress prefilter dispatch sinks ids dependent_launch reach; do
    run "$case"
    compare_golden "$case" "$golden/$case.json" "$tmpdir/$case.json"
done

# The sanitizer build loads libclang with the program, never by dlopen: ASan's record of a dlopen'd
# library's thread-local storage is wrong, and LeakSanitizer's tracer faulted at exit on nvcc_db
# (configure.ac). Release builds load it lazily (src/cxx/libclang.c).
if command -v readelf >/dev/null 2>&1 && readelf -d "$KVLINT" | grep -q 'NEEDED.*libasan'; then
    if readelf -d "$KVLINT" | grep -q 'NEEDED.*libclang'; then pass "sanitizer build: libclang loaded at start"
    else fail "sanitizer build: libclang is not a NEEDED library of $KVLINT"; fi
fi

# The shapes, one property each.
expect_query "cache_t cast under the float16 deployment" cast_cache_t \
    "sorted((x['rule'], x['line'], x['dtype']) for x in d['findings'])" \
    "[('KV001', 8, 'float16'), ('KV001', 20, 'float16')]"
expect_query "scaled_convert is saturating" cast_cache_t \
    "[s['conversion'] for s in d['stores'] if 'scaled_convert' in (s['conversion_api'] or '')]" "['saturating']"
expect_query "__float2half(-FLT_MAX) into a __half cache" half_cache \
    "sorted((x['rule'], x['line'], x['dtype']) for x in d['findings'])" "[('KV001', 7, 'float16'), ('KV001', 8, 'float16')]"
expect_query "numeric_limits: cache_t, float, unspecialised __half, c10::Half" limits "[(x['rule'], x['line']) for x in d['findings']]" "[('KV001', 11), ('KV001', 21), ('KV001', 24)]"
expect_query "bf16 key cache from __float2bfloat16(-FLT_MAX)" bf16_key \
    "[(x['rule'], x['line'], x['dtype']) for x in d['findings']]" "[('KV001', 8, 'bfloat16')]"
expect_query "logits and LSE buffers stay silent" logits "(len(d['stores']), len(d['findings']))" "(0, 0)"
expect_query "__NV_SATFINITE saturates, __NV_NOSAT does not" fp8_satfinite \
    "sorted((x['rule'], x['line'], x['dtype']) for x in d['findings'] if x['severity'] == 'error')" \
    "[('KV001', 8, 'fp8_e4m3'), ('KV001', 9, 'fp8_e5m2')]"
expect_query "an unreadable saturation or format argument is unknown, not guessed" fp8_satfinite \
    "[s['line'] for s in d['stores'] if s['line'] > 10]" "[]"
expect_query "nvcc database: -D and -I are honoured" nvcc_db "[(x['rule'], x['path'], x['line']) for x in d['findings']]" \
    "[('KV001', 'csrc/include/masks.h', 5)]"
expect_query "cache_t from launches, a dispatch macro and explicit instantiations" dispatch \
    "sorted((x['rule'], x['line'], x['dtype']) for x in d['findings'])" "[('KV001', 13, 'float16'), ('KV001', 32, 'float16')]"
expect_query "each instantiated cache_t is a fixed dtype; a byte container follows the deployment" dispatch \
    "sorted((s['line'], s['cache_dtype']) for s in d['stores'])" \
    "[(13, 'float16'), (13, 'float32'), (19, 'float32'), (25, 'fp8_e4m3'), (32, 'float16'), (40, 'kv-cache dtype')]"
expect_query "sinks of the table: a writer's value argument, a writer's cache parameter" sinks \
    "sorted((x['rule'], x['line'], x['dtype']) for x in d['findings'])" \
    "[('KV001', 26, 'float16'), ('KV001', 36, 'float16'), ('KV001', 50, 'fp8_e4m3')]"
expect_query "a sink call is a cache-op store with the sink's conversion" sinks \
    "sorted((s['line'], s['sink'], s['conversion']) for s in d['stores'] if s['sink'] != 'k_row')" \
    "[(26, 'CopyWithScaleOp::operator()', 'saturating-fp8'), (36, 'CopyWithScaleOp::operator()', 'saturating-fp8')]"
expect_query "ids: a known range is KV003, an unknown one KV004 below 2048, arithmetic and floats are none" ids \
    "sorted((x['rule'], x['line'], x['dtype']) for x in d['findings'])" \
    "[('KV003', 14, 'fp8_e4m3'), ('KV003', 24, 'float16'), ('KV004', 11, 'fp8_e4m3')]"
expect_query "ids carry their family and the family's bound" ids \
    "sorted((s['line'], v['family'], v['max_symbol']) for s in d['stores'] for v in s['values'])" \
    "[(14, 'position', 'max_model_len'), (16, 'slot', 'num_slots'), (24, 'position', 'max_model_len'), (26, 'token', 'vocab_size'), (34, 'position', 'max_model_len')]"
expect_query "cache_t through launches inside templates (dependent arguments)" dependent_launch \
    "sorted((s['line'], s['cache_dtype']) for s in d['stores'])" \
    "[(9, 'bfloat16'), (9, 'float16'), (27, 'kv-cache dtype')]"
expect_query "only the __half instantiation overflows" dependent_launch \
    "[(x['rule'], x['line'], x['dtype']) for x in d['findings']]" "[('KV001', 9, 'float16')]"
expect_query "suppressed with // kvlint: ignore" suppress \
    "([(x['rule'], x['line']) for x in d['findings']], d['summary']['suppressed'])" "([('KV001', 6)], 1)"
expect_query "prefiltered files are not parsed" prefilter "(len(d['stores']), d['stderr'])" "(0, [])"
expect_query "special values reach caches through locals, casts, headers' constants and macros" reach \
    "sorted((s['path'], s['line']) for s in d['stores'])" \
    "[('fact_cast.cu', 6), ('fact_cast_minus.cu', 6), ('fact_cast_minus.cu', 7), ('fact_derived.cu', 6), ('fact_header.cu', 5), ('fact_header.cu', 6), ('fact_id.cu', 6), ('fact_limits.cu', 5), ('fact_limits.cu', 6), ('fact_local.cu', 6), ('fact_sink_param.cu', 4)]"

# The same writer under an fp8 what-if saturates (fp8::scaled_convert): KV002, not KV001.
(cd "$tmpdir/cases/sinks" && "$KVLINT" check --format json --kv-cache-dtype fp8_e4m3 . >"$tmpdir/sinks_fp8.json" 2>/dev/null)
got=$("$PYTHON3" -c 'import json, sys; print(sorted((f["rule"], f["line"]) for f in json.load(open(sys.argv[1]))["findings"] if f["line"] == 26))' "$tmpdir/sinks_fp8.json")
if [ "$got" = "[('KV002', 26)]" ]; then pass "sink writer saturates into fp8"; else fail "sink writer under fp8: $got"; fi

# Without a database: default flags, said once for the run.
dir=$(prepare half_cache)
rm "$dir/compile_commands.json"
cp "$dir/write_half.cu" "$dir/second.cu"
(cd "$dir" && "$KVLINT" check -j 2 . >"$tmpdir/nodb.out" 2>"$tmpdir/nodb.err")
expect_status "no database: findings" 1 $?
n=$(grep -c "no compile_commands.json" "$tmpdir/nodb.err")
if [ "$n" = 1 ]; then pass "no database: one note"; else fail "no database: $n notes"; cat "$tmpdir/nodb.err"; fi
# --compile-commands FILE names a database elsewhere.
dir=$(prepare nvcc_db)
mv "$dir/compile_commands.json" "$tmpdir/elsewhere.json"
(cd "$dir" && "$KVLINT" check --format json --compile-commands "$tmpdir/elsewhere.json" . >"$tmpdir/cc.json" 2>"$tmpdir/cc.err")
expect_status "--compile-commands: findings" 1 $?
expect_not_contains "--compile-commands: database used" "$tmpdir/cc.err" "no compile_commands.json"
# .kvlint.yaml `compile_commands:` (relative to the project file) names it too.
mkdir -p "$dir/out"
cp "$tmpdir/elsewhere.json" "$dir/out/db.json"
printf 'compile_commands: out/db.json\n' >"$dir/.kvlint.yaml"
(cd "$dir" && "$KVLINT" check --format json . >"$tmpdir/cy.json" 2>"$tmpdir/cy.err")
expect_status ".kvlint.yaml compile_commands: findings" 1 $?
expect_not_contains ".kvlint.yaml compile_commands: database used" "$tmpdir/cy.err" "no compile_commands.json"
rm "$dir/.kvlint.yaml"
(cd "$dir" && "$KVLINT" check --compile-commands "$tmpdir/missing.json" . >"$tmpdir/ccm.out" 2>"$tmpdir/ccm.err")
expect_status "--compile-commands missing file: I/O error" 2 $?

# A missing project header degrades to a note; what could be read is still checked.
mkdir -p "$tmpdir/missing"
printf '#include <cuda_fp16.h>\n#include <float.h>\n#include "torch/all.h"\n__global__ void k(__half* v_cache) { v_cache[0] = __float2half(-FLT_MAX); }\n' >"$tmpdir/missing/m.cu"
(cd "$tmpdir/missing" && "$KVLINT" check . >"$tmpdir/missing.out" 2>"$tmpdir/missing.err")
expect_status "missing header: still checked" 1 $?
expect_contains "missing header: a note" "$tmpdir/missing.err" "m.cu:3:1: note: 1 included file not found (first: torch/all.h)"
# The analysis budget is a count of steps: a generated kernel whose variable chain costs 10^12
# evaluations stops at it with a note (the run is incomplete, exit 2); the store before it is found.
mkdir -p "$tmpdir/budget"
"$PYTHON3" - "$tmpdir/budget/fanout.cu" <<'EOF_PY'
import sys
out = ["#include <cuda_fp16.h>",
       "__global__ void early(__half* k_cache) { k_cache[0] = __float2half(-1e9f); }",
       "__global__ void fanout(__half* v_cache, int c) {", "    float a0 = -1e9f;"]
for i in range(1, 13):  # a_i has ten assignments of a_(i-1): 10^12 ways to a0
    out.append("    float a%d = a%d;" % (i, i - 1))
    out += ["    if (c == %d) a%d = a%d;" % (j, i, i - 1) for j in range(9)]
out += ["    v_cache[0] = __float2half(a12);", "}"]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF_PY
(cd "$tmpdir/budget" && "$KVLINT" check --format json fanout.cu >"$tmpdir/budget.json" 2>"$tmpdir/budget.err")
expect_status "step budget: incomplete run" 2 $?
expect_contains "step budget: the note" "$tmpdir/budget.err" \
    "fanout.cu: note: analysis stopped after its budget of 131870 steps for this file (100000 + 10 per byte)"
got=$("$PYTHON3" -c 'import json, sys; d = json.load(open(sys.argv[1])); print([(f["rule"], f["line"]) for f in d["findings"]], d["summary"]["limited"])' "$tmpdir/budget.json")
if [ "$got" = "[('KV001', 2)] 1" ]; then pass "step budget: the store before it is checked"; else fail "step budget: $got"; fi
# Garbage in a .cu file: a note at most, never a crash.
head -c 20000 /dev/urandom | tr -d '\000' >"$tmpdir/missing/garbage.cu"
printf 'float* k_cache; -1e9f;\n' >>"$tmpdir/missing/garbage.cu"
(cd "$tmpdir/missing" && "$KVLINT" check garbage.cu >/dev/null 2>"$tmpdir/garbage.err")
st=$?
if [ "$st" -le 1 ]; then pass "garbage: no crash (exit $st)"; else fail "garbage: exit $st"; fi
finish
