#!/bin/sh
# bench/report-size.sh: peak memory of the report writers on a report of many findings
# (make bench-report [DOCS=N]).
#
#   bench/report-size.sh [BUILDDIR] [DOCS]
#
# Generates DOCS (default 100000) Kubernetes Deployment documents, 5000 to a YAML file (below the
# default --max-file-size), each starting vLLM with the misspelt '--kv-cache-dtype fp8-e4m3': one
# KV009 finding per document. Then, for every format of `kvlint check` and for `kvlint facts
# --format json`, prints the report's size, the wall time and the peak RSS of the run. The writers
# stream to their output, so the peak is the findings and facts in memory, not a second copy of the
# report text: compare the peak with the report's size. Build without sanitizers.
set -u
build=.
case "${1:-}" in */*|.|..) if [ -x "$1/src/kvlint" ]; then build=$1; shift; fi ;; esac
docs=${1:-100000}
src=$(cd "$(dirname "$0")/.." && pwd)
kvlint="$build/src/kvlint"
[ -x "$kvlint" ] || { echo "build it first: make -C $build src/kvlint" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/report-size.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
export KVLINT_DATADIR="$src"
dir=$(mktemp -d "${TMPDIR:-/tmp}/kvlint-report.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
mkdir "$dir/tree"

awk -v docs="$docs" -v dir="$dir/tree" 'BEGIN {
    for (i = 0; i < docs; i++) {
        f = sprintf("%s/deploy-%03d.yaml", dir, int(i / 5000));
        printf "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm-%d}\n", i > f;
        printf "spec:\n  template:\n    spec:\n      containers:\n        - name: vllm\n" > f;
        printf "          image: vllm/vllm-openai:latest\n" > f;
        printf "          args: [--model, /models/m%d, --kv-cache-dtype, fp8-e4m3]\n", i > f;
    }
}'
echo "== $docs documents, $(du -sk "$dir/tree" | cut -f1) KB of YAML"
printf '  %-22s %12s %9s %9s\n' run "report (B)" "wall (s)" "peak (MB)"
run() { # NAME CMD...
    name=$1; shift
    /usr/bin/time -f '%e %M' -o "$dir/time" "$@" >"$dir/out" 2>"$dir/err"
    read -r t m <"$dir/time"
    printf '  %-22s %12s %9s %9d\n' "$name" "$(wc -c <"$dir/out")" "$t" $((m / 1024))
}
for f in text json sarif github gitlab junit; do
    run "check --format $f" "$kvlint" check -j 2 --fail-on never --format "$f" "$dir/tree"
done
run "facts --format json" "$kvlint" facts -j 2 --format json "$dir/tree"
