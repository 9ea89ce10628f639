// Ollama /api/chat: NDJSON, one object per line; the last has "done":true with
// done_reason, prompt_eval_count and eval_count (each omitted when zero) and
// durations. Errors are {"error":"<text>"}, also as a line after output started.
// Tool calls come whole, all in one line with empty content before the done line, their
// arguments an object, each with the id current Ollama gives ("call_...") when the
// test's call has one; done_reason stays "stop".
#include "tests/fakes/dialect.h"

#include <cctype>

namespace agentrt::test {
namespace {

using nlohmann::json;

class OllamaDialect : public Dialect {
 public:
  std::string api_path() const override { return "/api/chat"; }
  std::string base_path() const override { return ""; }
  std::string stream_content_type() const override { return "application/x-ndjson"; }

  std::optional<Reply> refuse(const RecordedRequest& request,
                              const std::string& required_key) const override {
    if (!required_key.empty() && request.header("authorization") != "Bearer " + required_key)
      return Reply::failure(401, "", "unauthorized");
    if (auto refused = refuse_common(request, api_path(), true)) return refused;
    const json body = request.json();
    for (const json& message : body["messages"]) {
      if (!message.contains("content") || !message["content"].is_string())
        return Reply::failure(400, "",
                              "json: cannot unmarshal array into Go struct field "
                              "Message.messages.content of type string");
      for (const json& image : message.value("images", json::array()))
        if (!image.is_string() || !is_base64(image.get<std::string>()))
          return Reply::failure(400, "", "illegal base64 data at input byte 4");
      for (const json& call : message.value("tool_calls", json::array()))
        if (!arguments_are_an_object(call))
          return Reply::failure(400, "",
                                "json: cannot unmarshal string into Go value of type "
                                "map[string]interface {}");
    }
    return std::nullopt;
  }

  std::string error_body(const Reply& reply) const override {
    std::string message = reply.error_message;
    if (message.empty()) message = reply.status == 404 ? "model not found" : "server error";
    return json{{"error", message}}.dump();
  }

  std::vector<std::string> opening(const StreamContext&, const Reply&) const override { return {}; }

  std::string delta(const StreamContext& ctx, const std::string& fragment) const override {
    return line(ctx, {{"model", ctx.model},
                      {"created_at", "2024-01-01T00:00:00.000000Z"},
                      {"message", {{"role", "assistant"}, {"content", fragment}}},
                      {"done", false}});
  }

  std::vector<std::string> tool_calls(const StreamContext& ctx, const Reply& reply) const override {
    if (reply.tool_calls.empty()) return {};
    json calls = json::array();
    for (size_t i = 0; i < reply.tool_calls.size(); ++i) {
      const FakeToolCall& call = reply.tool_calls[i];
      json arguments = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
      json entry = {{"function", {{"index", i}, {"name", call.name}, {"arguments", arguments}}}};
      if (!call.id.empty()) entry["id"] = call.id;
      calls.push_back(entry);
    }
    return {line(ctx, {{"model", ctx.model},
                       {"created_at", "2024-01-01T00:00:00.500000Z"},
                       {"message", {{"role", "assistant"}, {"content", ""}, {"tool_calls", calls}}},
                       {"done", false}})};
  }

  std::vector<std::string> closing(const StreamContext& ctx, const Reply& reply) const override {
    json last = {{"model", ctx.model},
                 {"created_at", "2024-01-01T00:00:01.000000Z"},
                 {"message", {{"role", "assistant"}, {"content", ""}}},
                 {"done_reason", reply.finish.empty() ? "stop" : reply.finish},
                 {"done", true},
                 {"total_duration", 512000000},
                 {"load_duration", 2000000}};
    if (reply.usage && reply.usage->input_tokens != 0) {
      last["prompt_eval_count"] = reply.usage->input_tokens;
      last["prompt_eval_duration"] = 10000000;
    }
    if (reply.usage && reply.usage->output_tokens != 0) {
      last["eval_count"] = reply.usage->output_tokens;
      last["eval_duration"] = 500000000;
    }
    return {line(ctx, last)};
  }

  std::string malformed(const StreamContext& ctx) const override {
    return R"({"model":")" + ctx.model + R"(","message":{"role":"assistant","content":"x")" +
           ctx.eol;
  }

  std::vector<std::string> error_event(const StreamContext& ctx,
                                       const Reply& reply) const override {
    std::string message = reply.error_message.empty() ? "an error was encountered while running "
                                                        "the model: unexpected EOF"
                                                      : reply.error_message;
    return {line(ctx, {{"error", message}})};
  }

 private:
  // Ollama reads a call's arguments into a map: absent is empty, anything but an object
  // fails the request.
  static bool arguments_are_an_object(const json& call) {
    const json function = call.is_object() ? call.value("function", json::object()) : json();
    if (!function.is_object()) return false;
    return !function.contains("arguments") || function["arguments"].is_object();
  }

  static std::string line(const StreamContext& ctx, const json& object) {
    return object.dump() + ctx.eol;
  }

  static bool is_base64(const std::string& s) {
    if (s.empty() || s.size() % 4 != 0) return false;
    for (char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '='))
        return false;
    return true;
  }
};

}  // namespace

std::unique_ptr<Dialect> make_ollama_dialect() {
  return std::make_unique<OllamaDialect>();
}

}  // namespace agentrt::test
