#include "anthropic_stream.h"

#include "common/json_fields.h"

namespace agentrt::providers::anthropic {
namespace {

using nlohmann::json;

UpstreamErrorInfo error_info(const json& doc) {
  UpstreamErrorInfo info;
  const json* error = field(doc, "error");
  if (!error) return info;
  info.type = string_field(*error, "type");
  info.message = string_field(*error, "message");
  return info;
}

[[noreturn]] void stream_error(const json& data) {
  UpstreamErrorInfo info = error_info(data);
  std::string text = upstream_text(info, "");
  if (info.type == "overloaded_error")
    throw sdk::Error(AGENTRT_ERR_UNAVAILABLE, "upstream overloaded mid-stream: " + text);
  throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
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

void MessageDecoder::take_usage(const json& usage) {
  auto take = [&](const char* key, std::optional<int64_t>& into) {
    if (std::optional<int64_t> value = int_field(usage, key)) into = value;
  };
  take("input_tokens", counts_.input);
  take("cache_creation_input_tokens", counts_.cache_creation);
  take("cache_read_input_tokens", counts_.cache_read);
  take("output_tokens", counts_.output);
}

std::optional<Usage> MessageDecoder::usage() const {
  if (!counts_.input && !counts_.output) return std::nullopt;
  return Usage{counts_.input.value_or(0) + counts_.cache_creation.value_or(0) +
                   counts_.cache_read.value_or(0),
               counts_.output.value_or(0)};
}

void MessageDecoder::on_event(const SseEvent& event) {
  json data = parse_event_object(event.data);
  const std::string type = event.event.empty() ? string_field(data, "type") : event.event;
  if (type == "content_block_delta") {
    const json* delta = field(data, "delta");
    if (delta && string_field(*delta, "type") == "text_delta")
      out_.text(string_field(*delta, "text"));
  } else if (type == "message_start") {
    const json* message = field(data, "message");
    if (const json* usage = message ? field(*message, "usage") : nullptr) take_usage(*usage);
  } else if (type == "message_delta") {
    if (const json* delta = field(data, "delta")) {
      std::string reason = string_field(*delta, "stop_reason");
      if (!reason.empty()) stop_reason_ = reason;
    }
    if (const json* usage = field(data, "usage")) take_usage(*usage);
  } else if (type == "message_stop") {
    out_.finish(usage(), engine_finish_reason(stop_reason_));
  } else if (type == "error") {
    stream_error(data);
  }
}

}  // namespace agentrt::providers::anthropic
