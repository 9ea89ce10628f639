#!/bin/sh
# Installs the MCP servers the mcp plugin's tests talk to (the reference servers of the
# MCP project, which nobody here wrote, and its TypeScript SDK, which asking_server.cjs
# is made with) into $1, once: a later run finds them there.
# Exits 3 when npm is absent, so that the tests can skip with a clear message.
set -eu
dir=${1:?usage: install-servers.sh <dir>}
command -v npm >/dev/null 2>&1 || { echo "npm not found" >&2; exit 3; }
mkdir -p "$dir"
# Test processes run in parallel under ctest -j: one installs, the others wait for it.
exec 9>"$dir/.lock"
flock 9
everything=$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js
filesystem=$dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
sdk=$dir/node_modules/@modelcontextprotocol/sdk/package.json
if [ -f "$everything" ] && [ -f "$filesystem" ] && [ -f "$sdk" ]; then exit 0; fi
npm install --prefix "$dir" --no-audit --no-fund --silent @modelcontextprotocol/server-everything \
  @modelcontextprotocol/server-filesystem @modelcontextprotocol/sdk >&2
