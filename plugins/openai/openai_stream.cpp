#include "openai_stream.h"

#include "common/json_fields.h"

namespace agentrt::providers::openai {
namespace {

using nlohmann::json;

UpstreamErrorInfo error_info(const json& error) {
  UpstreamErrorInfo info;
  if (error.is_string()) {  // some OpenAI-compatible servers say just a string
    info.message = error.get<std::string>();
    return info;
  }
  info.message = string_field(error, "message");
  std::string code = string_field(error, "code");
  info.type = code.empty() ? string_field(error, "type") : code;
  info.quota_exhausted =
      code == "insufficient_quota" || string_field(error, "type") == "insufficient_quota";
  return info;
}

}  // namespace

std::string engine_finish_reason(const std::string& finish_reason) {
  if (finish_reason.empty() || finish_reason == "stop") return "end_turn";
  if (finish_reason == "length") return "max_tokens";
  if (finish_reason == "tool_calls" || finish_reason == "function_call") return "tool_use";
  return finish_reason;  // content_filter and whatever comes next
}

UpstreamErrorInfo parse_error_body(std::string_view body) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (const json* error = field(doc, "error")) return error_info(*error);
  UpstreamErrorInfo info;
  info.message = string_field(doc, "message");
  return info;
}

void ChunkDecoder::on_event(const SseEvent& event) {
  if (event.data == "[DONE]") {  // the terminator, and not JSON
    out_.finish(usage_, engine_finish_reason(finish_reason_));
    return;
  }
  on_chunk(parse_event_object(event.data));
}

void ChunkDecoder::on_chunk(const json& chunk) {
  if (const json* error = field(chunk, "error")) {
    std::string text = upstream_text(error_info(*error), "");
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
  }
  // The usage chunk has "choices": [], so never assume an element is there.
  if (const json* choices = field(chunk, "choices"); choices && choices->is_array()) {
    for (const json& choice : *choices) {
      if (int_field(choice, "index").value_or(0) != 0) continue;
      if (const json* delta = field(choice, "delta")) out_.text(string_field(*delta, "content"));
      std::string reason = string_field(choice, "finish_reason");
      if (!reason.empty()) finish_reason_ = reason;
    }
  }
  if (const json* usage = field(chunk, "usage"); usage && usage->is_object()) {
    usage_ = Usage{int_field(*usage, "prompt_tokens").value_or(0),
                   int_field(*usage, "completion_tokens").value_or(0)};
  }
}

}  // namespace agentrt::providers::openai
