#include "core/runs/run_request_fields.h"

#include "core/domain/errors.h"
#include "core/domain/json_body.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace agentrt::core {

using simdjson::SUCCESS;
using simdjson::dom::element;
using simdjson::dom::element_type;

Fields Fields::of(element value, const std::string& what, std::string prefix) {
  simdjson::dom::object object;
  if (value.get(object) != SUCCESS) throw invalid(what + " must be a JSON object");
  return Fields(object, std::move(prefix));
}

void Fields::reject_unknown(std::initializer_list<std::string_view> known) const {
  std::optional<std::string_view> first;
  for (const simdjson::dom::key_value_pair field : object_) {
    if (std::find(known.begin(), known.end(), field.key) != known.end()) continue;
    if (!first || field.key < *first) first = field.key;
  }
  if (first) throw invalid("unknown field '" + prefix_ + std::string(*first) + "'");
}

simdjson::simdjson_result<element> Fields::find(std::string_view field) const {
  return object_.at_key(field);
}

std::optional<element> Fields::present(std::string_view field) const {
  element value;
  if (find(field).get(value) != SUCCESS || value.is_null()) return std::nullopt;
  return value;
}

void Fields::wrong_type(std::string_view field, const char* type) const {
  throw invalid("field '" + prefix_ + std::string(field) + "' must be " + type);
}

std::string_view Fields::required_string(std::string_view field) const {
  const std::optional<element> value = present(field);
  if (!value) throw invalid("field '" + prefix_ + std::string(field) + "' is required");
  std::string_view text;
  if (value->get(text) != SUCCESS) wrong_type(field, "a string");
  return text;
}

std::optional<std::string> Fields::optional_string(std::string_view field) const {
  const std::optional<element> value = present(field);
  if (!value) return std::nullopt;
  std::string_view text;
  if (value->get(text) != SUCCESS) wrong_type(field, "a string");
  return std::string(text);
}

std::optional<bool> Fields::optional_bool(std::string_view field) const {
  const std::optional<element> value = present(field);
  if (!value) return std::nullopt;
  bool flag = false;
  if (value->get(flag) != SUCCESS) wrong_type(field, "a boolean");
  return flag;
}

std::optional<int64_t> Fields::optional_int(std::string_view field) const {
  const std::optional<element> value = present(field);
  if (!value) return std::nullopt;
  int64_t integer = 0;
  if (value->get(integer) == SUCCESS) return integer;
  double number = 0;
  const bool whole_past_64_bits = value->type() == element_type::UINT64 ||
                                  (value->get(number) == SUCCESS && std::isfinite(number) &&
                                   std::trunc(number) == number && std::fabs(number) >= 9.2e18);
  if (whole_past_64_bits)
    throw invalid("field '" + prefix_ + std::string(field) + "' is an integer out of range");
  wrong_type(field, "an integer");
}

bool repeats_a_key(element value) {
  simdjson::dom::array items;
  if (value.get(items) == SUCCESS) {
    for (const element item : items)
      if (repeats_a_key(item)) return true;
    return false;
  }
  simdjson::dom::object fields;
  if (value.get(fields) != SUCCESS) return false;
  std::vector<std::string_view> keys;
  keys.reserve(fields.size());
  for (const simdjson::dom::key_value_pair field : fields) {
    keys.push_back(field.key);
    if (repeats_a_key(field.value)) return true;
  }
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

namespace {

// The path of the first whole number past 64 bits in `value`, as errors name fields.
std::optional<std::string> integer_past_64_bits(const nlohmann::json& value,
                                                const std::string& path) {
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number) && std::trunc(number) == number && std::fabs(number) >= 9.2e18)
      return path;
  }
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i)
      if (auto found = integer_past_64_bits(value[i], path + "[" + std::to_string(i) + "]"))
        return found;
  }
  if (value.is_object()) {
    for (const auto& [key, member] : value.items())
      if (auto found = integer_past_64_bits(member, path.empty() ? key : path + "." + key))
        return found;
  }
  return std::nullopt;
}

}  // namespace

void refuse_body(std::string_view body, simdjson::error_code error) {
  const nlohmann::json document = parse_json_body(body);  // throws, saying where
  // The one text the general reader takes and this one does not: an integer past 64
  // bits (nlohmann reads it as a double), which no field of a run request can hold.
  if (error == simdjson::NUMBER_ERROR)
    if (const std::optional<std::string> field = integer_past_64_bits(document, ""))
      throw invalid("field '" + *field + "' is an integer out of range");
  if (error == simdjson::SUCCESS) throw invalid("request body writes a key twice in one object");
  throw invalid(std::string("request body is not valid JSON: ") + simdjson::error_message(error));
}

}  // namespace agentrt::core
