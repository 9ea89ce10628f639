#!/usr/bin/env bash
# Soak: agentd under a mixed workload for a long while (10 minutes by default), run by
# hand, never by CI. It reports agentd's RSS growth after warm-up and every error of
# every client, and writes bench/results/soak-<YYYY-MM-DD>.md. See bench/README.md.
#
#   bench/soak.sh                 600 s
#   SOAK_S=3600 bench/soak.sh     an hour
#
# Environment: SOAK_S (600), WARMUP_S (180, or a quarter of SOAK_S when that is longer),
# SAMPLE_S (5: RSS sampled this often), AGENTD_CONFIG (agentd's config file, as JSON
# text; by default its defaults but a history cache of 4 MB), BUILD_DIR (build-bench), JOBS (2),
# KEEP_WORK (1 keeps the temporary directory), RESULTS (the report's path).
#
# The workload, all at once for SOAK_S: /chat at 4 connections (a new session each),
# 8 concurrent /run streams, memory saves at 2 and searches at 1, and a client tool's
# round trip (a call, then its result on the same session) at 1. Everything listens on
# 127.0.0.1; every process started here is stopped on exit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-bench}"
soak_s="${SOAK_S:-600}"
warmup_s="${WARMUP_S:-$((soak_s / 4 > 180 ? soak_s / 4 : 180))}"
sample_s="${SAMPLE_S:-5}"
today="$(date -u +%Y-%m-%d)"
report="${RESULTS:-$root/bench/results/soak-$today.md}"
[ "$warmup_s" -lt "$soak_s" ] || { echo "WARMUP_S must be under SOAK_S" >&2; exit 2; }

bench_name=soak
# shellcheck source=bench/processes.sh
. "$root/bench/processes.sh"

for tool in wrk jq cmake; do command -v "$tool" >/dev/null || die "$tool is not installed"; done
build_release "$build_dir" agentd mock_upstream sse_load
bin="$build_dir/bin"
lua="$root/bench/load/post.lua"
ulimit -n "$(ulimit -Hn)" || true

