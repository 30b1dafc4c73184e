#!/bin/sh
# ckpt_fields.sh: values computed from checkpoint config fields (issue 10, tests/fixtures/ckpt-fields):
# facts show each field the code reads under every deployment, with its value from config.json or why
# it is unknown; check evaluates the value per deployment (a getattr default where the checkpoint has
# no such field) and judges it as the literal it becomes; unknown fields give no value and no finding.
. "$top_srcdir/tests/e2e/lib.sh"
fx="$fixtures/ckpt-fields"
PY=${PYTHON3:-python3}

fields() { # fields DIR: "field=value" per checkpoint field of the first deployment
    (cd "$fx/$1" && "$KVLINT" facts --format json .) >"$tmpdir/$1.json" 2>"$tmpdir/$1.err"
    "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))["deployments"][0]
print(" ".join("%s=%s" % (f["field"], f["value"] if f["value"] is not None else "unknown") for f in d["checkpoint_fields"]))' \
        "$tmpdir/$1.json"
}

got=$(fields default)
want="attention_multiplier=0.0078125 control_token_gain=15 mask_value=unknown"
if [ "$got" = "$want" ]; then pass "default: fields from config.json"; else fail "default: got '$got', want '$want'"; fi
expect_contains "default: why mask_value is unknown" "$tmpdir/default.json" \
    '"unresolved": "the checkpoint config has no such numeric field'
got=$(fields none)
want="attention_multiplier=unknown control_token_gain=unknown mask_value=unknown"
if [ "$got" = "$want" ]; then pass "none: no checkpoint, every field unknown"; else fail "none: got '$got', want '$want'"; fi
# checkpoint fields are not dtype declarations: facts lists them only under deployments
expect_not_contains "default: no checkpoint_field in dtypes" "$tmpdir/default.json" '"key": "checkpoint_field"'

(cd "$fx/default" && "$KVLINT" check .) >"$tmpdir/default.txt" 2>&1
expect_status "default: the getattr default -1e9 is -inf in float16" 1 $?
expect_contains "default: KV001 at the getattr" "$tmpdir/default.txt" \
    'plugin.py:9:21: error: getattr(config, "mask_value", -1e9) is stored as -inf'
expect_contains "default: KV006, torch.full of it in float16 raises" "$tmpdir/default.txt" \
    'getattr(config, "mask_value", -1e9) built by torch.full in float16'
(cd "$fx/set" && "$KVLINT" check .) >"$tmpdir/set.txt" 2>&1
expect_status "set: the checkpoint's mask_value -100 fits" 0 $?
(cd "$fx/none" && "$KVLINT" check .) >"$tmpdir/none.txt" 2>&1
expect_status "none: unknown fields, no finding" 0 $?
# A file whose only value is a field (no sink, no sentinel literal) is not prefiltered away.
(cd "$fx/field_only" && "$KVLINT" check .) >"$tmpdir/field_only.txt" 2>&1
expect_status "field_only: a file holding only checkpoint fields is analysed" 1 $?
expect_contains "field_only: the gain 1920 built by torch.tensor in fp8_e4m3" "$tmpdir/field_only.txt" \
    'scale.py:7:12: error: config.control_token_gain / config.attention_multiplier built by torch.tensor in fp8_e4m3'
# the dict forms: config["x"], config.get("x", d), config.get("x") (None when absent: unknown)
got=$(fields dict)
want="attention_multiplier=0.0078125 control_token_gain=15 mask_value=unknown"
if [ "$got" = "$want" ]; then pass "dict: config[...] and config.get(...) are fields"; else fail "dict: got '$got', want '$want'"; fi
(cd "$fx/dict" && "$KVLINT" check .) >"$tmpdir/dict.txt" 2>&1
expect_status "dict: the gain 1920 saturates in fp8" 1 $?
expect_contains "dict: KV013 at the computed gain" "$tmpdir/dict.txt" \
    'plugin.py:10:21: warning: config["control_token_gain"] / config.get("attention_multiplier", 1.0) = 1920 is a value of known magnitude'
expect_not_contains "dict: no mask finding (unknown field, no default)" "$tmpdir/dict.txt" 'mask_value'
# g = g * g: shared operands read as a tree are bounded (KV_EXPR_MAX_NODES); two squarings are a
# value, forty are unknown, and neither walk is exponential (it hung before; a hang fails here).
(cd "$fx/squared" && timeout 60 "$KVLINT" check .) >"$tmpdir/squared.txt" 2>&1
expect_status "squared: 15^4 is NaN in fp8_e4m3, 15^(2^40) is unknown" 1 $?
expect_contains "squared: KV006 at the second squaring" "$tmpdir/squared.txt" \
    'scale.py:10:9: error: g * g built by torch.tensor in fp8_e4m3'
expect_not_contains "squared: no finding for the forty squarings" "$tmpdir/squared.txt" 'h * h'
finish
