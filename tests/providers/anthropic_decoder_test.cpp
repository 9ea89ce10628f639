// The Anthropic stream decoder: every field it acts on, read tolerantly (a value of
// another type reads as absent, the last of two equal keys counts), and streams cut
// inside escapes and UTF-8.
#include "anthropic/anthropic_stream.h"
#include "tests/providers/decoder_sink.h"

#include <gtest/gtest.h>

// Named for its vendor: the unity build puts the three vendors' files in one unit.
namespace agentrt::test::anthropic_decoder {
namespace {

const std::string kMessageStart =
    R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",)"
    R"("model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":)"
    R"({"input_tokens":25,"cache_creation_input_tokens":20,"cache_read_input_tokens":100,)"
    R"("output_tokens":1,"service_tier":"standard"}}})";

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out);

// The deltas of the events `data` (each with its type in the data alone), then
// message_stop.
std::vector<std::string> deltas_of(const std::vector<std::string>& data) {
  std::string body;
  for (const std::string& event : data) body += "data: " + event + "\n\n";
  const Decoded out = decode_pieces(make, {body + "data: {\"type\":\"message_stop\"}\n\n"});
  EXPECT_FALSE(out.error) << *out.error;
  return out.deltas;
}

TEST(AnthropicDecoder, MessageStartCarriesTheInputUsageWithTheCache) {
  EXPECT_EQ(deltas_of({kMessageStart}),
            (std::vector<std::string>{R"(2:{"input_tokens":145})",
                                      R"(2:{"input_tokens":145,"output_tokens":1})",
                                      R"(3:{"reason":"end_turn"})"}));
}

TEST(AnthropicDecoder, TextDeltasAndOtherDeltaTypes) {
  EXPECT_EQ(deltas_of({R"({"type":"content_block_delta","index":0,"delta":)"
                       R"({"type":"text_delta","text":"Gr\u00fc\u00dfe \"\ud83c\udf0d\"\n"}})",
                       R"({"type":"content_block_delta","index":1,"delta":)"
                       R"({"type":"input_json_delta","partial_json":"{\"a\":"}})"}),
            (std::vector<std::string>{"1:Gr\xC3\xBC\xC3\x9F"
                                      "e \"\xF0\x9F\x8C\x8D\"\n",
                                      R"(3:{"reason":"end_turn"})"}));
}

TEST(AnthropicDecoder, MessageDeltaCarriesStopReasonAndOutputUsage) {
  EXPECT_EQ(deltas_of({R"({"type":"message_delta","delta":{"stop_reason":"max_tokens",)"
                       R"("stop_sequence":null},"usage":{"output_tokens":16,"input_tokens":3}})"}),
            (std::vector<std::string>{R"(2:{"input_tokens":3,"output_tokens":16})",
                                      R"(3:{"reason":"max_tokens"})"}));
}

TEST(AnthropicDecoder, PingsBlockStartsAndUnknownEventsAreIgnored) {
  EXPECT_EQ(
      deltas_of({R"({"type": "ping"})",
                 R"({"type":"content_block_start","index":0,"content_block":)"
                 R"({"type":"tool_use","id":"t","name":"f","input":{"deep":[1,[2,{"x":null}]]}}})",
                 R"({"type":"some_new_event","x":1})"}),
      std::vector<std::string>{R"(3:{"reason":"end_turn"})"});
}

TEST(AnthropicDecoder, WrongTypesReadAsAbsent) {
  EXPECT_EQ(
      deltas_of({R"({"type":"message_start","message":"x","usage":null})",
                 R"({"type":"message_start","message":{"usage":[1]}})",
                 R"({"type":"message_delta","usage":{"output_tokens":"9","input_tokens":2.5}})",
                 R"({"type":"content_block_delta","delta":{"type":null,"text":["a"]}})",
                 R"({"type":"message_delta","delta":{"stop_reason":{}}})",
                 R"({"type":"content_block_delta","delta":"text_delta"})"}),
      std::vector<std::string>{R"(3:{"reason":"end_turn"})"});
}

