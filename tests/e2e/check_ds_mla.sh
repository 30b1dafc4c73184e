#!/bin/sh
# check_ds_mla.sh: fp8_ds_mla stores an MLA row in two parts (docs/dtypes.md): the NoPE latents in
# e4m3 tiles of 128 with a dynamic scale each (KV014/positive/mla.py reports the tile a -30000
# latent crushes), the RoPE key in bfloat16. tests/fixtures/ds-mla/rope puts -30000 into k_pe: no
# finding under its fp8_ds_mla deployment, while a plain fp8 cache (what-if) clamps it (KV002).
# The facts say which part each MLA store is (latent_part).
. "$top_srcdir/tests/e2e/lib.sh"

tree="$fixtures/ds-mla/rope"
(cd "$tree" && "$KVLINT" check --format json .) >"$tmpdir/rope.json" 2>"$tmpdir/err"
expect_status "rope part under fp8_ds_mla: bfloat16, no finding" 0 $?
(cd "$tree" && "$KVLINT" check --format json --kv-cache-dtype fp8_e4m3 .) >"$tmpdir/fp8.json" 2>"$tmpdir/err"
expect_status "rope part under plain fp8: stored as e4m3" 1 $?
expect_contains "plain fp8 clamps the RoPE mask" "$tmpdir/fp8.json" '"rule": "KV002"'
(cd "$tree" && "$KVLINT" facts --format json mla.py) >"$tmpdir/facts.json" 2>"$tmpdir/err"
expect_status "facts" 0 $?
expect_contains "facts: k_pe is the RoPE part" "$tmpdir/facts.json" '"latent_part": "rope"'
finish
