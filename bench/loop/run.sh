#!/usr/bin/env bash
# The step loop's own cost (bench/README.md, "The step loop"): agentd with a tool server
# in process, over MCP stdio and over MCP streamable HTTP, against loop_bench's upstream,
# with the tool called straight and a plain /chat beside them in the same rounds. Writes
# bench/results/loop-<YYYY-MM-DD>.md (RESULTS=path overrides) and prints it.
#
#   bench/loop/run.sh            5,000 runs a path at each concurrency, in 5 rounds
#   QUICK=1 bench/loop/run.sh    500 runs a path
#
# Environment: RUNS, ROUNDS (5), WARMUP (50), CONCURRENCY ("1,4"), BUILD_DIR
# (build-bench), JOBS (2), KEEP_WORK (1 keeps the temporary directory), RESULTS.
# Needs the build dependencies of scripts/run.sh, jq, and npm with its registry for
# the MCP servers (without npm only the in-process plugin is measured).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-bench}"
if [ "${QUICK:-0}" = 1 ]; then runs="${RUNS:-500}"; else runs="${RUNS:-5000}"; fi
rounds="${ROUNDS:-5}"
warmup="${WARMUP:-50}"
concurrency="${CONCURRENCY:-1,4}"
report="${RESULTS:-$root/bench/results/loop-$(date -u +%Y-%m-%d).md}"
command_line="${QUICK:+QUICK=$QUICK }${RUNS:+RUNS=$RUNS }${ROUNDS:+ROUNDS=$ROUNDS }${CONCURRENCY:+CONCURRENCY=$CONCURRENCY }bench/loop/run.sh"

bench_name=loop
# shellcheck source=bench/processes.sh
. "$root/bench/processes.sh"

command -v jq >/dev/null || die "jq is needed (apt-get install jq)"
build_release "$build_dir" agentd loop_bench loop-tools
bin="$build_dir/bin"

# The MCP servers: server-everything, installed as the mcp tests install it.
servers=inproc
config_servers='[{"name":"inproc","type":"loop-tools"}]'
mcp_args=()
mcp_dir="$build_dir/bench/loop/mcp-servers"
everything="$mcp_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if "$root/tests/mcp/install-servers.sh" "$mcp_dir" 2>"$work/npm.log"; then
  node="$(command -v node)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  PORT="$port" start everything "$node" "$everything" streamableHttp
  for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || die "server-everything did not listen"
  url="http://127.0.0.1:$port/mcp"
  servers=inproc,stdio,http
  config_servers="$(jq -cn --arg node "$node" --arg js "$everything" --arg url "$url" '[
    {name: "inproc", type: "loop-tools"},
    {name: "stdio", command: [$node, $js, "stdio"]},
    {name: "http", url: $url}]')"
  mcp_args=(--mcp-url "$url" --mcp-stdio "$node $everything stdio")
  mcp_version="$(jq -r .version "$mcp_dir/node_modules/@modelcontextprotocol/server-everything/package.json")"
else
  log "no MCP servers ($(tail -n 1 "$work/npm.log")): the in-process plugin only"
fi

jq -n --arg dir "$build_dir/bench/loop/plugins" --argjson servers "$config_servers" \
  '{plugin_dirs: [$dir], tool_servers: $servers}' >"$work/agentd.json"
start agentd "$bin/agentd" serve --config "$work/agentd.json" --listen 127.0.0.1:0 \
  --data-dir "$work/data"
agentd_pid=$last_pid
listening=""
for _ in $(seq 300); do
  listening="$(grep -m1 '"msg":"listening"' "$work/agentd.err" 2>/dev/null || true)"
  [ -n "$listening" ] && break
  sleep 0.1
done
[ -n "$listening" ] || {
  cat "$work/agentd.err" >&2
  die "agentd did not start"
}
agentd_addr="$(jq -r .address <<<"$listening")"
log "agentd $agentd_addr (pid $agentd_pid), tool servers $servers"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
"$bin/loop_bench" --agentd "$agentd_addr" --admin-token "$(cat "$work/data/admin.token")" \
  --pid "$agentd_pid" --servers "$servers" "${mcp_args[@]}" --runs "$runs" --rounds "$rounds" \
  --warmup "$warmup" --concurrency "$concurrency" >"$work/tables.md" || {
  tail -n 20 "$work/agentd.err" >&2
  die "loop_bench failed"
}
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

mkdir -p "$(dirname "$report")"
{
  echo "# The step loop's own cost: $started"
  echo
  echo "- Command: \`$command_line\`; $runs runs a path at each concurrency, in $rounds rounds (every path in each), $warmup unmeasured runs a path first."
  echo "- Commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" status --porcelain -- . ':!bench/results' | grep -q . && echo ' with uncommitted changes'), Release; $("$bin/agentd" version 2>/dev/null | head -n1)."
  echo "- Host: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), Linux $(uname -r); load average before $load_before, after $load_after."
  echo "- Tool servers: \`loop-tools\` (bench/loop/loop_tool.cpp) in process${mcp_version:+; @modelcontextprotocol/server-everything $mcp_version on node $(node --version) over stdio (a child of agentd) and streamable HTTP}."
  echo "- agentd: its defaults (persistence on, info logs to a file), a non-admin token."
  echo
  echo "Loop gap: from the last byte of the response that calls the tool to the first byte of"
  echo "the request that answers it, as the kernel stamped them on the upstream's sockets. The"
  echo "tool alone: echo called straight over MCP (a session of loop_bench's own, a stdio child of"
  echo "its own), timed by the caller, at concurrency 1 only. gap − tool: p50 less p50, p99 less"
  echo "p99. CPU a step: agentd's user + system time over a path's runs, over its provider calls"
  echo "(two a tool run). A run: the client's time for a whole /chat. Milliseconds."
  echo
  cat "$work/tables.md"
} >"$report"
cat "$report"
log "report written to $report"
