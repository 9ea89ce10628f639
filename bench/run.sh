#!/usr/bin/env bash
# The HTTP benchmarks of agentd against a zero-delay mock upstream, side by side with
# direct calls to the mock and with an npm gateway, in one run. Writes
# bench/results/<YYYY-MM-DD>.md (QUICK=1: <YYYY-MM-DD>-quick.md). See bench/README.md.
#
#   bench/run.sh                 every scenario, DURATION=10 s each
#   QUICK=1 bench/run.sh         the same, 3 s each
#
# Environment: DURATION (s per measurement), LAT_ROUNDS (3; QUICK: 1: section 1's rounds),
# CONCURRENCY ("16 64 256"), STREAMS (2000),
# STREAM_RAMP_S (5), PACED_DELTAS (64), PACED_DELAY_MS (20), AGENTD_THREADS (agentd's default),
# GATEWAY (1; 0 skips the npm gateway), BUILD_DIR (build-bench), JOBS (2),
# KEEP_WORK (1 keeps the temporary directory), RESULTS (the report's path).
#
# Everything listens on and loads 127.0.0.1 only; every process started here is stopped
# on exit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-bench}"
quick="${QUICK:-0}"
if [ "$quick" = 1 ]; then duration="${DURATION:-3}"; else duration="${DURATION:-10}"; fi
if [ "$quick" = 1 ]; then lat_rounds="${LAT_ROUNDS:-1}"; else lat_rounds="${LAT_ROUNDS:-3}"; fi
concurrency="${CONCURRENCY:-16 64 256}"
streams="${STREAMS:-2000}"
stream_ramp_s="${STREAM_RAMP_S:-5}"
paced_deltas="${PACED_DELTAS:-64}"
paced_delay_ms="${PACED_DELAY_MS:-20}"
agentd_threads="${AGENTD_THREADS:-}"
with_gateway="${GATEWAY:-1}"
today="$(date -u +%Y-%m-%d)"
if [ "$quick" = 1 ]; then default_report="$root/bench/results/$today-quick.md"; else
  default_report="$root/bench/results/$today.md"; fi
report="${RESULTS:-$default_report}"
command_line="${QUICK:+QUICK=$QUICK }${DURATION:+DURATION=$DURATION }${LAT_ROUNDS:+LAT_ROUNDS=$LAT_ROUNDS }bench/run.sh"

bench_name=bench
# shellcheck source=bench/processes.sh
. "$root/bench/processes.sh"
# shellcheck source=bench/openai_report.sh
. "$root/bench/openai_report.sh"

# wait_for FILE REGEX SECONDS: the first line of FILE matching REGEX, waiting at most SECONDS.
wait_for() {
  local i
  for ((i = 0; i < $3 * 20; i++)); do
    if grep -m1 -E "$2" "$1" 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  return 1
}

