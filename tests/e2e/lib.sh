# tests/e2e/lib.sh: helpers for end-to-end tests. Source it first:  . "$top_srcdir/tests/e2e/lib.sh"
# Each test runs the built binary ($KVLINT) from the fixture's directory, so paths in the output are
# relative and stable, and compares output with a golden file. Set KVLINT_UPDATE_GOLDEN=1 to rewrite
# goldens after an intended change (then review the diff before committing).
set -u
: "${KVLINT:?run through make check}"
: "${top_srcdir:?run through make check}"
fails=0
passes=0
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/kvlint-e2e.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT

fixtures="$top_srcdir/tests/fixtures"

# git_home: an empty HOME and no system git configuration, so that the git work trees a test
# makes read none of the machine's settings.
git_home() {
    HOME="$tmpdir/home" GIT_CONFIG_NOSYSTEM=1
    export HOME GIT_CONFIG_NOSYSTEM
    mkdir -p "$HOME"
}

# git_tree SRC DEST: a writable copy of the tree SRC (a fixture, an example) at DEST, made a git
# work tree of its own (a pre-commit hook's repository).
git_tree() {
    cp -R "$1" "$2" && chmod -R u+w "$2" && git -C "$2" init -q
}

pass() { passes=$((passes + 1)); echo "PASS: $1"; }
fail() { fails=$((fails + 1)); echo "FAIL: $1"; }

# expect_status NAME WANT GOT
expect_status() {
    if [ "$2" = "$3" ]; then pass "$1 (exit $3)"; else fail "$1: exit $3, want $2"; fi
}

# compare_golden NAME GOLDEN ACTUAL
compare_golden() {
    if [ "${KVLINT_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$3" "$2"
        pass "$1 (golden updated)"
    elif diff -u "$2" "$3" >"$tmpdir/diff"; then
        pass "$1"
    else
        fail "$1: output differs from $2"
        head -n 60 "$tmpdir/diff"
    fi
}

# expect_contains NAME FILE TEXT
expect_contains() {
    if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: '$3' not in output"; sed 's/^/    /' "$2" | head -n 40; fi
}

# expect_not_contains NAME FILE TEXT
expect_not_contains() {
    if grep -qF -- "$3" "$2"; then fail "$1: '$3' unexpectedly in output"; sed 's/^/    /' "$2" | head -n 40; else pass "$1"; fi
}

# finish: print the plain summary line and exit non-zero on any failure.
finish() {
    echo "$passes passed, $fails failed"
    [ "$fails" -eq 0 ]
}
