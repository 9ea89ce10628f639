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

// message.tool_calls holds whole calls: [{"id"?,"function":{"index"?,"name",
// "arguments":{...}}}]. Current Ollama gives each an id ("call_..."), older ones none.
void ChatLineDecoder::take_tool_calls(element message) {
  simdjson::dom::array calls;
  if (text::member(message, "tool_calls").get(calls) != SUCCESS) return;
  for (const element call : calls) {
    if (!call.is_object()) continue;
    const auto function = text::member(call, "function");
    const auto arguments = text::member(function, "arguments");
    simdjson::dom::object object;
    std::string_view written;
    std::string text = "{}";  // a call without arguments, as OpenAI writes one
    if (arguments.get(object) == SUCCESS)
      text = simdjson::minify(object);
    else if (arguments.get(written) == SUCCESS)  // a proxy that writes OpenAI's string
      text = std::string(written);
    out_.tool_call(text::text_or_empty(text::member(call, "id")),
                   text::text_or_empty(text::member(function, "name")), text);
    called_ = true;
  }
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
  const auto message = text::member(chunk, "message");
  out_.text(text::text_or_empty(text::member(message, "content")));
  if (message.error() == SUCCESS) take_tool_calls(message.value_unsafe());
  bool done = false;
  if (text::member(chunk, "done").get(done) != SUCCESS || !done) return;
  // Ollama omits a count that is zero (a fully cached prompt has no prompt_eval_count),
  // so one present count means the other is a real zero; none means no usage at all.
  int64_t input = 0, output = 0;
  const bool has_input = text::member(chunk, "prompt_eval_count").get(input) == SUCCESS;
  const bool has_output = text::member(chunk, "eval_count").get(output) == SUCCESS;
  std::optional<Usage> usage;
  if (has_input || has_output) usage = Usage{has_input ? input : 0, has_output ? output : 0};
  std::string reason =
      engine_finish_reason(std::string(text::text_or_empty(text::member(chunk, "done_reason"))));
  // Ollama says "stop" after calling tools too; the engine waits for results on tool_use.
  if (called_ && reason == "end_turn") reason = "tool_use";
  out_.finish(usage, reason);
}

}  // namespace agentrt::providers::ollama
