#!/bin/sh
# bench/check.sh: what rule evaluation costs on top of the front ends.
#
#   bench/check.sh [BUILDDIR] [NCONFIGS]     (default: the current directory, 300 configs)
#
# Corpus: the CPython standard library and the PyTorch sources (Debian python3-torch; a missing one
# is skipped) plus NCONFIGS generated deployment configs (vLLM config files, Kubernetes manifests and
# serve scripts over the KV-cache dtypes engines accept), so every store is joined with hundreds of
# deployments. Runs `kvlint facts --format json` and `kvlint check --format json --fail-on never`
# on the same inputs, best of 3 wall times each, and `check --stats` (time per stage) to show what
# rule evaluation and reporting add to the scan (target: at most 10%). Build without sanitizers.
set -u
build=${1:-.}
n=${2:-300}
src=$(cd "$(dirname "$0")/.." && pwd)
kvlint="$build/src/kvlint"
[ -x "$kvlint" ] || { echo "build it first: make -C $build" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kvlint-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

corpus=""
for c in /usr/lib/python3.11 /usr/lib/python3/dist-packages/torch; do
    if [ -d "$c" ]; then corpus="$corpus $c"; else echo "skip: $c not installed"; fi
done

# Deployment configs: a spread of dtypes and carriers.
mkdir -p "$tmp/deploy"
dtypes="auto bfloat16 float16 fp8 fp8_e4m3 fp8_e5m2 nvfp4 int8_per_token_head fp8_per_token_head mxfp4"
i=0
while [ "$i" -lt "$n" ]; do
    for d in $dtypes; do
        [ "$i" -lt "$n" ] || break
        case $((i % 3)) in
        0) printf 'model: /models/m%d\ndtype: bfloat16\nkv-cache-dtype: %s\nmax-loras: %d\n' "$i" "$d" $((i % 40)) \
               >"$tmp/deploy/serve-$i.yaml" ;;
        1) printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: m%d}\nspec:\n  template:\n    spec:\n      containers:\n        - name: vllm\n          args: ["--model", "/models/m%d", "--kv-cache-dtype", "%s", "--dtype", "half"]\n' \
               "$i" "$i" "$d" >"$tmp/deploy/k8s-$i.yaml" ;;
        2) printf '#!/bin/sh\nexec vllm serve /models/m%d --kv-cache-dtype %s --max-model-len 32768\n' "$i" "$d" \
               >"$tmp/deploy/serve-$i.sh" ;;
        esac
        i=$((i + 1))
    done
done

best() { # CMD...: best of 3 wall times, in seconds
    b=""
    for _ in 1 2 3; do
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        e=$(date +%s.%N)
        b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN { t = e - s; if (b == "" || t < b) b = t; printf "%.3f", b }')
    done
    echo "$b"
}

export KVLINT_DATADIR="$src"
# shellcheck disable=SC2086
"$kvlint" check --format json --fail-on never --stats -j 2 $corpus "$tmp/deploy" >"$tmp/report.json" 2>"$tmp/stats"
findings=$(grep -c '"rule":' "$tmp/report.json")
# shellcheck disable=SC2086
deps=$(grep -o '"deployments": [0-9]*' "$tmp/report.json" | tail -n 1 | sed 's/.*: //')
# shellcheck disable=SC2086
tf=$(best "$kvlint" facts --format json -j 2 $corpus "$tmp/deploy")
# shellcheck disable=SC2086
tc=$(best "$kvlint" check --format json --fail-on never -j 2 $corpus "$tmp/deploy")
echo "corpus:$corpus + $n generated configs ($deps deployments), $findings findings"
grep '^kvlint: scan' "$tmp/stats" | sed 's/^kvlint: /  check stages: /'
grep '^kvlint: scan' "$tmp/stats" | awk '{ printf "  evaluation + report over scan   %+6.1f %%  (target <= 10%%)\n", ($6 + $9) / $3 * 100 }'
awk -v f="$tf" -v c="$tc" 'BEGIN {
    printf "  kvlint facts -j 2 (best of 3)   %7.3f s\n", f
    printf "  kvlint check -j 2 (best of 3)   %7.3f s\n", c
    printf "  check vs facts wall time        %+6.1f %%  (facts prints every fact as JSON)\n", (c - f) / f * 100
}'