# A port nobody listens on now (the gateway needs one named up front).
free_port() {
  local port i
  for ((i = 0; i < 50; i++)); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# ---- Tools and build ---------------------------------------------------------------

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need() {  # need COMMAND PACKAGE
  command -v "$1" >/dev/null && return 0
  log "installing $2"
  as_root apt-get install -y "$2" >/dev/null || {
    as_root apt-get update >/dev/null
    as_root apt-get install -y "$2" >/dev/null
  }
}
need wrk wrk
need jq jq
need cmake cmake

build_release "$build_dir" agentd mock_upstream floor_relay sse_load start_probe store_bench
bin="$build_dir/bin"
lua="$root/bench/load/post.lua"

# Streams need two descriptors each in agentd (client and upstream), one in the client
# and one in the mock.
ulimit -n "$(ulimit -Hn)" || true
[ "$(ulimit -n)" -ge $((2 * streams + 512)) ] ||
  log "warning: ulimit -n is $(ulimit -n), low for $streams streams"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- The mocks and agentd ----------------------------------------------------------

start mock "$bin/mock_upstream" --port 0 --mode instant --deltas 16 --threads 2
mock_pid=$last_pid
mock_port="$(wait_for "$work/mock.out" '^listening' 10 | sed 's/.*://')" || die "mock did not start"
start paced "$bin/mock_upstream" --port 0 --mode paced --deltas "$paced_deltas" \
  --delay-ms "$paced_delay_ms" --threads 1
paced_pid=$last_pid
paced_port="$(wait_for "$work/paced.out" '^listening' 10 | sed 's/.*://')" || die "paced mock did not start"
start floor "$bin/floor_relay" --upstream "127.0.0.1:$mock_port"
floor_pid=$last_pid
floor_addr="$(wait_for "$work/floor.out" '^listening' 10 | sed 's/^listening //')" || die "floor relay did not start"

data="$work/agentd-data"
mkdir -p "$data"
if [ -n "$agentd_threads" ]; then
  printf '{"server":{"threads":%d}}\n' "$agentd_threads" >"$work/agentd.json"
else
  echo '{}' >"$work/agentd.json"
fi
start agentd "$bin/agentd" serve --config "$work/agentd.json" --listen 127.0.0.1:0 --data-dir "$data"
agentd_pid=$last_pid
listening="$(wait_for "$work/agentd.err" '"msg":"listening"' 30)" || {
  cat "$work/agentd.err" >&2
  die "agentd did not start"
}
agentd_addr="$(jq -r .address <<<"$listening")"
admin_token="$(cat "$data/admin.token")"
log "mock :$mock_port, paced mock :$paced_port, agentd $agentd_addr (pid $agentd_pid)"

api() {  # api PATH JSON: POST as admin, the body on stdout, non-2xx fails
  curl -sS --fail-with-body -H "Authorization: Bearer $admin_token" \
    -H 'Content-Type: application/json' -d "$2" "http://$agentd_addr$1"
}
provider() {  # provider NAME MODEL PORT
  printf '{"name":"%s","type":"openai","base_url":"http://127.0.0.1:%s/v1",' "$1" "$3"
  printf '"api_key_ref":{"source":"inline","value":"sk-bench"},'
  printf '"models":[{"id":"%s","context_window":8192}]}' "$2"
}
api /admin/shared-providers \
  "{\"providers\":[$(provider mock mock-model "$mock_port"),$(provider paced mock-paced "$paced_port")]}" \
  >/dev/null
user_token="$(api /admin/tokens '{"ttl":"24h","actor":"bench"}' | jq -r .token)"

# Request bodies: what a client sends to agentd, and the request agentd's openai plugin
# sends upstream, which the direct calls send too.
chat_body='{"model":"mock-model","messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]}'
echo "$chat_body" >"$work/chat.json"
echo '{"model":"mock-model","messages":[{"role":"user","content":"hello"}],"stream":true,"stream_options":{"include_usage":true}}' >"$work/direct-stream.json"
echo '{"model":"mock-model","messages":[{"role":"user","content":"hello"}]}' >"$work/direct-json.json"
echo '{"model":"mock-paced","max_tokens":2,"messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]}' >"$work/run-ttfd.json"
echo '{"model":"mock-model","messages":[{"role":"user","content":"hello"}],"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":2}' >"$work/direct-ttfd.json"
echo '{"model":"mock-paced","messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]}' >"$work/run-stream.json"
echo '{"model":"mock-model","messages":[{"role":"user","content":"hello"}],"stream":true,"stream_options":{"include_usage":true}}' >"$work/direct-paced.json"
# The tool round trip (section 2b): a turn that offers a tool and gets a call, then the
# turn that answers it, on the pair's own session ("pair": bench/load/post.lua); beside
# it two plain turns, and the same two calls sent straight to the mock.
weather='{"type":"function","name":"get_weather","description":"The weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}'
echo '{"model":"mock-model","session_id":"pair","tools":['"$weather"'],"messages":[{"role":"user","content":[{"type":"text","text":"weather in Paris?"}]}]}' >"$work/tool-call.json"
echo '{"model":"mock-model","session_id":"pair","tools":['"$weather"'],"messages":[{"role":"tool","content":[{"type":"tool_result","tool_call_id":"call_bench","output":"sunny, 24C"}]}]}' >"$work/tool-answer.json"
echo '{"model":"mock-model","session_id":"pair","messages":[{"role":"user","content":[{"type":"text","text":"weather in Paris?"}]}]}' >"$work/plain-first.json"
echo '{"model":"mock-model","session_id":"pair","messages":[{"role":"user","content":[{"type":"text","text":"sunny, 24C"}]}]}' >"$work/plain-second.json"
openai_tool="$(jq -c '{type, function: {name, description, parameters}}' <<<"$weather")"
echo '{"model":"mock-model","messages":[{"role":"user","content":"weather in Paris?"}],"stream":true,"stream_options":{"include_usage":true},"tools":['"$openai_tool"']}' >"$work/direct-tool-call.json"
echo '{"model":"mock-model","messages":[{"role":"user","content":"weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_bench","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_bench","content":"sunny, 24C"}],"stream":true,"stream_options":{"include_usage":true},"tools":['"$openai_tool"']}' >"$work/direct-tool-answer.json"

auth="Authorization: Bearer $user_token"
direct_url="http://127.0.0.1:$mock_port/v1/chat/completions"
v1_url="http://$agentd_addr/v1/chat/completions"
paced_target="127.0.0.1:$paced_port"

# Every path answers before anything is measured.
curl -sS --fail-with-body -H "$auth" -H 'Content-Type: application/json' -d "$chat_body" \
  "http://$agentd_addr/chat" | jq -e '.reason == "end_turn"' >/dev/null || die "/chat failed"
curl -sS --fail-with-body -H "$auth" -H 'Content-Type: application/json' -d @"$work/direct-json.json" \
  "$v1_url" | jq -e '.choices[0].finish_reason == "stop"' >/dev/null || die "/v1/chat/completions failed"

# ---- The npm gateway ---------------------------------------------------------------

gateway_note=""
gateway_url=""
gateway_version=""
if [ "$with_gateway" = 1 ]; then
  log "installing the npm gateway into $work/gateway"
  if ! command -v npm >/dev/null; then
    gateway_note="not run: npm is not installed"
  elif ! "$root/bench/gateway/gateway.sh" install "$work/gateway" 2>"$work/gateway-install.log"; then
    gateway_note="not run: npm install failed: $(tail -n 3 "$work/gateway-install.log" | tr '\n' ' ')"
  else
    gateway_version="$(jq -r .version "$work/gateway/node_modules/@portkey-ai/gateway/package.json")"
    gateway_port="$(free_port)" || die "no free port for the gateway"
    start gateway "$root/bench/gateway/gateway.sh" start "$work/gateway" "$gateway_port"
    gateway_pid=$last_pid
    for ((i = 0; i < 300; i++)); do
      (exec 3<>"/dev/tcp/127.0.0.1/$gateway_port") 2>/dev/null && break
      sleep 0.1
    done
    gateway_url="http://127.0.0.1:$gateway_port/v1/chat/completions"
    gateway_headers="x-portkey-provider: openai|x-portkey-custom-host: http://127.0.0.1:$mock_port/v1|Authorization: Bearer sk-bench"
    curl_gateway() {
      curl -sS -m 10 -H 'Content-Type: application/json' -H 'x-portkey-provider: openai' \
        -H "x-portkey-custom-host: http://127.0.0.1:$mock_port/v1" \
        -H 'Authorization: Bearer sk-bench' -d @"$1" "$gateway_url"
    }
    if ! curl_gateway "$work/direct-json.json" | jq -e '.choices[0].finish_reason == "stop"' \
      >/dev/null 2>&1; then
      gateway_note="not run: the gateway did not answer a non-streaming request"
      gateway_url=""
    fi
    # Its streaming path, checked once and reported (its /chat comparison is non-streaming).
    gateway_stream="$(curl_gateway "$work/direct-stream.json" 2>&1 | tail -c 300 || true)"
    if grep -q 'data: \[DONE\]' <<<"$gateway_stream"; then
      gateway_stream_note="streaming through the gateway works"
    else
      # A log without the error (a gateway that never came up) must not stop the run.
      gateway_error="$({ grep -m1 -o 'TypeError: [a-z]*' "$work/gateway.out" "$work/gateway.err" 2>/dev/null || true; } | head -1 | cut -d: -f2-)"
      gateway_stream_note="streaming through the gateway fails: it answers \`$(tr -d '\n' <<<"$gateway_stream")\`; its log: \`${gateway_error}\`"
    fi
  fi
else
  gateway_note="not run: GATEWAY=0"
fi

# ---- Measurements ------------------------------------------------------------------

mkdir -p "$work/r"
clk_tck="$(getconf CLK_TCK)"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # user + system, in clock ticks
status_field() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }
# calc EXPR: awk arithmetic, "n/a" when it fails.
calc() { awk "BEGIN { $1 }" 2>/dev/null || echo n/a; }
# per_delta_us NAME: the server's CPU (NAME.proc) over the deltas of the streams done.
per_delta_us() {
  local cpu done
  cpu="$(jq -r '.cpu_pct // empty' "$work/r/$1.proc" 2>/dev/null)"
  done="$(jq -r '.completed // empty' "$work/r/$1" 2>/dev/null)"
  calc "if (\"$cpu\" == \"\" || \"$done\" == \"\" || $done + 0 == 0) print \"n/a\"; else printf \"%.1f\", $cpu / 100 * $duration * 1e6 / ($done * $paced_deltas)"
}
# wrk_run NAME URL CONNECTIONS BODY_FILE [HEADERS [PID]]: wrk's JSON line (post.lua) to
# $work/r/NAME; with PID, the CPU seconds that process used meanwhile to $work/r/NAME.cpu.
wrk_run() {
  local threads=2 c0=0 c1=0
  [ "$3" -lt 2 ] && threads=1
  [ -n "${6:-}" ] && c0="$(cpu_ticks "$6")"
  BENCH_BODY_FILE="$4" BENCH_HEADERS="${5:-}" wrk -t"$threads" -c"$3" -d"${duration}s" \
    --timeout 10s -s "$lua" "$2" >"$work/r/$1.wrk" 2>&1 || true
  if [ -n "${6:-}" ]; then
    c1="$(cpu_ticks "$6")"
    calc "printf \"%.2f\", ($c1 - $c0) / $clk_tck" >"$work/r/$1.cpu"
  fi
  grep '^{' "$work/r/$1.wrk" | tail -n1 >"$work/r/$1" || echo '{}' >"$work/r/$1"
  log "$1: $(jq -c '{rps, latency_us, errors}' "$work/r/$1" 2>/dev/null)"
}
warm() {  # a short unmeasured load on every path
  BENCH_BODY_FILE="$work/direct-stream.json" wrk -t1 -c4 -d1s -s "$lua" "$direct_url" >/dev/null 2>&1 || true
  BENCH_BODY_FILE="$work/chat.json" BENCH_HEADERS="$auth" wrk -t1 -c4 -d1s -s "$lua" \
    "http://$agentd_addr/chat" >/dev/null 2>&1 || true
  if [ -n "$gateway_url" ]; then
    BENCH_BODY_FILE="$work/direct-json.json" BENCH_HEADERS="$gateway_headers" \
      wrk -t1 -c4 -d2s -s "$lua" "$gateway_url" >/dev/null 2>&1 || true
  fi
}

