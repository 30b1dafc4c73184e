#!/bin/sh
# config_numbers.sh: numbers from configs are read as the engines read them. A key given twice
# in a JSON or YAML mapping takes the last value (Python's json, PyYAML) with a warning naming
# both places; id-range numbers out of range (-5, 1e400, 2.5) are warnings and never used.
. "$top_srcdir/tests/e2e/lib.sh"

dir="$fixtures/config/numbers"
(cd "$dir" && "$KVLINT" facts --format json .) >"$tmpdir/out" 2>"$tmpdir/err"
expect_status "facts" 0 $?
expect_contains "duplicate key: warning names both" "$tmpdir/err" \
    "config.json:5:3: warning: duplicate key 'num_adapters': the later one at config.json:7:3 is used"
"$PYTHON3" - "$tmpdir/out" >"$tmpdir/ranges" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["dtypes"]:
    if x.get("range"):
        print(x["path"], x["range"], x["value"])
PY
expect_contains "duplicate key: the last value is used" "$tmpdir/ranges" "config.json num_adapters 300"
expect_not_contains "duplicate key: the first value is dropped" "$tmpdir/ranges" "config.json num_adapters 20"
expect_contains "negative: warned" "$tmpdir/err" "serve.yaml:10:81: warning: max_model_len: '-5' is negative; the value is not used"
expect_contains "overflow: warned" "$tmpdir/err" "max_loras: '1e400' is too large to be a number"
expect_not_contains "bad numbers: never used" "$tmpdir/ranges" "serve.yaml"
expect_contains "YAML duplicate: warned" "$tmpdir/err" "trt.yaml:2:1: warning: duplicate key 'max_seq_len'"
expect_not_contains "YAML merge keys: two are no duplicate" "$tmpdir/err" "merge.yaml:12:7: warning: duplicate key"
expect_contains "YAML quoted \"<<\": an ordinary key" "$tmpdir/err" "merge.yaml:15:7: warning: duplicate key '<<'"
finish
