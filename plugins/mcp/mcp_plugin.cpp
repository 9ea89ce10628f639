// The bundled `mcp` tool plugin: one instance is one MCP server, reached over stdio (a
// child process) or streamable HTTP, whose tools the host offers to models. Config
// keys are in docs/plugin-author-guide.md ("The mcp tool plugin").
#include "mcp/mcp_client.h"
#include "mcp/mcp_config.h"

#include <agentrt/plugin.hpp>

namespace {

class McpTools : public agentrt::sdk::Tool {
 public:
  // Only checks the config: the server is reached on first use, so that one that is
  // down does not fail create (the host shows its health through probe).
  McpTools(const agentrt::sdk::Host& host, const std::string& config_json)
      : client_(agentrt::mcp::parse_config(config_json, host), host) {}

  std::string list_tools() override { return client_.list_tools(); }
  void call(const std::string& request_json, agentrt::sdk::ToolSink& sink) override {
    client_.call(request_json, sink);
  }
  std::string probe(const std::string&) override {
    client_.probe();
    return "{}";
  }

 private:
  agentrt::mcp::McpClient client_;
};

}  // namespace

AGENTRT_PLUGIN(McpTools, "mcp", "1.0.0", "MCP client: the tools of one MCP server",
               AGENTRT_FLAG_THREAD_SAFE)