log "warming up"
warm

log "1. /chat latency at concurrency 1, $lat_rounds rounds"
# Rounds of the direct call then agentd's, alternating, so that a busy minute of this
# shared machine lands in one round, not in one side of the comparison.
for ((k = 1; k <= lat_rounds; k++)); do
  wrk_run "lat-direct-stream.$k" "$direct_url" 1 "$work/direct-stream.json" "" "$mock_pid"
  wrk_run "lat-agentd.$k" "http://$agentd_addr/chat" 1 "$work/chat.json" "$auth" "$agentd_pid"
done
wrk_run lat-floor "http://$floor_addr/chat" 1 "$work/chat.json" "" "$floor_pid"
wrk_run lat-direct-json "$direct_url" 1 "$work/direct-json.json" "" "$mock_pid"
[ -n "$gateway_url" ] && wrk_run lat-gateway "$gateway_url" 1 "$work/direct-json.json" "$gateway_headers" "$gateway_pid"

log "2. /chat throughput"
for c in $concurrency; do
  wrk_run tp-direct-stream-$c "$direct_url" "$c" "$work/direct-stream.json" "" "$mock_pid"
  wrk_run tp-agentd-$c "http://$agentd_addr/chat" "$c" "$work/chat.json" "$auth" "$agentd_pid"
  # Section 2c: the gateway's own calls, sent to agentd's OpenAI-compatible path.
  wrk_run tp-v1-json-$c "$v1_url" "$c" "$work/direct-json.json" "$auth" "$agentd_pid"
  wrk_run tp-v1-stream-$c "$v1_url" "$c" "$work/direct-stream.json" "$auth" "$agentd_pid"
  wrk_run tp-direct-json-$c "$direct_url" "$c" "$work/direct-json.json" "" "$mock_pid"
  [ -n "$gateway_url" ] && wrk_run tp-gateway-$c "$gateway_url" "$c" "$work/direct-json.json" "$gateway_headers" "$gateway_pid"
