#include "anthropic_request.h"

#include "common/content_encoding.h"
#include "common/data_url.h"
#include "common/json_writer.h"
#include "text/json_reader.h"

#include <agentrt/plugin.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers::anthropic {
namespace {

void write_image_block(JsonWriter& out, std::string_view url) {
  out.begin_object().key("source").begin_object();
  if (std::optional<DataUrl> inline_image = parse_data_url(url))
    out.key("data")
        .string(inline_image->base64)
        .key("media_type")
        .string(inline_image->media_type)
        .key("type")
        .string("base64");
  else
    out.key("type").string("url").key("url").string(url);
  out.end_object().key("type").string("image").end_object();
}

void write_text_block(JsonWriter& out, std::string_view text) {
  out.begin_object().key("text").string(text).key("type").string("text").end_object();
}

// A tool call's input, which the API takes as an object: the model's arguments as it
// wrote them when they are a JSON object (from their "{", past any byte order mark the
// reader skips); anything else (broken JSON, an array, the empty text some vendors send
// for a call without arguments) as {}, since the API refuses the whole request for one
// input that is not an object and none can be derived from such a text.
std::string_view tool_input(text::JsonReader& reader, std::string_view arguments) {
  simdjson::dom::object input;
  if (reader.parse(arguments).get(input) != simdjson::SUCCESS) return "{}";
  return arguments.substr(arguments.find('{'));
}

void write_tool_use_block(JsonWriter& out, text::JsonReader& reader, const ContentPart& call) {
  out.begin_object().key("id").string(call.id);
  out.key("input").raw(tool_input(reader, call.arguments));
  out.key("name").string(call.name).key("type").string("tool_use").end_object();
}

// The output as a plain string: the engine's results are text.
void write_tool_result_block(JsonWriter& out, const ContentPart& result) {
  out.begin_object().key("content").string(result.text);
  if (result.is_error) out.key("is_error").boolean(true);
  out.key("tool_use_id").string(result.id).key("type").string("tool_result").end_object();
}

// The messages of one turn, whose blocks go into one message of the API.
using Turn = std::vector<const ChatMessage*>;

// The blocks of a turn's messages: tool results first (the API wants them before
// anything else in their user message), then texts and images in order, then tool
// calls (after their assistant message's text, as a model writes them). The API refuses
// empty text blocks, so they are left out.
void write_content_blocks(JsonWriter& out, const Turn& turn, text::JsonReader& reader) {
  out.begin_array();
  for (const ChatMessage* message : turn)
    for (const ContentPart& part : message->parts)
      if (part.kind == ContentPart::Kind::tool_result) write_tool_result_block(out, part);
  for (const ChatMessage* message : turn)
    for (const ContentPart& part : message->parts) {
      if (part.kind == ContentPart::Kind::image)
        write_image_block(out, part.url);
      else if (part.kind == ContentPart::Kind::text && !part.text.empty())
        write_text_block(out, part.text);
    }
  for (const ChatMessage* message : turn)
    for (const ContentPart& part : message->parts)
      if (part.kind == ContentPart::Kind::tool_call) write_tool_use_block(out, reader, part);
  out.end_array();
}

// The API takes tool results in the user message right after the calls, and has no
// tool role: consecutive tool messages, with the user message that follows them, make
// one user turn. System messages go to the top-level "system" and split no turn.
std::vector<Turn> turns(const ChatRequest& chat) {
  std::vector<Turn> out;
  bool open = false;  // the last turn holds tool messages alone so far
  for (const ChatMessage& message : chat.messages) {
    if (message.role == "system") continue;
    const bool tool = message.role == "tool";
    if (open && (tool || message.role == "user"))
      out.back().push_back(&message);
    else
      out.push_back({&message});
    open = tool;
  }
  return out;
}

void write_messages(JsonWriter& out, const ChatRequest& chat) {
  text::JsonReader reader;  // for tool calls' arguments
  out.key("messages").begin_array();
  for (const Turn& turn : turns(chat)) {
    const std::string_view role = turn.front()->role == "tool" ? "user" : turn.front()->role;
    out.begin_object().key("content");
    write_content_blocks(out, turn, reader);
    out.key("role").string(role).end_object();
  }
  out.end_array();
}

// Every system message's text, in order; refused before anything is sent when a
// system message holds anything but text.
std::vector<std::string_view> system_texts(const ChatRequest& chat) {
  std::vector<std::string_view> texts;
  for (const ChatMessage& message : chat.messages) {
    if (message.role != "system") continue;
    for (const ContentPart& part : message.parts) {
      if (part.kind != ContentPart::Kind::text)
        throw sdk::Error(AGENTRT_ERR_REFUSED,
                         "request: anthropic takes only text in system messages");
      if (!part.text.empty()) texts.push_back(part.text);
    }
  }
  return texts;
}

// One text as a plain string, several as an array of text blocks so that nothing is
// merged that the engine kept apart.
void write_system(JsonWriter& out, const std::vector<std::string_view>& texts) {
  if (texts.empty()) return;
  out.key("system");
  if (texts.size() == 1) {
    out.string(texts.front());
    return;
  }
  out.begin_array();
  for (const std::string_view text : texts) write_text_block(out, text);
  out.end_array();
}

// The API refuses a tool_choice without tools, so one is sent only beside them.
// `one_call`: parallel_tool_calls false, which Anthropic says on the tool_choice (and
// has no word for beside "none").
void write_tool_choice(JsonWriter& out, const ToolChoice& choice, bool one_call) {
  out.key("tool_choice").begin_object();
  if (one_call && choice.mode != ToolChoice::Mode::none)
    out.key("disable_parallel_tool_use").boolean(true);
  switch (choice.mode) {
    case ToolChoice::Mode::automatic:
      out.key("type").string("auto");
      break;
    case ToolChoice::Mode::none:
      out.key("type").string("none");
      break;
    case ToolChoice::Mode::required:
      out.key("type").string("any");
      break;
    case ToolChoice::Mode::tool:
      out.key("name").string(choice.name).key("type").string("tool");
      break;
  }
  out.end_object();
}

// Each tool's parameters schema goes out as the engine's request wrote it.
void write_tools(JsonWriter& out, const ChatRequest& chat) {
  if (chat.tools.empty()) return;
  const bool one_call = chat.parallel_tool_calls == false;
  if (chat.tool_choice || one_call)
    write_tool_choice(out, chat.tool_choice.value_or(ToolChoice{}), one_call);
  out.key("tools").begin_array();
  for (const ToolDefinition& tool : chat.tools) {
    out.begin_object();
    if (!tool.description.empty()) out.key("description").string(tool.description);
    out.key("input_schema").raw(tool.parameters).key("name").string(tool.name).end_object();
  }
  out.end_array();
}

}  // namespace

