#include "openai_stream.h"

#include "common/json_fields.h"

#include <cstdint>
#include <cstring>

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

namespace {

// One element of "choices"; kept only when it is an object with index 0 (a missing or
// non-integer index counts as 0, as it always did).
void scan_choice(JsonScanner& s, std::vector<ChunkFields::Choice>& choices) {
  if (s.peek() != '{') {
    s.skip_value();
    return;
  }
  ChunkFields::Choice& choice = choices.emplace_back();
  std::optional<int64_t> index;
  s.members([&](std::string_view key) {
    if (key == "index")
      s.read_int(index);
    else if (key == "delta")
      s.read_member_text("content", choice.content);
    else if (key == "finish_reason")
      s.read_text(choice.finish_reason);
    else
      s.skip_value();
  });
  if (index.value_or(0) != 0) choices.pop_back();
}

void scan_usage(JsonScanner& s, std::optional<Usage>& usage) {
  std::optional<int64_t> prompt, completion;
  const bool object = s.members([&](std::string_view key) {
    if (key == "prompt_tokens")
      s.read_int(prompt);
    else if (key == "completion_tokens")
      s.read_int(completion);
    else
      s.skip_value();
  });
  usage.reset();
  if (object) usage = Usage{prompt.value_or(0), completion.value_or(0)};
}

// A chunk's members from where `s` stands, inside its object. A repeated key counts as
// its last occurrence, as in nlohmann's objects: every branch below replaces what an
// earlier occurrence read. `head_end`, when given, is set to the end of the last member
// before the first "choices", "usage" or "error" (null when no member came before).
bool scan_members(JsonScanner& s, ChunkFields& fields, const char** head_end) {
  bool error = false;
  const char* member_end = nullptr;
  std::string_view key;
  while (s.next_key(key)) {
    if (head_end && (key == "choices" || key == "usage" || key == "error")) {
      *head_end = member_end;
      head_end = nullptr;
    }
    if (key == "choices") {
      fields.choices.clear();
      if (s.enter_array()) {
        while (s.next_element()) scan_choice(s, fields.choices);
      } else {
        s.skip_value();
      }
    } else if (key == "usage") {
      scan_usage(s, fields.usage);
    } else {
      // A non-null "error" makes this an error chunk, which read_chunk turns into
      // the error.
      if (key == "error" && s.peek() != 'n') error = true;
      s.skip_value();
    }
    member_end = s.position();
  }
  return !error && s.finish();
}

// The whole chunk, from its opening brace.
bool scan_whole(std::string_view data, ChunkFields& fields, const char** head_end) {
  JsonScanner s(data);
  return s.enter_object() && scan_members(s, fields, head_end);
}

}  // namespace

bool scan_chunk(std::string_view data, ChunkFields& fields) {
  fields.choices.clear();
  fields.usage.reset();
  return scan_whole(data, fields, nullptr);
}

bool scan_stream_chunk(std::string_view data, ChunkFields& fields, ChunkHead& head) {
  fields.choices.clear();
  fields.usage.reset();
  if (!head.empty() && data.size() > head.size() &&
      std::memcmp(data.data(), head.data(), head.size()) == 0) {
    JsonScanner s = JsonScanner::after_member(data, head.size());
    return scan_members(s, fields, nullptr);
  }
  const char* head_end = nullptr;
  if (!scan_whole(data, fields, &head_end)) return false;
  if (head_end) head.assign(data.data(), static_cast<size_t>(head_end - data.data()));
  return true;
}

bool scan_framed_chunk(std::string_view data, ChunkFields& fields, const ContentFrame& frame) {
  const std::string& before = frame.before;
  const std::string& after = frame.after;
  if (before.empty() || data.size() <= before.size() + after.size() ||
      std::memcmp(data.data(), before.data(), before.size()) != 0 ||
      std::memcmp(data.data() + data.size() - after.size(), after.data(), after.size()) != 0)
    return false;
  // Whatever one value stands there, the chunk parses as the learned one with that value
  // for delta.content, read as the whole scan reads it: a string as the text, anything
  // else as none. Anything more (a comma, a second value) fails finish().
  JsonScanner s(data.substr(before.size(), data.size() - before.size() - after.size()));
  fields.choices.clear();
  fields.usage.reset();
  ChunkFields::Choice& choice = fields.choices.emplace_back();  // no finish_reason
  if (s.read_text(choice.content) && s.finish()) return true;
  fields.choices.clear();
  return false;
}

void learn_frame(std::string_view data, const ChunkFields& fields, ContentFrame& frame) {
  if (fields.choices.size() != 1 || fields.usage) return;
  const ChunkFields::Choice& choice = fields.choices[0];
  const std::string_view text = choice.content.view();
  if (!choice.finish_reason.view().empty() || text.empty()) return;
  // Only text read where it stands (no escapes) tells where its string is in `data`.
  const auto at = reinterpret_cast<uintptr_t>(text.data());
  const auto start = reinterpret_cast<uintptr_t>(data.data());
  if (at <= start || at + text.size() >= start + data.size()) return;
  const size_t open = at - start - 1, close = at - start + text.size();
  if (data[open] != '"' || data[close] != '"') return;
  frame.before.assign(data.data(), open);
  frame.after.assign(data.data() + close + 1, data.size() - close - 1);
}

void read_chunk(std::string_view data, ChunkFields& fields) {
  json chunk = parse_event_object(data);
  if (const json* error = field(chunk, "error")) {
    std::string text = upstream_text(error_info(*error), "");
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
  }
  fields.choices.clear();
  fields.usage.reset();
  // The usage chunk has "choices": [], so never assume an element is there.
  if (const json* choices = field(chunk, "choices"); choices && choices->is_array()) {
    for (const json& choice : *choices) {
      if (!choice.is_object() || int_field(choice, "index").value_or(0) != 0) continue;
      ChunkFields::Choice& kept = fields.choices.emplace_back();
      if (const json* delta = field(choice, "delta"))
        kept.content.assign(string_field(*delta, "content"));
      kept.finish_reason.assign(string_field(choice, "finish_reason"));
    }
  }
  if (const json* usage = field(chunk, "usage"); usage && usage->is_object()) {
    fields.usage = Usage{int_field(*usage, "prompt_tokens").value_or(0),
                         int_field(*usage, "completion_tokens").value_or(0)};
  }
}

void ChunkDecoder::on_event(const SseEvent& event) {
  if (std::string_view(event.data) == "[DONE]") {  // the terminator, and not JSON
    out_.finish(usage_, engine_finish_reason(finish_reason_));
    return;
  }
  constexpr int kFrameMissesToGiveUp = 4;
  if (scan_framed_chunk(event.data, fields_, frame_)) {
    frame_misses_ = 0;
  } else if (scan_stream_chunk(event.data, fields_, head_)) {
    if (!frame_.before.empty()) ++frame_misses_;
    if (frame_misses_ < kFrameMissesToGiveUp) {
      learn_frame(event.data, fields_, frame_);
    } else if (frame_misses_ == kFrameMissesToGiveUp) {
      frame_ = ContentFrame();
    }
  } else {
    read_chunk(event.data, fields_);
  }
  for (const ChunkFields::Choice& choice : fields_.choices) {
    out_.text(choice.content.view());
    if (!choice.finish_reason.view().empty()) finish_reason_ = choice.finish_reason.view();
  }
  if (fields_.usage) usage_ = fields_.usage;
}

void ChunkDecoder::on_end_without_marker() {
  if (!finish_reason_.empty()) out_.finish(usage_, engine_finish_reason(finish_reason_));
}

}  // namespace agentrt::providers::openai
