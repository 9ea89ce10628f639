#!/bin/sh
# Installs the JavaScript clients the API tests run unmodified against agentd (the
# eventsource package, the official openai SDK, OpenAI's Agents SDK) into $1, once: a later run finds them
# there. Exits 3 when npm is absent, so that the tests can skip with a clear message.
# Versions are pinned, so that a new release cannot change what the tests check; openai
# 6.x asks for no Node version, while 7.x asks for Node 22, newer than Debian 12's;
# @openai/agents 0.11.x is the last line built on openai 6.x (later ones need 7.x), and
# wants zod 4 beside it.
set -eu
dir=${1:?usage: install.sh <dir>}
command -v npm >/dev/null 2>&1 || { echo "npm not found" >&2; exit 3; }
command -v node >/dev/null 2>&1 || { echo "node not found" >&2; exit 3; }
mkdir -p "$dir"
# Test processes run in parallel under ctest -j: one installs, the others wait for it.
exec 9>"$dir/.lock"
flock 9
installed() { grep -q "\"version\": \"$2\"" "$dir/node_modules/$1/package.json" 2>/dev/null; }
installed eventsource 4.1.1 && installed openai 6.49.0 && installed @openai/agents 0.11.2 &&
  installed zod 4.6.7 && exit 0
npm install --prefix "$dir" --no-audit --no-fund --silent eventsource@4.1.1 openai@6.49.0 \
  @openai/agents@0.11.2 zod@4.6.7 >&2
