#!/usr/bin/env bash
# A/B of agentd builds or settings under the same /chat load, alternating, so that the
# shared machine's drift falls on both sides alike. Each variant is a word of
# space-separated settings: BIN=<dir with bin/ and lib/ of a build> picks the agentd
# (default: BUILD_DIR, build-bench), anything else is put in agentd's environment
# (e.g. MALLOC_CONF=tcache:false); "-" is the default build with nothing set.
#
#   bench/ab/ab.sh - "BIN=/tmp/before"                  this tree against a saved build
#   C=1 ROUNDS=6 bench/ab/ab.sh - "MALLOC_CONF=tcache:false"
#
#   STREAMS=2000 D=8 ROUNDS=2 bench/ab/ab.sh - "BIN=/tmp/before"    scenario 3's streams
#
#   HISTORY=4000 C=1 ROUNDS=2 bench/ab/ab.sh - "BIN=/tmp/before"   /chat on a long session
#   HISTORY=2 WINDOW=512 C=1 bench/ab/ab.sh - "BIN=/tmp/before"   on a continued short one
#
# Environment: C (concurrency, 64), D (s measured per run, 4), ROUNDS (4), HISTORY (0: a
# new session a /chat; N: every /chat continues one session first given N messages, in
# /chats of at most 400 short ones, so each run reads the session's history, up to the
# window; PROSE=1 makes them about 400 bytes of prose each, PROSE=cyrillic as many bytes
# of such prose in Russian; PROSE_LOAD=1 makes the load's own messages such prose too),
# WINDOW (the mock model's context window, 8192), SESSIONS (with HISTORY: each wrk thread
# continues SESSIONS sessions of its own in turn instead of one for all, which at more
# than one connection would refuse most /chats as busy; see post.lua), AGENT (1: every
# /chat names an agent, made before the load, with a system prompt of about 300 bytes
# and no memory layers). Prints per run:
# requests/s, p50, p99 and p99.9 latency (µs, each request timed by post.lua; p99_wrk is
# wrk's own p99, corrected for coordinated omission), agentd's CPU per request (µs, from
# /proc) and the errors (wrk's socket errors and the responses of status 400 or more).
# With CALLGRIND=1, agentd runs under `valgrind --tool=callgrind`, counted from the end of
# the warm-up, and each run prints its instructions per /chat (ir_per_chat, all of
# agentd's threads, user space only) instead of the CPU: a figure this machine's noise
# does not move, for changes too small for the timings (one round is enough).
# CALLGRIND_KEEP=PREFIX keeps each run's profile as PREFIX.1, PREFIX.2, ... in the order
# run, for callgrind_annotate.
# With STREAMS=N, the load is instead N concurrent /run streams (64 deltas 20 ms apart,
# opened over 5 s, 2 s of warm-up), and each run prints the streams finished in the D
# seconds measured, the fewest open and live, agentd's CPU (% of a core) and its CPU per delta
# (µs); with CALLGRIND=1 too, agentd's instructions over those D seconds per delta of the
# streams finished in them (ir_per_delta, counted as the CPU is), at a few streams
# (STREAMS=20: under valgrind agentd keeps up with about that many).
# Needs the Release tree built (bench/run.sh builds it) and wrk.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
default_bin="${BUILD_DIR:-$root/build-bench}"
D=${D:-4}
C=${C:-64}
ROUNDS=${ROUNDS:-4}
STREAMS=${STREAMS:-}
work=$(mktemp -d)
if [ -n "$STREAMS" ]; then
  ulimit -n "$(ulimit -Hn)"
  "$default_bin/bin/mock_upstream" --port 0 --mode paced --deltas 64 --delay-ms 20 --threads 1 \
    >"$work/mock.out" 2>&1 &
else
  "$default_bin/bin/mock_upstream" --port 0 --mode instant --deltas 16 --threads 1 \
    >"$work/mock.out" 2>&1 &
