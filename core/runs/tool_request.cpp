#include "core/runs/tool_request.h"

#include "core/domain/errors.h"
#include "core/domain/json_text.h"
#include "text/json_reader.h"

#include <set>

namespace agentrt::core {
namespace {

using simdjson::SUCCESS;
using simdjson::dom::element;

// A schema object whose "type", when it says one, is "object": every vendor takes a
// tool's input as an object (Anthropic refuses any other input_schema).
std::string parameters_of(const Fields& tool, const std::string& where) {
  const std::optional<element> value = tool.present("parameters");
  if (!value) return R"({"type":"object"})";
  simdjson::dom::object schema;
  std::string_view type;
  const bool object = value->get(schema) == SUCCESS;
  if (!object || (schema.at_key("type").error() != simdjson::NO_SUCH_FIELD &&
                  (schema.at_key("type").get(type) != SUCCESS || type != "object")))
    throw invalid("field '" + where +
                  ".parameters' must be a JSON Schema object whose type is \"object\"");
  return simdjson::minify(schema);
}

}  // namespace

ToolSpec read_tool(element value, const std::string& where) {
  const Fields tool = Fields::of(value, "'" + where + "'", where + ".");
  tool.reject_unknown({"type", "name", "description", "parameters"});
  if (tool.required_string("type") != "function")
    throw invalid("field '" + where + ".type' must be function");
  ToolSpec spec;
  spec.name = std::string(tool.required_string("name"));
  if (!valid_tool_name(spec.name))
    throw invalid("field '" + where + ".name' must be 1 to 64 of A-Z, a-z, 0-9, '_' and '-'");
  spec.description = tool.optional_string("description").value_or("");
  spec.parameters = parameters_of(tool, where);
  return spec;
}

namespace {

std::string_view required_id(const Fields& part, const std::string& where, const char* field) {
  const std::string_view id = part.required_string(field);
  if (id.empty() || id.size() > 256)
    throw invalid("field '" + where + "." + field + "' must be 1 to 256 bytes");
  return id;
}

void read_tool_call(const Fields& part, const std::string& where) {
  part.reject_unknown({"type", "id", "name", "arguments"});
  required_id(part, where, "id");
  part.required_string("name");
  part.required_string("arguments");
  // A call is the model's to make: a session keeps the calls its runs' models made,
  // and a call written into a request could be answered by no tool message (they come
  // first), which every vendor refuses.
  throw invalid("field '" + where +
                "' is a tool_call: calls are the model's, and the session keeps them; send "
                "the results of its pending calls in a tool message instead");
}

void read_tool_result(const Fields& part, const std::string& where, std::string& content,
                      ContentEstimate& estimate) {
  part.reject_unknown({"type", "tool_call_id", "output", "is_error"});
  const std::string_view id = required_id(part, where, "tool_call_id");
  const std::string_view output = part.required_string("output");
  const bool is_error = part.optional_bool("is_error").value_or(false);
  content += is_error ? R"({"is_error":true,"output":)" : R"({"is_error":false,"output":)";
  append_json_string(content, output);
  content += R"(,"tool_call_id":)";
  append_json_string(content, id);
  content += R"(,"type":"tool_result"})";
  estimate.add_tool(output);
}

void read_tool_approval(const Fields& part, const std::string& where, std::string& content,
                        ContentEstimate& estimate) {
  part.reject_unknown({"type", "tool_call_id", "approve", "reason"});
  const std::string_view id = required_id(part, where, "tool_call_id");
  const std::optional<bool> approve = part.optional_bool("approve");
  if (!approve) throw invalid("field '" + where + ".approve' is required");
  const std::optional<std::string> reason = part.optional_string("reason");
  content += *approve ? R"({"approve":true)" : R"({"approve":false)";
  if (reason) {
    content += R"(,"reason":)";
    append_json_string(content, *reason);
  }
  content += R"(,"tool_call_id":)";
  append_json_string(content, id);
  content += R"(,"type":"tool_approval"})";
  estimate.add_tool(reason.value_or(""));
}

}  // namespace

bool valid_tool_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-'))
      return false;
  return true;
}

