// An MCP server over streamable HTTP, made with the MCP project's TypeScript SDK, whose
// one tool asks the client things while it runs: a ping, then a sampling, which the
// plugin declares no capability for and so must refuse. It answers with what the
// client said. Listens on 127.0.0.1:$PORT; NODE_PATH names the SDK's node_modules.
const http = require("node:http");
const { randomUUID } = require("node:crypto");
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { CreateMessageResultSchema, EmptyResultSchema } = require("@modelcontextprotocol/sdk/types.js");

async function ask(extra) {
  await extra.sendRequest({ method: "ping" }, EmptyResultSchema);
  let said;
  try {
    await extra.sendRequest(
      { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } },
      CreateMessageResultSchema,
    );
    said = "sampled";
  } catch (e) {
    said = `refused sampling: ${e.message}`;
  }
  return { content: [{ type: "text", text: `the client answered ping and ${said}` }] };
}

const sessions = new Map();
async function session(req) {
  const id = req.headers["mcp-session-id"];
  if (id) return sessions.get(id);
  const server = new McpServer({ name: "asking", version: "1.0.0" });
  server.registerTool("ask", { description: "Asks the client for a ping and a sampling" },
    ask);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => sessions.set(sid, transport),
  });
  await server.connect(transport);
  return transport;
}

http.createServer(async (req, res) => {
  const transport = await session(req);
  if (!transport) {
    res.writeHead(404).end();
    return;
  }
  await transport.handleRequest(req, res);
}).listen(Number(process.env.PORT), "127.0.0.1");
