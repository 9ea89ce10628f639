#include "core/openai/chat_completion_response.h"

#include "core/domain/json_text.h"
#include "text/json_reader.h"

namespace agentrt::core::openai {
namespace {

using simdjson::SUCCESS;

void write_usage(JsonObjectText& object, const RunSummary& summary) {
  JsonObjectText usage(object.member("usage"));
  usage.integer("completion_tokens", summary.output_tokens)
      .integer("prompt_tokens", summary.input_tokens)
      .integer("total_tokens", summary.input_tokens + summary.output_tokens)
      .close();
}

// [{"function":{"arguments","name"},"id","type":"function"}], with "index" in a chunk.
void write_call(std::string& out, std::string_view id, std::string_view name,
                std::string_view arguments, std::optional<int64_t> index) {
  JsonObjectText call(out);
  JsonObjectText function(call.member("function"));
  function.string("arguments", arguments).string("name", name).close();
  call.string("id", id);
  if (index) call.integer("index", *index);
  call.string("type", "function").close();
}

void write_head(JsonObjectText& object, const CompletionHead& head, const char* type) {
  object.integer("created", head.created)
      .string("id", head.id)
      .string("model", head.model)
      .string("object", type);
}

}  // namespace

std::string completion_id(std::string_view run_id) {
  constexpr std::string_view kRun = "run_";
  if (run_id.substr(0, kRun.size()) == kRun) run_id.remove_prefix(kRun.size());
  return "chatcmpl-" + std::string(run_id);
}

std::string finish_reason(const RunSummary& summary) {
  if (summary.reason == "tool_use") return "tool_calls";
  if (summary.reason == "max_tokens") return "length";
  if (summary.provider_reason == "content_filter") return "content_filter";
  return "stop";
}

std::string completion_text(const CompletionHead& head, const RunSummary& summary) {
  std::string text;
  text.reserve(summary.text.size() + 384);
  JsonObjectText answer(text);
  std::string& choices = answer.member("choices");
  choices += '[';
  JsonObjectText choice(choices);
  choice.string("finish_reason", finish_reason(summary)).integer("index", 0);
  choice.member("logprobs") += "null";
  JsonObjectText message(choice.member("message"));
  // An answer that called tools without a word has no content, as OpenAI's.
  if (summary.text.empty() && !summary.tool_calls.empty())
    message.member("content") += "null";
  else
    message.string("content", summary.text);
  message.member("refusal") += "null";
  message.string("role", "assistant");
  if (!summary.tool_calls.empty()) {
    std::string& calls = message.member("tool_calls");
    calls += '[';
    for (const ToolCall& call : summary.tool_calls) {
      if (calls.back() != '[') calls += ',';
      write_call(calls, call.id, call.name, call.arguments, std::nullopt);
    }
    calls += ']';
  }
  message.close();
  choice.close();
  choices += ']';
  write_head(answer, head, "chat.completion");
  write_usage(answer, summary);
  answer.close();
  return text;
}

std::string failure_code(const RunSummary& summary) {
  constexpr int32_t kTooManyRequests = 429;
  return summary.upstream_status == kTooManyRequests ? "rate_limit_exceeded" : summary.error_code;
}

const char* stream_error_type(std::string_view code) {
  if (code == "invalid_request") return "invalid_request_error";
  if (code == "rate_limited" || code == "rate_limit_exceeded") return "rate_limit_error";
  return "server_error";
}

ChunkSink::ChunkSink(RunSink& out, CompletionHead head, std::function<bool()> client_gone)
    : out_(out), head_(std::move(head)), client_gone_(std::move(client_gone)) {}

// {"choices":[{"delta":<delta>,"finish_reason":<finish>,"index":0,"logprobs":null}],
//  "created","id","model","object":"chat.completion.chunk","usage"?:null}
std::string ChunkSink::chunk(std::string_view delta, std::string_view finish) const {
  std::string text;
  text.reserve(delta.size() + 192 + head_.id.size() + head_.model.size());
  JsonObjectText object(text);
  std::string& choices = object.member("choices");
  choices += "[";
  JsonObjectText choice(choices);
  choice.member("delta") += delta;
  if (finish.empty())
    choice.member("finish_reason") += "null";
  else
    choice.string("finish_reason", finish);
  choice.integer("index", 0);
  choice.member("logprobs") += "null";
  choice.close();
  choices += ']';
  write_head(object, head_, "chat.completion.chunk");
  // With include_usage every chunk says usage, null but in the last (OpenAI's reference).
  if (head_.include_usage) object.member("usage") += "null";
  object.close();
  return text;
}

bool ChunkSink::write(const std::string& chunk) {
  if (gone_ || !out_.send(chunk)) gone_ = true;
  return !gone_;
}

bool ChunkSink::start() {
  if (started_) return !gone_;
  started_ = true;
  return write(chunk(R"({"content":"","refusal":null,"role":"assistant"})", ""));
}

bool ChunkSink::send(const std::string& event) {
  text::JsonReader reader;
  simdjson::dom::element parsed;
  if (reader.parse(event).get(parsed) != SUCCESS) return true;
  const std::string_view type = text::text_or_empty(text::member(parsed, "type"));
  std::lock_guard lock(mutex_);
  if (type == "stream_delta") {
    std::string delta;
    JsonObjectText content(delta);
    content.string("content", text::text_or_empty(text::member(parsed, "content"))).close();
    return start() && write(chunk(delta, ""));
  }
  if (type == "tool_call") {
    std::string delta = R"({"tool_calls":[)";
    write_call(delta, text::text_or_empty(text::member(parsed, "call_id")),
               text::text_or_empty(text::member(parsed, "name")),
               text::text_or_empty(text::member(parsed, "arguments")), calls_++);
    delta += "]}";
    return start() && write(chunk(delta, ""));
  }
  return !gone_;  // run_start, done and the rest are agentrt's
}

bool ChunkSink::idle() {
  std::lock_guard lock(mutex_);
  // Before the first chunk the stream has not begun, and sends no keep-alive.
  if (!started_ && client_gone_ && client_gone_()) gone_ = true;
  if (!gone_ && started_ && !out_.idle()) gone_ = true;
  return !gone_;
}

bool ChunkSink::started() const {
  std::lock_guard lock(mutex_);
  return started_;
}

void ChunkSink::finish(const RunSummary& summary) {
  std::lock_guard lock(mutex_);
  const bool failed = summary.failed || summary.reason == "interrupted";
  if (failed) {
    const std::string code = summary.failed ? failure_code(summary) : "interrupted";
    std::string error;
    JsonObjectText body(error);
    JsonObjectText inner(body.member("error"));
    inner.string("code", code)
        .string("message", summary.failed ? summary.error_message : "the run was interrupted")
        .member("param") += "null";
    inner.string("type", stream_error_type(code)).close();
    body.close();
    write(error);
  } else {
    start();
    write(chunk("{}", finish_reason(summary)));
    if (head_.include_usage) {
      std::string usage;
      JsonObjectText object(usage);
      object.member("choices") += "[]";
      write_head(object, head_, "chat.completion.chunk");
      write_usage(object, summary);
      object.close();
      write(usage);
    }
  }
  write("[DONE]");
}

}  // namespace agentrt::core::openai
