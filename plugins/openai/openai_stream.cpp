#include "openai_stream.h"

#include "common/json_fields.h"

namespace agentrt::providers::openai {
namespace {

using nlohmann::json;
using simdjson::SUCCESS;
using simdjson::dom::element;

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

int64_t count_or_zero(simdjson::simdjson_result<element> value) {
  int64_t count = 0;
  return value.get(count) == SUCCESS ? count : 0;
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

// Choices other than the first (index 0, or none given) belong to answers not asked for.
// A key written twice counts as its last, as in nlohmann's objects.
void ChunkDecoder::take_choice(element choice) {
  simdjson::dom::object fields;
  if (choice.get(fields) != SUCCESS) return;
  int64_t index = 0;
  std::string_view content, finish;
  for (const simdjson::dom::key_value_pair field : fields) {
    if (field.key == "index") {
      if (field.value.get(index) != SUCCESS) index = 0;
    } else if (field.key == "delta") {
      content = text::text_or_empty(text::member(field.value, "content"));
    } else if (field.key == "finish_reason") {
      finish = text::text_or_empty(field.value);
    }
  }
  if (index != 0) return;
  out_.text(content);
  if (!finish.empty()) finish_reason_ = finish;
}

void ChunkDecoder::on_event(const SseEvent& event) {
  if (event.data == "[DONE]") {  // the terminator, and not JSON
    out_.finish(usage_, engine_finish_reason(finish_reason_));
    return;
  }
  text::JsonReader reader;  // the thread's parser, borrowed for this event
  simdjson::dom::object chunk;
  if (reader.parse(event.data).get(chunk) != SUCCESS) malformed("not a JSON object");
  // A key written twice counts as its last, as in nlohmann's objects.
  std::optional<element> choices, usage;
  bool error = false;
  for (const simdjson::dom::key_value_pair member : chunk) {
    if (member.key == "choices")
      choices = member.value;
    else if (member.key == "usage")
      usage = member.value;
    else if (member.key == "error")
      error = !member.value.is_null();
  }
  if (error) {
    const std::string text = upstream_text(parse_error_body(event.data), "");
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
  }
  // The usage chunk has "choices": [], so never assume an element is there.
  simdjson::dom::array list;
  if (choices && choices->get(list) == SUCCESS)
    for (const element choice : list) take_choice(choice);
  if (usage && usage->is_object())
    usage_ = Usage{count_or_zero(text::member(*usage, "prompt_tokens")),
                   count_or_zero(text::member(*usage, "completion_tokens"))};
}

void ChunkDecoder::on_end_without_marker() {
  if (!finish_reason_.empty()) out_.finish(usage_, engine_finish_reason(finish_reason_));
}

}  // namespace agentrt::providers::openai
