#include "ollama_stream.h"

#include "common/json_fields.h"

#include <optional>

namespace agentrt::providers::ollama {
namespace {

using nlohmann::json;
using simdjson::SUCCESS;
using simdjson::dom::element;

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
  text::JsonReader reader;  // the thread's parser, borrowed for this line
  element chunk;
  if (reader.parse(line).get(chunk) != SUCCESS || !chunk.is_object())
    malformed("not a JSON object");
  const auto error = text::member(chunk, "error");
  if (error.error() == SUCCESS && !error.value_unsafe().is_null()) {
    const std::string text = upstream_text(parse_error_body(line), "");
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
  }
  out_.text(text::text_or_empty(text::member(text::member(chunk, "message"), "content")));
  bool done = false;
  if (text::member(chunk, "done").get(done) != SUCCESS || !done) return;
  // Ollama omits a count that is zero (a fully cached prompt has no prompt_eval_count),
  // so one present count means the other is a real zero; none means no usage at all.
  int64_t input = 0, output = 0;
  const bool has_input = text::member(chunk, "prompt_eval_count").get(input) == SUCCESS;
  const bool has_output = text::member(chunk, "eval_count").get(output) == SUCCESS;
  std::optional<Usage> usage;
  if (has_input || has_output) usage = Usage{has_input ? input : 0, has_output ? output : 0};
  out_.finish(usage, engine_finish_reason(
                         std::string(text::text_or_empty(text::member(chunk, "done_reason")))));
}

}  // namespace agentrt::providers::ollama
