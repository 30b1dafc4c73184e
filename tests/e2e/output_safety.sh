#!/bin/sh
# output_safety.sh: a report can neither lie nor destroy: -o writes a new file and renames it over
# the target only on success (a failed run keeps the earlier report), refuses a target that is one
# of the run's inputs, replaces a symbolic link rather than the file it points to, and a write that
# fails (a full disk: /dev/full) is a message and exit 2 in every command.
. "$top_srcdir/tests/e2e/lib.sh"

kv009="$fixtures/KV009/positive"
work="$tmpdir/work"
mkdir -p "$work"
cp -R "$kv009/." "$work/"
run() { (cd "$work" && "$KVLINT" "$@") >"$tmpdir/out" 2>"$tmpdir/err"; }

# A successful run writes the report; a failed one (unknown config: exit 2 before any report)
# leaves the earlier report as it was, not truncated.
run check --format json -o "$tmpdir/report.json" .; expect_status "-o: findings" 1 $?
expect_contains "-o: report written" "$tmpdir/report.json" '"KV009"'
cp "$tmpdir/report.json" "$tmpdir/before.json"
run check --format json -o "$tmpdir/report.json" --project "$tmpdir/missing.yaml" .; expect_status "-o: failed run" 2 $?
if cmp -s "$tmpdir/report.json" "$tmpdir/before.json"; then pass "-o: failed run keeps the earlier report"
else fail "-o: failed run changed the earlier report"; fi
ls -a "$tmpdir" | grep -q '\.tmp$' && fail "-o: a temporary file was left behind" || pass "-o: no temporary file left"

# -o naming an input (by its path, through a link, or a hard link) is refused and the input kept.
cp "$work/deploy.yaml" "$tmpdir/deploy.orig"
run check -o deploy.yaml .; expect_status "-o an input" 2 $?
expect_contains "-o an input: says why" "$tmpdir/err" "refusing to overwrite deploy.yaml"
cmp -s "$work/deploy.yaml" "$tmpdir/deploy.orig" && pass "-o an input: input intact" || fail "-o an input: input changed"
ln "$work/deploy.yaml" "$tmpdir/hardlink.yaml"
run check -o "$tmpdir/hardlink.yaml" .; expect_status "-o a hard link to an input" 2 $?
cmp -s "$work/deploy.yaml" "$tmpdir/deploy.orig" && pass "-o a hard link: input intact" || fail "-o a hard link: input changed"

# A symbolic link as the target is replaced by the report; the file it points to is not written.
echo "keep me" >"$tmpdir/victim"
ln -s "$tmpdir/victim" "$tmpdir/link.json"
run check --format json -o "$tmpdir/link.json" .; expect_status "-o a symlink" 1 $?
[ -L "$tmpdir/link.json" ] && fail "-o a symlink: link still there" || pass "-o a symlink: link replaced"
expect_contains "-o a symlink: report in its place" "$tmpdir/link.json" '"KV009"'
expect_contains "-o a symlink: target untouched" "$tmpdir/victim" "keep me"

# -o a directory, or into a missing directory: usage error before the run.
run check -o "$tmpdir" .; expect_status "-o a directory" 2 $?
expect_contains "-o a directory: says so" "$tmpdir/err" "is a directory"

# Devices are written in place (/dev/null), and a full disk is an error with the reason.
run check -o /dev/null .; expect_status "-o /dev/null" 1 $?
run check --format json -o /dev/full .; expect_status "-o /dev/full" 2 $?
expect_contains "-o /dev/full: reason" "$tmpdir/err" "cannot write /dev/full: No space left on device"
for args in "check ." "check --format json ." "check --format sarif ." "facts ." "facts --format json ." \
            "matrix ." "matrix --format json ." "dtypes" "cast --dtype float16 -- -1e9" "explain KV009" "--help"; do
    # shellcheck disable=SC2086
    (cd "$work" && "$KVLINT" $args) >/dev/full 2>"$tmpdir/err"
    expect_status "stdout on a full disk: $args" 2 $?
    expect_contains "stdout on a full disk names the error: $args" "$tmpdir/err" "No space left on device"
done
finish