done

log "2b. tool round trip at concurrency 1, $lat_rounds rounds"
# Alternating rounds, as in section 1. Each wrk request is one of a pair's two calls.
for ((k = 1; k <= lat_rounds; k++)); do
  BENCH_BODY2_FILE="$work/direct-tool-answer.json" BENCH_PAIR_PREFIX="direct-$k" wrk_run "pair-direct.$k" "$direct_url" 1 \
    "$work/direct-tool-call.json" "" "$mock_pid"
  BENCH_BODY2_FILE="$work/tool-answer.json" BENCH_PAIR_PREFIX="tools-$k" wrk_run "pair-tools.$k" "http://$agentd_addr/chat" 1 \
    "$work/tool-call.json" "$auth" "$agentd_pid"
  BENCH_BODY2_FILE="$work/plain-second.json" BENCH_PAIR_PREFIX="plain-$k" wrk_run "pair-plain.$k" "http://$agentd_addr/chat" 1 \
    "$work/plain-first.json" "$auth" "$agentd_pid"
done

log "3a. time to first delta at concurrency 1"
sse() {  # sse NAME ARGS...: sse_load's JSON to $work/r/NAME
  local name="$1"
  shift
  "$bin/sse_load" "$@" >"$work/r/$name" 2>"$work/r/$name.err" || echo '{}' >"$work/r/$name"
  log "$name: $(jq -c '{completed, errors, ttfd_us, live}' "$work/r/$name" 2>/dev/null)"
}
sse ttfd-direct --target "$paced_target" --path /v1/chat/completions \
  --body-file "$work/direct-ttfd.json" --duration-s "$duration" --warmup-s 0.5 \
  --first '"delta":{"content":"' --expect 'data: [DONE]'
sse ttfd-agentd --target "$agentd_addr" --path /run --header "$auth" \
  --body-file "$work/run-ttfd.json" --duration-s "$duration" --warmup-s 0.5 \
  --first '"type":"stream_delta"' --expect '"reason":"max_tokens"'

# hold NAME PID TARGET PATH BODY FIRST EXPECT [sse_load ARGS]: $streams streams; PID's CPU
# and RSS over the measured window.
hold() {
  local name="$1" pid="$2" target="$3" path="$4" body="$5" first="$6" expect="$7"
  shift 7
  local warmup=2
  "$bin/sse_load" --target "$target" --path "$path" --body-file "$body" "$@" \
    --connections "$streams" --ramp-s "$stream_ramp_s" --warmup-s "$warmup" \
    --duration-s "$duration" --drain-s 10 --first "$first" --expect "$expect" \
    --active-ms "$active_ms" \
    >"$work/r/$name" 2>"$work/r/$name.err" &
  local load_pid=$!
  pids+=("$load_pid")
  sleep "$((stream_ramp_s + warmup))"
  local t0 c0 t1 c1 rss=0 peak=0 threads=0 end
  t0="$(date +%s.%N)"
  c0="$(cpu_ticks "$pid")"
  end=$(($(date +%s) + duration))
  while [ "$(date +%s)" -lt "$end" ]; do
    rss="$(status_field "$pid" VmRSS)"
    [ "$rss" -gt "$peak" ] && peak="$rss"
    threads="$(status_field "$pid" Threads)"
    sleep 0.5
  done
  t1="$(date +%s.%N)"
  c1="$(cpu_ticks "$pid")"
  wait "$load_pid" || true
  [ -s "$work/r/$name" ] || echo '{}' >"$work/r/$name"
  awk -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" -v hz="$clk_tck" -v rss="$peak" \
    -v th="$threads" 'BEGIN {printf "{\"cpu_pct\":%.0f,\"rss_kb\":%d,\"threads\":%d}\n",
      100 * (c1 - c0) / hz / (t1 - t0), rss, th}' >"$work/r/$name.proc"
  log "$name: $(jq -c '{completed, errors, open, live, active, gap_us}' "$work/r/$name" 2>/dev/null) $(cat "$work/r/$name.proc")"
}

active_ms=$((paced_delay_ms * 5 > 250 ? paced_delay_ms * 5 : 250))
log "3b. $streams concurrent streams ($paced_deltas deltas, $paced_delay_ms ms apart)"
hold streams-direct "$paced_pid" "$paced_target" /v1/chat/completions \
  "$work/direct-paced.json" '"delta":{"content":"' 'data: [DONE]'
hold streams-agentd "$agentd_pid" "$agentd_addr" /run "$work/run-stream.json" \
  '"type":"stream_delta"' '"reason":"end_turn"' --header "$auth"
agentd_after_rss="$(status_field "$agentd_pid" VmRSS)"
agentd_db_kb="$(du -sk "$data" | cut -f1)"

log "6. start time and idle memory (5 starts each)"
start_runs=5
"$bin/start_probe" --runs "$start_runs" --settle-ms 1000 -- "$bin/agentd" serve \
  --listen '127.0.0.1:{port}' --data-dir "$work/start-fresh-{run}" \
  >"$work/r/start-fresh" 2>"$work/r/start-fresh.err" || echo '{}' >"$work/r/start-fresh"
