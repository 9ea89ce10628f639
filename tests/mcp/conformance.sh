#!/usr/bin/env bash
# Runs the client scenarios of the MCP conformance tool (@modelcontextprotocol/
# conformance, the MCP project's own) that apply to the mcp plugin against it, with
# conformance_client.sh as the client; docs/mcp-conformance.md says which apply and
# why. Installs the tool with npm into <dir> once; exits 77 (skipped) without npm.
# Usage: conformance.sh <dir> <agentrt-plugin-check> <agentrt-mcp.so>
set -euo pipefail
dir=$1 check=$2 plugin=$3
here=$(cd "$(dirname "$0")" && pwd)
# 0.1.14 and later import fs.globSync, which Node 20 lacks; 0.1.13 has the same
# client scenarios.
version=0.1.13
scenarios=(initialize tools_call sse-retry)
command -v npm >/dev/null 2>&1 || { echo "npm not found: the MCP conformance scenarios are skipped"; exit 77; }
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
conformance=$dir/node_modules/.bin/conformance
installed=$dir/node_modules/@modelcontextprotocol/conformance/package.json
if ! grep -q "\"version\": \"$version\"" "$installed" 2>/dev/null; then
  npm install --prefix "$dir" --no-audit --no-fund --silent \
    "@modelcontextprotocol/conformance@$version" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for scenario in "${scenarios[@]}"; do
  if "$conformance" client --command "'$here/conformance_client.sh' '$check' '$plugin'" \
    --scenario "$scenario" -o "$work/results" >"$work/$scenario.log" 2>&1; then
    echo "PASS $scenario"
  else
    echo "FAIL $scenario"
    cat "$work/$scenario.log"
    failed=1
  fi
done
exit $failed
