#!/bin/sh
# bench/python-names.sh: the Python evaluator on a module of many names (make bench-names [NAMES=N]).
#
#   bench/python-names.sh [BUILDDIR] [NAMES]
#
# Generates one module of NAMES (default 200000) module-level assignments, `name_17 = 17`, every
# 64th reading the one before (`name_64 = name_63 + 1`), and a function storing a mask into a KV
# cache (so the prefilter lets the file through and it has a fact), then times `kvlint facts` on
# it (wall, peak RSS) and counts the store facts (1). Every
# assignment binds a name in the module environment and every read looks one up: a linear
# environment made this quadratic (200k names, 3.2 MB: 22.7 s); the hashed one is linear.
set -u
build=.
case "${1:-}" in */*|.|..) if [ -x "$1/src/kvlint" ]; then build=$1; shift; fi ;; esac
names=${1:-200000}
src=$(cd "$(dirname "$0")/.." && pwd)
kvlint="$build/src/kvlint"
[ -x "$kvlint" ] || { echo "build it first: make -C $build src/kvlint" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/python-names.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
export KVLINT_DATADIR="$src"
dir=$(mktemp -d "${TMPDIR:-/tmp}/kvlint-names.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
awk -v n="$names" 'BEGIN {
    printf "import torch\n\nMASK = -1e9\n";
    for (i = 0; i < n; i++)
        if (i % 64 == 0 && i > 0) printf "name_%d = name_%d + 1\n", i, i - 1;
        else printf "name_%d = %d\n", i, i;
    printf "\ndef write(kv_cache, i):\n    kv_cache[i] = MASK + 0 * name_%d\n", n - 1;
}' >"$dir/names.py"
echo "== $names module-level names, $(wc -c <"$dir/names.py") bytes"
/usr/bin/time -f '%e %M' -o "$dir/time" "$kvlint" facts --format json --max-file-size 64M "$dir/names.py" >"$dir/out" 2>"$dir/err"
rc=$?
read -r t m <"$dir/time"
stores=$(grep -c '"sink"' "$dir/out")
printf '  kvlint facts: exit %d, %s s wall, peak %d MB, %d store facts\n' "$rc" "$t" $((m / 1024)) "$stores"
grep -m 3 . "$dir/err" | sed 's/^/  stderr: /'