// Members in nlohmann's order (sorted), so the text is what the document form wrote.
std::string request_body(const ChatRequest& chat) {
  const std::vector<std::string_view> system = system_texts(chat);
  std::string body;
  body.reserve(body_size_hint(chat));
  JsonWriter out(body);
  out.begin_object();
  out.key("max_tokens").integer(chat.max_tokens.value_or(kDefaultMaxTokens));
  write_messages(out, chat);
  out.key("model").string(chat.model);
  if (!chat.stop.empty()) {
    out.key("stop_sequences").begin_array();
    for (const std::string_view sequence : chat.stop) out.string(sequence);
    out.end_array();
  }
  out.key("stream").boolean(true);
  write_system(out, system);
  if (chat.temperature) out.key("temperature").number(*chat.temperature);
  write_tools(out, chat);
  // Anthropic has no seed nor penalties.
  if (chat.top_p) out.key("top_p").number(*chat.top_p);
  out.end_object();
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/v1/messages";
  request.headers = {"content-type: application/json", "accept: text/event-stream",
                     "anthropic-version: 2023-06-01", kAcceptIdentity};
  if (!api_key.empty()) request.headers.push_back("x-api-key: " + api_key);
  request.body = request_body(chat);
  return request;
}

}  // namespace agentrt::providers::anthropic
