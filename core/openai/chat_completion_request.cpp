#include "core/openai/chat_completion_request.h"

#include "core/openai/chat_messages.h"
#include "core/openai/openai_fields.h"
#include "core/runs/run_request_fields.h"
#include "core/runs/tool_request.h"
#include "text/json_reader.h"

#include <algorithm>
#include <iterator>

namespace agentrt::core::openai {
namespace {

using simdjson::SUCCESS;
using simdjson::dom::array;
using simdjson::dom::element;

// OpenAI's parameters that agentrt reads, and those it refuses by name.
const std::vector<std::string_view>& known_parameters() {
  static const std::vector<std::string_view> known = [] {
    std::vector<std::string_view> names = {"model",
                                           "messages",
                                           "stream",
                                           "stream_options",
                                           "max_tokens",
                                           "max_completion_tokens",
                                           "temperature",
                                           "top_p",
                                           "stop",
                                           "seed",
                                           "presence_penalty",
                                           "frequency_penalty",
                                           "n",
                                           "tools",
                                           "tool_choice",
                                           "parallel_tool_calls",
                                           "user",
                                           "functions",
                                           "function_call"};
    names.insert(names.end(), std::begin(kIgnoredParameters), std::end(kIgnoredParameters));
    return names;
  }();
  return known;
}

// max_completion_tokens, or the older max_tokens: the bounds of agentrt's own runs.
std::optional<int64_t> read_max_tokens(const OpenAiObject& request) {
  const char* const key =
      request.present("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
  const std::optional<int64_t> max = request.integer(key);
  if (max && (*max < 1 || *max > 10'000'000))
    throw bad_param(key, "Invalid '" + std::string(key) +
                             "': expected an integer from 1 to 10000000, but got " +
                             std::to_string(*max) + " instead.");
  return max;
}

// A string, or an array of up to 4 strings; none of them empty.
std::vector<std::string> read_stop(const OpenAiObject& request) {
  const std::optional<element> value = request.present("stop");
  if (!value) return {};
  std::string_view one;
  if (value->get(one) == SUCCESS) {
    if (one.empty()) throw bad_param("stop", "Invalid 'stop': a stop sequence may not be empty.");
    return {std::string(one)};
  }
  array list;
  if (value->get(list) != SUCCESS) throw wrong_type("stop", "a string or an array of strings");
  if (list.size() > 4)
    throw bad_param("stop", "Invalid 'stop': expected at most 4 sequences, but got " +
                                std::to_string(list.size()) + ".");
  std::vector<std::string> stop;
  for (const element item : list) {
    const std::string where = "stop[" + std::to_string(stop.size()) + "]";
    if (item.get(one) != SUCCESS) throw wrong_type(where, "a string");
    if (one.empty())
      throw bad_param(where, "Invalid '" + where + "': a stop sequence may not be empty.");
    stop.emplace_back(one);
  }
  return stop;
}

void read_generation(const OpenAiObject& request, RunRequest& run) {
  run.max_tokens = read_max_tokens(request);
  run.temperature = request.number("temperature", 0, 2);
  GenerationOptions& options = run.generation;
  options.top_p = request.number("top_p", 0, 1);
  options.presence_penalty = request.number("presence_penalty", -2, 2);
  options.frequency_penalty = request.number("frequency_penalty", -2, 2);
  options.seed = request.integer("seed");
  options.stop = read_stop(request);
  options.parallel_tool_calls = request.boolean("parallel_tool_calls");
  if (const std::optional<int64_t> n = request.integer("n"); n && *n != 1)
    throw bad_param("n", "Invalid 'n': agentrt answers with one choice; n must be 1.");
}

void read_stream(const OpenAiObject& request, ChatCompletionRequest& out) {
  out.stream = request.boolean("stream").value_or(false);
  const std::optional<element> options = request.present("stream_options");
  if (!options) return;
  if (!out.stream)
    throw bad_param("stream_options",
                    "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
  const OpenAiObject stream_options(*options, "stream_options");
  stream_options.only({"include_usage", "include_obfuscation"});
  out.include_usage = stream_options.boolean("include_usage").value_or(false);
}

// {"type":"function","function":{"name","description"?,"parameters"?,"strict"?}}: a
// client tool, its parameters a schema object whose type, if it says one, is object
// (the rule of agentrt's tools, core/runs/tool_request.h).
ToolSpec read_function_tool(element value, const std::string& where) {
  const OpenAiObject tool(value, where);
  const std::string_view type = tool.required_string("type");
  if (type != "function")
    throw bad_param(tool.path_of("type"), "Invalid value: '" + std::string(type) +
                                              "'. Supported values are: 'function'.");
  tool.only({"type", "function"});
  const std::optional<element> function = tool.present("function");
  if (!function)
    throw bad_param(tool.path_of("function"),
                    "Missing required parameter: '" + tool.path_of("function") + "'.");
  const OpenAiObject named(*function, tool.path_of("function"));
  named.only({"name", "description", "parameters", "strict"});
  return function_spec(named);
}

std::vector<ToolSpec> read_function_tools(element value) {
  array list;
  if (value.get(list) != SUCCESS) throw wrong_type("tools", "an array");
  if (list.size() == 0) throw bad_param("tools", "Invalid 'tools': empty array.");
  if (list.size() > kMaxTools)
    throw bad_param("tools", "Invalid 'tools': expected at most " + std::to_string(kMaxTools) +
                                 " tools, but got " + std::to_string(list.size()) + ".");
  std::vector<ToolSpec> tools;
  for (const element item : list) {
    const std::string where = "tools[" + std::to_string(tools.size()) + "]";
    ToolSpec spec = read_function_tool(item, where);
    if (find_tool(tools, spec.name))
      throw bad_param(where + ".function.name", "Invalid '" + where + ".function.name': tool '" +
                                                    spec.name + "' is named twice.");
    tools.push_back(std::move(spec));
  }
  return tools;
}

// "none", "auto", "required" or {"type":"function","function":{"name"}}.
ToolChoice read_function_choice(element value, const std::vector<ToolSpec>& tools) {
  if (tools.empty())
    throw bad_param("tool_choice",
                    "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' "
                    "are specified.");
  ToolChoice choice;
  std::string_view word;
  if (value.get(word) == SUCCESS) {
    if (word != "none" && word != "auto" && word != "required")
      throw bad_param("tool_choice", "Invalid value: '" + std::string(word) +
                                         "'. Supported values are: 'none', 'auto', 'required'.");
    choice.mode = std::string(word);
    return choice;
  }
  const OpenAiObject named(value, "tool_choice");
  const std::string_view type = named.required_string("type");
  if (type != "function")
    throw bad_param("tool_choice.type", "Invalid value: '" + std::string(type) +
                                            "'. Supported values are: 'function'.");
  named.only({"type", "function"});
  const std::optional<element> function = named.present("function");
  if (!function)
    throw bad_param("tool_choice.function", "Missing required parameter: 'tool_choice.function'.");
  const OpenAiObject chosen(*function, "tool_choice.function");
  chosen.only({"name"});
  choice.mode = "tool";
  choice.name = chosen.required_string("name");
  if (!find_tool(tools, choice.name))
    throw bad_param(
        "tool_choice.function.name",
        "Invalid 'tool_choice.function.name': no tool named '" + choice.name + "' is in 'tools'.");
  return choice;
}

void read_tools(const OpenAiObject& request, RunRequest& run) {
  if (request.present("functions") || request.present("function_call"))
    throw bad_param(request.present("functions") ? "functions" : "function_call",
                    "'functions' and 'function_call' are deprecated and not supported: use "
                    "'tools' and 'tool_choice'.");
  if (const std::optional<element> tools = request.present("tools"))
    run.tools = read_function_tools(*tools);
  if (const std::optional<element> choice = request.present("tool_choice"))
    run.tool_choice = read_function_choice(*choice, run.tools);
}

}  // namespace

ChatCompletionRequest parse_chat_completion(std::string_view body) {
  text::JsonReader reader;
  const OpenAiObject request = request_object(reader, body, known_parameters());
  ChatCompletionRequest out;
  out.run.stateless = true;
  out.run.use_memory = false;
  out.run.model = request_model(request);
  const std::optional<element> messages = request.present("messages");
  if (!messages) throw bad_param("messages", "Missing required parameter: 'messages'.");
  out.run.messages = read_chat_messages(*messages);
  read_generation(request, out.run);
  read_stream(request, out);
  read_tools(request, out.run);
  if (const std::optional<std::string_view> user = request.string("user"))
    out.user = std::string(*user);
  return out;
}

}  // namespace agentrt::core::openai
