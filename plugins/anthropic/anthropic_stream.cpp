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

namespace {

void scan_usage(JsonScanner& s, UsageCounts& counts) {
  counts = UsageCounts{};
  s.members([&](std::string_view key) {
    if (key == "input_tokens")
      s.read_int(counts.input);
    else if (key == "cache_creation_input_tokens")
      s.read_int(counts.cache_creation);
    else if (key == "cache_read_input_tokens")
      s.read_int(counts.cache_read);
    else if (key == "output_tokens")
      s.read_int(counts.output);
    else
      s.skip_value();
  });
}

void scan_delta(JsonScanner& s, EventFields& fields) {
  for (JsonText* text : {&fields.delta_type, &fields.delta_text, &fields.stop_reason})
    text->clear();
  s.members([&](std::string_view key) {
    if (key == "type")
      s.read_text(fields.delta_type);
    else if (key == "text")
      s.read_text(fields.delta_text);
    else if (key == "stop_reason")
      s.read_text(fields.stop_reason);
    else
      s.skip_value();
  });
}

void read_usage(const json& usage, UsageCounts& counts) {
  counts.input = int_field(usage, "input_tokens");
  counts.cache_creation = int_field(usage, "cache_creation_input_tokens");
  counts.cache_read = int_field(usage, "cache_read_input_tokens");
  counts.output = int_field(usage, "output_tokens");
}

// The event's type: its `event:` line, or else the data's "type".
std::string_view event_type(const SseEvent& event, const EventFields& fields) {
  return event.event.empty() ? fields.type.view() : std::string_view(event.event);
}

}  // namespace

// A repeated key counts as its last occurrence, as in nlohmann's objects: every
// branch below replaces what an earlier occurrence read.
bool scan_event(std::string_view data, EventFields& fields) {
  fields.clear();
  JsonScanner s(data);
  const bool object = s.members([&](std::string_view key) {
    if (key == "type") {
      s.read_text(fields.type);
    } else if (key == "delta") {
      scan_delta(s, fields);
    } else if (key == "message") {
      fields.message_usage = UsageCounts{};
      s.members([&](std::string_view inner) {
        if (inner == "usage")
          scan_usage(s, fields.message_usage);
        else
          s.skip_value();
      });
    } else if (key == "usage") {
      scan_usage(s, fields.usage);
    } else {
      s.skip_value();
    }
  });
  return object && s.finish();
}

json read_event(std::string_view data, EventFields& fields) {
  json doc = parse_event_object(data);
  fields.clear();
  fields.type.assign(string_field(doc, "type"));
  if (const json* delta = field(doc, "delta")) {
    fields.delta_type.assign(string_field(*delta, "type"));
    fields.delta_text.assign(string_field(*delta, "text"));
    fields.stop_reason.assign(string_field(*delta, "stop_reason"));
  }
  if (const json* message = field(doc, "message"))
    if (const json* usage = field(*message, "usage")) read_usage(*usage, fields.message_usage);
  if (const json* usage = field(doc, "usage")) read_usage(*usage, fields.usage);
  return doc;
}

void MessageDecoder::take_usage(const UsageCounts& usage) {
  auto take = [](const std::optional<int64_t>& value, std::optional<int64_t>& into) {
    if (value) into = value;
  };
  take(usage.input, counts_.input);
  take(usage.cache_creation, counts_.cache_creation);
  take(usage.cache_read, counts_.cache_read);
  take(usage.output, counts_.output);
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
  if (!scan_event(event.data, fields_) || event_type(event, fields_) == "error") {
    json data = read_event(event.data, fields_);
    if (event_type(event, fields_) == "error") stream_error(data);
  }
  const std::string_view type = event_type(event, fields_);
  if (type == "content_block_delta") {
    if (fields_.delta_type.view() == "text_delta") out_.text(fields_.delta_text.view());
  } else if (type == "message_start") {
    take_usage(fields_.message_usage);
    out_.input_so_far(input_tokens());  // its output count is a placeholder
  } else if (type == "message_delta") {
    if (!fields_.stop_reason.view().empty()) stop_reason_ = fields_.stop_reason.view();
    take_usage(fields_.usage);
  } else if (type == "message_stop") {
    out_.finish(usage(), engine_finish_reason(stop_reason_));
  }
}

}  // namespace agentrt::providers::anthropic
