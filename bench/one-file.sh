#!/bin/sh
# bench/one-file.sh: the time of a pre-commit style run on one staged file of the example.
#
#   bench/one-file.sh [BUILDDIR] [RUNS]     (default: the current directory, 20 runs)
#
# Copies examples/adapter-router into a scratch git repository (a project of its own, as a user's
# would be) and times `kvlint check FILE` for one code file (the deployments and the checkpoint
# are found in the repository) and for one deployment (the code is found), each the median and the
# best of RUNS wall times, and the median CPU time (user + system: what the run costs on a loaded
# machine, where wall time measures the queue). Goal: at most 50 ms (docs/check.md, "Runs on
# named files").
set -u
build=${1:-.}
runs=${2:-20}
src=$(cd "$(dirname "$0")/.." && pwd)
kvlint=$(cd "$build" && pwd)/src/kvlint
[ -x "$kvlint" ] || { echo "build it first: make -C $build" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kvlint-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -R "$src/examples/adapter-router" "$tmp/repo"
cd "$tmp/repo" || exit 2
git init -q . && git add -A || exit 2

# time_runs LABEL FILE: median and best wall time of $runs runs, in ms.
time_runs() {
    i=0
    : >"$tmp/times"
    : >"$tmp/cpu"
    while [ "$i" -lt "$runs" ]; do
        s=$(date +%s%N)
        "$kvlint" check --fail-on never "$2" >/dev/null 2>&1
        e=$(date +%s%N)
        echo $(((e - s) / 1000)) >>"$tmp/times"
        i=$((i + 1))
    done
    if [ -x /usr/bin/time ]; then
        i=0
        while [ "$i" -lt "$runs" ]; do
            /usr/bin/time -f '%U %S' -a -o "$tmp/cpu" "$kvlint" check --fail-on never "$2" >/dev/null 2>&1
            i=$((i + 1))
        done
    fi
    cpu=$(awk '{ print ($1 + $2) * 1000 }' "$tmp/cpu" | sort -n | awk '{ t[NR] = $1 } END {
        if (NR) printf ", cpu median %5.1f ms", t[int((NR + 1) / 2)] }')
    sort -n "$tmp/times" | awk -v label="$1" -v cpu="$cpu" '{ t[NR] = $1 } END {
        printf "%-34s wall median %6.1f ms, best %6.1f ms%s (%d runs)\n", label, t[int((NR + 1) / 2)] / 1000,
               t[1] / 1000, cpu, NR }'
}
time_runs "code file (layers.py)" adapter_router/layers.py
time_runs "deployment (deploy/compose.yaml)" deploy/compose.yaml
