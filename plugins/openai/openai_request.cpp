#include "openai_request.h"

#include "common/content_encoding.h"
#include "common/json_writer.h"

namespace agentrt::providers::openai {
namespace {

bool text_only(const ChatMessage& message) {
  for (const ContentPart& part : message.parts)
    if (part.kind != ContentPart::Kind::text) return false;
  return message.parts.size() <= 1;
}

// A lone text part goes as a plain string: every OpenAI-compatible server accepts
// that for every role, while some accept parts only for user messages.
void write_content(JsonWriter& out, const ChatMessage& message) {
  if (text_only(message)) {
    out.string(message.parts.empty() ? std::string_view() : message.parts[0].text);
    return;
  }
  out.begin_array();
  for (const ContentPart& part : message.parts) {
    out.begin_object();
    if (part.kind == ContentPart::Kind::text)
      out.key("text").string(part.text).key("type").string("text");
    else
      out.key("image_url")
          .begin_object()
          .key("url")
          .string(part.url)
          .end_object()
          .key("type")
          .string("image_url");
    out.end_object();
  }
  out.end_array();
}

// {"content":<text or null>,"role":"assistant","tool_calls":[...]}: OpenAI's form of
// an answer that called tools, its text (if any) beside the calls.
void write_assistant_calls(JsonWriter& out, const ChatMessage& message) {
  ChatMessage text{message.role, {}};
  for (const ContentPart& part : message.parts)
    if (part.kind == ContentPart::Kind::text) text.parts.push_back(part);
  out.begin_object().key("content");
  if (text.parts.empty())
    out.raw("null");
  else
    write_content(out, text);
  out.key("role").string("assistant").key("tool_calls").begin_array();
  for (const ContentPart& call : message.parts) {
    if (call.kind != ContentPart::Kind::tool_call) continue;
    out.begin_object().key("function").begin_object();
    out.key("arguments").string(call.arguments).key("name").string(call.name).end_object();
    out.key("id").string(call.id).key("type").string("function").end_object();
  }
  out.end_array().end_object();
}

// One {"role":"tool","tool_call_id","content"} a result: OpenAI takes one result a
// message. It has no error flag, so an error result goes as its text alone, which
// says what failed ("denied: ...", "not run: max_steps"; shared spec tools.md).
void write_results(JsonWriter& out, const ChatMessage& message) {
  for (const ContentPart& result : message.parts) {
    if (result.kind != ContentPart::Kind::tool_result) continue;
    out.begin_object().key("content").string(result.text).key("role").string("tool");
    out.key("tool_call_id").string(result.id).end_object();
  }
}

void write_message(JsonWriter& out, const ChatMessage& message) {
  if (message.role == "tool") return write_results(out, message);
  if (has_tool_calls(message)) return write_assistant_calls(out, message);
  out.begin_object().key("content");
  write_content(out, message);
  out.key("role").string(message.role).end_object();
}

void write_tool_choice(JsonWriter& out, const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::automatic:
      out.string("auto");
      return;
    case ToolChoice::Mode::none:
      out.string("none");
      return;
    case ToolChoice::Mode::required:
      out.string("required");
      return;
    case ToolChoice::Mode::tool:
      out.begin_object().key("function").begin_object().key("name").string(choice.name);
      out.end_object().key("type").string("function").end_object();
      return;
  }
}

// The parameters schema goes as the engine sent it (compact, its own key order).
void write_tools(JsonWriter& out, const std::vector<ToolDefinition>& tools) {
  out.begin_array();
  for (const ToolDefinition& tool : tools) {
    out.begin_object().key("function").begin_object();
    if (!tool.description.empty()) out.key("description").string(tool.description);
    out.key("name").string(tool.name).key("parameters").raw(tool.parameters).end_object();
    out.key("type").string("function").end_object();
  }
  out.end_array();
}

void write_stop(JsonWriter& out, const std::vector<std::string_view>& stop) {
  out.begin_array();
  for (const std::string_view sequence : stop) out.string(sequence);
  out.end_array();
}

}  // namespace

// Members in nlohmann's order (sorted), so the text is what the document form wrote.
std::string request_body(const ChatRequest& chat) {
  std::string body;
  body.reserve(body_size_hint(chat));
  JsonWriter out(body);
  out.begin_object();
  if (chat.frequency_penalty) out.key("frequency_penalty").number(*chat.frequency_penalty);
  // max_tokens is deprecated and refused by the reasoning models.
  if (chat.max_tokens) out.key("max_completion_tokens").integer(*chat.max_tokens);
  out.key("messages").begin_array();
  for (const ChatMessage& message : chat.messages) write_message(out, message);
  out.end_array();
  out.key("model").string(chat.model);
  // Like tool_choice, refused without tools.
  if (!chat.tools.empty() && chat.parallel_tool_calls)
    out.key("parallel_tool_calls").boolean(*chat.parallel_tool_calls);
  if (chat.presence_penalty) out.key("presence_penalty").number(*chat.presence_penalty);
  if (chat.seed) out.key("seed").integer(*chat.seed);
  if (!chat.stop.empty()) write_stop(out.key("stop"), chat.stop);
  out.key("stream").boolean(true);
  out.key("stream_options").begin_object().key("include_usage").boolean(true).end_object();
  if (chat.temperature) out.key("temperature").number(*chat.temperature);
  // OpenAI refuses a tool_choice without tools (400), so it goes only beside them.
  if (!chat.tools.empty()) {
    if (chat.tool_choice) write_tool_choice(out.key("tool_choice"), *chat.tool_choice);
    write_tools(out.key("tools"), chat.tools);
  }
  if (chat.top_p) out.key("top_p").number(*chat.top_p);
  out.end_object();
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/chat/completions";
  request.headers = {"Content-Type: application/json", "Accept: text/event-stream",
                     kAcceptIdentity};
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  request.body = request_body(chat);
  return request;
}

}  // namespace agentrt::providers::openai