mkdir -p "$work/start-existing"
"$bin/start_probe" --runs "$start_runs" --settle-ms 1000 -- "$bin/agentd" serve \
  --listen '127.0.0.1:{port}' --data-dir "$work/start-existing" \
  >"$work/r/start-existing" 2>"$work/r/start-existing.err" || echo '{}' >"$work/r/start-existing"
log "start: fresh $(jq -c '{median_healthy_ms, median_rss_kb, median_stopped_ms}' "$work/r/start-fresh"), existing $(jq -c '{median_healthy_ms, median_rss_kb, median_stopped_ms}' "$work/r/start-existing")"

log "7. the state store alone (store_bench, 3 runs)"
for run in 1 2 3; do
  "$bin/store_bench" --runs 20000 >"$work/r/store-$run" 2>/dev/null || echo '{}' >"$work/r/store-$run"
done
log "store: $(jq -c '[.wall_us.p50, .cpu_us_per_run, .wal_frames_per_commit]' "$work"/r/store-[123] | tr '\n' ' ')"

load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- The report --------------------------------------------------------------------

j() { jq -r "$2 // \"n/a\"" "$work/r/$1" 2>/dev/null || echo n/a; }
# CPU milliseconds per request of the process measured during wrk run NAME.
cpu_per_request() {
  calc "c = \"$(cat "$work/r/$1.cpu" 2>/dev/null)\"; n = \"$(j "$1" .requests)\"; if (c !~ /^[0-9.]+\$/ || n + 0 == 0) print \"n/a\"; else printf \"%.3f\", 1000 * c / n"
}
ms() { calc "v = \"$1\"; if (v !~ /^[0-9.]+\$/) print \"n/a\"; else printf \"%.3f\", v / 1000"; }
diff_ms() {
  calc "a = \"$1\"; b = \"$2\"; if (a !~ /^[0-9.]+\$/ || b !~ /^[0-9.]+\$/) print \"n/a\"; else printf \"%.3f\", (a - b) / 1000"
}
ratio() {
  calc "a = \"$1\"; b = \"$2\"; if (a !~ /^[0-9.]+\$/ || b !~ /^[0-9.]+\$/ || b + 0 == 0) print \"n/a\"; else printf \"%.3g\", a / b"
}
verdict() {  # verdict VALUE OP LIMIT
  calc "v = \"$1\"; if (v !~ /^-?[0-9.]+\$/) print \"not measured\"; else if (v + 0 $2 $3) print \"met\"; else print \"**missed**\""
}
errors() { jq -r '[.errors[]] | add // "n/a"' "$work/r/$1" 2>/dev/null || echo n/a; }

# round_added FIELD: "<agentd minus direct, ms> <round>", a line a round.
round_added() {
  for ((k = 1; k <= lat_rounds; k++)); do
    echo "$(diff_ms "$(j "lat-agentd.$k" "$1")" "$(j "lat-direct-stream.$k" "$1")") $k"
  done
}
comma_list() { paste -sd, | sed 's/,/, /g'; }
in_rounds() { round_added "$1" | cut -d' ' -f1 | comma_list; }
median_line() { sort -g | awk '{ line[NR] = $0 } END { print line[int((NR + 1) / 2)] }'; }
# The round with the median added p50 stands for section 1 in the tables below.
median_round="$(round_added .latency_us.p50 | median_line | cut -d' ' -f2)"
for f in lat-direct-stream lat-agentd; do
  for ext in "" .cpu .wrk; do
    if [ -e "$work/r/$f.$median_round$ext" ]; then cp "$work/r/$f.$median_round$ext" "$work/r/$f$ext"; fi
  done
done
lat_added_p50="$(diff_ms "$(j lat-agentd .latency_us.p50)" "$(j lat-direct-stream .latency_us.p50)")"
lat_added_p99="$(round_added .latency_us.p99 | median_line | cut -d' ' -f1)"
floor_added_p50="$(diff_ms "$(j lat-floor .latency_us.p50)" "$(j lat-direct-stream .latency_us.p50)")"
floor_added_p99="$(diff_ms "$(j lat-floor .latency_us.p99)" "$(j lat-direct-stream .latency_us.p99)")"
lat_added_p999="$(diff_ms "$(j lat-agentd .latency_us.p999)" "$(j lat-direct-stream .latency_us.p999)")"
lat_added_p99_wrk="$(diff_ms "$(j lat-agentd .latency_us_wrk.p99)" "$(j lat-direct-stream .latency_us_wrk.p99)")"
ttfd_added_p50="$(diff_ms "$(j ttfd-agentd .ttfd_us.p50)" "$(j ttfd-direct .ttfd_us.p50)")"
ttfd_added_p99="$(diff_ms "$(j ttfd-agentd .ttfd_us.p99)" "$(j ttfd-direct .ttfd_us.p99)")"
held="$(j streams-agentd .open.min)"
live="$(j streams-agentd .live.min)"
flowing="$(j streams-agentd .active.min)"
idle_rss_mb="$(calc "v = \"$(j start-existing .median_rss_kb)\"; if (v !~ /^[0-9.]+\$/) print \"n/a\"; else printf \"%.1f\", v / 1024")"
healthy_ms="$(j start-existing .median_healthy_ms)"

