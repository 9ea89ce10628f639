// Reading the JSON of OpenAI-shaped requests (docs/openai-compatible.md) with the hot
// paths' reader (lib/text/json_reader.h), and refusing what is wrong as OpenAI does: a
// 400 whose `param` names the field at fault in OpenAI's words ("messages[1].content",
// "tools[0].function.name"), a null read as absent, a key OpenAI does not have refused.
#pragma once

#include "core/domain/errors.h"
#include "core/runs/tool_spec.h"

#include "text/json_reader.h"

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::core::openai {

// A refusal that names the field at fault (OpenAI's `param`).
class ParamError : public DomainError {
 public:
  ParamError(ErrorKind kind, std::string code, std::string param, const std::string& message)
      : DomainError(kind, std::move(code), message), param_(std::move(param)) {}
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

// 400 invalid_request naming `param`.
ParamError bad_param(std::string param, const std::string& message);

// The field a refusal names: a ParamError's param, else the one an agentrt message
// names ("field 'messages[0].content' ..."), else "".
std::string param_of(const DomainError& error);

// One JSON object of the request; `path` is where it is ("" for the body,
// "messages[2]"), so that its members are named "model" or "messages[2].content".
class OpenAiObject {
 public:
  // 400 unless `value` is an object.
  OpenAiObject(simdjson::dom::element value, std::string path);

  std::string path_of(std::string_view key) const;
  // Refuses a member not in `known` (OpenAI: "Unrecognized request argument").
  void only(const std::vector<std::string_view>& known) const;
  // The member unless it is absent or null.
  std::optional<simdjson::dom::element> present(std::string_view key) const;

  // Each refuses a value of another type, naming it; absent and null read as none.
  std::optional<std::string_view> string(std::string_view key) const;
  std::string_view required_string(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<int64_t> integer(std::string_view key) const;
  std::optional<double> number(std::string_view key, double min, double max) const;

 private:
  simdjson::dom::object object_;
  std::string path_;
};

// The request body's object (400 in agentrt's words for a body that is no JSON or
// repeats a key), read with `reader`, which keeps it; any key not `known` is refused.
OpenAiObject request_object(text::JsonReader& reader, std::string_view body,
                            const std::vector<std::string_view>& known);
// Its "model": required, not empty.
std::string request_model(const OpenAiObject& request);

// A function tool's "name", "description" and "parameters" (a schema object whose type,
// if it says one, is object: the rule of agentrt's tools, core/runs/tool_request.h), as
// both /v1 forms hold them (Chat Completions' "function" object, Responses' tool).
ToolSpec function_spec(const OpenAiObject& fields);

// "Invalid type for 'x': expected <what>."
ParamError wrong_type(const std::string& param, std::string_view what);

}  // namespace agentrt::core::openai
