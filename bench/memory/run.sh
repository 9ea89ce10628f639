#!/usr/bin/env bash
# Builds the memory benchmark (Release) and runs it at scale, appending the report to
# bench/results/memory-<date>.md.
#
#   bench/memory/run.sh [memory_bench options...]     e.g. --entries 200000
#
# BUILD_DIR (default build-bench) is the Release build tree; BENCH_DATA_DIR (default
# $BUILD_DIR/bench-data/memory-<entries>) keeps the loaded store, so a second run with
# the same --entries skips the load and only measures. Delete it to measure the load.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-bench}"

entries=1000000
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[$i]}" = "--entries" ]; then entries="${args[$((i + 1))]}"; fi
done
data_dir="${BENCH_DATA_DIR:-$build_dir/bench-data/memory-$entries}"

cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DAGENTRT_BUILD_BENCH=ON >/dev/null
cmake --build "$build_dir" --target memory_bench -j"${JOBS:-2}"

mkdir -p "$root/bench/results"
report="$root/bench/results/memory-$(date -u +%Y-%m-%d).md"
"$build_dir/bin/memory_bench" --data-dir "$data_dir" --entries "$entries" --report "$report" "$@"
echo "report appended to $report" >&2
