// Reading a run request's JSON objects field by field (simdjson's DOM), with the 400s
// every body gets, in the same words as core/domain/json_fields.h gives them for the
// routes read with nlohmann: a missing or mistyped field is named with its path, an
// unknown field is refused rather than ignored, and null reads as absent.
#pragma once

#include <simdjson.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

class Fields {
 public:
  // `value`'s members; `what` names it when it is not an object ("request body",
  // "'messages[0]'"), `prefix` goes before its fields' names ("messages[0].").
  static Fields of(simdjson::dom::element value, const std::string& what, std::string prefix);

  // Refuses a field not in `known`: the first in sorted order, as for every route.
  void reject_unknown(std::initializer_list<std::string_view> known) const;
  // The field's value, or NO_SUCH_FIELD.
  simdjson::simdjson_result<simdjson::dom::element> find(std::string_view field) const;
  // The field's value unless it is absent or null.
  std::optional<simdjson::dom::element> present(std::string_view field) const;

  std::string_view required_string(std::string_view field) const;
  std::optional<std::string> optional_string(std::string_view field) const;
  std::optional<bool> optional_bool(std::string_view field) const;
  // A whole number past 64 bits is named as one out of range, not as "not an integer".
  std::optional<int64_t> optional_int(std::string_view field) const;

 private:
  Fields(simdjson::dom::object object, std::string prefix)
      : object_(object), prefix_(std::move(prefix)) {}
  [[noreturn]] void wrong_type(std::string_view field, const char* type) const;

  simdjson::dom::object object_;
  std::string prefix_;
};

// Whether any object in `value` holds a key twice.
bool repeats_a_key(simdjson::dom::element value);

// Throws the refusal of a body the reader refused with `error` or found repeating a key,
// in the words every route's body gets (core/domain/json_body.h), which say where.
[[noreturn]] void refuse_body(std::string_view body, simdjson::error_code error);

}  // namespace agentrt::core
