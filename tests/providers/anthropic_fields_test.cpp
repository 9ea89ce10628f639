// The Anthropic event readers: every field the decoder acts on, read the same by the
// fast scan and by nlohmann, and the decoder fed streams cut inside escapes and UTF-8.
#include "anthropic/anthropic_stream.h"
#include "tests/providers/decoder_sink.h"
#include "tests/providers/fields_check.h"

// Named for its vendor: the unity build puts the three vendors' files in one unit.
namespace agentrt::test::anthropic_fields {
namespace {

using providers::anthropic::EventFields;
using providers::anthropic::UsageCounts;

void read_event(std::string_view data, EventFields& fields) {
  providers::anthropic::read_event(data, fields);
}

::testing::AssertionResult same(const std::string& data, Path path = Path::either) {
  return same_fields<EventFields>(providers::anthropic::scan_event, read_event, data, path);
}

// The fields of an event the scan must read itself.
EventFields fast(const std::string& text) {
  const std::string& data = kept(text);
  EventFields fields;
  EXPECT_TRUE(providers::anthropic::scan_event(data, fields)) << data;
  EXPECT_TRUE(same(data, Path::fast));
  return fields;
}

const std::string kMessageStart =
    R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",)"
    R"("model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":)"
    R"({"input_tokens":25,"cache_creation_input_tokens":20,"cache_read_input_tokens":100,)"
    R"("output_tokens":1,"service_tier":"standard"}}})";

TEST(AnthropicFields, MessageStartCarriesTheInputUsage) {
  EventFields f = fast(kMessageStart);
  EXPECT_EQ(f.type.view(), "message_start");
  EXPECT_EQ(f.message_usage, (UsageCounts{25, 20, 100, 1}));
  EXPECT_EQ(f.usage, UsageCounts{});
}

TEST(AnthropicFields, TextDeltasAndOtherDeltaTypes) {
  EventFields text = fast(R"({"type":"content_block_delta","index":0,"delta":)"
                          R"({"type":"text_delta","text":"Gr\u00fc\u00dfe \"\ud83c\udf0d\"\n"}})");
  EXPECT_EQ(text.type.view(), "content_block_delta");
  EXPECT_EQ(text.delta_type.view(), "text_delta");
  EXPECT_EQ(text.delta_text.view(),
            "Gr\xC3\xBC\xC3\x9F"
            "e \"\xF0\x9F\x8C\x8D\"\n");
  EventFields json = fast(R"({"type":"content_block_delta","index":1,"delta":)"
                          R"({"type":"input_json_delta","partial_json":"{\"a\":"}})");
  EXPECT_EQ(json.delta_type.view(), "input_json_delta");
  EXPECT_EQ(json.delta_text.view(), "");
}

TEST(AnthropicFields, MessageDeltaCarriesStopReasonAndOutputUsage) {
  EventFields f = fast(R"({"type":"message_delta","delta":{"stop_reason":"max_tokens",)"
                       R"("stop_sequence":null},"usage":{"output_tokens":16,"input_tokens":3}})");
  EXPECT_EQ(f.stop_reason.view(), "max_tokens");
  EXPECT_EQ(f.usage, (UsageCounts{3, std::nullopt, std::nullopt, 16}));
  EXPECT_EQ(f.message_usage, UsageCounts{});
}

TEST(AnthropicFields, PingsStopsAndUnknownEventsReadCleanly) {
  EXPECT_EQ(fast(R"({"type": "ping"})").type.view(), "ping");
  EXPECT_EQ(fast(R"({"type":"message_stop"})").type.view(), "message_stop");
  EXPECT_EQ(fast(R"({"type":"content_block_start","index":0,"content_block":)"
                 R"({"type":"tool_use","id":"t","name":"f","input":{"deep":[1,[2,{"x":null}]]}}})")
                .type.view(),
            "content_block_start");
  EXPECT_EQ(fast(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})")
                .type.view(),
            "error");
}

TEST(AnthropicFields, WrongTypesReadAsAbsent) {
  EXPECT_EQ(fast(R"({"message":"x","usage":null})").message_usage, UsageCounts{});
  EXPECT_EQ(fast(R"({"message":{"usage":[1]}})").message_usage, UsageCounts{});
  EXPECT_EQ(fast(R"({"usage":{"output_tokens":"9","input_tokens":2.5}})").usage, UsageCounts{});
  EventFields f = fast(R"({"type":7,"delta":{"type":null,"text":["a"],"stop_reason":{}}})");
  EXPECT_EQ(f.type.view(), "");
  EXPECT_EQ(f.delta_type.view(), "");
  EXPECT_EQ(f.delta_text.view(), "");
  EXPECT_EQ(f.stop_reason.view(), "");
  EXPECT_EQ(fast(R"({"delta":"text_delta"})").delta_type.view(), "");
}

TEST(AnthropicFields, ARepeatedKeyCountsAsItsLastOccurrence) {
  EXPECT_EQ(fast(R"({"type":"a","type":"b"})").type.view(), "b");
  EXPECT_EQ(fast(R"({"delta":{"text":"a"},"delta":{"type":"text_delta"}})").delta_text.view(), "");
  EXPECT_EQ(fast(R"({"usage":{"output_tokens":1},"usage":{"input_tokens":2}})").usage,
            (UsageCounts{2, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(fast(R"({"usage":{"output_tokens":1,"output_tokens":null}})").usage, UsageCounts{});
  EXPECT_EQ(fast(R"({"message":{"usage":{"input_tokens":1}},"message":{}})").message_usage,
            UsageCounts{});
}

TEST(AnthropicFields, NonObjectsGoToTheReference) {
  EventFields f;
  for (const char* data : {"", "[]", "\"ping\"", "{\"type\":\"ping\"", "{\"a\":1}x"}) {
    EXPECT_FALSE(providers::anthropic::scan_event(data, f)) << data;
    EXPECT_THROW(providers::anthropic::read_event(data, f), sdk::Error) << data;
  }
}

TEST(AnthropicFields, MutatedEventsReadTheSameOrGoToTheReference) {
  const std::vector<std::string> seeds = {
      kMessageStart,
      R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"H\u00e9\n\"q\""}})",
      R"({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":16}})",
      "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"\xE2\x82\xAC\"}}"};
  EXPECT_GT(
      (compare_mutations<EventFields>(providers::anthropic::scan_event, read_event, seeds, 30000)),
      5000u);
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

}  // namespace
}  // namespace agentrt::test::anthropic_fields