const ToolSpec* find_tool(const std::vector<ToolSpec>& tools, const std::string& name) {
  for (const ToolSpec& tool : tools)
    if (tool.name == name) return &tool;
  return nullptr;
}

std::vector<ToolSpec> read_tools(element value, const std::string& field) {
  simdjson::dom::array list;
  if (value.get(list) != SUCCESS) throw invalid("field '" + field + "' must be an array");
  if (list.size() > kMaxTools)
    throw invalid("field '" + field + "' holds more than " + std::to_string(kMaxTools) + " tools");
  std::vector<ToolSpec> tools;
  for (const element tool : list) {
    const std::string where = field + "[" + std::to_string(tools.size()) + "]";
    ToolSpec spec = read_tool(tool, where);
    if (find_tool(tools, spec.name))
      throw invalid("field '" + where + ".name': tool '" + spec.name + "' is named twice");
    tools.push_back(std::move(spec));
  }
  return tools;
}

std::vector<ToolSpec> read_tools_text(std::string_view json, const std::string& field) {
  text::JsonReader reader;
  element value;
  if (reader.parse(json).get(value) != SUCCESS)
    throw invalid("field '" + field + "' must be an array");
  return read_tools(value, field);
}

ToolChoice read_tool_choice(element value) {
  ToolChoice choice;
  std::string_view word;
  if (value.get(word) == SUCCESS) {
    if (word != "auto" && word != "none" && word != "required")
      throw invalid(
          "field 'tool_choice' must be auto, none, required or {\"type\":\"tool\",\"name\"}");
    choice.mode = std::string(word);
    return choice;
  }
  const Fields named = Fields::of(value, "field 'tool_choice'", "tool_choice.");
  named.reject_unknown({"type", "name"});
  if (named.required_string("type") != "tool")
    throw invalid("field 'tool_choice.type' must be tool");
  choice.mode = "tool";
  choice.name = std::string(named.required_string("name"));
  return choice;
}

std::optional<int64_t> read_max_steps(const Fields& body, const std::string& field) {
  const std::optional<int64_t> steps = body.optional_int(field);
  if (steps && (*steps < 1 || *steps > 64))
    throw invalid("field '" + field + "' must be an integer from 1 to 64");
  return steps;
}

bool read_tool_part(std::string_view type, const Fields& part, const std::string& where,
                    std::string_view role, std::string& content, ContentEstimate& estimate) {
  const bool answer = type == "tool_result" || type == "tool_approval";
  if (!answer && type != "tool_call") return false;
  if (answer && role != "tool")
    throw invalid("field '" + where + ".type' " + std::string(type) +
                  " belongs in a message of role tool");
  if (type == "tool_call") {
    if (role != "assistant")
      throw invalid("field '" + where + ".type' tool_call belongs in a message of role assistant");
    read_tool_call(part, where);
  } else if (type == "tool_result") {
    read_tool_result(part, where, content, estimate);
  } else {
    read_tool_approval(part, where, content, estimate);
  }
  return true;
}

void check_tool_message_order(const std::vector<StoredMessage>& messages) {
  bool answers = true;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role != "tool") {
      answers = false;
    } else if (!answers) {
      throw invalid("field 'messages[" + std::to_string(i) +
                    "]': a tool message comes first among messages, before any other");
    }
  }
}

std::string tools_json(const std::vector<ToolSpec>& tools) {
  std::string out = "[";
  for (const ToolSpec& tool : tools) {
    if (out.size() > 1) out += ',';
    JsonObjectText object(out);
    if (!tool.description.empty()) object.string("description", tool.description);
    object.string("name", tool.name);
    object.member("parameters") += tool.parameters;
    object.string("type", "function");
    object.close();
  }
  out += ']';
  return out;
}

}  // namespace agentrt::core