fi
mock_pid=$!
trap 'kill $mock_pid 2>/dev/null; rm -rf "$work"' EXIT
sleep 0.3
mock_port=$(sed -n 's/^listening.*://p' "$work/mock.out")
printf '{"server":{"threads":2500,"max_queued":8192}}\n' >"$work/agentd.json"
HISTORY=${HISTORY:-0}
if [ "$HISTORY" -gt 0 ]; then
  echo '{"model":"mock-model","session_id":"long","messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]}' >"$work/chat.json"
  # 400 messages of about 9 tokens: within the mock model's window of 8,192 with its answer.
  # PROSE=1: of about 100 tokens each, as people and models write (lines, quotes, code,
  # letters past ASCII), under a window of WINDOW tokens.
  jq -cn --arg prose "${PROSE:-0}" --argjson n "$HISTORY" '{model: "mock-model", session_id: "long", messages: [range([$n, 400] | min) |
    {role: (if . % 2 == 0 then "user" else "assistant" end),
     content: [{type: "text", text: (if $prose == "1" then
       [range(3) | "Message \(.): the café’s \"daily special\" changed — résumé of line 42.\nHere is the function you asked for:\n    if (x < 0) { return \"négatif\\n\"; }\n"] | join("")
       elif $prose == "cyrillic" then
       [range(2) | "Сообщение \(.): «блюдо дня» в кафе изменилось — итог строки 42.\nВот функция, о которой вы просили:\n    if (x < 0) { return \"отрицательно\\n\"; }\n"] | join("")
       else "message \(.) of the history" end)}]}]}' >"$work/seed.json"
  # PROSE_LOAD=1: each /chat of the load says the first of those messages instead of
  # "hello", so the window stays prose as the load's turns push the seed's out of it.
  if [ "${PROSE_LOAD:-0}" = 1 ]; then
    jq -c '{model, session_id, messages: [.messages[0]]}' "$work/seed.json" >"$work/chat.json"
  fi
else
  echo '{"model":"mock-model","messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]}' >"$work/chat.json"
fi
lua="$root/bench/load/post.lua"
threads=$([ "$C" -lt 2 ] && echo 1 || echo 2)

# wrk against agentd's /chat with the user token; prints wrk's JSON line.
load() { # address token seconds
  BENCH_BODY_FILE="$work/load.json" BENCH_HEADERS="Authorization: Bearer $2" BENCH_SESSIONS="${SESSIONS:-0}" \
    wrk -t"$threads" -c"$C" -d"$3s" -s "$lua" "http://$1/chat" 2>&1 | grep '^{' || true
}

# STREAMS concurrent /run streams; prints one line for variant $1 of agentd $2.
streams() { # variant pid address token
  echo '{"model":"mock-model","messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]}' >"$work/run.json"
  "$default_bin/bin/sse_load" --target "$3" --path /run --body-file "$work/run.json" \
    --header "Authorization: Bearer $4" --connections "$STREAMS" --ramp-s 5 --warmup-s 2 \
    --duration-s "$D" --drain-s 10 --first '"type":"stream_delta"' --expect '"reason":"end_turn"' \
    --active-ms 250 >"$work/streams.json" 2>/dev/null &
  local load=$! c0 c1
  sleep 7
  [ "${CALLGRIND:-0}" = 1 ] && callgrind_control -i on "$2" >/dev/null 2>&1
  c0=$(awk '{print $14+$15}' "/proc/$2/stat")
  sleep "$D"
  c1=$(awk '{print $14+$15}' "/proc/$2/stat")
  [ "${CALLGRIND:-0}" = 1 ] && callgrind_control -i off "$2" >/dev/null 2>&1
  wait "$load" || true
  local done live
  done=$(jq .completed "$work/streams.json")
  live=$(jq .live.min "$work/streams.json")
  echo "$1: streams_done=$done open_min=$(jq .open.min "$work/streams.json") live_min=$live ttfd_p50_ms=$(jq '.ttfd_us.p50 / 1000 | floor' "$work/streams.json") ttfd_p99_ms=$(jq '.ttfd_us.p99 / 1000 | floor' "$work/streams.json") cpu_pct=$(awk "BEGIN{printf \"%.0f\", ($c1-$c0)/$D}") cpu_us_per_delta=$(awk "BEGIN{printf \"%.1f\", ($c1-$c0)*10000/($done*64)}")"
}

