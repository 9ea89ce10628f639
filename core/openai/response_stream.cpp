#include "core/openai/response_stream.h"

#include "text/json_reader.h"

namespace agentrt::core::openai {
namespace {

using nlohmann::json;

std::string message_id(const ResponseHead& head) {
  return "msg_" + head.id.substr(head.id.find('_') + 1);
}

json text_part(const std::string& text) {
  return {{"type", "output_text"}, {"text", text}, {"annotations", json::array()}};
}

}  // namespace

ResponseStreamSink::ResponseStreamSink(RunSink& out, ResponseHead head,
                                       std::function<bool()> client_gone)
    : out_(out), head_(std::move(head)), client_gone_(std::move(client_gone)) {}

bool ResponseStreamSink::emit(const std::string& type, json event) {
  if (gone_) return false;
  event["type"] = type;
  const int64_t sequence = sequence_++;
  if (sequence <= skip_through_) return true;
  event["sequence_number"] = sequence;
  if (!out_.send_named(type, event.dump())) gone_ = true;
  return !gone_;
}

bool ResponseStreamSink::start() {
  if (started_) return !gone_;
  started_ = true;
  json response = response_object(head_, RunSummary{});
  response["status"] = "in_progress";
  response["output"] = json::array();
  response["usage"] = nullptr;
  return emit("response.created", {{"response", response}}) &&
         emit("response.in_progress", {{"response", response}});
}

bool ResponseStreamSink::open_message() {
  if (message_open_) return !gone_;
  message_open_ = true;
  message_index_ = items_++;
  text_.clear();
  const json item = {{"type", "message"},
                     {"id", message_id(head_)},
                     {"status", "in_progress"},
                     {"role", "assistant"},
                     {"content", json::array()}};
  return emit("response.output_item.added", {{"output_index", message_index_}, {"item", item}}) &&
         emit("response.content_part.added", {{"item_id", message_id(head_)},
                                              {"output_index", message_index_},
                                              {"content_index", 0},
                                              {"part", text_part("")}});
}

bool ResponseStreamSink::close_message() {
  if (!message_open_) return !gone_;
  message_open_ = false;
  const json where = {
      {"item_id", message_id(head_)}, {"output_index", message_index_}, {"content_index", 0}};
  json done = where;
  done["text"] = text_;
  json part = where;
  part["part"] = text_part(text_);
  const json item = {{"type", "message"},
                     {"id", message_id(head_)},
                     {"status", "completed"},
                     {"role", "assistant"},
                     {"content", {text_part(text_)}}};
  return emit("response.output_text.done", done) && emit("response.content_part.done", part) &&
         emit("response.output_item.done", {{"output_index", message_index_}, {"item", item}});
}

bool ResponseStreamSink::add_call(const ToolCall& call) {
  const int64_t index = items_++;
  const std::string id = "fc_" + call.id;
  json item = {{"type", "function_call"}, {"id", id},        {"call_id", call.id},
               {"name", call.name},       {"arguments", ""}, {"status", "in_progress"}};
  const json where = {{"item_id", id}, {"output_index", index}};
  json delta = where, done = where;
  delta["delta"] = call.arguments;
  done["arguments"] = call.arguments;
  if (!emit("response.output_item.added", {{"output_index", index}, {"item", item}}) ||
      !emit("response.function_call_arguments.delta", delta) ||
      !emit("response.function_call_arguments.done", done))
    return false;
  item["arguments"] = call.arguments;
  item["status"] = "completed";
  return emit("response.output_item.done", {{"output_index", index}, {"item", item}});
}

bool ResponseStreamSink::send(const std::string& event) {
  text::JsonReader reader;
  simdjson::dom::element parsed;
  if (reader.parse(event).get(parsed) != simdjson::SUCCESS) return true;
  const std::string_view type = text::text_or_empty(text::member(parsed, "type"));
  std::lock_guard lock(mutex_);
  if (type == "stream_delta") {
    const std::string delta(text::text_or_empty(text::member(parsed, "content")));
    if (!start() || !open_message()) return false;
    text_ += delta;
    return emit("response.output_text.delta", {{"item_id", message_id(head_)},
                                               {"output_index", message_index_},
                                               {"content_index", 0},
                                               {"delta", delta}});
  }
  if (replay_ && (type == "error" || type == "done")) return note_end(parsed, type);
  if (type == "tool_call") {
    const ToolCall call{std::string(text::text_or_empty(text::member(parsed, "call_id"))),
                        std::string(text::text_or_empty(text::member(parsed, "name"))),
                        std::string(text::text_or_empty(text::member(parsed, "arguments")))};
    if (text::text_or_empty(text::member(parsed, "executor")) != "server")
      seen_.tool_calls.push_back(call);
    return start() && close_message() && add_call(call);
  }
  return !gone_;  // run_start, done and the rest are agentrt's
}

bool ResponseStreamSink::idle() {
  std::lock_guard lock(mutex_);
  if (!started_ && client_gone_ && client_gone_()) gone_ = true;
  if (!gone_ && started_ && !out_.idle()) gone_ = true;
  return !gone_;
}

bool ResponseStreamSink::started() const {
  std::lock_guard lock(mutex_);
  return started_;
}

bool ResponseStreamSink::note_end(simdjson::dom::element event, std::string_view type) {
  auto integer = [](simdjson::simdjson_result<simdjson::dom::element> value) {
    int64_t number = 0;
    return value.get(number) == simdjson::SUCCESS ? number : 0;
  };
  if (type == "error") {
    seen_.failed = true;
    seen_.error_code = text::text_or_empty(text::member(event, "code"));
    seen_.error_message = text::text_or_empty(text::member(event, "message"));
    return !gone_;
  }
  seen_.reason = text::text_or_empty(text::member(event, "reason"));
  seen_.text = text_;
  const auto usage = text::member(event, "usage");
  if (usage.error() == simdjson::SUCCESS) {
    seen_.input_tokens = integer(usage.value_unsafe()["input_tokens"]);
    seen_.output_tokens = integer(usage.value_unsafe()["output_tokens"]);
  }
  end(seen_);
  return false;  // the run's last event
}

void ResponseStreamSink::finish(const RunSummary& summary) {
  std::lock_guard lock(mutex_);
  end(summary);
}

void ResponseStreamSink::end(const RunSummary& summary) {
  // A run that answered nothing still answers an (empty) message, as the object does.
  if (!summary.failed && summary.text.empty() && summary.tool_calls.empty() && start())
    open_message();
  if (!start() || !close_message()) return;
  const json response = response_object(head_, summary);
  const std::string status = response["status"];
  const std::string type = status == "completed"    ? "response.completed"
                           : status == "incomplete" ? "response.incomplete"
                                                    : "response.failed";
  emit(type, {{"response", response}});
}

}  // namespace agentrt::core::openai
