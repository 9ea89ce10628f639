#include "core/openai/openai_fields.h"

#include "core/runs/run_request_fields.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace agentrt::core::openai {
namespace {

using simdjson::SUCCESS;
using simdjson::dom::element;

std::string shown(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

ParamError bad_param(std::string param, const std::string& message) {
  return ParamError(ErrorKind::invalid, "", std::move(param), message);
}

ParamError wrong_type(const std::string& param, std::string_view what) {
  return bad_param(param, "Invalid type for '" + param + "': expected " + std::string(what) + ".");
}

std::string param_of(const DomainError& error) {
  if (const auto* named = dynamic_cast<const ParamError*>(&error)) return named->param();
  // Agentrt's own refusals (core/runs) begin "field '<name>'".
  const std::string_view message = error.what();
  constexpr std::string_view kField = "field '";
  const size_t start = message.find(kField);
  if (start == std::string_view::npos) return "";
  const size_t name = start + kField.size();
  const size_t end = message.find('\'', name);
  if (end == std::string_view::npos) return "";
  return std::string(message.substr(name, end - name));
}

OpenAiObject::OpenAiObject(element value, std::string path) : path_(std::move(path)) {
  if (value.get(object_) != SUCCESS) {
    if (path_.empty()) throw bad_param("", "The request body must be a JSON object.");
    throw wrong_type(path_, "an object");
  }
}

std::string OpenAiObject::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void OpenAiObject::only(const std::vector<std::string_view>& known) const {
  for (const auto field : object_) {
    if (std::find(known.begin(), known.end(), field.key) != known.end()) continue;
    if (path_.empty())
      throw bad_param(std::string(field.key),
                      "Unrecognized request argument supplied: " + std::string(field.key));
    throw bad_param(path_of(field.key),
                    "Unrecognized field '" + std::string(field.key) + "' in '" + path_ + "'.");
  }
}

std::optional<element> OpenAiObject::present(std::string_view key) const {
  element value;
  if (object_.at_key(key).get(value) != SUCCESS || value.is_null()) return std::nullopt;
  return value;
}

std::optional<std::string_view> OpenAiObject::string(std::string_view key) const {
  const std::optional<element> value = present(key);
  if (!value) return std::nullopt;
  std::string_view text;
  if (value->get(text) != SUCCESS) throw wrong_type(path_of(key), "a string");
  return text;
}

std::string_view OpenAiObject::required_string(std::string_view key) const {
  const std::optional<std::string_view> text = string(key);
  if (!text) throw bad_param(path_of(key), "Missing required parameter: '" + path_of(key) + "'.");
  return *text;
}

std::optional<bool> OpenAiObject::boolean(std::string_view key) const {
  const std::optional<element> value = present(key);
  if (!value) return std::nullopt;
  bool flag = false;
  if (value->get(flag) != SUCCESS) throw wrong_type(path_of(key), "a boolean");
  return flag;
}

std::optional<int64_t> OpenAiObject::integer(std::string_view key) const {
  const std::optional<element> value = present(key);
  if (!value) return std::nullopt;
  int64_t number = 0;
  if (value->get(number) != SUCCESS) {
    double real = 0;
    // 2.0 is an integer to OpenAI too; 2.5 and "2" are not.
    if (value->get(real) != SUCCESS || std::trunc(real) != real || std::fabs(real) > 9.0e18)
      throw wrong_type(path_of(key), "an integer");
    number = static_cast<int64_t>(real);
  }
  return number;
}

std::optional<double> OpenAiObject::number(std::string_view key, double min, double max) const {
  const std::optional<element> value = present(key);
  if (!value) return std::nullopt;
  double number = 0;
  if (value->get(number) != SUCCESS) throw wrong_type(path_of(key), "a decimal");
  if (number < min || number > max)
    throw bad_param(path_of(key), "Invalid '" + path_of(key) + "': expected a value from " +
                                      shown(min) + " to " + shown(max) + ", but got " +
                                      shown(number) + " instead.");
  return number;
}

OpenAiObject request_object(text::JsonReader& reader, std::string_view body,
                            const std::vector<std::string_view>& known) {
  simdjson::dom::element root;
  const simdjson::error_code error = reader.parse(body).get(root);
  if (error != simdjson::SUCCESS || repeats_a_key(root)) refuse_body(body, error);
  const OpenAiObject request(root, "");
  request.only(known);
  return request;
}

std::string request_model(const OpenAiObject& request) {
  std::string model(request.required_string("model"));
  if (model.empty()) throw bad_param("model", "Invalid 'model': empty string.");
  return model;
}

ToolSpec function_spec(const OpenAiObject& fields) {
  using simdjson::SUCCESS;
  ToolSpec spec;
  spec.name = fields.required_string("name");
  if (!valid_tool_name(spec.name))
    throw bad_param(fields.path_of("name"),
                    "Invalid '" + fields.path_of("name") +
                        "': expected 1 to 64 of a-z, A-Z, 0-9, '_' and '-'.");
  spec.description = fields.string("description").value_or("");
  spec.parameters = R"({"type":"object"})";
  if (const std::optional<simdjson::dom::element> parameters = fields.present("parameters")) {
    simdjson::dom::object schema;
    std::string_view schema_type;
    const auto said = parameters->at_key("type");
    if (parameters->get(schema) != SUCCESS ||
        (said.error() != simdjson::NO_SUCH_FIELD &&
         (said.get(schema_type) != SUCCESS || schema_type != "object")))
      throw bad_param(fields.path_of("parameters"),
                      "Invalid '" + fields.path_of("parameters") +
                          "': expected a JSON Schema object whose type is 'object'.");
    spec.parameters = simdjson::minify(schema);
  }
  return spec;
}

}  // namespace agentrt::core::openai