# The instructions callgrind counted in the run's profile.
profile_ir() { sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$work/callgrind.out"; }

# Keeps the run's callgrind profile as CALLGRIND_KEEP.<n> when asked, else drops it.
keep_profile() {
  if [ -n "${CALLGRIND_KEEP:-}" ]; then
    kept=$((${kept:-0} + 1))
    mv "$work/callgrind.out" "$CALLGRIND_KEEP.$kept"
  fi
  rm -f "$work/callgrind.out"
}

one() { # variant
  local bin="$default_bin" settings=()
  for word in $1; do
    case "$word" in
      -) ;;
      BIN=*) bin="${word#BIN=}" ;;
      *) settings+=("$word") ;;
    esac
  done
  rm -rf "$work/data" "$work/agentd.err"  # else the last run's "listening" line can answer the wait
  local launcher=()
  [ "${CALLGRIND:-0}" = 1 ] &&
    launcher=(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out")
  env "${settings[@]}" "${launcher[@]}" "$bin/bin/agentd" serve --config "$work/agentd.json" \
    --listen 127.0.0.1:0 --data-dir "$work/data" 2>"$work/agentd.err" &
  local pid=$!
  for _ in $(seq 600); do grep -q '"msg":"listening"' "$work/agentd.err" 2>/dev/null && break; sleep 0.05; done
  local addr admin user
  addr=$(grep '"msg":"listening"' "$work/agentd.err" | jq -r .address)
  admin=$(cat "$work/data/admin.token")
  curl -sS -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' -d "{\"providers\":[{\"name\":\"mock\",\"type\":\"openai\",\"base_url\":\"http://127.0.0.1:$mock_port/v1\",\"api_key_ref\":{\"source\":\"inline\",\"value\":\"sk\"},\"models\":[{\"id\":\"mock-model\",\"context_window\":${WINDOW:-8192}}]}]}" "http://$addr/admin/shared-providers" >/dev/null
  user=$(curl -sS -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' -d '{"ttl":"24h","actor":"bench"}' "http://$addr/admin/tokens" | jq -r .token)
  if [ -n "$STREAMS" ]; then
    local line
    line=$(streams "$1" "$pid" "$addr" "$user")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    if [ "${CALLGRIND:-0}" = 1 ]; then
      line="$line ir_per_delta=$(($(profile_ir) / ($(jq .completed "$work/streams.json") * 64)))"
      keep_profile
    fi
    echo "$line"
    return
  fi
  cp "$work/chat.json" "$work/load.json"
  if [ "${AGENT:-0}" = 1 ]; then
    local agent
    agent=$(curl -sS -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
      -d '{"name":"helper","model":"mock-model","memory_layers":[],"system_prompt":"You are a careful assistant for a team of engineers. Answer briefly, cite the file and line you mean, say so when you are not sure, and never invent an API. Prefer the standard library; show a test with every fix; keep answers under two hundred words unless asked for more. Write in plain English."}' \
      "http://$addr/agents" | jq -r .id)
    jq -c --arg agent "$agent" '. + {agent_id: $agent}' "$work/chat.json" >"$work/load.json"
  fi
  local seeded=0
  while [ "$seeded" -lt "$HISTORY" ]; do
    if ! curl -sS --fail-with-body -o "$work/seed.out" -H "Authorization: Bearer $user" \
      -H 'Content-Type: application/json' -d @"$work/seed.json" "http://$addr/chat"; then
      cat "$work/seed.out" >&2
      kill "$pid"
      exit 1
    fi
    seeded=$((seeded + 401))
  done
  load "$addr" "$user" 2 >/dev/null  # warm-up
  local c0 c1 r
  [ "${CALLGRIND:-0}" = 1 ] && callgrind_control -i on "$pid" >/dev/null 2>&1
  c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  r=$(load "$addr" "$user" "$D")
  c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  if [ "${CALLGRIND:-0}" = 1 ]; then
    echo "$1: requests=$(jq .requests <<<"$r") ir_per_chat=$(($(profile_ir) / $(jq .requests <<<"$r")))"
    keep_profile
    return
  fi
  echo "$1: rps=$(jq .rps <<<"$r") p50=$(jq .latency_us.p50 <<<"$r") p99=$(jq .latency_us.p99 <<<"$r") p999=$(jq .latency_us.p999 <<<"$r") p99_wrk=$(jq .latency_us_wrk.p99 <<<"$r") cpu_us=$(awk "BEGIN{printf \"%.0f\", ($c1-$c0)*10000/$(jq .requests <<<"$r")}") errors=$(jq '[.errors[]] | add' <<<"$r")"
}

for _ in $(seq "$ROUNDS"); do
  for variant in "$@"; do one "$variant"; done
done
