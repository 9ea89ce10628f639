#!/usr/bin/env bash
# The npm gateway of the side-by-side benchmark (bench/run.sh): @portkey-ai/gateway,
# installed at run time into a temporary directory, never committed.
#
#   bench/gateway/gateway.sh install DIR       npm install into DIR (needs npm's registry)
#   bench/gateway/gateway.sh start DIR PORT    run it on 127.0.0.1:PORT (execs node)
#
# It has no config file for this: each request names its upstream in headers, which
# bench/run.sh sends (documented in the package's build/start-server.js request checks
# and its README's "custom host" usage):
#   x-portkey-provider: openai
#   x-portkey-custom-host: http://127.0.0.1:<mock port>/v1
#   Authorization: Bearer sk-bench          (forwarded to the upstream as is)
# 127.0.0.1 is in its default TRUSTED_CUSTOM_HOSTS, so a loopback upstream is allowed.
# NODE_ENV=production and --headless skip its console UI and the browser log page.
set -euo pipefail

GATEWAY_PACKAGE="${GATEWAY_PACKAGE:-@portkey-ai/gateway@1.15.2}"

usage() {
  echo "usage: $0 install DIR | start DIR PORT" >&2
  exit 2
}

[ $# -ge 2 ] || usage
dir="$2"
case "$1" in
  install)
    mkdir -p "$dir"
    printf '{"name":"agentrt-bench-gateway","private":true}\n' >"$dir/package.json"
    (cd "$dir" && timeout 300 npm install --no-audit --no-fund --loglevel=error \
      "$GATEWAY_PACKAGE" >&2)
    test -f "$dir/node_modules/@portkey-ai/gateway/build/start-server.js"
    ;;
  start)
    [ $# -eq 3 ] || usage
    cd "$dir"
    NODE_ENV=production exec node node_modules/@portkey-ai/gateway/build/start-server.js \
      "--port=$3" --headless
    ;;
  *) usage ;;
esac
