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

// A repeated key counts as its last occurrence, as in nlohmann's objects: every
// branch below replaces what an earlier occurrence read.
bool scan_line(std::string_view line, LineFields& fields) {
  fields.clear();
  JsonScanner s(line);
  std::optional<bool> done;
  bool error = false;
  const bool object = s.members([&](std::string_view key) {
    if (key == "message") {
      s.read_member_text("content", fields.content);
    } else if (key == "done") {
      s.read_bool(done);
    } else if (key == "prompt_eval_count") {
      s.read_int(fields.prompt_eval_count);
    } else if (key == "eval_count") {
      s.read_int(fields.eval_count);
    } else if (key == "done_reason") {
      s.read_text(fields.done_reason);
    } else {
      // A non-null "error" makes this an error line, which read_line turns into the
      // error.
      if (key == "error" && s.peek() != 'n') error = true;
      s.skip_value();
    }
  });
  fields.done = done.value_or(false);
  return object && !error && s.finish();
}

void read_line(std::string_view line, LineFields& fields) {
  json chunk = parse_event_object(line);
  if (const json* error = field(chunk, "error")) {
    std::string text = upstream_text(error_info(*error), "");
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream failed mid-stream: " + text);
  }
  fields.clear();
  if (const json* message = field(chunk, "message"))
    fields.content.assign(string_field(*message, "content"));
  const json* done = field(chunk, "done");
  fields.done = done && done->is_boolean() && done->get<bool>();
  fields.prompt_eval_count = int_field(chunk, "prompt_eval_count");
  fields.eval_count = int_field(chunk, "eval_count");
  fields.done_reason.assign(string_field(chunk, "done_reason"));
}

void ChatLineDecoder::on_line(std::string_view line) {
  if (!scan_line(line, fields_)) read_line(line, fields_);
  out_.text(fields_.content.view());
  if (!fields_.done) return;
  // Ollama omits a count that is zero (a fully cached prompt has no prompt_eval_count),
  // so one present count means the other is a real zero; none means no usage at all.
  std::optional<Usage> usage;
  if (fields_.prompt_eval_count || fields_.eval_count)
    usage = Usage{fields_.prompt_eval_count.value_or(0), fields_.eval_count.value_or(0)};
  out_.finish(usage, engine_finish_reason(std::string(fields_.done_reason.view())));
}

}  // namespace agentrt::providers::ollama
