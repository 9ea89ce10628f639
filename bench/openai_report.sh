# Sourced by bench/run.sh: section 2c of its report, agentd's OpenAI-compatible
# /v1/chat/completions at each throughput concurrency, measured in section 2's loop
# (tp-v1-json-N, tp-v1-stream-N) beside /chat and the gateway. It uses run.sh's helpers
# (j, errors, ratio, cpu_per_request) and variables (concurrency, duration, work).

openai_report() {
  echo
  echo "## 2c. OpenAI-compatible /v1/chat/completions throughput"
  echo
  echo "The calls the gateway gets (\`direct-json\`: non-streaming; \`direct-stream\`: streaming"
  echo "with \`include_usage\`), sent to agentd's \`/v1/chat/completions\` with a user token, each"
  echo "N measured in section 2's loop right after agentd's /chat. agentd calls the mock"
  echo "streaming in both forms. Requests/s (errors); CPU: ms of agentd's CPU a request."
  echo
  echo "| N | agentd /chat | /v1 non-streaming | its CPU | /v1 streaming | its CPU | npm gateway, non-streaming | /v1 non-streaming / gateway | /v1 streaming / gateway |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  local c ag vj vs gw
  for c in $concurrency; do
    ag="$(j "tp-agentd-$c" .rps)"
    vj="$(j "tp-v1-json-$c" .rps)"
    vs="$(j "tp-v1-stream-$c" .rps)"
    gw="n/a"
    [ -s "$work/r/tp-gateway-$c" ] && gw="$(j "tp-gateway-$c" .rps)"
    echo "| $c | $ag | $vj ($(errors "tp-v1-json-$c")) | $(cpu_per_request "tp-v1-json-$c") | $vs ($(errors "tp-v1-stream-$c")) | $(cpu_per_request "tp-v1-stream-$c") | $gw | **$(ratio "$vj" "$gw")** | **$(ratio "$vs" "$gw")** |"
  done
  echo
  echo "The gateway is compared on non-streaming calls only: its streaming path fails (section 2)."
}
