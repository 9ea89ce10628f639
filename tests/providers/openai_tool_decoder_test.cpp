// The OpenAI stream decoder's tool calls: pieces of a call gathered by index (or by id,
// or as the last call, for servers that send no index), emitted whole at the finish in
// index order, after the text before them; none from a stream cut before its finish.
#include "openai/openai_stream.h"
#include "tests/providers/decoder_sink.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

// Named for its vendor: the unity build puts the vendors' files in one unit.
namespace agentrt::test::openai_tool_decoder {
namespace {

using nlohmann::json;

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out) {
  return std::make_unique<providers::openai::ChunkDecoder>(out);
}

// One SSE event of a chunk whose first choice has `delta` and `finish`, as OpenAI
// writes them.
std::string event(const json& delta, const json& finish = nullptr) {
  const json chunk = {
      {"id", "chatcmpl-1"},
      {"object", "chat.completion.chunk"},
      {"created", 1700000000},
      {"model", "gpt-4o-mini"},
      {"system_fingerprint", "fp_1"},
      {"choices",
       json::array(
           {{{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish}}})},
      {"usage", nullptr}};
  return "data: " + chunk.dump() + "\n\n";
}

// A delta whose tool_calls is `value`.
std::string tool_calls(const json& value) {
  return event({{"tool_calls", value}});
}

// A delta of tool-call pieces.
std::string pieces(const std::vector<json>& list) {
  return tool_calls(json(list));
}

json opens(int index, const std::string& id, const std::string& name) {
  return {{"index", index},
          {"id", id},
          {"type", "function"},
          {"function", {{"name", name}, {"arguments", ""}}}};
}

json more(int index, const std::string& arguments) {
  return {{"index", index}, {"function", {{"arguments", arguments}}}};
}

const std::string kFinish = event(json::object(), "tool_calls");
const std::string kUsage =
    "data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":81,"
    "\"completion_tokens\":17,\"total_tokens\":98}}\n\n";
const std::string kDone = "data: [DONE]\n\n";

std::string call(const std::string& id, const std::string& name, const std::string& arguments) {
  return "4:" + json{{"arguments", arguments}, {"id", id}, {"name", name}}.dump();
}

const std::string kUsageDelta = R"(2:{"input_tokens":81,"output_tokens":17})";
const std::string kToolUse = R"(3:{"reason":"tool_use"})";

Decoded decoded(std::vector<std::string> deltas, std::optional<std::string> error = {}) {
  Decoded out;
  out.deltas = std::move(deltas);
  out.error = std::move(error);
  return out;
}

// What a stream decoded to, in full, for a failure's message.
std::string shown(const Decoded& decoded);

std::string decode(const std::string& body) {
  return shown(decode_pieces(make, {body}));
}

std::string shown_decoded(std::vector<std::string> deltas) {
  return shown(decoded(std::move(deltas)));
}

std::string shown(const Decoded& decoded) {
  std::string text;
  for (const std::string& delta : decoded.deltas) text += "\n  " + delta;
  return text + "\n  error: " + decoded.error.value_or("none");
}

TEST(OpenAiToolDecoder, TextThenACallWhoseFragmentsAreCutAtEveryByte) {
  const std::string body =
      event({{"role", "assistant"}, {"content", ""}, {"refusal", nullptr}}) +
      event({{"content", "Let me look \xE2\x80\x94 "}}) + event({{"content", "one moment."}}) +
      event({{"role", "assistant"},
             {"content", nullptr},
             {"tool_calls", json::array({opens(0, "call_abc", "get_weather")})}}) +
      pieces({more(0, "{\"ci")}) + pieces({more(0, "ty\":\"Par\xC3\xAD")}) +
      pieces({more(0, "s\"}")}) + kFinish + kUsage + kDone;
  expect_every_cut_decodes_as(
      make, body,
      decoded({"1:Let me look \xE2\x80\x94 ", "1:one moment.",
               call("call_abc", "get_weather", "{\"city\":\"Par\xC3\xADs\"}"), kUsageDelta,
               kToolUse}));
}

TEST(OpenAiToolDecoder, ParallelCallsInterleavedComeOutWholeInIndexOrder) {
  const std::string body =
      pieces({opens(1, "call_2", "get_time")}) + pieces({opens(0, "call_1", "get_weather")}) +
      pieces({more(1, "{\"tz\":")}) + pieces({more(0, "{\"city\":")}) +
      pieces({more(0, "\"Oslo\"}"), more(1, "\"CET\"}")}) + kFinish + kUsage + kDone;
  expect_every_cut_decodes_as(
      make, body,
      decoded({call("call_1", "get_weather", "{\"city\":\"Oslo\"}"),
               call("call_2", "get_time", "{\"tz\":\"CET\"}"), kUsageDelta, kToolUse}));
}

TEST(OpenAiToolDecoder, CallsOneAfterAnother) {
  const std::string body = pieces({opens(0, "call_1", "a")}) + pieces({more(0, "{\"x\":1}")}) +
                           pieces({opens(1, "call_2", "b")}) + pieces({more(1, "{\"y\":")}) +
                           pieces({more(1, "2}")}) + kFinish + kDone;
  EXPECT_EQ(decode(body), shown_decoded({call("call_1", "a", "{\"x\":1}"),
                                         call("call_2", "b", "{\"y\":2}"), kToolUse}));
}

// Some compatible servers send no "index": a piece with an id begins a call, one
// without continues the last.
TEST(OpenAiToolDecoder, PiecesWithoutAnIndexBeginACallByTheirId) {
  json first = opens(0, "call_1", "a"), second = opens(0, "call_2", "b");
  first.erase("index");
  second.erase("index");
  const json continued = {{"function", {{"arguments", "{\"k\":"}}}};
  const json ends = {{"function", {{"arguments", "true}"}}}};
  const std::string body = pieces({first}) + pieces({continued}) + pieces({ends}) +
                           pieces({second}) + pieces({continued}) + pieces({ends}) + kFinish +
                           kUsage + kDone;
  expect_every_cut_decodes_as(
      make, body,
      decoded({call("call_1", "a", "{\"k\":true}"), call("call_2", "b", "{\"k\":true}"),
               kUsageDelta, kToolUse}));
}

// Others repeat the call's id (and name) in every piece: still one call.
TEST(OpenAiToolDecoder, PiecesRepeatingTheIdOfACallBegunAreThatCall) {
  auto piece = [](const std::string& arguments, bool with_index) {
    json p = {{"id", "call_9"},
              {"type", "function"},
              {"function", {{"name", "lookup"}, {"arguments", arguments}}}};
    if (with_index) p["index"] = 0;
    return pieces({p});
  };
  for (bool with_index : {true, false}) {
    const std::string body = piece("{\"q\":", with_index) + piece("\"cats\"", with_index) +
                             piece("}", with_index) + kFinish + kDone;
    EXPECT_EQ(decode(body), shown_decoded({call("call_9", "lookup", "{\"q\":\"cats\"}"), kToolUse}))
        << with_index;
  }
}

// OpenAI writes "{}" for a call without arguments; a server that writes nothing is
// read the same, since "" is not JSON a client can parse.
TEST(OpenAiToolDecoder, ACallWithoutArgumentsGoesAsAnEmptyObject) {
  json bare = opens(0, "call_1", "now");
  bare["function"].erase("arguments");
  EXPECT_EQ(decode(pieces({bare}) + kFinish + kDone),
            shown_decoded({call("call_1", "now", "{}"), kToolUse}));
}

// Without a finish_reason the calls come out at [DONE], and a server that says "stop"
// after calling tools still ends in tool_use: the engine waits for their results.
TEST(OpenAiToolDecoder, CallsFinishInToolUseWhateverTheFinishWord) {
  const std::string calls = pieces({opens(0, "call_1", "a")}) + pieces({more(0, "{}")});
  EXPECT_EQ(decode(calls + kDone), shown_decoded({call("call_1", "a", "{}"), kToolUse}));
  EXPECT_EQ(decode(calls + event(json::object(), "stop") + kDone),
            shown_decoded({call("call_1", "a", "{}"), kToolUse}));
  EXPECT_EQ(decode(calls + event(json::object(), "length") + kDone),
            shown_decoded({call("call_1", "a", "{}"), R"(3:{"reason":"max_tokens"})"}));
}

// A call is whole only at the finish: a stream that ends between two fragments emits
// the text before it and no call.
TEST(OpenAiToolDecoder, AStreamCutInsideACallEmitsNoCall) {
  const std::string body = event({{"content", "Looking."}}) +
                           pieces({opens(0, "call_1", "get_weather")}) +
                           pieces({more(0, "{\"city\":")});
  const Decoded out = decode_pieces(make, {body});
  EXPECT_EQ(out.deltas, std::vector<std::string>{"1:Looking."});
  ASSERT_TRUE(out.error);
  EXPECT_NE(out.error->find("end marker"), std::string::npos) << *out.error;
}

TEST(OpenAiToolDecoder, PiecesOfOtherTypesReadAsAbsent) {
  for (const json& list : {json("x"), json(5), json::array({1, "a", nullptr}), json(nullptr)})
    EXPECT_EQ(decode(tool_calls(list) + kFinish + kDone), shown_decoded({kToolUse})) << list.dump();
  const json odd = {{"index", "0"}, {"id", 7}, {"function", {{"name", 1}, {"arguments", 2}}}};
  EXPECT_EQ(decode(pieces({odd}) + kFinish + kDone), shown_decoded({call("", "", "{}"), kToolUse}));
}

}  // namespace
}  // namespace agentrt::test::openai_tool_decoder
