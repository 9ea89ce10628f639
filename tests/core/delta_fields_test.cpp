// A usage or finish delta's fields (core/runs/delta_fields.h) read as a document reading
// of the same text finds them, whatever a plugin wrote.
#include "core/runs/delta_fields.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace agentrt::core {
namespace {

using nlohmann::json;

// What the fields are by nlohmann's reading of the whole document.
DeltaFields by_document(const std::string& text) {
  DeltaFields fields;
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return fields;
  for (const char* name : {"input_tokens", "output_tokens"}) {
    auto it = doc.find(name);
    if (it == doc.end() || !it->is_number_integer()) continue;
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      continue;
    (std::string(name) == "input_tokens" ? fields.input_tokens : fields.output_tokens) =
        it->get<int64_t>();
  }
  if (auto it = doc.find("reason"); it != doc.end() && it->is_string())
    fields.reason = it->get<std::string>();
  return fields;
}

TEST(DeltaFields, ReadTheSdksFormsAndEverythingElseAsNlohmannDoes) {
  const std::vector<std::string> deltas = {
      R"({"input_tokens":8,"output_tokens":16})",
      R"({"input_tokens":0,"output_tokens":-3})",
      R"({"input_tokens":-0,"output_tokens":9223372036854775807})",
      R"({"input_tokens":9223372036854775808,"output_tokens":1})",
      R"({"input_tokens":007,"output_tokens":1})",
      R"({"input_tokens":1.5,"output_tokens":2})",
      R"({"input_tokens":1e3,"output_tokens":2})",
      R"({"input_tokens":1,"output_tokens":2}x)",
      R"({"input_tokens":1,"output_tokens":2} )",
      R"({ "input_tokens": 1, "output_tokens": 2 })",
      R"({"output_tokens":2,"input_tokens":1})",
      R"({"input_tokens":1,"output_tokens":2,"input_tokens":3})",
      R"({"input_tokens":1,"output_tokens":"2"})",
      R"({"input_tokens":1,"output_tokens":)",
      R"({"reason":"stop"})",
      R"({"reason":"end_turn"})",
      R"({"reason":""})",
      R"({"reason":"a b.c-d_e~"})",
      R"({"reason":"sto\"p"})",
      R"({"reason":"st\u006fp"})",
      "{\"reason\":\"caf\xc3\xa9\"}",
      "{\"reason\":\"bad\xff\"}",
      "{\"reason\":\"tab\there\"}",
      R"({"reason":"stop"} )",
      R"({"reason":"stop"}})",
      R"({"reason":"stop","reason":"length"})",
      R"({"reason":"x"}{"reason":"y"})",
      R"({"reason":7})",
      R"({"nested":{"reason":"no","input_tokens":5}})",
      R"(["reason","stop"])",
      R"("stop")",
      "",
  };
  for (const std::string& delta : deltas) {
    const DeltaFields read = read_delta_fields(delta);
    const DeltaFields expected = by_document(delta);
    EXPECT_EQ(read.input_tokens, expected.input_tokens) << delta;
    EXPECT_EQ(read.output_tokens, expected.output_tokens) << delta;
    EXPECT_EQ(read.reason, expected.reason) << delta;
  }
  EXPECT_EQ(read_delta_fields(R"({"input_tokens":8,"output_tokens":16})").output_tokens, 16);
  // A number past 64 bits is no JSON the reader takes: the delta carries nothing.
  const DeltaFields past =
      read_delta_fields(R"({"input_tokens":-9223372036854775809,"output_tokens":1})");
  EXPECT_FALSE(past.input_tokens || past.output_tokens || past.reason);
  EXPECT_EQ(read_delta_fields(R"({"reason":"a b.c-d_e~"})").reason, "a b.c-d_e~");
}

}  // namespace
}  // namespace agentrt::core
