#!/usr/bin/env bash
# Installs what is missing, builds, and starts agentd on its embedded defaults
# (single-cell mode, 127.0.0.1:9091, data in ./agentrt-data, the offline echo model).
# Extra arguments go to agentd, e.g. scripts/run.sh --listen 127.0.0.1:8080
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
exec "${BUILD_DIR:-$root/build}/bin/agentd" serve "$@"
