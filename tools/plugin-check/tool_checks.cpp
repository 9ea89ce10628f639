#include "core/plugin_host/tool_instance.h"
#include "tools/plugin-check/checks.h"

#include <nlohmann/json.hpp>

#include <regex>
#include <set>

namespace agentrt::plugin_check {
namespace {

using core::ProviderDelta;
using core::ToolInstance;
using nlohmann::json;

// The tools the instance lists, checked against the shape models are offered.
json checked_tools(const ToolInstance& instance) {
  json answer = json::parse(instance.list_tools(), nullptr, false);
  if (!answer.is_object() || !answer.contains("tools") || !answer["tools"].is_array())
    throw Failure("the answer is not {\"tools\":[...]}");
  static const std::regex name_rule("[A-Za-z0-9_-]{1,64}");
  std::set<std::string> names;
  for (const json& tool : answer["tools"]) {
    if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string())
      throw Failure("a tool without a string name: " + tool.dump());
    const std::string name = tool["name"].get<std::string>();
    if (!std::regex_match(name, name_rule))
      throw Failure("tool name '" + name + "' does not match [A-Za-z0-9_-]{1,64}");
    if (!names.insert(name).second) throw Failure("tool name '" + name + "' is listed twice");
    if (!tool.contains("parameters") || !tool["parameters"].is_object())
      throw Failure("tool " + name + ": parameters must be a JSON Schema object");
    if (tool.contains("description") && !tool["description"].is_string())
      throw Failure("tool " + name + ": description must be a string");
  }
  return answer["tools"];
}

Outcome list_tools(const Context& context) {
  json tools = checked_tools(*make_instance<ToolInstance>(context));
  if (tools.empty()) return {Result::warn, "no tools listed"};
  return {Result::pass,
          std::to_string(tools.size()) + " tool(s), first " + tools[0]["name"].get<std::string>()};
}

// Calls --tool with --arguments, or the first tool with {}. A tool may refuse {} with an
// error (its arguments are required): that is a warning, as only the author knows what a
// real call takes; a chosen call must succeed.
Outcome call(const Context& context) {
  auto instance = make_instance<ToolInstance>(context);
  const Options& options = *context.options;
  std::string name = options.tool;
  if (name.empty()) {
    json tools = checked_tools(*instance);
    if (tools.empty()) throw Skip("no tools to call");
    name = tools[0]["name"].get<std::string>();
  }
  const bool chosen = !options.tool.empty() || !options.arguments.empty();
  const json arguments = json::parse(options.arguments.empty() ? "{}" : options.arguments);
  const json request = {{"name", name},
                        {"arguments", arguments},
                        {"call_id", "plugin-check-1"},
                        {"max_output_bytes", 65536}};
  std::string text;
  bool is_error = false;
  auto on_delta = [&](const ProviderDelta& delta) {
    if (delta.kind == AGENTRT_DELTA_TEXT) text.append(delta.data);
    if (delta.kind == AGENTRT_DELTA_FINISH) is_error = true;
    return true;
  };
  const std::string what = name + " " + arguments.dump();
  try {
    instance->call(request.dump(), on_delta, [] { return false; });
  } catch (const core::PluginError& e) {
    if (std::string(e.what()).empty()) return {Result::fail, what + ": failed without a message"};
    return {chosen ? Result::fail : Result::warn,
            what + ": could not run: " + describe(e) +
                (chosen ? "" : " (choose a call with --tool and --arguments)")};
  }
  if (text.size() > 65536) return {Result::fail, what + ": more than max_output_bytes"};
  const std::string shown = text.size() > 80 ? text.substr(0, 80) + "..." : text;
  if (is_error)
    return {chosen ? Result::fail : Result::warn, what + ": the tool reported a failure: " + shown};
  return {Result::pass, what + " -> " + shown};
}

Outcome probe(const Context& context) {
  if (!context.plugin->tool_table().probe) return {Result::skip, "the plugin has no probe"};
  auto instance = make_instance<ToolInstance>(context);
  try {
    instance->call_json(context.plugin->tool_table().probe, "{}");
  } catch (const core::PluginError& e) {
    if (e.code == AGENTRT_ERR_UNSUPPORTED) return {Result::skip, "the instance has no probe"};
    return {Result::fail, "probe failed: " + describe(e)};
  }
  return {Result::pass, "the tool server answers"};
}

CheapCall prepare_list_tools(const Context& context) {
  std::shared_ptr<ToolInstance> instance = make_instance<ToolInstance>(context);
  return [instance] { (void)instance->list_tools(); };
}

}  // namespace

std::vector<Check> tool_checks() {
  return {{"list_tools", list_tools},
          {"call", call},
          {"probe", probe},
          thread_safety_check(prepare_list_tools)};
}

}  // namespace agentrt::plugin_check
