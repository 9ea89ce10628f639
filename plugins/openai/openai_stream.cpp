#include "openai_stream.h"

#include "common/json_fields.h"

#include <algorithm>

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
  std::optional<element> delta;
  std::string_view finish;
  for (const simdjson::dom::key_value_pair field : fields) {
    if (field.key == "index") {
      if (field.value.get(index) != SUCCESS) index = 0;
    } else if (field.key == "delta") {
      delta = field.value;
    } else if (field.key == "finish_reason") {
      finish = text::text_or_empty(field.value);
    }
  }
  if (index != 0) return;
  if (delta) {
    out_.text(text::text_or_empty(text::member(*delta, "content")));
    const auto tool_calls = text::member(*delta, "tool_calls");
    if (tool_calls.error() == SUCCESS) take_tool_calls(tool_calls.value_unsafe());
  }
  if (finish.empty()) return;
  finish_reason_ = finish;
  emit_calls();
}

void ChunkDecoder::take_tool_calls(element list) {
  simdjson::dom::array pieces;
  if (list.get(pieces) != SUCCESS) return;
  for (const element piece : pieces) {
    if (!piece.is_object()) continue;
    int64_t given_index = 0;
    std::optional<int64_t> index;
    if (text::member(piece, "index").get(given_index) == SUCCESS) index = given_index;
    PendingCall& call = call_for(index, text::text_or_empty(text::member(piece, "id")));
    const auto function = text::member(piece, "function");
    // The name comes whole in a call's first piece; pieces that repeat it add nothing.
    if (call.name.empty()) call.name = text::text_or_empty(text::member(function, "name"));
    call.arguments += text::text_or_empty(text::member(function, "arguments"));
  }
}

// The call a piece belongs to, begun anew when none is: by its id first (a repeated id
// is the same call), then by its index (the latest call with that index, unless both
// have ids that differ), and without an index the last call unless the piece has an id.
ChunkDecoder::PendingCall& ChunkDecoder::call_for(std::optional<int64_t> index,
                                                  std::string_view id) {
  if (!id.empty())
    for (PendingCall& call : calls_)
      if (call.id == id) return call;
  if (index) {
    for (auto call = calls_.rbegin(); call != calls_.rend(); ++call)
      if (call->index == *index && (id.empty() || call->id.empty())) {
        if (call->id.empty()) call->id = std::string(id);
        return *call;
      }
  } else if (id.empty() && !calls_.empty()) {
    return calls_.back();
  }
  PendingCall call;
  call.index = index ? *index : (calls_.empty() ? 0 : calls_.back().index + 1);
  call.id = std::string(id);
  calls_.push_back(std::move(call));
  return calls_.back();
}

void ChunkDecoder::emit_calls() {
  std::stable_sort(calls_.begin(), calls_.end(),
                   [](const PendingCall& a, const PendingCall& b) { return a.index < b.index; });
  for (const PendingCall& call : calls_) {
    called_ = true;
    out_.tool_call(call.id, call.name, call.arguments.empty() ? "{}" : call.arguments);
  }
  calls_.clear();
}

void ChunkDecoder::finish() {
  emit_calls();
  std::string reason = engine_finish_reason(finish_reason_);
  if (called_ && reason == "end_turn") reason = "tool_use";
  out_.finish(usage_, reason);
}

void ChunkDecoder::on_event(const SseEvent& event) {
  if (event.data == "[DONE]") {  // the terminator, and not JSON
    finish();
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
  if (!finish_reason_.empty()) finish();
}

}  // namespace agentrt::providers::openai
