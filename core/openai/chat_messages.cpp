#include "core/openai/chat_messages.h"

#include "core/openai/openai_fields.h"
#include "core/runs/context_window.h"
#include "core/runs/run_request.h"
#include "core/runs/tool_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace agentrt::core::openai {
namespace {

using nlohmann::json;
using simdjson::SUCCESS;
using simdjson::dom::array;
using simdjson::dom::element;

std::string message_at(size_t index) {
  return "messages[" + std::to_string(index) + "]";
}

std::string item_at(const std::string& list, size_t index) {
  return list + "[" + std::to_string(index) + "]";
}

json text_part(std::string_view text) {
  return {{"text", text}, {"type", "text"}};
}

// In the store's form: the content's JSON text with sorted keys, estimated.
StoredMessage stored(std::string role, const json& content) {
  StoredMessage message;
  message.role = std::move(role);
  message.content_text = content.dump();
  estimate_stored(message);
  return message;
}

ParamError bad_value(const std::string& param, std::string_view value, std::string_view supported) {
  return bad_param(param, "Invalid value: '" + std::string(value) +
                              "'. Supported values are: " + std::string(supported) + ".");
}

// A content of text alone (system, developer, tool and assistant messages): a string, or
// an array of text parts; an assistant's refusal parts are left out.
std::vector<std::string_view> texts_of(element content, const std::string& where, bool assistant) {
  std::string_view text;
  if (content.get(text) == SUCCESS) return {text};
  array parts;
  if (content.get(parts) != SUCCESS)
    throw wrong_type(where, "a string or an array of content parts");
  std::vector<std::string_view> texts;
  size_t index = 0;
  for (const element value : parts) {
    const OpenAiObject part(value, item_at(where, index++));
    const std::string_view type = part.required_string("type");
    if (type == "text") {
      part.only({"type", "text"});
      texts.push_back(part.required_string("text"));
    } else if (type == "refusal" && assistant) {
      part.only({"type", "refusal"});
    } else {
      throw bad_value(part.path_of("type"), type, assistant ? "'text', 'refusal'" : "'text'");
    }
  }
  return texts;
}

json image_part(const OpenAiObject& part) {
  part.only({"type", "image_url"});
  std::string url;
  std::string param = part.path_of("image_url");
  const std::optional<element> value = part.present("image_url");
  if (!value) throw bad_param(param, "Missing required parameter: '" + param + "'.");
  std::string_view text;
  if (value->get(text) == SUCCESS) {  // a bare URL, as some clients send it
    url = text;
  } else {
    const OpenAiObject image(*value, param);
    image.only({"url", "detail"});  // detail is dropped: agentrt's image parts have none
    url = image.required_string("url");
    param = image.path_of("url");
  }
  std::optional<std::string> sendable = sendable_image_url(std::move(url));
  if (!sendable)
    throw bad_param(param,
                    "Invalid image URL: expected an http(s) URL with a host or a "
                    "data:image/<type>;base64,<data> URL.");
  return {{"type", "image_url"}, {"url", std::move(*sendable)}};
}

json user_content(element content, const std::string& where) {
  std::string_view text;
  if (content.get(text) == SUCCESS) return json::array({text_part(text)});
  array parts;
  if (content.get(parts) != SUCCESS || parts.size() == 0)
    throw wrong_type(where, "a string or a non-empty array of content parts");
  json out = json::array();
  for (const element value : parts) {
    const OpenAiObject part(value, item_at(where, out.size()));
    const std::string_view type = part.required_string("type");
    if (type == "text") {
      part.only({"type", "text"});
      out.push_back(text_part(part.required_string("text")));
    } else if (type == "image_url") {
      out.push_back(image_part(part));
    } else {
      throw bad_value(part.path_of("type"), type, "'text', 'image_url'");
    }
  }
  return out;
}

StoredMessage system_message(const OpenAiObject& message) {
  message.only({"role", "content", "name"});
  const std::optional<element> content = message.present("content");
  if (!content)
    throw bad_param(message.path_of("content"),
                    "Missing required parameter: '" + message.path_of("content") + "'.");
  json parts = json::array();
  for (const std::string_view text : texts_of(*content, message.path_of("content"), false))
    parts.push_back(text_part(text));
  return stored("system", parts);
}

StoredMessage user_message(const OpenAiObject& message) {
  message.only({"role", "content", "name"});
  const std::optional<element> content = message.present("content");
  if (!content)
    throw bad_param(message.path_of("content"),
                    "Missing required parameter: '" + message.path_of("content") + "'.");
  return stored("user", user_content(*content, message.path_of("content")));
}

ToolCall read_call(element value, const std::string& where) {
  const OpenAiObject call(value, where);
  const std::optional<std::string_view> type = call.string("type");
  if (type && *type != "function") throw bad_value(call.path_of("type"), *type, "'function'");
  call.only({"id", "type", "function"});
  ToolCall out;
  out.id = call.required_string("id");
  if (out.id.empty() || out.id.size() > 256)
    throw bad_param(call.path_of("id"),
                    "Invalid '" + call.path_of("id") + "': expected a string of 1 to 256 bytes.");
  const std::optional<element> function = call.present("function");
  if (!function)
    throw bad_param(call.path_of("function"),
                    "Missing required parameter: '" + call.path_of("function") + "'.");
  const OpenAiObject named(*function, call.path_of("function"));
  named.only({"name", "arguments"});
  out.name = named.required_string("name");
  if (!valid_tool_name(out.name))
    throw bad_param(
        named.path_of("name"),
        "Invalid '" + named.path_of("name") + "': expected 1 to 64 of a-z, A-Z, 0-9, '_' and '-'.");
  out.arguments = named.required_string("arguments");
  return out;
}

StoredMessage assistant_message(const OpenAiObject& message, std::vector<ToolCall>& calls) {
  if (message.present("function_call"))
    throw bad_param(message.path_of("function_call"),
                    "'function_call' is deprecated and not supported: use 'tool_calls'.");
  message.only({"role", "content", "name", "tool_calls", "refusal", "audio"});
  json parts = json::array();
  if (const std::optional<element> content = message.present("content"))
    for (const std::string_view text : texts_of(*content, message.path_of("content"), true))
      parts.push_back(text_part(text));
  if (const std::optional<element> list = message.present("tool_calls")) {
    array entries;
    if (list->get(entries) != SUCCESS) throw wrong_type(message.path_of("tool_calls"), "an array");
    for (const element entry : entries) {
      const std::string where = item_at(message.path_of("tool_calls"), calls.size());
      ToolCall call = read_call(entry, where);
      if (std::any_of(calls.begin(), calls.end(),
                      [&](const ToolCall& c) { return c.id == call.id; }))
        throw bad_param(where + ".id", "Invalid '" + where + ".id': the id '" + call.id +
                                           "' is used by another call of this message.");
      calls.push_back(std::move(call));
    }
  }
  // The text an answer that called tools wrote, if any, goes before its calls.
  if (!calls.empty())
    parts.erase(std::remove(parts.begin(), parts.end(), text_part("")), parts.end());
  if (parts.empty() && calls.empty())
    throw bad_param(message.path_of("content"),
                    "Invalid '" + message.path_of("content") +
                        "': an assistant message needs content or tool_calls.");
  for (const ToolCall& call : calls)
    parts.push_back({{"arguments", call.arguments},
                     {"id", call.id},
                     {"name", call.name},
                     {"type", "tool_call"}});
  return stored("assistant", parts);
}

StoredMessage tool_message(const OpenAiObject& message, std::string& answers) {
  message.only({"role", "content", "tool_call_id"});
  answers = message.required_string("tool_call_id");
  const std::optional<element> content = message.present("content");
  if (!content)
    throw bad_param(message.path_of("content"),
                    "Missing required parameter: '" + message.path_of("content") + "'.");
  std::string output;
  for (const std::string_view text : texts_of(*content, message.path_of("content"), false))
    output += text;
  return stored("tool", json::array({{{"is_error", false},
                                      {"output", output},
                                      {"tool_call_id", answers},
                                      {"type", "tool_result"}}}));
}

// The calls of the last assistant message that made some, while only tool messages
// have followed it: each must be answered once before a message of another role.
class CallLedger {
 public:
  void assistant(size_t index, const std::vector<ToolCall>& calls) {
    settle();
    index_ = index;
    for (const ToolCall& call : calls) open_.push_back(call.id);
  }
  void other() { settle(); }
  void answer(size_t index, const std::string& id) {
    const auto found = std::find(open_.begin(), open_.end(), id);
    if (found != open_.end()) {
      open_.erase(found);
      answered_ = true;
      return;
    }
    if (open_.empty() && !answered_)
      throw bad_param(message_at(index) + ".role",
                      "Invalid parameter: messages with role 'tool' must be a response to a "
                      "preceding message with 'tool_calls'.");
    throw bad_param(message_at(index) + ".tool_call_id",
                    "Invalid '" + message_at(index) + ".tool_call_id': '" + id +
                        "' answers no unanswered call of " + message_at(index_) + ".");
  }
  // At another role, and at the end: no call may be left unanswered.
  void settle() {
    if (!open_.empty()) {
      std::string ids;
      for (const std::string& id : open_) ids += (ids.empty() ? "" : ", ") + id;
      throw bad_param(message_at(index_),
                      "An assistant message with 'tool_calls' must be followed by tool "
                      "messages responding to each 'tool_call_id'. The following tool_call_ids "
                      "did not have response messages: " +
                          ids);
    }
    answered_ = false;
  }