TEST(AnthropicDecoder, ARepeatedKeyCountsAsItsLastOccurrence) {
  EXPECT_EQ(
      deltas_of(
          {R"({"type":"ping","type":"content_block_delta",)"
           R"("delta":{"type":"text_delta","text":"a"},"delta":{"type":"text_delta","text":"b"}})",
           R"({"type":"message_delta","usage":{"output_tokens":1},"usage":{"input_tokens":2}})",
           R"({"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_reason":null}})"}),
      (std::vector<std::string>{"1:b", R"(2:{"input_tokens":2,"output_tokens":0})",
                                R"(3:{"reason":"end_turn"})"}));
}

TEST(AnthropicDecoder, WhatIsNotAJsonObjectEndsTheCall) {
  for (const char* data : {"[]", "\"ping\"", "{\"type\":\"ping\"", "{\"a\":1}x"}) {
    const Decoded out = decode_pieces(make, {std::string("data: ") + data + "\n\n"});
    ASSERT_TRUE(out.error) << data;
    EXPECT_NE(out.error->find("malformed"), std::string::npos) << *out.error;
  }
}

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out) {
  return std::make_unique<providers::anthropic::MessageDecoder>(out);
}

std::string event(const std::string& name, const std::string& data) {
  return "event: " + name + "\r\ndata: " + data + "\r\n\r\n";
}

TEST(AnthropicDecoder, CutsInsideEscapesUtf8AndCrlfGiveTheSameDeltas) {
  const std::string body =
      event("message_start", kMessageStart) + event("ping", R"({"type": "ping"})") +
      event(
          "content_block_delta",
          R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Caf\u00e9 \"\ud83c\udf0d\"\n"}})") +
      event("content_block_delta",
            "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
            "\"text\":\"na\xC3\xAFve \xE2\x82\xAC\"}}") +
      event("content_block_stop", R"({"type":"content_block_stop","index":0})") +
      event(
          "message_delta",
          R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}})") +
      event("message_stop", R"({"type":"message_stop"})");
  Decoded expected;
  // The input count goes out as message_start brings it, so that a stream that fails
  // later still reports it; the final usage replaces it.
  expected.deltas = {R"(2:{"input_tokens":145})", "1:Caf\xC3\xA9 \"\xF0\x9F\x8C\x8D\"\n",
                     "1:na\xC3\xAFve \xE2\x82\xAC", R"(2:{"input_tokens":145,"output_tokens":9})",
                     R"(3:{"reason":"tool_use"})"};
  expect_every_cut_decodes_as(make, body, expected);
}

TEST(AnthropicDecoder, TheTypeComesFromTheDataWithoutAnEventLine) {
  Decoded out = decode_pieces(
      make, {"data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\","
             "\"text\":\"a\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n"});
  EXPECT_EQ(out.deltas, (std::vector<std::string>{"1:a", R"(3:{"reason":"end_turn"})"}));
}

// A body that holds no event at all is not a stream: a whole JSON answer, or a proxy's
// HTML page, is told apart from a stream cut before its end marker.
TEST(AnthropicDecoder, ABodyWithoutAnyEventIsNotAStream) {
  for (const std::string& body :
       {std::string(R"({"id":"msg_1","type":"message","content":[{"type":"text","text":"hi"}]})"),
        std::string("<html><body>502 Bad Gateway</body></html>\n")}) {
    Decoded out = decode_pieces(make, {body});
    EXPECT_TRUE(out.deltas.empty());
    ASSERT_TRUE(out.error) << body;
    EXPECT_EQ(out.error->rfind(std::to_string(AGENTRT_ERR_UPSTREAM) + ":", 0), 0u) << *out.error;
    EXPECT_NE(out.error->find("without a single server-sent event"), std::string::npos)
        << *out.error;
  }
  Decoded cut = decode_pieces(make, {event("message_start", kMessageStart)});
  ASSERT_TRUE(cut.error);
  EXPECT_NE(cut.error->find("end marker"), std::string::npos) << *cut.error;
}

TEST(AnthropicDecoder, AnErrorEventEndsTheCall) {
  Decoded out = decode_pieces(
      make,
      {event("content_block_delta",
             R"({"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}})") +
       event("error",
             R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})")});
  EXPECT_EQ(out.deltas, std::vector<std::string>{"1:a"});
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->rfind(std::to_string(AGENTRT_ERR_UNAVAILABLE) + ":", 0), 0u) << *out.error;
  EXPECT_NE(out.error->find("Overloaded"), std::string::npos);
}

