#include "core/openai/responses_request.h"

#include "core/openai/openai_fields.h"
#include "core/runs/context_window.h"
#include "core/runs/run_request_fields.h"
#include "core/runs/tool_request.h"
#include "text/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace agentrt::core::openai {
namespace {

using nlohmann::json;
using simdjson::SUCCESS;
using simdjson::dom::array;
using simdjson::dom::element;

// OpenAI's parameters that agentrt reads, then those it accepts and ignores.
const std::vector<std::string_view>& known_parameters() {
  static const std::vector<std::string_view> known = {
      "model", "input", "instructions", "tools", "tool_choice", "max_output_tokens", "temperature",
      "top_p", "store", "previous_response_id", "user", "metadata", "stream", "background",
      "parallel_tool_calls",
      // accepted and ignored (docs/openai-compatible.md)
      "include", "reasoning", "text", "truncation", "service_tier", "prompt", "prompt_cache_key",
      "safety_identifier", "top_logprobs", "max_tool_calls", "stream_options",
      "prompt_cache_retention", "context_management"};
  return known;
}

ParamError bad_value(const std::string& param, std::string_view value, std::string_view supported) {
  return bad_param(param, "Invalid value: '" + std::string(value) +
                              "'. Supported values are: " + std::string(supported) + ".");
}

json text_part(std::string_view text) {
  return {{"text", text}, {"type", "text"}};
}

// The messages being made from `input`, as roles and parts; each function_call_output
// must answer a function_call before it unless the run continues a response, whose
// pending calls the session checks (docs/tools.md).
struct InputMessages {
  std::vector<std::pair<std::string, json>> messages;
  std::vector<std::string> call_ids;
  bool continues = false;
};

// A message's content: a string, or parts of the types given.
json content_parts(const OpenAiObject& item, bool assistant) {
  const std::string where = item.path_of("content");
  const std::optional<element> content = item.present("content");
  if (!content) throw bad_param(where, "Missing required parameter: '" + where + "'.");
  std::string_view text;
  if (content->get(text) == SUCCESS) return json::array({text_part(text)});
  array parts;
  if (content->get(parts) != SUCCESS) throw wrong_type(where, "a string or an array");
  json out = json::array();
  for (const element value : parts) {
    const OpenAiObject part(value, where + "[" + std::to_string(out.size()) + "]");
    const std::string_view type = part.required_string("type");
    const std::string_view wanted = assistant ? "output_text" : "input_text";
    if (type != wanted && !(assistant && type == "refusal"))
      throw bad_value(part.path_of("type"), type, "'" + std::string(wanted) + "'");
    part.only({"type", "text", "annotations", "logprobs", "refusal"});
    if (type != "refusal") out.push_back(text_part(part.required_string("text")));
  }
  if (out.empty()) throw bad_param(where, "Invalid '" + where + "': empty array.");
  return out;
}

void read_message(const OpenAiObject& item, InputMessages& in) {
  item.only({"type", "role", "content", "id", "status"});
  const std::string_view role = item.required_string("role");
  if (role == "user" || role == "system" || role == "developer") {
    in.messages.emplace_back(role == "user" ? "user" : "system", content_parts(item, false));
  } else if (role == "assistant") {
    in.messages.emplace_back("assistant", content_parts(item, true));
  } else {
    throw bad_value(item.path_of("role"), role, "'user', 'system', 'developer', 'assistant'");
  }
}

// The model's earlier call: a tool_call part of the assistant message before it.
void read_call(const OpenAiObject& item, InputMessages& in) {
  item.only({"type", "id", "call_id", "name", "arguments", "status"});
  const std::string call_id(item.required_string("call_id"));
  if (call_id.empty() || call_id.size() > 256)
    throw bad_param(item.path_of("call_id"),
                    "Invalid '" + item.path_of("call_id") + "': expected 1 to 256 bytes.");
  const std::string name(item.required_string("name"));
  if (!valid_tool_name(name))
    throw bad_param(item.path_of("name"), "Invalid '" + item.path_of("name") +
                                              "': expected 1 to 64 of a-z, A-Z, 0-9, '_' and '-'.");
  const json part = {{"arguments", item.required_string("arguments")},
                     {"id", call_id},
                     {"name", name},
                     {"type", "tool_call"}};
  if (in.messages.empty() || in.messages.back().first != "assistant")
    in.messages.emplace_back("assistant", json::array());
  in.messages.back().second.push_back(part);
  in.call_ids.push_back(call_id);
}

void read_call_output(const OpenAiObject& item, InputMessages& in) {
  item.only({"type", "id", "call_id", "output", "status"});
  const std::string call_id(item.required_string("call_id"));
  if (!in.continues &&
      std::find(in.call_ids.begin(), in.call_ids.end(), call_id) == in.call_ids.end())
    throw bad_param(item.path_of("call_id"),
                    "No tool call found for function call output with call_id " + call_id + ".");
  std::string output;
  const std::optional<element> value = item.present("output");
  std::string_view text;
  if (!value) throw bad_param(item.path_of("output"), "Missing required parameter: 'output'.");
  if (value->get(text) == SUCCESS) {
    output = text;
  } else {
    for (const json& part : content_parts(item, false)) output += part["text"].get<std::string>();
  }
  in.messages.emplace_back("tool", json::array({{{"is_error", false},
                                                 {"output", output},
                                                 {"tool_call_id", call_id},
                                                 {"type", "tool_result"}}}));
}

void read_item(element value, const std::string& where, InputMessages& in) {
  const OpenAiObject item(value, where);
  const std::string_view type = item.string("type").value_or("message");
  if (type == "message")
    read_message(item, in);
  else if (type == "function_call")
    read_call(item, in);
  else if (type == "function_call_output")
    read_call_output(item, in);
  else
    throw bad_value(item.path_of("type"), type,
                    "'message', 'function_call', 'function_call_output'");
}

std::vector<StoredMessage> read_input(const OpenAiObject& request, bool continues,
                                      std::optional<std::string_view> instructions) {
  const std::optional<element> value = request.present("input");
  if (!value) throw bad_param("input", "Missing required parameter: 'input'.");
  InputMessages in;
  in.continues = continues;
  std::string_view text;
  array items;
  if (value->get(text) == SUCCESS) {
    in.messages.emplace_back("user", json::array({text_part(text)}));
  } else if (value->get(items) == SUCCESS) {
    if (items.size() == 0) throw bad_param("input", "Invalid 'input': empty array.");
    size_t index = 0;
    for (const element item : items) read_item(item, "input[" + std::to_string(index++) + "]", in);
  } else {
    throw wrong_type("input", "a string or an array of input items");
  }
  // The instructions go first, but after the outputs that answer the previous
  // response's calls: a tool message follows the call it answers, with nothing between.
  if (instructions) {
    auto first = std::find_if(in.messages.begin(), in.messages.end(),
                              [](const auto& message) { return message.first != "tool"; });
    in.messages.emplace(first, "system", json::array({text_part(*instructions)}));
  }
  std::vector<StoredMessage> out;
  for (auto& [role, parts] : in.messages) {
    StoredMessage message;
    message.role = role;
    message.content_text = parts.dump();
    estimate_stored(message);
    out.push_back(std::move(message));
  }
  return out;
}

// {"type":"function","name","description"?,"parameters"?,"strict"?}: Responses' flat
// form of a client tool.
ToolSpec read_tool(element value, const std::string& where) {
  const OpenAiObject tool(value, where);
  const std::string_view type = tool.required_string("type");
  if (type != "function") throw bad_value(tool.path_of("type"), type, "'function'");
  tool.only({"type", "name", "description", "parameters", "strict"});
  return function_spec(tool);
}

void read_tools(const OpenAiObject& request, RunRequest& run) {
  if (const std::optional<element> value = request.present("tools")) {
    array list;
    if (value->get(list) != SUCCESS) throw wrong_type("tools", "an array");
    if (list.size() > kMaxTools)
      throw bad_param("tools",
                      "Invalid 'tools': expected at most " + std::to_string(kMaxTools) + " tools.");
    for (const element item : list) {
      const std::string where = "tools[" + std::to_string(run.tools.size()) + "]";
      ToolSpec spec = read_tool(item, where);
      if (find_tool(run.tools, spec.name))
        throw bad_param(where + ".name",
                        "Invalid '" + where + ".name': tool '" + spec.name + "' is named twice.");
      run.tools.push_back(std::move(spec));
    }
  }
  const std::optional<element> choice = request.present("tool_choice");
  if (!choice) return;
  ToolChoice out;
  std::string_view word;
  if (choice->get(word) == SUCCESS) {
    if (word != "none" && word != "auto" && word != "required")
      throw bad_value("tool_choice", word, "'none', 'auto', 'required'");
    out.mode = std::string(word);
  } else {
    const OpenAiObject named(*choice, "tool_choice");
    const std::string_view type = named.required_string("type");
    if (type != "function") throw bad_value("tool_choice.type", type, "'function'");
    named.only({"type", "name"});
    out.mode = "tool";
    out.name = named.required_string("name");
    if (!find_tool(run.tools, out.name))
      throw bad_param("tool_choice.name", "Invalid 'tool_choice.name': no tool named '" + out.name +
                                              "' is in 'tools'.");
  }
  // none and auto need no tool; required and a named one do.
  if (run.tools.empty() && out.mode != "none" && out.mode != "auto")
    throw bad_param("tool_choice", "Invalid 'tool_choice': 'tools' offers no tool.");
  if (!run.tools.empty()) run.tool_choice = std::move(out);
}

void read_generation(const OpenAiObject& request, RunRequest& run) {
  run.max_tokens = request.integer("max_output_tokens");
  if (run.max_tokens && (*run.max_tokens < 1 || *run.max_tokens > 10'000'000))
    throw bad_param("max_output_tokens",
                    "Invalid 'max_output_tokens': expected an integer from 1 to 10000000.");
  run.temperature = request.number("temperature", 0, 2);
  run.generation.top_p = request.number("top_p", 0, 1);
  run.generation.parallel_tool_calls = request.boolean("parallel_tool_calls");
}

}  // namespace

