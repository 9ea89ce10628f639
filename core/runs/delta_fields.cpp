#include "core/runs/delta_fields.h"

#include "core/domain/json_sax.h"
#include "core/domain/json_text.h"

#include <charconv>
#include <cstdint>

namespace agentrt::core {
namespace {

// Reads the top-level members as the parser meets them: no document is built.
class DeltaFieldsReader : public JsonSaxReader {
 public:
  DeltaFields fields;

  bool key(string_t& name) override {
    key_ = depth_ == 1 ? name : std::string();
    return true;
  }
  bool number_integer(number_integer_t value) override { return take(value); }
  bool number_unsigned(number_unsigned_t value) override {
    return value <= static_cast<uint64_t>(INT64_MAX) ? take(static_cast<int64_t>(value)) : true;
  }
  bool string(string_t& value) override {
    if (depth_ == 1 && key_ == "reason") fields.reason = std::move(value);
    return true;
  }
  bool start_object(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }

 private:
  bool take(int64_t value) {
    if (depth_ == 1 && key_ == "input_tokens") fields.input_tokens = value;
    if (depth_ == 1 && key_ == "output_tokens") fields.output_tokens = value;
    return true;
  }
  bool enter() {
    ++depth_;
    key_.clear();
    return true;
  }
  bool leave() {
    --depth_;
    key_.clear();
    return true;
  }
  int depth_ = 0;  // 1 inside the top-level object: only its members count
  std::string key_;
};

// A JSON integer that fits an int64_t; anything else (a leading zero, a fraction, an
// exponent, more digits) is left to nlohmann.
bool take_integer(std::string_view& s, int64_t& value) {
  const char* p = s.data();
  const char* end = p + s.size();
  const char* digits = p + (p < end && *p == '-' ? 1 : 0);
  if (digits == end || *digits < '0' || *digits > '9') return false;
  if (*digits == '0' && digits + 1 < end && digits[1] >= '0' && digits[1] <= '9') return false;
  auto [next, error] = std::from_chars(p, end, value);
  if (error != std::errc() || (next < end && (*next == '.' || *next == 'e' || *next == 'E')))
    return false;
  s.remove_prefix(static_cast<size_t>(next - p));
  return true;
}

// The forms the SDK's Sink writes, read without the parser: nlohmann's costs about
// 3,500 instructions to set up and run on these few bytes, twice a run.
std::optional<DeltaFields> read_sdk_form(std::string_view s) {
  DeltaFields fields;
  int64_t input = 0, output = 0;
  std::string_view usage = s;
  if (take_prefix(usage, R"({"input_tokens":)") && take_integer(usage, input) &&
      take_prefix(usage, R"(,"output_tokens":)") && take_integer(usage, output) && usage == "}") {
    fields.input_tokens = input;
    fields.output_tokens = output;
    return fields;
  }
  std::string_view reason = s;
  if (!take_prefix(reason, R"({"reason":")") || !take_suffix(reason, R"("})") ||
      !stands_for_itself(reason))
    return std::nullopt;
  fields.reason = std::string(reason);
  return fields;
}

}  // namespace

DeltaFields read_delta_fields(std::string_view json) {
  if (std::optional<DeltaFields> fields = read_sdk_form(json)) return *fields;
  DeltaFieldsReader reader;
  if (!nlohmann::json::sax_parse(json, &reader)) return {};
  return reader.fields;
}

}  // namespace agentrt::core
