#!/bin/sh
# The client the MCP conformance tool runs for a client scenario (conformance.sh): the
# mcp plugin, loaded by agentrt-plugin-check the way agentd loads it, on the config
# {"url": <the scenario's server>}, so that it initializes, lists the tools, calls one
# and pings. The tool appends the server's URL to the command and names the scenario
# in MCP_CONFORMANCE_SCENARIO. Usage: conformance_client.sh <plugin-check> <mcp.so> <url>
set -eu
check=$1 plugin=$2 url=$3
config=$(mktemp)
trap 'rm -f "$config"' EXIT
printf '{"url":"%s"}\n' "$url" >"$config"
# A scenario whose tool needs arguments gets them; the others' first tool is called with {}.
case ${MCP_CONFORMANCE_SCENARIO:-} in
  tools_call) set -- --tool add_numbers --arguments '{"a":2,"b":3}' ;;
  *) set -- ;;
esac
"$check" --timeout 20 --config "$config" "$@" "$plugin"
