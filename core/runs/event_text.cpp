#include "core/runs/event_text.h"

#include "core/domain/json_text.h"

namespace agentrt::core {

// The error handler SSE has always dumped events with; the store now gets the same.
constexpr auto kInvalidUtf8 = nlohmann::json::error_handler_t::replace;

std::string event_text(const nlohmann::json& event) {
  return event.dump(-1, ' ', /*ensure_ascii=*/false, kInvalidUtf8);
}

// Keys in sorted order, as nlohmann's dump writes them.
std::string run_start_text(std::string_view run_id, std::string_view session_id,
                           std::string_view model, std::string_view timestamp, int64_t seq) {
  std::string text;
  text.reserve(160);
  JsonObjectText event(text);
  event.string("model", model)
      .string("run_id", run_id)
      .integer("seq", seq)
      .string("session_id", session_id)
      .string("timestamp", timestamp)
      .string("type", "run_start")
      .close();
  return text;
}

std::string error_event_text(std::string_view code, std::string_view message, int64_t seq) {
  std::string text;
  JsonObjectText event(text);
  event.string("code", code).string("message", message).integer("seq", seq);
  event.string("type", "error").close();
  return text;
}

std::string done_text(std::string_view reason, std::string_view run_id, int64_t input_tokens,
                      int64_t output_tokens, int64_t seq) {
  std::string text;
  text.reserve(128);
  JsonObjectText event(text);
  event.string("reason", reason).string("run_id", run_id).integer("seq", seq);
  event.string("type", "done");
  JsonObjectText usage(event.member("usage"));
  usage.integer("input_tokens", input_tokens).integer("output_tokens", output_tokens).close();
  event.close();
  return text;
}

std::string tool_call_text(std::string_view call_id, std::string_view name,
                           std::string_view arguments, std::string_view executor, int64_t seq) {
  std::string text;
  JsonObjectText event(text);
  event.string("arguments", arguments)
      .string("call_id", call_id)
      .string("executor", executor)
      .string("name", name)
      .integer("seq", seq)
      .string("type", "tool_call")
      .close();
  return text;
}

std::string tool_result_text(std::string_view call_id, std::string_view name,
                             std::string_view output, bool is_error, int64_t duration_ms,
                             int64_t seq) {
  std::string text;
  JsonObjectText event(text);
  event.string("call_id", call_id)
      .integer("duration_ms", duration_ms)
      .boolean("is_error", is_error)
      .string("name", name)
      .string("output", output)
      .integer("seq", seq)
      .string("type", "tool_result")
      .close();
  return text;
}

std::string approval_request_text(std::string_view call_id, std::string_view name,
                                  std::string_view arguments, std::string_view server,
                                  int64_t seq) {
  std::string text;
  JsonObjectText event(text);
  event.string("arguments", arguments)
      .string("call_id", call_id)
      .string("name", name)
      .integer("seq", seq)
      .string("server", server)
      .string("type", "approval_request")
      .close();
  return text;
}

std::string DeltaText::operator()(std::string_view content, int64_t seq) {
  buffer_.assign(R"({"content":)");
  append_json_string(buffer_, content);
  buffer_.append(R"(,"seq":)");
  append_json_int(buffer_, seq);
  buffer_.append(R"(,"type":"stream_delta"})");
  return buffer_;
}

}  // namespace agentrt::core