std::string block_start(int index, const std::string& block) {
  return event("content_block_start", R"({"type":"content_block_start","index":)" +
                                          std::to_string(index) + R"(,"content_block":)" + block +
                                          "}");
}

std::string tool_use_start(int index, const std::string& id, const std::string& name) {
  return block_start(
      index, R"({"type":"tool_use","id":")" + id + R"(","name":")" + name + R"(","input":{}})");
}

std::string block_delta(int index, const std::string& delta) {
  return event("content_block_delta", R"({"type":"content_block_delta","index":)" +
                                          std::to_string(index) + R"(,"delta":)" + delta + "}");
}

// `fragment` as it stands inside the event's JSON (escaped by the caller).
std::string input_json(int index, const std::string& fragment) {
  return block_delta(index, R"({"type":"input_json_delta","partial_json":")" + fragment + "\"}");
}

std::string text_delta(int index, const std::string& text) {
  return block_delta(index, R"({"type":"text_delta","text":")" + text + "\"}");
}

std::string block_stop(int index) {
  return event("content_block_stop",
               R"({"type":"content_block_stop","index":)" + std::to_string(index) + "}");
}

const std::string kToolUseEnd =
    event("message_delta",
          R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},)"
          R"("usage":{"output_tokens":40}})") +
    event("message_stop", R"({"type":"message_stop"})");

// The emitter's tool-call delta: {"arguments","id","name"}.
std::string call(const std::string& id, const std::string& name, const std::string& arguments) {
  std::string data = "4:{\"arguments\":";
  sdk::Sink::append_string(data, arguments);
  return data + ",\"id\":\"" + id + "\",\"name\":\"" + name + "\"}";
}

// The arguments arrive in fragments, the first empty, cut inside escapes and UTF-8 by
// the upstream and by the reads: one call goes out, whole, at the block's stop.
TEST(AnthropicDecoder, AToolUseBlockIsOneCallHoweverItsFragmentsAreCut) {
  const std::string body = event("message_start", kMessageStart) +
                           tool_use_start(0, "toolu_01", "get_weather") + input_json(0, "") +
                           input_json(0, R"({\"city\": \"Z)") +
                           input_json(0, R"(\u00fcrich \\\"N)"
                                         "\xC3\xB6"
                                         R"(rd\\\")") +
                           input_json(0, R"(\", \"days\": 2})") +
                           event("ping", R"({"type": "ping"})") + block_stop(0) + kToolUseEnd;
  Decoded expected;
  expected.deltas = {R"(2:{"input_tokens":145})",
                     call("toolu_01", "get_weather",
                          "{\"city\": \"Z\xC3\xBCrich \\\"N\xC3\xB6rd\\\"\", \"days\": 2}"),
                     R"(2:{"input_tokens":145,"output_tokens":40})", R"(3:{"reason":"tool_use"})"};
  expect_every_cut_decodes_as(make, body, expected);
}

// Parallel calls: each block's fragments go to its own index, even interleaved, and each
// call goes out at its own stop, after the text before it.
TEST(AnthropicDecoder, TwoToolUseBlocksAreTwoCallsInTheirOrder) {
  const std::string body =
      block_start(0, R"({"type":"text","text":""})") + text_delta(0, "Checking both.") +
      block_stop(0) + tool_use_start(1, "toolu_a", "get_weather") +
      tool_use_start(2, "toolu_b", "get_time") + input_json(1, "") + input_json(2, R"({\"tz\":)") +
      input_json(1, R"({\"city\":)") + input_json(2, R"(\"CET\"})") +
      input_json(1, R"(\"Oslo\"})") + block_stop(1) + block_stop(2) + kToolUseEnd;
  const Decoded out = decode_pieces(make, {body});
  EXPECT_EQ(out.deltas,
            (std::vector<std::string>{
                "1:Checking both.", call("toolu_a", "get_weather", R"({"city":"Oslo"})"),
                call("toolu_b", "get_time", R"({"tz":"CET"})"),
                R"(2:{"input_tokens":0,"output_tokens":40})", R"(3:{"reason":"tool_use"})"}));
  EXPECT_FALSE(out.error);
}

