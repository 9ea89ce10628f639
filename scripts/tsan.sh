#!/usr/bin/env bash
# Builds the core, server and provider unit tests under ThreadSanitizer (in build-tsan)
# and runs them: the engine's concurrent parts (the store's group commit, run
# registries, limiters, the HTTP pipeline, provider calls on their own threads) with
# every memory access checked for races. A report fails the run. The few reports that
# are not ours to fix are suppressed in tests/tsan-suppressions.txt, each with its
# reason. Arguments go to ctest (for instance -R server_tests).
# Environment: BUILD_DIR (default build-tsan), JOBS (default: the number of cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-tsan}"
jobs="${JOBS:-$(nproc)}"
"$root/scripts/install-deps.sh"
# Optimised: ThreadSanitizer slows code about tenfold at -O0 and fivefold optimised,
# and the suites wait on real sockets and threads. -g1 (line tables only): a report's
# stacks still name file and line, and the build takes a quarter less time than with -g.
flags="-O2 -g1 -DNDEBUG"
# CMAKE_ARGS is split into words on purpose: it holds several -D options.
# shellcheck disable=SC2086
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
  -DAGENTRT_SANITIZE=thread -DAGENTRT_BUILD_BENCH=OFF ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j"$jobs" --target core_tests server_tests provider_tests
export TSAN_OPTIONS="suppressions=$root/tests/tsan-suppressions.txt halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs" \
  -R '^(core_tests|server_tests|providers\.(blocking\.)?provider_tests)/' "$@"
