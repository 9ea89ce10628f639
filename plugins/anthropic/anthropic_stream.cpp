#include "anthropic_stream.h"

#include "common/json_fields.h"

namespace agentrt::providers::anthropic {
namespace {

using nlohmann::json;
using simdjson::SUCCESS;
using simdjson::dom::element;

UpstreamErrorInfo error_info(const json& doc) {
  UpstreamErrorInfo info;
  const json* error = field(doc, "error");
  if (!error) return info;
  info.type = string_field(*error, "type");
  info.message = string_field(*error, "message");
  return info;
}

[[noreturn]] void stream_error(std::string_view data) {
  UpstreamErrorInfo info = parse_error_body(data);
  std::string text = upstream_text(info, "");
  if (info.type == "overloaded_error")
    throw sdk::Error(AGENTRT_ERR_UNAVAILABLE, "upstream overloaded mid-stream: " + text);
  throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
}

// A block event's "index"; absent, or not an integer, it is -1, which matches only
// another without one.
int64_t block_index(element data) {
  int64_t index = 0;
  return text::member(data, "index").get(index) == SUCCESS ? index : -1;
}

}  // namespace

std::string engine_finish_reason(const std::string& stop_reason) {
  if (stop_reason.empty() || stop_reason == "end_turn" || stop_reason == "stop_sequence")
    return "end_turn";
  return stop_reason;  // max_tokens, tool_use, pause_turn, refusal, ...
}

UpstreamErrorInfo parse_error_body(std::string_view body) {
  return error_info(json::parse(body, nullptr, /*allow_exceptions=*/false));
}

// A count given replaces the one before; one not given (or not an integer) leaves it.
void MessageDecoder::take_usage(simdjson::simdjson_result<element> usage) {
  auto take = [&](std::string_view key, std::optional<int64_t>& into) {
    int64_t count = 0;
    if (text::member(usage, key).get(count) == SUCCESS) into = count;
  };
  take("input_tokens", counts_.input);
  take("cache_creation_input_tokens", counts_.cache_creation);
  take("cache_read_input_tokens", counts_.cache_read);
  take("output_tokens", counts_.output);
}

// The input count as provider-wire-formats.md defines it: with cache reads and writes.
std::optional<int64_t> MessageDecoder::input_tokens() const {
  if (!counts_.input) return std::nullopt;
  return *counts_.input + counts_.cache_creation.value_or(0) + counts_.cache_read.value_or(0);
}

std::optional<Usage> MessageDecoder::usage() const {
  if (!counts_.input && !counts_.output) return std::nullopt;
  return Usage{input_tokens().value_or(0), counts_.output.value_or(0)};
}

void MessageDecoder::on_event(const SseEvent& event) {
  text::JsonReader reader;  // the thread's parser, borrowed for this event
  element data;
  if (reader.parse(event.data).get(data) != SUCCESS || !data.is_object())
    malformed("not a JSON object");
  // The event's type: its `event:` line, or else the data's "type".
  const std::string_view type =
      event.event.empty() ? text::text_or_empty(text::member(data, "type")) : event.event;
  if (type == "error") stream_error(event.data);
  if (type == "content_block_delta") {
    on_block_delta(data);
  } else if (type == "content_block_start") {
    on_block_start(data);
  } else if (type == "content_block_stop") {
    on_block_stop(data);
  } else if (type == "message_start") {
    take_usage(text::member(text::member(data, "message"), "usage"));
    out_.input_so_far(input_tokens());  // its output count is a placeholder
  } else if (type == "message_delta") {
    const auto delta = text::member(data, "delta");
    const std::string_view stop = text::text_or_empty(text::member(delta, "stop_reason"));
    if (!stop.empty()) stop_reason_ = stop;
    take_usage(text::member(data, "usage"));
  } else if (type == "message_stop") {
    out_.finish(usage(), engine_finish_reason(stop_reason_));
  }
}

void MessageDecoder::on_block_start(element data) {
  const auto block = text::member(data, "content_block");
  if (text::text_or_empty(text::member(block, "type")) != "tool_use") return;
  ToolUseBlock tool;
  tool.index = block_index(data);
  tool.id = text::text_or_empty(text::member(block, "id"));
  tool.name = text::text_or_empty(text::member(block, "name"));
  simdjson::dom::object input;
  if (text::member(block, "input").get(input) == SUCCESS && input.size() > 0)
    tool.input = simdjson::minify(input);
  if (ToolUseBlock* same = tool_block(tool.index))
    *same = std::move(tool);  // a second start of an index replaces the first
  else
    tool_blocks_.push_back(std::move(tool));
}

void MessageDecoder::on_block_delta(element data) {
  const auto delta = text::member(data, "delta");
  const std::string_view type = text::text_or_empty(text::member(delta, "type"));
  if (type == "text_delta") {
    out_.text(text::text_or_empty(text::member(delta, "text")));
  } else if (type == "input_json_delta") {
    if (ToolUseBlock* tool = tool_block(block_index(data)))
      tool->arguments += text::text_or_empty(text::member(delta, "partial_json"));
  }
}

// Without fragments the call's arguments are the start's input, which the API sends
// empty ({}) when it streams; a server that sends the input whole there is read too.
void MessageDecoder::on_block_stop(element data) {
  ToolUseBlock* tool = tool_block(block_index(data));
  if (!tool) return;
  const ToolUseBlock call = std::move(*tool);
  tool_blocks_.erase(tool_blocks_.begin() + (tool - tool_blocks_.data()));
  std::string_view arguments = call.arguments;
  if (arguments.empty()) arguments = call.input.empty() ? std::string_view("{}") : call.input;
  out_.tool_call(call.id, call.name, arguments);
}

ToolUseBlock* MessageDecoder::tool_block(int64_t index) {
  for (ToolUseBlock& tool : tool_blocks_)
    if (tool.index == index) return &tool;
  return nullptr;
}

}  // namespace agentrt::providers::anthropic
