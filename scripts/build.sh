#!/usr/bin/env bash
# Configures and builds agentrt. Environment:
#   BUILD_DIR          build directory (default: build)
#   BUILD_TYPE         CMake build type (default: RelWithDebInfo)
#   AGENTRT_SANITIZE   e.g. address,undefined (default: none)
#   JOBS               parallel jobs (default: number of cores)
#   CMAKE_ARGS         further -D options for CMake, e.g. -DAGENTRT_BUILD_BENCH=OFF
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DAGENTRT_SANITIZE="${AGENTRT_SANITIZE:-}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j"${JOBS:-$(nproc)}"
