#!/bin/sh
# cast_reference.sh: `kvlint cast --format json` agrees exactly with an independent rational model
# of every format and recipe (tests/ref/numerics_ref.py) on tens of thousands of deterministic
# random values: every element format in all three overflow modes (truncate: vLLM's CPU fp8
# writer), every conversion path (--path), and rows of the block, scaled and
# per-token-head dtypes mixing sentinels, ids, ordinary, tiny and non-finite values.
. "$top_srcdir/tests/e2e/lib.sh"
if [ -z "${PYTHON3:-}" ]; then
    echo "SKIP: python3 not found by configure"
    exit 77
fi
if "$PYTHON3" "$top_srcdir/tests/ref/cast_reference.py" "$KVLINT" >"$tmpdir/out" 2>&1; then
    pass "cast agrees with the rational reference: $(tail -n 1 "$tmpdir/out")"
else
    fail "cast disagrees with the rational reference"
    head -n 40 "$tmpdir/out"
fi
finish