mkdir -p "$(dirname "$report")"
{
  echo "# agentrt HTTP benchmarks, $today"
  echo
  echo "Produced by \`$command_line\` (each measurement ${duration} s). Method and targets:"
  echo "[bench/README.md](../README.md)."
  echo
  echo "## Machine and versions"
  echo
  echo "- CPU: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM; Linux $(uname -r)"
  echo "- Load average (1, 5, 15 min) before: $load_before; after: $load_after. The machine is shared:"
  echo "  absolute figures are noisy, the ratios against a direct call in the same run less so."
  echo "- $("$bin/agentd" version 2>/dev/null | head -n1) (Release), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" status --porcelain -- . ':!bench/results' 2>/dev/null | grep -q . && echo ' with uncommitted changes in the tree')"
  echo "- $(dpkg-query -W -f='Poco ${Version}' libpoco-dev 2>/dev/null), $(dpkg-query -W -f='libcurl ${Version}' libcurl4-openssl-dev 2>/dev/null), $(dpkg-query -W -f='SQLite ${Version}' libsqlite3-dev 2>/dev/null); $(wrk --version 2>&1 | head -n1 | cut -d' ' -f1-2); node $(node --version 2>/dev/null || echo none)"
  echo "- agentd config: $( [ -n "$agentd_threads" ] && echo "defaults but \`server.threads\` $agentd_threads" || echo "its defaults (\`server.threads\` 4096)"); persistence on (SQLite in a temp dir), info logs to a file; \`ulimit -n\` $(ulimit -n)."
  echo "- npm gateway: ${gateway_version:+@portkey-ai/gateway $gateway_version on node $(node --version 2>/dev/null)}${gateway_note}"
  echo
  echo "## 1. /chat added latency, concurrency 1"
  echo
  echo "wrk -t1 -c1, keep-alive. agentd's /chat calls the mock with streaming, so its baseline is"
  echo "the direct streaming call; the gateway forwards a non-streaming call, so its baseline is the"
  echo "direct non-streaming call. Milliseconds, each request timed by post.lua; *wrk p99* is wrk's"
  echo "own figure, which adds a synthetic sample for every mean interval a slow response covered"
  echo "(its coordinated-omission correction, see bench/README.md). CPU: the server process's"
  echo "(mock, agentd or gateway) CPU time per request, less sensitive to the machine's other load"
  echo "than latency."
  echo
  echo "| path | requests | p50 | p90 | p99 | p99.9 | max | wrk p99 | errors | server CPU per request |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for row in "direct to mock, streaming|lat-direct-stream" "agentd /chat|lat-agentd" \
    "floor relay|lat-floor" "direct to mock, non-streaming|lat-direct-json" "npm gateway|lat-gateway"; do
    f="${row##*|}"
    [ -s "$work/r/$f" ] || continue
    echo "| ${row%%|*} | $(j "$f" .requests) | $(ms "$(j "$f" .latency_us.p50)") | $(ms "$(j "$f" .latency_us.p90)") | $(ms "$(j "$f" .latency_us.p99)") | $(ms "$(j "$f" .latency_us.p999)") | $(ms "$(j "$f" .latency_us.max)") | $(ms "$(j "$f" .latency_us_wrk.p99)") | $(errors "$f") | $(cpu_per_request "$f") |"
  done
  echo
  echo "- **agentd added: p50 $lat_added_p50 ms, p99 $lat_added_p99 ms** (targets 0.1 and 0.5 ms: $(verdict "$lat_added_p50" '<=' 0.1), $(verdict "$lat_added_p99" '<=' 0.5)); p99.9 $lat_added_p999 ms; by wrk's own p99, $lat_added_p99_wrk ms."
  echo "- $lat_rounds rounds, each the direct call then agentd's: added p50 $(in_rounds .latency_us.p50) ms;"
  echo "  p99 $(in_rounds .latency_us.p99) ms; agentd's CPU a request $(for ((k = 1; k <= lat_rounds; k++)); do echo "$(cpu_per_request "lat-agentd.$k")"; done | comma_list) ms."
  echo "  The table shows round $median_round, the median by added p50. The targets are judged on"
  echo "  the rounds' median p50 and median p99; p99.9 and wrk's p99 are round $median_round's."
  echo "- The floor (bench/upstream/floor_relay: a relay that hands each request on and does nothing"
  echo "  else, one thread a connection as agentd) added p50 $floor_added_p50 ms, p99 $floor_added_p99 ms: what one"
  echo "  more hop over loopback costs on this machine, which no engine in agentd's place avoids."
  if [ -s "$work/r/lat-gateway" ]; then
    echo "- npm gateway added: p50 $(diff_ms "$(j lat-gateway .latency_us.p50)" "$(j lat-direct-json .latency_us.p50)") ms, p99 $(diff_ms "$(j lat-gateway .latency_us.p99)" "$(j lat-direct-json .latency_us.p99)") ms."
  fi
  echo
  echo "## 2. /chat throughput"
  echo
  echo "wrk -t2 -cN for ${duration} s, requests/s (errors in brackets: socket errors and responses"
  echo ">= 400); CPU: milliseconds of the server process's CPU per request."
  echo
  echo "| N | direct, streaming | agentd /chat | agentd / direct | agentd CPU | direct, non-streaming | npm gateway | gateway / direct | gateway CPU | agentd / gateway |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for c in $concurrency; do
    ds="$(j tp-direct-stream-$c .rps)"
    ag="$(j tp-agentd-$c .rps)"
    dj="$(j tp-direct-json-$c .rps)"
    gw="n/a"
    [ -s "$work/r/tp-gateway-$c" ] && gw="$(j tp-gateway-$c .rps)"
    echo "| $c | $ds ($(errors tp-direct-stream-$c)) | $ag ($(errors tp-agentd-$c)) | $(ratio "$ag" "$ds") | $(cpu_per_request tp-agentd-$c) | $dj ($(errors tp-direct-json-$c)) | $gw$([ -s "$work/r/tp-gateway-$c" ] && echo " ($(errors tp-gateway-$c))") | $(ratio "$gw" "$dj") | $(cpu_per_request tp-gateway-$c) | **$(ratio "$ag" "$gw")** |"
  done
  echo
  echo "Target: agentd / gateway >= 10 at every N."
  [ -n "${gateway_stream_note:-}" ] && echo "The gateway's own streaming path, checked once: $gateway_stream_note."
  echo
  echo "## 2b. Tool round trip at concurrency 1"
  echo
  echo "One client, pairs of calls for ${duration} s, $lat_rounds rounds alternating: a /chat that offers"
  echo "a tool and gets the mock's call (\`reason\` \`tool_use\`), then the /chat that answers it on the"
  echo "same session; beside it two plain /chat turns on a session each pair, and the same two"
  echo "calls straight to the mock (OpenAI's form, streaming). Per pair: twice the figure a"
  echo "request. CPU: the server process's (mock or agentd), in ms a pair, one value a round."
  echo
  echo "| path | pairs/s | p50 a request (round 1) | p99 a request (round 1) | errors | server CPU a pair |"
  echo "|---|---:|---:|---:|---:|---:|"
  for row in "direct to mock: call, answer|pair-direct" "agentd: tool call, result|pair-tools" "agentd: two plain turns|pair-plain"; do
    f="${row##*|}"
    echo "| ${row%%|*} | $(for ((k = 1; k <= lat_rounds; k++)); do calc "printf \"%.0f\\n\", $(j "$f.$k" .rps) / 2"; done | comma_list) | $(ms "$(j "$f.1" .latency_us.p50)") | $(ms "$(j "$f.1" .latency_us.p99)") | $(for ((k = 1; k <= lat_rounds; k++)); do errors "$f.$k"; done | comma_list) | $(for ((k = 1; k <= lat_rounds; k++)); do calc "c = \"$(cpu_per_request "$f.$k")\"; if (c !~ /^[0-9.]+\$/) print \"n/a\"; else printf \"%.3f\\n\", 2 * c"; done | comma_list) |"
  done
  openai_report
  echo
  echo "## 3. /run time to first delta, and concurrent streams"
  echo
  echo "Time to first delta: bench/load/sse_load, one stream at a time against the paced mock"
  echo "(\`max_tokens\` 2: the first delta at once, the second ${paced_delay_ms} ms later), from"
  echo "sending the request to the first \`stream_delta\` event (agentd) or first content chunk"
  echo "(direct). Milliseconds."
  echo
  echo "| path | streams | ttfb p50 | ttfd p50 | ttfd p90 | ttfd p99 | ttfd max | errors |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for row in "direct to paced mock|ttfd-direct" "agentd /run|ttfd-agentd"; do
    f="${row##*|}"
    echo "| ${row%%|*} | $(j "$f" .ttfd_us.n) | $(ms "$(j "$f" .ttfb_us.p50)") | $(ms "$(j "$f" .ttfd_us.p50)") | $(ms "$(j "$f" .ttfd_us.p90)") | $(ms "$(j "$f" .ttfd_us.p99)") | $(ms "$(j "$f" .ttfd_us.max)") | $(errors "$f") |"
  done
  echo
  echo "- **agentd added time to first delta: p50 $ttfd_added_p50 ms, p99 $ttfd_added_p99 ms.**"
  echo
  echo "Concurrent streams: $streams clients, each a stream after another on its own connection"
  echo "($paced_deltas deltas ${paced_delay_ms} ms apart, so $(calc "printf \"%.2f\", ($paced_deltas - 1) * $paced_delay_ms / 1000") s a stream), opened over ${stream_ramp_s} s,"
  echo "then 2 s of warm-up, then ${duration} s measured. Open: streams requested and not yet"
  echo "finished, each on a connection the server accepted (in agentd a thread and an upstream"
  echo "connection each), whether their response head came yet or not; live: open streams"
  echo "with their head received; flowing: live streams that received bytes within the last"
  echo "${active_ms} ms; all sampled every 100 ms. Start: request to response head, p50. Length: request to end"
  echo "of stream, p50 ($(calc "printf \"%.2f\", ($paced_deltas - 1) * $paced_delay_ms / 1000") s when nothing lags). Gap: time between successive reads of a"
  echo "stream. CPU: of the server process, % of one core over the window; per delta: that CPU"
  echo "over the deltas of the streams done in the window (streams done x $paced_deltas), in µs."
  echo
  echo "| server | open min | live min | live p50 | flowing min | flowing p50 | start ms | length s | streams done | errors | gap p50 ms | gap p99 ms | CPU % | CPU µs per delta | RSS MB | threads |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for row in "paced mock, direct|streams-direct" "agentd /run|streams-agentd"; do
    f="${row##*|}"
    p="$work/r/$f.proc"
    echo "| ${row%%|*} | $(j "$f" .open.min) | $(j "$f" .live.min) | $(j "$f" .live.p50) | $(j "$f" .active.min) | $(j "$f" .active.p50) | $(ms "$(j "$f" .ttfb_us.p50)") | $(calc "v = \"$(j "$f" .total_us.p50)\"; if (v !~ /^[0-9.]+\$/) print \"n/a\"; else printf \"%.2f\", v / 1e6") | $(j "$f" .completed) | $(errors "$f") | $(ms "$(j "$f" .gap_us.p50)") | $(ms "$(j "$f" .gap_us.p99)") | $(jq -r .cpu_pct "$p" 2>/dev/null) | $(per_delta_us "$f") | $(calc "printf \"%.0f\", $(jq -r .rss_kb "$p" 2>/dev/null || echo 0) / 1024") | $(jq -r .threads "$p" 2>/dev/null) |"
  done
  echo
  echo "- **agentd held $held of $streams streams open at the least** (target $streams: $(verdict "$held" '>=' "$streams")); $live live and $flowing flowing at the least (at full pace: $(verdict "$flowing" '>=' "$streams"), see bench/README.md)."
  echo "- agentd after all scenarios: RSS $(calc "printf \"%.0f\", ${agentd_after_rss:-0} / 1024") MB, data dir $(calc "printf \"%.0f\", ${agentd_db_kb:-0} / 1024") MB."
  echo
  echo "## 5. Memory at 1M entries"
  echo
  memory_report="$(ls -1 "$root"/bench/results/memory-*.md 2>/dev/null | sort | tail -n1 || true)"
  if [ -n "$memory_report" ]; then
    echo "Measured by bench/memory/run.sh: [$(basename "$memory_report")]($(basename "$memory_report"))."
  else
    echo "No bench/results/memory-*.md yet (bench/memory/run.sh writes it)."
  fi
  echo
  echo "## 6. Start time and idle memory"
  echo
  echo "bench/load/start_probe: fork+exec of \`agentd serve\` (default config) to the first 200"
  echo "\`/health\` with \`\"status\":\"ok\"\`, polled every 1 ms; VmRSS 1 s later; then SIGTERM to the exit,"
  echo "polled every 1 ms; $start_runs starts each."
  echo
  echo "| data dir | median healthy ms | median idle RSS MB | median SIGTERM to exit ms | each start (ms / MB) |"
  echo "|---|---:|---:|---:|---|"
  for row in "empty (first start: schema, admin token)|start-fresh" "existing|start-existing"; do
    f="${row##*|}"
    echo "| ${row%%|*} | $(j "$f" .median_healthy_ms) | $(calc "v = \"$(j "$f" .median_rss_kb)\"; if (v !~ /^[0-9.]+\$/) print \"n/a\"; else printf \"%.1f\", v / 1024") | $(j "$f" .median_stopped_ms) | $(jq -r '[.runs[] | "\(.healthy_ms) / \(.rss_kb / 1024 | . * 10 | floor / 10)"] | join(", ")' "$work/r/$f" 2>/dev/null || echo n/a) |"
  done
  echo
  echo "- **Idle RSS $idle_rss_mb MB** (target 30: $(verdict "$idle_rss_mb" '<=' 30)); **healthy in $healthy_ms ms** (target 200: $(verdict "$healthy_ms" '<=' 200))."
  echo
  echo "## 7. The state store alone"
  echo
  echo "bench/store/store_bench --runs 20000: one thread stores runs one after another as /chat"
  echo "does at c=1 (SessionStore::finish_run, a new session each, an 80-byte answer), with the"
  echo "store's checkpoint thread beside it; 2,000 unrecorded first. Microseconds per run."
  echo
  echo "| run | p50 | p99 | CPU a run | WAL frames a commit |"
  echo "|---:|---:|---:|---:|---:|"
  # store_field RUN FIELD SCALE: the field rounded down to 1/SCALE, or n/a.
  store_field() {
    jq -r "$2 // \"n/a\" | if type == \"number\" then . * $3 | floor / $3 else . end" "$work/r/store-$1"
  }
  for run in 1 2 3; do
    echo "| $run | $(store_field $run .wall_us.p50 10) | $(store_field $run .wall_us.p99 10) | $(store_field $run .cpu_us_per_run 10) | $(store_field $run .wal_frames_per_commit 100) |"
  done
  echo
  echo "## Targets"
  echo
  echo "| target | figure | verdict |"
  echo "|---|---|---|"
  echo "| /chat added p50 <= 0.1 ms at c=1 | $lat_added_p50 ms (the median of $lat_rounds rounds: $(in_rounds .latency_us.p50)) | $(verdict "$lat_added_p50" '<=' 0.1) |"
  echo "| /chat added p99 <= 0.5 ms at c=1 | $lat_added_p99 ms (of $(in_rounds .latency_us.p99); wrk's own p99: $lat_added_p99_wrk ms) | $(verdict "$lat_added_p99" '<=' 0.5) |"
  for c in $concurrency; do
    r="n/a"
    [ -s "$work/r/tp-gateway-$c" ] && r="$(ratio "$(j tp-agentd-$c .rps)" "$(j tp-gateway-$c .rps)")"
    echo "| /chat throughput >= 10x npm gateway, c=$c | ${r}x (agentd/direct $(ratio "$(j tp-agentd-$c .rps)" "$(j tp-direct-stream-$c .rps)")) | $(verdict "$r" '>=' 10) |"
  done
  echo "| $streams concurrent streams held (open) | $held at the least | $(verdict "$held" '>=' "$streams") |"
  echo "| (reported) the same at full pace (flowing) | $flowing at the least ($live live) | $(verdict "$flowing" '>=' "$streams") |"
  echo "| idle RSS <= 30 MB | $idle_rss_mb MB | $(verdict "$idle_rss_mb" '<=' 30) |"
  echo "| healthy within 200 ms | $healthy_ms ms | $(verdict "$healthy_ms" '<=' 200) |"
} >"$report"

kill -TERM "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null || true
log "mock served: $(cat "$work/mock.err")"
log "report written to $report"