 private:
  size_t index_ = 0;
  std::vector<std::string> open_;
  bool answered_ = false;  // some call of the open assistant message was answered
};

}  // namespace

std::vector<StoredMessage> read_chat_messages(element value) {
  array list;
  if (value.get(list) != SUCCESS) throw wrong_type("messages", "an array");
  if (list.size() == 0)
    throw bad_param("messages",
                    "Invalid 'messages': empty array. Expected an array with "
                    "minimum length 1, but got an empty array instead.");
  std::vector<StoredMessage> out;
  out.reserve(list.size());
  CallLedger ledger;
  for (const element entry : list) {
    const size_t index = out.size();
    const OpenAiObject message(entry, message_at(index));
    const std::string_view role = message.required_string("role");
    if (role == "system" || role == "developer") {
      ledger.other();
      out.push_back(system_message(message));
    } else if (role == "user") {
      ledger.other();
      out.push_back(user_message(message));
    } else if (role == "assistant") {
      std::vector<ToolCall> calls;
      out.push_back(assistant_message(message, calls));
      ledger.assistant(index, calls);
    } else if (role == "tool") {
      std::string answers;
      out.push_back(tool_message(message, answers));
      ledger.answer(index, answers);
    } else {
      throw bad_value(message.path_of("role"), role,
                      "'system', 'developer', 'user', 'assistant', 'tool'");
    }
  }
  ledger.settle();
  return out;
}

}  // namespace agentrt::core::openai
