#!/bin/sh
# A scripted MCP server over stdio for what the reference servers never do: an old
# protocol version, paginated and duplicate tools, JSON-RPC errors, malformed results,
# binary content. FAKE_VERSION sets the protocol version it answers initialize with.
version=${FAKE_VERSION:-2025-06-18}
reply() { printf '{"jsonrpc":"2.0","id":%s,%s}\n' "$id" "$1"; }
tool() { printf '{"name":"%s","description":"%s","inputSchema":{"type":"object"}}' "$1" "$2"; }
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"id":\([0-9]*\),.*/\1/p')
  [ -n "$id" ] || continue
  case "$line" in
    *'"method":"initialize"'*)
      reply "\"result\":{\"protocolVersion\":\"$version\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}" ;;
    *'"method":"tools/list","params":{"cursor":"page2"}'*)
      reply "\"result\":{\"tools\":[$(tool second 'a duplicate'),$(tool third 'page two')]}" ;;
    *'"method":"tools/list"'*)
      reply "\"result\":{\"tools\":[$(tool first one),$(tool second 'kept')],\"nextCursor\":\"page2\"}" ;;
    *'"name":"rpc-error"'*)
      reply '"error":{"code":-32000,"message":"the fake broke"}' ;;
    *'"name":"malformed"'*)
      reply '"result":"not an object"' ;;
    *'"name":"image"'*)
      reply '"result":{"content":[{"type":"text","text":"look:"},{"type":"image","mimeType":"image/png","data":"aGVsbG8="},{"type":"resource","resource":{"uri":"file:///x"}}]}' ;;
    *)
      reply '"error":{"code":-32601,"message":"Method not found"}' ;;
  esac
done
