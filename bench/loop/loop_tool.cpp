// The in-process tool server of bench/loop: one tool, `echo` {"message"}, answering
// "Echo: <message>" as server-everything's echo does, so that the three tool servers of
// the benchmark offer the model the same call and differ only in how agentd reaches them.
#include <agentrt/plugin.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace {

using nlohmann::json;

class LoopTools : public agentrt::sdk::Tool {
 public:
  LoopTools(const agentrt::sdk::Host&, const std::string&) {}

  std::string list_tools() override {
    const json parameters = {{"type", "object"},
                             {"properties", {{"message", {{"type", "string"}}}}},
                             {"required", {"message"}}};
    return json{{"tools",
                 {{{"name", "echo"},
                   {"description", "Echoes back the input string"},
                   {"parameters", parameters}}}}}
        .dump();
  }

  void call(const std::string& request_json, agentrt::sdk::ToolSink& sink) override {
    const json request = json::parse(request_json);
    if (request.at("name") != "echo")
      throw agentrt::sdk::Error(AGENTRT_ERR_NOT_FOUND, "no such tool");
    sink.text("Echo: " + request.at("arguments").at("message").get<std::string>());
  }
};

}  // namespace

AGENTRT_PLUGIN(LoopTools, "loop-tools", "1.0.0", "the in-process tool of bench/loop",
               AGENTRT_FLAG_THREAD_SAFE)
