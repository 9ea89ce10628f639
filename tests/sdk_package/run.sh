#!/usr/bin/env bash
# Installs the SDK component of the build into a temporary prefix, builds a plugin
# against it as a third party would (find_package(AgentrtSDK)), and checks that
# agentd loads it. Usage: run.sh <build-dir> <agentd> <source-dir>
set -euo pipefail
build_dir=$1 agentd=$2 here=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" --component sdk >/dev/null
cmake -S "$here/external" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="${EXTERNAL_CXX_FLAGS:-}" >/dev/null
cmake --build "$work/build" >/dev/null
test "$(nm -D --defined-only "$work/build/third-party.so" | awk '{print $3}')" = agentrt_plugin_query
"$agentd" plugins --json --plugin-dir "$work/build" --data-dir "$work/data" | tee "$work/plugins.out"
grep '"name":"third-party"' "$work/plugins.out" | grep -q '"loaded":true'
echo "third-party plugin built against the installed SDK and loaded"