wait_line() {  # wait_line FILE REGEX: the first matching line, within 30 s
  for _ in $(seq 600); do
    grep -m1 -E "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

start mock "$bin/mock_upstream" --port 0 --mode instant --deltas 16 --threads 1
mock_port="$(wait_line "$work/mock.out" '^listening' | sed 's/.*://')" || die "mock did not start"
mkdir -p "$work/data"
# agentd's caches are bounded, and fill before its heap stops growing: SQLite's page
# caches within about three minutes of this load, the history cache's default 32 MB of
# messages only after some ten minutes of new sessions. A
# smaller history cache fills within the warm-up, so that what grows after it is what
# no bound holds.
echo "${AGENTD_CONFIG:-{\"limits\":{\"history_cache_mb\":4\}\}}" >"$work/agentd.json"
start agentd "$bin/agentd" serve --config "$work/agentd.json" --listen 127.0.0.1:0 \
  --data-dir "$work/data"
agentd_pid=$last_pid
listening="$(wait_line "$work/agentd.err" '"msg":"listening"')" || die "agentd did not start"
addr="$(jq -r .address <<<"$listening")"
admin="$(cat "$work/data/admin.token")"
api() {
  curl -sS --fail-with-body -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d "$2" "http://$addr$1"
}
api /admin/shared-providers "{\"providers\":[{\"name\":\"mock\",\"type\":\"openai\",\"base_url\":\"http://127.0.0.1:$mock_port/v1\",\"api_key_ref\":{\"source\":\"inline\",\"value\":\"sk-soak\"},\"models\":[{\"id\":\"mock-model\",\"context_window\":8192}]}]}" >/dev/null
token="$(api /admin/tokens '{"ttl":"24h","actor":"soak"}' | jq -r .token)"
auth="Authorization: Bearer $token"

text='[{"type":"text","text":"hello"}]'
echo '{"model":"mock-model","messages":[{"role":"user","content":'"$text"'}]}' >"$work/chat.json"
echo '{"layer":"about_me","content":"the soak writes this entry about tea and trains"}' >"$work/save.json"
echo '{"query":"tea trains","layers":["about_me"],"limit":10}' >"$work/search.json"
weather='{"type":"function","name":"get_weather","description":"The weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}'
echo '{"model":"mock-model","session_id":"pair","tools":['"$weather"'],"messages":[{"role":"user","content":'"$text"'}]}' >"$work/call.json"
echo '{"model":"mock-model","session_id":"pair","tools":['"$weather"'],"messages":[{"role":"tool","content":[{"type":"tool_result","tool_call_id":"call_bench","output":"sunny"}]}]}' >"$work/answer.json"
for check in "/chat chat.json" "/memory save.json" "/memory/search search.json"; do
  curl -sS --fail-with-body -H "$auth" -H 'Content-Type: application/json' \
    -d @"$work/${check#* }" "http://$addr${check%% *}" >/dev/null || die "${check%% *} failed"
done

load() {  # load NAME CONNECTIONS PATH BODY [env...]: wrk for SOAK_S into $work/NAME.wrk
  local name="$1" c="$2" path="$3" body="$4"
  shift 4
  env BENCH_BODY_FILE="$work/$body" BENCH_HEADERS="$auth" "$@" \
    wrk -t1 -c"$c" -d"${soak_s}s" --timeout 10s -s "$lua" "http://$addr$path" >"$work/$name.wrk" 2>&1 &
  pids+=($!)
}
log "soaking for $soak_s s (warm-up $warmup_s s), agentd $addr pid $agentd_pid"
load chat 4 /chat chat.json
load save 2 /memory save.json
load search 1 /memory/search search.json
load tools 1 /chat call.json BENCH_BODY2_FILE="$work/answer.json" BENCH_PAIR_PREFIX=soak
"$bin/sse_load" --target "$addr" --path /run --body-file "$work/chat.json" --header "$auth" \
  --connections 8 --duration-s "$soak_s" --first '"type":"stream_delta"' \
  --expect '"reason":"end_turn"' >"$work/streams.json" 2>"$work/streams.err" &
pids+=($!)
load_pids=("${pids[@]: -5}")

# RSS, and of it the anonymous part (the heap: what a leak grows) and the file-backed
# part (the stores' pages SQLite maps, which the kernel takes back at will).
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$agentd_pid/status"; }
rss_part() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$agentd_pid/status"; }
start_s=$(date +%s)
: >"$work/rss"
while :; do
  now=$(($(date +%s) - start_s))
  [ "$now" -gt "$soak_s" ] && break
  echo "$now $(rss) $(awk '/^Threads:/ {print $2}' "/proc/$agentd_pid/status") $(rss_part RssAnon) $(rss_part RssFile)" >>"$work/rss"
  sleep "$sample_s"
done
for pid in "${load_pids[@]}"; do wait "$pid" || true; done
end_rss="$(rss)"
end_anon="$(rss_part RssAnon)"

# The RSS after warm-up: the first sample at or past it; the peak and the last after it.
after_warmup="$(awk -v w="$warmup_s" '$1 >= w {print $2; exit}' "$work/rss")"
peak="$(awk -v w="$warmup_s" '$1 >= w && $2 > m {m = $2} END {print m}' "$work/rss")"
growth="$(awk -v a="$after_warmup" -v b="$end_rss" 'BEGIN {printf "%.1f", 100 * (b - a) / a}')"
anon_after_warmup="$(awk -v w="$warmup_s" '$1 >= w {print $4; exit}' "$work/rss")"
anon_growth="$(awk -v a="$anon_after_warmup" -v b="$end_anon" 'BEGIN {printf "%.1f", 100 * (b - a) / a}')"
wrk_line() { grep '^{' "$work/$1.wrk" | tail -n1 || echo '{}'; }
errors_of() { jq -r '[.errors[]] | add // "n/a"' <<<"$1"; }
total_errors=0
mkdir -p "$(dirname "$report")"
{
  echo "# agentrt soak, $today"
  echo
  echo "Produced by \`${SOAK_S:+SOAK_S=$SOAK_S }bench/soak.sh\` at $(git -C "$root" rev-parse --short HEAD) on $(nproc) cores, load average before the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "$soak_s s of load, warm-up $warmup_s s, RSS sampled every $sample_s s; agentd's config \`$(cat "$work/agentd.json")\`. Method: bench/README.md."
  echo
  echo "| load | connections | requests | requests/s | errors |"
  echo "|---|---:|---:|---:|---:|"
  for row in "chat|/chat, a new session each|4" "save|POST /memory|2" "search|POST /memory/search|1" "tools|/chat: tool call, then its result|1"; do
    IFS='|' read -r name what c <<<"$row"
    line="$(wrk_line "$name")"
    e="$(errors_of "$line")"
    total_errors=$((total_errors + ${e//n\/a/1}))
    echo "| $what | $c | $(jq -r '.requests // "n/a"' <<<"$line") | $(jq -r '.rps // "n/a"' <<<"$line") | $e |"
  done
  streams="$(cat "$work/streams.json" 2>/dev/null || echo '{}')"
  e="$(errors_of "$streams")"
  total_errors=$((total_errors + ${e//n\/a/1}))
  echo "| /run streams | 8 | $(jq -r '.completed // "n/a"' <<<"$streams") | | $e |"
  echo
  echo "- **Anonymous RSS (the heap, SQLite's page caches) after warm-up $((anon_after_warmup / 1024)) MB, at the end $((end_anon / 1024)) MB: growth $anon_growth%** (target under 5%)."
  echo "- RSS with the stores' mapped pages: after warm-up $((after_warmup / 1024)) MB, at the end $((end_rss / 1024)) MB ($growth%), peak $((peak / 1024)) MB. The state store's readers map up to 256 MB and the memory store up to 1 GB of their files (SQLite's mmap_size); the kernel takes those pages back under pressure."
  echo "- **Errors: $total_errors** (target 0)."
  echo "- Data dir at the end: $(du -sm "$work/data" | cut -f1) MB."
  echo
  echo "RSS, its anonymous and file-backed parts (MB), and threads over time:"
  echo
  echo '```'
  awk '{printf "%5d s  %6.1f MB  anon %6.1f  file %6.1f  %4d threads\n", $1, $2 / 1024, $4 / 1024, $5 / 1024, $3}' "$work/rss" | awk 'NR % 6 == 1'
  echo '```'
} >"$report"
log "anonymous RSS growth after warm-up: $anon_growth% (all RSS: $growth%), errors: $total_errors; report written to $report"
