#!/bin/sh
# matrix_ranges.sh: a matrix cell stands for any deployment of the code, so it uses the widest id
# range the deployments declare (here max-loras 8 in a/ and 20 in b/: ids up to 20 break e4m3).
. "$top_srcdir/tests/e2e/lib.sh"
fx="$fixtures/matrix-ranges"
(cd "$fx" && "$KVLINT" matrix --format json .) >"$tmpdir/m.json" 2>"$tmpdir/err"
expect_status "matrix runs" 0 $?
"${PYTHON3:-python3}" - "$tmpdir/m.json" >"$tmpdir/cell" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for c in m["cells"]:
    if c["kv_cache_dtype"] == "fp8_e4m3" and c["dtype"] == "bfloat16":
        print(c["verdict"], c.get("rule"))
PY
expect_contains "e4m3 cell uses max-loras 20, not the first deployment's 8" "$tmpdir/cell" "unsafe KV003"
(cd "$fx" && "$KVLINT" check --kv-cache-dtype fp8_e4m3 --config a/serve.yaml memory.py) >"$tmpdir/a.txt" 2>&1
expect_status "the 8-adapter deployment alone is clean in e4m3" 0 $?
(cd "$fx" && "$KVLINT" check --kv-cache-dtype fp8_e4m3 --config b/serve.yaml memory.py) >"$tmpdir/b.txt" 2>&1
expect_status "the 20-adapter deployment alone is not" 1 $?
finish
