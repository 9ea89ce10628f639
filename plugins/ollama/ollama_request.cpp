#include "ollama_request.h"

#include "common/content_encoding.h"
#include "common/data_url.h"
#include "common/json_writer.h"
#include "text/json_reader.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers::ollama {
namespace {

// Ollama takes a call's arguments as an object, where the engine keeps the text the
// model wrote: text that is not a JSON object (a model may write anything) goes as {}.
void write_arguments(JsonWriter& out, std::string_view arguments) {
  text::JsonReader reader;
  simdjson::dom::object object;
  if (reader.parse(arguments).get(object) == simdjson::SUCCESS)
    out.raw(simdjson::minify(object));
  else
    out.raw("{}");
}

// [{"function":{"arguments":{...},"name"},"id"}]. The id goes back as it came (current
// Ollama's "call_...", or the one the engine made): current Ollama reads it beside the
// result's tool_call_id, older versions ignore fields they do not know.
void write_calls(JsonWriter& out, const ChatMessage& message) {
  out.key("tool_calls").begin_array();
  for (const ContentPart& call : message.parts) {
    if (call.kind != ContentPart::Kind::tool_call) continue;
    out.begin_object().key("function").begin_object().key("arguments");
    write_arguments(out, call.arguments);
    out.key("name").string(call.name).end_object();
    if (!call.id.empty()) out.key("id").string(call.id);
    out.end_object();
  }
  out.end_array();
}

// One {"role":"tool","content","tool_call_id","tool_name"} a result. Ollama has no
// error flag: an error result goes as its text alone, which says what failed.
void write_results(JsonWriter& out, const ChatMessage& message) {
  for (const ContentPart& result : message.parts) {
    if (result.kind != ContentPart::Kind::tool_result) continue;
    out.begin_object().key("content").string(result.text).key("role").string("tool");
    out.key("tool_call_id").string(result.id);
    if (!result.name.empty()) out.key("tool_name").string(result.name);
    out.end_object();
  }
}

// Ollama takes one text a message, and images beside it.
void write_message(JsonWriter& out, const ChatMessage& message) {
  if (message.role == "tool") return write_results(out, message);
  out.begin_object().key("content").string(joined_text(message, "\n"));
  bool images = false;
  for (const ContentPart& part : message.parts) {
    if (part.kind != ContentPart::Kind::image) continue;
    std::optional<DataUrl> inline_image = parse_data_url(part.url);
    // Ollama fetches nothing itself: it takes image bytes only.
    if (!inline_image)
      throw sdk::Error(AGENTRT_ERR_REFUSED,
                       "request: ollama takes images only as data: URLs, not links");
    if (!images) out.key("images").begin_array();
    images = true;
    out.string(inline_image->base64);
  }
  if (images) out.end_array();
  out.key("role").string(message.role);
  if (has_tool_calls(message)) write_calls(out, message);
  out.end_object();
}

// Ollama has no tool_choice: "none" sends no tools, a named tool only that one, and
// "required" all of them, though Ollama cannot make the model call one.
void write_tools(JsonWriter& out, const ChatRequest& chat) {
  const std::optional<ToolChoice>& choice = chat.tool_choice;
  if (choice && choice->mode == ToolChoice::Mode::none) return;
  bool any = false;
  for (const ToolDefinition& tool : chat.tools) {
    if (choice && choice->mode == ToolChoice::Mode::tool && tool.name != choice->name) continue;
    if (!any) out.key("tools").begin_array();
    any = true;
    out.begin_object().key("function").begin_object();
    if (!tool.description.empty()) out.key("description").string(tool.description);
    out.key("name").string(tool.name).key("parameters").raw(tool.parameters).end_object();
    out.key("type").string("function").end_object();
  }
  if (any) out.end_array();
}

// The configured context window of `model`, none for a model the config does not list.
std::optional<int64_t> context_window(const ProviderConfig& config, const std::string& model) {
  for (const nlohmann::json& entry : config.models) {
    if (entry.value("id", "") != model) continue;
    auto window = entry.find("context_window");
    if (window != entry.end() && window->is_number_integer() && window->get<int64_t>() > 0)
      return window->get<int64_t>();
    return std::nullopt;
  }
  return std::nullopt;
}

// Ollama's options carry the generation parameters it has (api/types.go, Options); it
// has no parallel_tool_calls.
void write_options(JsonWriter& out, const ChatRequest& chat, std::optional<int64_t> num_ctx) {
  if (!chat.max_tokens && !chat.temperature && !num_ctx && !chat.top_p && !chat.seed &&
      chat.stop.empty() && !chat.presence_penalty && !chat.frequency_penalty)
    return;
  out.key("options").begin_object();
  if (chat.frequency_penalty) out.key("frequency_penalty").number(*chat.frequency_penalty);
  if (num_ctx) out.key("num_ctx").integer(*num_ctx);
  if (chat.max_tokens) out.key("num_predict").integer(*chat.max_tokens);
  if (chat.presence_penalty) out.key("presence_penalty").number(*chat.presence_penalty);
  if (chat.seed) out.key("seed").integer(*chat.seed);
  if (!chat.stop.empty()) {
    out.key("stop").begin_array();
    for (const std::string_view sequence : chat.stop) out.string(sequence);
    out.end_array();
  }
  if (chat.temperature) out.key("temperature").number(*chat.temperature);
  if (chat.top_p) out.key("top_p").number(*chat.top_p);
  out.end_object();
}

}  // namespace

std::string request_body(const ChatRequest& chat) {
  return request_body(chat, std::nullopt);
}

// Members in nlohmann's order (sorted), so the text is what the document form wrote.
std::string request_body(const ChatRequest& chat, std::optional<int64_t> num_ctx) {
  std::string body;
  body.reserve(body_size_hint(chat));
  JsonWriter out(body);
  out.begin_object().key("messages").begin_array();
  for (const ChatMessage& message : chat.messages) write_message(out, message);
  out.end_array();
  out.key("model").string(chat.model);
  write_options(out, chat, num_ctx);
  out.key("stream").boolean(true);
  write_tools(out, chat);
  out.end_object();
  return body;
}

HttpRequest build_request(const ChatRequest& chat, const ProviderConfig& config,
                          const std::string& api_key) {
  HttpRequest request;
  request.url = config.base_url + "/api/chat";
  request.headers = {"Content-Type: application/json", "Accept: application/x-ndjson",
                     kAcceptIdentity};
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  // Ollama cuts a prompt longer than its own default window (2,048 or 4,096 tokens,
  // by version) from the front without a word, system message first; agentd fills the
  // window the config declares, so that is the window it asks for.
  request.body = request_body(chat, context_window(config, chat.model));
  return request;
}

}  // namespace agentrt::providers::ollama
