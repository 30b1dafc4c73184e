#!/bin/sh
# incomplete_runs.sh: a run that analysed nothing, or hit one of kvlint's limits, says so in every
# format and exits 2, never 0 as if clean; --max-file-size refuses what it cannot represent.
. "$top_srcdir/tests/e2e/lib.sh"

kv009="$fixtures/KV009/positive"
run() { (cd "$kv009" && "$KVLINT" "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

for bad in -1 18446744073709551615 18446744073709551616 0 4G " 8M" +8M 8X; do
    run check --max-file-size "$bad" .; expect_status "--max-file-size '$bad' refused" 2 $?
done
expect_contains "--max-file-size names the range" "$tmpdir/err" "from 1 to 4294967295 bytes"
run check --max-file-size 4095M .; expect_status "--max-file-size 4095M accepted" 1 $?

# Every file over the limit: nothing analysed, in every format.
run check --max-file-size 1 .; expect_status "all skipped: text" 2 $?
expect_contains "all skipped: text says so" "$tmpdir/out" "kvlint: incomplete run: nothing analysed: the only file was skipped"
expect_contains "all skipped: stderr says so" "$tmpdir/err" "kvlint check: incomplete run: nothing analysed"
expect_contains "all skipped: each file named" "$tmpdir/err" "deploy.yaml: warning: skipped: "
run check --max-file-size 1 --format json .; expect_status "all skipped: json" 2 $?
expect_contains "all skipped: json count" "$tmpdir/out" '"skipped": 1'
expect_contains "all skipped: json limited" "$tmpdir/out" '"limited": 1'
expect_contains "all skipped: json sentence" "$tmpdir/out" '"incomplete": "nothing analysed: the only file was skipped"'
run check --max-file-size 1 --format sarif .; expect_status "all skipped: sarif" 2 $?
expect_contains "all skipped: sarif invocation" "$tmpdir/out" '"executionSuccessful": false'
expect_contains "all skipped: sarif notification" "$tmpdir/out" '"text": "nothing analysed: the only file was skipped"'
run check --max-file-size 1 --format github .; expect_status "all skipped: github" 2 $?
expect_contains "all skipped: github annotation" "$tmpdir/out" "::warning title=kvlint incomplete run::nothing analysed"
run facts --max-file-size 1 .; expect_status "all skipped: facts" 2 $?
run matrix --max-file-size 1 .; expect_status "all skipped: matrix" 2 $?

# Only binaries: skipped (not a limit), still nothing analysed.
mkdir -p "$tmpdir/bin"
printf 'import torch\0\001\002' >"$tmpdir/bin/blob.py"
(cd "$tmpdir/bin" && "$KVLINT" check .) >"$tmpdir/out" 2>"$tmpdir/err"; expect_status "only binaries" 2 $?
expect_contains "only binaries: says so" "$tmpdir/out" "nothing analysed: the only file was skipped"

# One file over a limit among analysed ones: the findings of the others are reported, and the
# run is still incomplete.
mkdir -p "$tmpdir/mixed"
cp -R "$kv009/." "$tmpdir/mixed/"
head -c 3000 /dev/zero | tr '\0' '#' >"$tmpdir/mixed/big.py"
(cd "$tmpdir/mixed" && "$KVLINT" check --max-file-size 2K .) >"$tmpdir/out" 2>"$tmpdir/err"
expect_status "one file over the limit" 2 $?
expect_contains "one over: other findings reported" "$tmpdir/out" "[KV009]"
expect_contains "one over: text says so" "$tmpdir/out" "kvlint: incomplete run: 1 file skipped, 1 file cut short by a limit"

# A clean, complete run is unchanged: no "incomplete" anywhere.
run check --format json --select KV001 .; expect_status "complete run" 0 $?
expect_not_contains "complete run: no incomplete key" "$tmpdir/out" '"incomplete"'
finish