ResponsesRequest parse_responses_request(std::string_view body) {
  text::JsonReader reader;
  const OpenAiObject request = request_object(reader, body, known_parameters());
  ResponsesRequest out;
  out.run.use_memory = false;
  out.run.model = request_model(request);
  if (const auto previous = request.string("previous_response_id")) {
    if (previous->empty())
      throw bad_param("previous_response_id", "Invalid 'previous_response_id': empty string.");
    out.previous_response_id = std::string(*previous);
  }
  // A response's input is its whole context, unless it continues one (that run's
  // session's history then goes before it).
  out.run.stateless = !out.previous_response_id;
  out.run.messages = read_input(request, !out.run.stateless, request.string("instructions"));
  read_generation(request, out.run);
  read_tools(request, out.run);
  out.stream = request.boolean("stream").value_or(false);
  out.background = request.boolean("background").value_or(false);
  if (out.background && out.stream)
    throw bad_param("background",
                    "Invalid 'background': agentrt does not stream a background response; "
                    "follow it with GET /v1/responses/{id}?stream=true.");
  out.store = request.boolean("store").value_or(true);
  if (const std::optional<element> metadata = request.present("metadata"))
    if (!metadata->is_object()) throw wrong_type("metadata", "an object");
  if (const std::optional<std::string_view> user = request.string("user"))
    out.user = std::string(*user);
  return out;
}

}  // namespace agentrt::core::openai
