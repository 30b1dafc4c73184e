#!/bin/sh
# real_corpus.sh: kvlint over a real tree it did not write: the CPython standard library (or
# $KVLINT_PY_CORPUS), every front end and rule, two threads. Under the sanitizer build (CI), any
# AddressSanitizer, LeakSanitizer or UBSan report ends the run with a status other than 0/1, so
# this is the sanitizers' run over real code; scripts/sanitize-tree does the same for any checkout.
. "$top_srcdir/tests/e2e/lib.sh"

corpus=${KVLINT_PY_CORPUS:-/usr/lib/python3.11}
if [ ! -d "$corpus" ]; then
    [ "${CI:-}" = true ] && fail "no corpus at $corpus (CI installs python3)"
    echo "SKIP: no corpus at $corpus"
    finish
    exit $?
fi
"$KVLINT" check -j 2 --format json --fail-on never "$corpus" >"$tmpdir/out.json" 2>"$tmpdir/err"
expect_status "kvlint check over $corpus" 0 $?
expect_not_contains "no sanitizer report" "$tmpdir/err" "Sanitizer"
expect_not_contains "no UBSan report" "$tmpdir/err" "runtime error:"
expect_contains "a complete report" "$tmpdir/out.json" '"summary"'
finish