// Text before a call reaches the sink before it, and text after it after it, in one
// read as in many.
TEST(AnthropicDecoder, TextThenACallThenTextKeepTheirOrder) {
  const std::string body = block_start(0, R"({"type":"text","text":""})") +
                           text_delta(0, "Let me ") + text_delta(0, "look.") + block_stop(0) +
                           tool_use_start(1, "toolu_1", "lookup") + input_json(1, R"({\"q\":1})") +
                           block_stop(1) + block_start(2, R"({"type":"text","text":""})") +
                           text_delta(2, "Asked.") + block_stop(2) + kToolUseEnd;
  Decoded expected;
  expected.deltas = {"1:Let me ",
                     "1:look.",
                     call("toolu_1", "lookup", R"({"q":1})"),
                     "1:Asked.",
                     R"(2:{"input_tokens":0,"output_tokens":40})",
                     R"(3:{"reason":"tool_use"})"};
  expect_every_cut_decodes_as(make, body, expected);
}

// A call without input has no fragment, or only the empty first one: its arguments are
// {}. A server that sends the input whole in the block's start is read too.
TEST(AnthropicDecoder, ACallWithoutFragmentsTakesTheStartsInput) {
  EXPECT_EQ(
      deltas_of({R"({"type":"content_block_start","index":0,"content_block":)"
                 R"({"type":"tool_use","id":"t0","name":"now","input":{}}})",
                 R"({"type":"content_block_stop","index":0})",
                 R"({"type":"content_block_start","index":1,"content_block":)"
                 R"({"type":"tool_use","id":"t1","name":"now","input":{}}})",
                 R"({"type":"content_block_delta","index":1,"delta":)"
                 R"({"type":"input_json_delta","partial_json":""}})",
                 R"({"type":"content_block_stop","index":1})",
                 R"({"type":"content_block_start","index":2,"content_block":)"
                 R"({"type":"tool_use","id":"t2","name":"f","input":{"a": [1, {"b":null}]}}})",
                 R"({"type":"content_block_stop","index":2})"}),
      (std::vector<std::string>{call("t0", "now", "{}"), call("t1", "now", "{}"),
                                call("t2", "f", R"({"a":[1,{"b":null}]})"),
                                R"(3:{"reason":"end_turn"})"}));
}

// Blocks and deltas of other types (thinking, a server tool's own use, citations) and
// fragments of an index that is no tool_use block emit nothing; neither does a block
// that never stops.
TEST(AnthropicDecoder, OtherBlocksOtherDeltasAndUnstoppedBlocksEmitNothing) {
  EXPECT_EQ(
      deltas_of({R"({"type":"content_block_start","index":0,"content_block":)"
                 R"({"type":"thinking","thinking":""}})",
                 R"({"type":"content_block_delta","index":0,"delta":)"
                 R"({"type":"thinking_delta","thinking":"hmm"}})",
                 R"({"type":"content_block_delta","index":0,"delta":)"
                 R"({"type":"signature_delta","signature":"x"}})",
                 R"({"type":"content_block_delta","index":0,"delta":)"
                 R"({"type":"input_json_delta","partial_json":"{}"}})",
                 R"({"type":"content_block_stop","index":0})",
                 R"({"type":"content_block_start","index":1,"content_block":)"
                 R"({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}})",
                 R"({"type":"content_block_delta","index":1,"delta":)"
                 R"({"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}})",
                 R"({"type":"content_block_stop","index":1})",
                 R"({"type":"content_block_delta","index":2,"delta":)"
                 R"({"type":"citations_delta","citation":{}}})",
                 R"({"type":"content_block_start","index":3,"content_block":)"
                 R"({"type":"tool_use","id":"t3","name":"f","input":{}}})",
                 R"({"type":"content_block_delta","index":3,"delta":)"
                 R"({"type":"input_json_delta","partial_json":"{\"a\":"}})"}),
      std::vector<std::string>{R"(3:{"reason":"end_turn"})"});
}

// A stream cut inside a call ends without it: half a call is no call.
TEST(AnthropicDecoder, AStreamCutInsideACallEmitsNoCall) {
  const Decoded out = decode_pieces(
      make, {tool_use_start(0, "toolu_1", "f") + input_json(0, "") + input_json(0, R"({\"a\":)")});
  EXPECT_EQ(out.deltas, std::vector<std::string>{});
  ASSERT_TRUE(out.error);
  EXPECT_NE(out.error->find("end marker"), std::string::npos) << *out.error;
}

}  // namespace
}  // namespace agentrt::test::anthropic_decoder
