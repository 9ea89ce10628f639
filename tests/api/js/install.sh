#!/bin/sh
# Installs the JavaScript clients the API tests run unmodified against agentd (the
# eventsource package) into $1, once: a later run finds them there. Exits 3 when npm is
# absent, so that the tests can skip with a clear message.
set -eu
dir=${1:?usage: install.sh <dir>}
command -v npm >/dev/null 2>&1 || { echo "npm not found" >&2; exit 3; }
command -v node >/dev/null 2>&1 || { echo "node not found" >&2; exit 3; }
mkdir -p "$dir"
# Test processes run in parallel under ctest -j: one installs, the others wait for it.
exec 9>"$dir/.lock"
flock 9
[ -f "$dir/node_modules/eventsource/package.json" ] && exit 0
npm install --prefix "$dir" --no-audit --no-fund --silent eventsource@4.1.1 >&2
