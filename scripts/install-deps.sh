#!/usr/bin/env bash
# Installs what building and testing agentrt needs on Debian 12, skipping what is
# already there. Run as root, or with sudo available.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config binutils
  libpoco-dev libboost-dev nlohmann-json3-dev libsimdjson-dev libsqlite3-dev
  libcurl4-openssl-dev libssl-dev libgtest-dev
  libjemalloc-dev prometheus-cpp-dev
  curl ca-certificates tzdata
)
# promtool checks GET /metrics' text in the suite (tests/api/CMakeLists.txt); Debian
# ships it in `prometheus`, whose server this script stops again below.
packages+=(prometheus)
# The tool tests run real MCP servers from npm (tests/mcp/install-servers.sh). A Node
# installed some other way (NodeSource, nvm) is kept: Debian's npm would conflict with it.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
# Where systemd runs, the package starts the Prometheus server (port 9090) and enables
# it at boot; only its promtool was wanted.
if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
  $sudo systemctl disable --now prometheus.service >/dev/null 2>&1 || true
fi
