#!/bin/sh
# bench/tree.sh: kvlint on any tree, e.g. a vLLM or SGLang checkout (make bench-tree TREE=DIR).
#
#   bench/tree.sh [BUILDDIR] TREE [ONEFILE]
#
# Prints what the issue's speed targets are stated in: the tree's Python files and bytes, the
# Python front end's parse-only and facts CPU times (bench/python-bench, one thread, files in
# memory), then the real binary end to end: `kvlint check -j 2` wall time and peak memory (best of
# 3), and a one-file run as a pre-commit hook makes it (`kvlint check ONEFILE`, default the largest
# .py file of the tree; best of 5). Targets (issue 12): vLLM <= 4 s wall on 2 cores, <= 150 MB;
# one file <= 30 ms. Build without sanitizers, on an otherwise idle machine: a loaded machine
# inflates every number here (bench/python.results.md compares builds by instruction counts).
set -u
build=.
case "${1:-}" in */*|.|..) if [ -x "$1/src/kvlint" ]; then build=$1; shift; fi ;; esac
tree=${1:?usage: bench/tree.sh [BUILDDIR] TREE [ONEFILE]}
src=$(cd "$(dirname "$0")/.." && pwd)
kvlint="$build/src/kvlint"
bench="$build/bench/python-bench"
[ -x "$kvlint" ] && [ -x "$bench" ] || { echo "build it first: make -C $build src/kvlint bench/python-bench" >&2; exit 2; }
[ -d "$tree" ] || { echo "bench/tree.sh: $tree is not a directory" >&2; exit 2; }
one=${2:-$(find "$tree" -name '*.py' -type f -printf '%s %p\n' 2>/dev/null | sort -rn | head -n 1 | cut -d' ' -f2-)}
export KVLINT_DATADIR="$src"

echo "== $tree"
"$bench" -j 2 --datadir "$src" "$tree"

# best wall time (s) and the peak RSS (KB) of that run, over N runs of a command
best_of() { # N CMD...
    n=$1; shift
    best=""; rss=""
    i=0
    while [ "$i" -lt "$n" ]; do
        /usr/bin/time -f '%e %M' -o "${TMPDIR:-/tmp}/kvlint-tree.$$" "$@" >/dev/null 2>&1
        read -r t m <"${TMPDIR:-/tmp}/kvlint-tree.$$"
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; rss=$m; fi
        i=$((i + 1))
    done
    rm -f "${TMPDIR:-/tmp}/kvlint-tree.$$"
    echo "$best $rss"
}
if [ -x /usr/bin/time ]; then
    set -- $(best_of 3 "$kvlint" check -j 2 --fail-on never "$tree")
    printf '  kvlint check -j 2, end to end (wall, best of 3)  %7.3f s  peak %d MB\n' "$1" $(( $2 / 1024 ))
    if [ -n "$one" ]; then
        set -- $(best_of 5 "$kvlint" check --fail-on never "$one")
        printf '  one-file run (%s, best of 5)  %7.3f s  peak %d MB\n' "${one#"$tree"/}" "$1" $(( $2 / 1024 ))
    fi
else
    echo "  skip: /usr/bin/time missing (apt-get install time) for the end-to-end times"
fi
