#!/bin/sh
# replay.sh: every fuzz target's regression corpus (tests/fuzz/regress/<target>/: inputs that once
# crashed, hung or tripped a sanitizer) and seeds from the fixtures, through the replay drivers.
# Run by `make check` on every build, so the sanitizer build replays them under ASan and UBSan.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
fails=0
for t in python config project rules glob compdb; do
    dirs="$top_srcdir/tests/fuzz/regress/$t"
    case $t in
        python) dirs="$dirs $top_srcdir/tests/fixtures/KV001 $top_srcdir/tests/fixtures/python" ;;
        config) dirs="$dirs $top_srcdir/tests/fixtures/config" ;;
        rules) dirs="$dirs $top_srcdir/rules" ;;
        compdb) dirs="$dirs $top_srcdir/tests/fixtures/cxx" ;;
    esac
    # shellcheck disable=SC2086
    if timeout 600 "$top_builddir/tests/fuzz/replay_$t" $dirs >"$top_builddir/tests/fuzz/replay_$t.out" 2>&1; then
        echo "PASS: replay $t ($(tail -n 1 "$top_builddir/tests/fuzz/replay_$t.out"))"
    else
        echo "FAIL: replay $t"; tail -n 30 "$top_builddir/tests/fuzz/replay_$t.out"; fails=$((fails + 1))
    fi
done
[ "$fails" -eq 0 ]
