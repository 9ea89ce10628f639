#!/usr/bin/env bash
# Installs the SDK and runtime components of the build into a temporary root, laid out
# as the Debian package lays them (packaging/), and builds two plugins against that SDK
# as a third party would (find_package(AgentrtSDK), external/): a provider and a tool
# server. Then checks that the installed agentd loads both, that the installed
# agentrt-plugin-check passes the tool server, and that agentd started with it in
# `tool_servers` lists it healthy with its tools. Usage: run.sh <build-dir> <source-dir>
set -euo pipefail
. "$(dirname "$0")/../shell/agentd_port.sh"
build_dir=$1 here=$2
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "sdk_package: $*" >&2; exit 1; }

root=$work/root
for component in sdk runtime; do
  DESTDIR=$root cmake --install "$build_dir" --prefix /usr --component "$component" >/dev/null
done
agentd=$root/usr/bin/agentd
plugin_check=$root/usr/bin/agentrt-plugin-check
cmake -S "$here/external" -B "$work/build" -DCMAKE_PREFIX_PATH="$root/usr" \
  -DCMAKE_CXX_FLAGS="${EXTERNAL_CXX_FLAGS:-}" >/dev/null
cmake --build "$work/build" >/dev/null
plugins=$work/build
for plugin in third-party third-party-tool; do
  symbols=$(nm -D --defined-only "$plugins/$plugin.so" | awk '{print $3}')
  [ "$symbols" = agentrt_plugin_query ] || fail "$plugin.so exports: $symbols"
done
# agentd opens only the plugins a config enables (docs/operator-guide.md, "Plugins").
echo '{"plugins": {"third-party": {}, "third-party-tool": {}}}' >"$work/enable.json"
"$agentd" plugins --json --plugin-dir "$plugins" --data-dir "$work/data" \
  --config "$work/enable.json" | tee "$work/plugins.out"
for plugin in third-party third-party-tool; do
  grep "\"name\":\"$plugin\"" "$work/plugins.out" | grep -q '"loaded":true' ||
    fail "agentd did not load $plugin"
done
echo "third-party plugins built against the installed SDK and loaded"

# The installed checker, on the config agentd will hand the tool server, once with its
# first tool and {} and once with a real call, which must succeed.
echo '{"name":"ext","type":"third-party-tool","suffix":"!"}' >"$work/tool.json"
"$plugin_check" --config "$work/tool.json" "$plugins/third-party-tool.so" >"$work/check.out" ||
  fail "agentrt-plugin-check failed: $(cat "$work/check.out")"
"$plugin_check" --config "$work/tool.json" --tool shout --arguments '{"text":"hello"}' \
  "$plugins/third-party-tool.so" >>"$work/check.out" ||
  fail "agentrt-plugin-check failed: $(cat "$work/check.out")"
cat "$work/check.out"
! grep -qE '^(WARN|FAIL|SKIP) ' "$work/check.out" || fail "a check did not pass"
grep -q '^PASS call: shout {"text":"hello"} -> HELLO!$' "$work/check.out" ||
  fail "the call did not answer HELLO!"

# agentd on a config of the test's own, with the tool server as entry "ext". Sets
# $port, $pid and $token (the admin token agentd writes, as the config asks).
start_agentd() {
  cat >"$work/agentd.json" <<EOF
{
  "listen": "127.0.0.1:0",
  "data_dir": "$work/data",
  "admin_token_file": true,
  "plugin_dirs": ["$plugins"],
  "plugins": {"third-party-tool": {"enabled": true}},
  "tool_servers": [{"name": "ext", "type": "third-party-tool", "suffix": "!", "timeout_ms": 5000}]
}
EOF
  "$agentd" serve --config "$work/agentd.json" 2>"$work/agentd.err" &
  pid=$!
  wait_for_port "$work/agentd.err"
  token=$(cat "$work/data/admin.token")
}

# One request as the admin: method, path and an optional JSON body; prints the body.
admin_request() {
  curl -sS --fail-with-body -X "$1" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' ${3:+--data "$3"} "http://127.0.0.1:$port$2"
}

start_agentd
servers=$(admin_request GET /admin/tool-servers) || fail "GET /admin/tool-servers: $servers"
echo "$servers"
# Compact JSON with sorted keys (nlohmann's), and "ext" the only tool server.
for want in '"name":"ext"' '"type":"third-party-tool"' '"healthy":true' \
  '{"description":"Answers pong","name":"ping"}' \
  '{"description":"The text in capitals","name":"shout"}'; do
  case $servers in
    *"$want"*) ;;
    *) fail "GET /admin/tool-servers lacks $want" ;;
  esac
done
echo "agentd serves the third party's tool server"

# A run calls the tool: the offline echo model calls what the user asks it to
# ("call shout {...}"), agentd runs the third party's tool, and echo answers with
# the result on the run's second step.
agent=$(admin_request POST /agents \
  '{"name":"shouter","model":"echo","tools":[{"type":"mcp","server":"ext"}]}') ||
  fail "POST /agents: $agent"
agent_id=$(printf '%s' "$agent" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
[ -n "$agent_id" ] || fail "no agent id in $agent"
answer=$(admin_request POST /chat "{\"agent_id\":\"$agent_id\",\"messages\":[{\"role\":\"user\",\
\"content\":[{\"type\":\"text\",\"text\":\"call shout {\\\"text\\\":\\\"hello\\\"}\"}]}]}") ||
  fail "POST /chat: $answer"
echo "$answer"
case $answer in
  *'"reason":"end_turn"'*'"response":"shout returned: HELLO!"'*) ;;
  *) fail "the run did not call the third party's tool: $answer" ;;
esac
echo "a run calls the third party's tool"
