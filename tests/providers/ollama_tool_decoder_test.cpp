// The Ollama stream decoder's tool calls: whole calls in message.tool_calls, their
// arguments an object sent on as compact JSON text, Ollama's id when it gives one, and
// a finish of tool_use though Ollama's done_reason says "stop".
#include "ollama/ollama_stream.h"
#include "tests/providers/decoder_sink.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

// Named for its vendor: the unity build puts the vendors' files in one unit.
namespace agentrt::test::ollama_tool_decoder {
namespace {

using nlohmann::json;

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out) {
  return std::make_unique<providers::ollama::ChatLineDecoder>(out);
}

std::string line(const std::string& content, const std::string& tool_calls = "") {
  std::string message = R"({"role":"assistant","content":)" + json(content).dump();
  if (!tool_calls.empty()) message += R"(,"tool_calls":)" + tool_calls;
  return R"({"model":"qwen3","created_at":"2025-09-01T10:00:00.1Z","message":)" + message +
         R"(},"done":false})" + "\n";
}

const std::string kDone =
    R"({"model":"qwen3","created_at":"2025-09-01T10:00:01Z","message":{"role":"assistant",)"
    R"("content":""},"done_reason":"stop","done":true,"total_duration":1000,)"
    R"("prompt_eval_count":40,"eval_count":9})"
    "\n";

std::string call(const std::string& id, const std::string& name, const std::string& arguments) {
  return "4:" + json{{"arguments", arguments}, {"id", id}, {"name", name}}.dump();
}

const std::string kUsage = R"(2:{"input_tokens":40,"output_tokens":9})";
const std::string kToolUse = R"(3:{"reason":"tool_use"})";

// Current Ollama: each call with an id and an index, its arguments in the model's
// order, nested values and all.
TEST(OllamaToolDecoder, WholeCallsAfterTheTextCutAtEveryByte) {
  const std::string calls =
      R"([{"id":"call_k3v9x2aa","function":{"index":0,"name":"get_weather",)"
      R"("arguments":{"unit":"celsius","city":"S\u00e3o Paulo","days":[1,2]}}},)"
      R"({"function":{"index":1,"name":"get_time","arguments":{ "tz" : "BRT" }}}])";
  const std::string body = line("Checking ") + line("both.") + line("", calls) + kDone;
  Decoded expected;
  expected.deltas = {"1:Checking ",
                     "1:both.",
                     call("call_k3v9x2aa", "get_weather",
                          "{\"unit\":\"celsius\",\"city\":\"S\xC3\xA3o Paulo\",\"days\":[1,2]}"),
                     call("", "get_time", "{\"tz\":\"BRT\"}"),
                     kUsage,
                     kToolUse};
  expect_every_cut_decodes_as(make, body, expected);
}

// Newer Ollama may put the calls on the done line itself.
TEST(OllamaToolDecoder, CallsOnTheDoneLine) {
  const std::string done =
      R"({"message":{"role":"assistant","content":"","tool_calls":[{"function":)"
      R"({"name":"now","arguments":{}}}]},"done_reason":"stop","done":true})"
      "\n";
  EXPECT_EQ(decode_pieces(make, {done}).deltas,
            (std::vector<std::string>{call("", "now", "{}"), kToolUse}));
}

TEST(OllamaToolDecoder, ArgumentsOfOtherShapes) {
  const std::string calls =
      R"([{"function":{"name":"a"}},{"function":{"name":"b","arguments":"{\"x\":1}"}},)"
      R"({"function":{"name":"c","arguments":[1]}},5,{"function":null}])";
  EXPECT_EQ(decode_pieces(make, {line("", calls) + kDone}).deltas,
            (std::vector<std::string>{call("", "a", "{}"), call("", "b", "{\"x\":1}"),
                                      call("", "c", "{}"), call("", "", "{}"), kUsage, kToolUse}));
  EXPECT_EQ(decode_pieces(make, {line("", R"({"function":{}})") + kDone}).deltas,
            (std::vector<std::string>{kUsage, R"(3:{"reason":"end_turn"})"}));
}

// Only an answer that ends as a turn's end becomes tool_use: cut by the length limit, it
// says so.
TEST(OllamaToolDecoder, ALengthLimitStaysMaxTokens) {
  std::string done = kDone;
  done.replace(done.find("\"stop\""), 6, "\"length\"");
  const std::string calls = R"([{"function":{"name":"a","arguments":{}}}])";
  EXPECT_EQ(
      decode_pieces(make, {line("", calls) + done}).deltas,
      (std::vector<std::string>{call("", "a", "{}"), kUsage, R"(3:{"reason":"max_tokens"})"}));
}

}  // namespace
}  // namespace agentrt::test::ollama_tool_decoder
