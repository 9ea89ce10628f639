#include "core/runs/agent_tools.h"

#include "core/domain/errors.h"
#include "core/domain/json_text.h"
#include "core/runs/tool_request.h"
#include "text/json_reader.h"

#include <algorithm>

namespace agentrt::core {
namespace {

using simdjson::SUCCESS;
using simdjson::dom::element;

bool is_builtin(std::string_view name) {
  return name == kMemorySearch || name == kMemorySave;
}

// "tools"?: a non-empty array of tool names, each once.
std::vector<std::string> read_tool_names(const Fields& ref, const std::string& where) {
  std::vector<std::string> names;
  const std::optional<element> value = ref.present("tools");
  if (!value) return names;
  simdjson::dom::array list;
  if (value->get(list) != SUCCESS || list.size() == 0)
    throw invalid("field '" + where + ".tools' must be a non-empty array of tool names");
  for (const element entry : list) {
    std::string_view name;
    if (entry.get(name) != SUCCESS || !valid_tool_name(std::string(name)))
      throw invalid("field '" + where +
                    ".tools' must hold tool names of 1 to 64 of A-Z, a-z, 0-9, '_' and '-'");
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw invalid("field '" + where + ".tools' names '" + std::string(name) + "' twice");
    names.emplace_back(name);
  }
  return names;
}

ToolRef read_mcp_ref(const Fields& ref, const std::string& where) {
  ref.reject_unknown({"type", "server", "tools", "require_approval"});
  ToolRef out;
  out.type = "mcp";
  out.server = std::string(ref.required_string("server"));
  if (out.server.empty()) throw invalid("field '" + where + ".server' must not be empty");
  out.tools = read_tool_names(ref, where);
  out.require_approval = ref.optional_string("require_approval").value_or("");
  if (!out.require_approval.empty() && out.require_approval != "always" &&
      out.require_approval != "never")
    throw invalid("field '" + where + ".require_approval' must be always or never");
  return out;
}

ToolRef read_builtin_ref(const Fields& ref, const std::string& where) {
  ref.reject_unknown({"type", "name"});
  ToolRef out;
  out.type = "builtin";
  out.name = std::string(ref.required_string("name"));
  if (!is_builtin(out.name))
    throw invalid("field '" + where + ".name' must be memory_search or memory_save");
  return out;
}

bool has_name(const AgentTools& tools, const std::string& name) {
  return find_tool(tools.client, name) ||
         std::any_of(tools.refs.begin(), tools.refs.end(),
                     [&](const ToolRef& ref) { return ref.type == "builtin" && ref.name == name; });
}

bool has_server(const AgentTools& tools, const std::string& server) {
  return std::any_of(tools.refs.begin(), tools.refs.end(),
                     [&](const ToolRef& ref) { return ref.type == "mcp" && ref.server == server; });
}

void add_entry(AgentTools& tools, element value, const std::string& where) {
  const Fields entry = Fields::of(value, "'" + where + "'", where + ".");
  const std::string_view type = entry.required_string("type");
  if (type == "function") {
    ToolSpec spec = read_tool(value, where);
    if (has_name(tools, spec.name))
      throw invalid("field '" + where + ".name': tool '" + spec.name + "' is named twice");
    tools.client.push_back(std::move(spec));
  } else if (type == "mcp") {
    ToolRef ref = read_mcp_ref(entry, where);
    if (has_server(tools, ref.server))
      throw invalid("field '" + where + ".server': tool server '" + ref.server +
                    "' is referenced twice");
    tools.refs.push_back(std::move(ref));
  } else if (type == "builtin") {
    ToolRef ref = read_builtin_ref(entry, where);
    if (has_name(tools, ref.name))
      throw invalid("field '" + where + ".name': tool '" + ref.name + "' is named twice");
    tools.refs.push_back(std::move(ref));
  } else {
    throw invalid("field '" + where + ".type' must be function, mcp or builtin");
  }
}

}  // namespace

AgentTools read_agent_tools_text(std::string_view json, const std::string& field) {
  text::JsonReader reader;
  element value;
  simdjson::dom::array list;
  if (reader.parse(json).get(value) != SUCCESS || value.get(list) != SUCCESS)
    throw invalid("field '" + field + "' must be an array");
  if (list.size() > kMaxTools)
    throw invalid("field '" + field + "' holds more than " + std::to_string(kMaxTools) + " tools");
  AgentTools tools;
  size_t i = 0;
  for (const element entry : list) add_entry(tools, entry, field + "[" + std::to_string(i++) + "]");
  return tools;
}

std::string agent_tools_json(const std::vector<ToolSpec>& client,
                             const std::vector<ToolRef>& refs) {
  std::string out = tools_json(client);
  out.pop_back();  // its ']'
  for (const ToolRef& ref : refs) {
    if (out.size() > 1) out += ',';
    JsonObjectText entry(out);
    if (ref.type == "builtin") {
      entry.string("name", ref.name).string("type", "builtin").close();
      continue;
    }
    if (!ref.require_approval.empty()) entry.string("require_approval", ref.require_approval);
    entry.string("server", ref.server);
    if (!ref.tools.empty()) {
      std::string& names = entry.member("tools");
      names += '[';
      for (const std::string& name : ref.tools) {
        if (names.back() != '[') names += ',';
        append_json_string(names, name);
      }
      names += ']';
    }
    entry.string("type", "mcp").close();
  }
  out += ']';
  return out;
}

}  // namespace agentrt::core
