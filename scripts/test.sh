#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and API). Set
# AGENTRT_SANITIZE=address,undefined to run the suite under the sanitizers (it then
# builds in build-sanitize unless BUILD_DIR says otherwise).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${AGENTRT_SANITIZE:-}" ]; then
  export BUILD_DIR="${BUILD_DIR:-$root/build-sanitize}"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fi
build_dir="${BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
ctest --test-dir "$build_dir" --output-on-failure -j"${JOBS:-$(nproc)}" "$@"
