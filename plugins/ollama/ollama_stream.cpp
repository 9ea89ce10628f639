#include "ollama_stream.h"

#include "common/json_fields.h"

namespace agentrt::providers::ollama {
namespace {

using nlohmann::json;

UpstreamErrorInfo error_info(const json& error) {
  UpstreamErrorInfo info;
  if (error.is_string())
    info.message = error.get<std::string>();
  else
    info.message = string_field(error, "message");
  return info;
}

}  // namespace

std::string engine_finish_reason(const std::string& done_reason) {
  if (done_reason.empty() || done_reason == "stop") return "end_turn";
  if (done_reason == "length") return "max_tokens";
  return done_reason;
}

UpstreamErrorInfo parse_error_body(std::string_view body) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  const json* error = field(doc, "error");
  return error ? error_info(*error) : UpstreamErrorInfo{};
}

void ChatLineDecoder::on_line(std::string_view line) {
  json chunk = parse_event_object(line);
  if (const json* error = field(chunk, "error")) {
    std::string text = upstream_text(error_info(*error), "");
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
  }
  if (const json* message = field(chunk, "message")) out_.text(string_field(*message, "content"));
  const json* done = field(chunk, "done");
  if (!done || !done->is_boolean() || !done->get<bool>()) return;
  // Ollama omits a count that is zero (a fully cached prompt has no prompt_eval_count),
  // so one present count means the other is a real zero; none means no usage at all.
  std::optional<int64_t> input = int_field(chunk, "prompt_eval_count");
  std::optional<int64_t> output = int_field(chunk, "eval_count");
  std::optional<Usage> usage;
  if (input || output) usage = Usage{input.value_or(0), output.value_or(0)};
  out_.finish(usage, engine_finish_reason(string_field(chunk, "done_reason")));
}

}  // namespace agentrt::providers::ollama
