#!/bin/sh
# bench/python-facts.sh: the Python front end on the CPython standard library and the PyTorch sources.
#
#   bench/python-facts.sh [BUILDDIR]      (default: the current directory, a configured build tree)
#
# For each corpus: bench/python-bench (same files, one run: tree-sitter parse-only vs the front end,
# MB/s and ratios), then the real binary end to end, `kvlint facts --format json -j 2`, wall time.
# Corpora: /usr/lib/python3.11 and /usr/lib/python3/dist-packages/torch (Debian python3-torch);
# a missing one is skipped. Build without sanitizers for meaningful numbers.
set -u
build=${1:-.}
src=$(cd "$(dirname "$0")/.." && pwd)
bench="$build/bench/python-bench"
kvlint="$build/src/kvlint"
[ -x "$bench" ] || { echo "build it first: make -C $build bench/python-bench" >&2; exit 2; }
for corpus in /usr/lib/python3.11 /usr/lib/python3/dist-packages/torch; do
    if [ ! -d "$corpus" ]; then
        echo "skip: $corpus not installed"
        continue
    fi
    echo "== $corpus"
    "$bench" -j 2 --datadir "$src" "$corpus"
    start=$(date +%s.%N)
    KVLINT_DATADIR="$src" "$kvlint" facts --format json -j 2 "$corpus" >/dev/null 2>&1
    status=$?
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" -v st="$status" 'BEGIN { printf "  kvlint facts -j 2, end to end (wall)          %7.3f s  (exit %d)\n", e - s, st }'
done
