// The OpenAI stream decoder: every field it acts on, read tolerantly (a value of
// another type reads as absent, the last of two equal keys counts), and streams cut
// inside escapes and UTF-8.
#include "openai/openai_stream.h"
#include "tests/providers/decoder_sink.h"

#include <gtest/gtest.h>

// Named for its vendor: the unity build puts the three vendors' files in one unit.
namespace agentrt::test::openai_decoder {
namespace {

const std::string kHead =
    R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,)"
    R"("model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[)";

std::string chunk(const std::string& choice, const std::string& usage = "null") {
  return kHead + choice + R"(],"usage":)" + usage + "}";
}

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out);

// The deltas of a stream of `chunks`, each an event, ended by [DONE].
Decoded stream_of(const std::vector<std::string>& chunks) {
  std::string body;
  for (const std::string& data : chunks) body += "data: " + data + "\n\n";
  return decode_pieces(make, {body + "data: [DONE]\n\n"});
}

// The text the stream of `chunks` answers, or the error that ended it.
std::string text_of(const std::vector<std::string>& chunks) {
  const Decoded out = stream_of(chunks);
  if (out.error) return "error " + *out.error;
  std::string text;
  for (const std::string& delta : out.deltas)
    if (delta.rfind("1:", 0) == 0) text += delta.substr(2);
  return text;
}

// The last delta of the stream of `chunks`: its finish.
std::string finish_of(const std::vector<std::string>& chunks) {
  const Decoded out = stream_of(chunks);
  return out.deltas.empty() ? "" : out.deltas.back();
}

// The usage delta of the stream of `chunks`, "" for none.
std::string usage_of(const std::vector<std::string>& chunks) {
  for (const std::string& delta : stream_of(chunks).deltas)
    if (delta.rfind("2:", 0) == 0) return delta.substr(2);
  return "";
}

TEST(OpenAiDecoder, RoleChunkContentChunkAndFinishChunk) {
  EXPECT_EQ(
      text_of(
          {chunk(
               R"({"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null})"),
           chunk(
               R"({"index":0,"delta":{"content":"Caf\u00e9 \"x\"\n\ud83c\udf0d \\o/"},"finish_reason":null})"),
           chunk(R"({"index":0,"delta":{},"finish_reason":"length"})")}),
      "Caf\xC3\xA9 \"x\"\n\xF0\x9F\x8C\x8D \\o/");
  EXPECT_EQ(finish_of({chunk(R"({"index":0,"delta":{},"finish_reason":"length"})")}),
            R"(3:{"reason":"max_tokens"})");
}

TEST(OpenAiDecoder, UsageComesFromTheUsageChunk) {
  EXPECT_EQ(usage_of({R"({"id":"c","choices":[],"usage":{"prompt_tokens":19,)"
                      R"("completion_tokens":16,"total_tokens":35,)"
                      R"("prompt_tokens_details":{"cached_tokens":0}}})"}),
            R"({"input_tokens":19,"output_tokens":16})");
  EXPECT_EQ(usage_of({R"({"choices":[],"usage":{"prompt_tokens":7}})"}),
            R"({"input_tokens":7,"output_tokens":0})");
  EXPECT_EQ(usage_of({R"({"usage":{"prompt_tokens":1.5,"completion_tokens":"2"}})"}),
            R"({"input_tokens":0,"output_tokens":0})");
  EXPECT_EQ(usage_of({R"({"usage":5})"}), "");
  EXPECT_EQ(usage_of({R"({"usage":[1]})"}), "");
}

TEST(OpenAiDecoder, OnlyObjectChoicesWithIndexZeroCount) {
  EXPECT_EQ(text_of({chunk(R"({"index":1,"delta":{"content":"b"}})")}), "");
  for (const char* index : {"0", "-0", "null", "\"1\"", "true", "0.5"})
    EXPECT_EQ(
        text_of({chunk(std::string(R"({"index":)") + index + R"(,"delta":{"content":"a"}})")}), "a")
        << index;
  EXPECT_EQ(text_of({chunk(R"({"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}},)"
                           R"({"index":0,"delta":{"content":"c"}})")}),
            "ac");
  EXPECT_EQ(text_of({chunk(R"(null,5,"x",[],{"delta":{"content":"a"}})")}), "a");
  EXPECT_EQ(text_of({R"({"choices":{"index":0,"delta":{"content":"a"}}})"}), "");
  EXPECT_EQ(text_of({R"({"choices":null})"}), "");
}

TEST(OpenAiDecoder, WrongTypesReadAsAbsent) {
  for (const char* choice :
       {R"({"delta":"text"})", R"({"delta":null})", R"({"delta":{"content":5}})",
        R"({"delta":{"content":null}})", R"({"delta":{"content":["a"]}})",
        R"({"delta":{"content":{"a":"b"}},"finish_reason":3})"}) {
    EXPECT_EQ(text_of({chunk(choice)}), "") << choice;
    EXPECT_EQ(finish_of({chunk(choice)}), R"(3:{"reason":"end_turn"})") << choice;
  }
}

TEST(OpenAiDecoder, ARepeatedKeyCountsAsItsLastOccurrence) {
  EXPECT_EQ(text_of({R"({"choices":[{"delta":{"content":"a"}}],"choices":[]})"}), "");
  EXPECT_EQ(usage_of({R"({"usage":{"prompt_tokens":1},"usage":null})"}), "");
  EXPECT_EQ(text_of({chunk(R"({"delta":{"content":"a","content":"b"}})")}), "b");
  EXPECT_EQ(text_of({chunk(R"({"delta":{"content":"a"},"delta":{}})")}), "");
  EXPECT_EQ(text_of({chunk(R"({"index":1,"index":0,"delta":{"content":"a"}})")}), "a");
  EXPECT_EQ(usage_of({R"({"usage":{"prompt_tokens":1,"prompt_tokens":2}})"}),
            R"({"input_tokens":2,"output_tokens":0})");
}

TEST(OpenAiDecoder, EscapedKeysAreTheSameKeys) {
  EXPECT_EQ(text_of({R"({"ch\u006fices":[{"\u0064elta":{"\u0063ontent":"x"}}]})"}), "x");
}

TEST(OpenAiDecoder, ErrorChunksAndWhatIsNotAJsonObjectEndTheCall) {
  for (const char* data : {R"({"error":{"message":"boom","type":"server_error"}})",
                           R"({"error":"boom"})", R"({"error":{}})"})
    EXPECT_EQ(text_of({data}).rfind("error " + std::to_string(AGENTRT_ERR_UPSTREAM) + ":", 0), 0u)
        << data;
  EXPECT_EQ(text_of({R"({"error":null,"choices":[{"delta":{"content":"a"}}]})"}), "a");
  for (const char* data : {" ", "[]", "\"x\"", "{", "{\"choices\":[}", "{} {}", "{\"a\":tru}"}) {
    const std::string result = text_of({data});
    EXPECT_NE(result.find("malformed"), std::string::npos) << data << ": " << result;
  }
}

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out) {
  return std::make_unique<providers::openai::ChunkDecoder>(out);
}

TEST(OpenAiDecoder, CutsInsideEscapesUtf8AndCrlfGiveTheSameDeltas) {
  const std::string body =
      "data: " +
      chunk(R"({"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null})") +
      "\r\n\r\n" + "data: " +
      chunk(
          R"({"index":0,"delta":{"content":"Caf\u00e9 \"\ud83c\udf0d\"\n"},"finish_reason":null})") +
      "\r\n\r\ndata: " +
      chunk("{\"index\":0,\"delta\":{\"content\":\"na\xC3\xAFve \xE2\x82\xAC\"}}") +
      "\r\n\r\ndata: " + chunk(R"({"index":0,"delta":{},"finish_reason":"length"})") +
      "\r\n\r\ndata: " + R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}})" +
      "\r\n\r\ndata: [DONE]\r\n\r\n";
  Decoded expected;
  expected.deltas = {"1:Caf\xC3\xA9 \"\xF0\x9F\x8C\x8D\"\n", "1:na\xC3\xAFve \xE2\x82\xAC",
                     R"(2:{"input_tokens":3,"output_tokens":4})", R"(3:{"reason":"max_tokens"})"};
  expect_every_cut_decodes_as(make, body, expected);
}

// A byte order mark leads the stream; a count that is not an integer is none.
TEST(OpenAiDecoder, AStreamWithAByteOrderMarkAndAFractionalCountReads) {
  Decoded out = decode_pieces(
      make, {"data: \xEF\xBB\xBF{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
             "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":1.0}}\n\n",
             "data: [DONE]\n\n"});
  EXPECT_EQ(out.deltas,
            (std::vector<std::string>{"1:a", R"(2:{"input_tokens":2,"output_tokens":0})",
                                      R"(3:{"reason":"end_turn"})"}));
  EXPECT_FALSE(out.error);
}

// Under load several events wait in the socket and arrive in one read: their fragments
// reach the sink as one delta, and an error among them still lets the text before it
// through.
TEST(OpenAiDecoder, TheFragmentsOfOneReadReachTheSinkAsOne) {
  const std::string a = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n";
  const std::string b = "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n";
  const std::string end = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
  EXPECT_EQ(decode_pieces(make, {a + b, a, end + "data: [DONE]\n\n"}).deltas,
            (std::vector<std::string>{"1:ab", "1:a", R"(3:{"reason":"end_turn"})"}));
  Decoded failed =
      decode_pieces(make, {a + b + "data: {\"error\":{\"message\":\"crash\"}}\n\n" + a});
  EXPECT_EQ(failed.deltas, std::vector<std::string>{"1:ab"});
  ASSERT_TRUE(failed.error);
  EXPECT_NE(failed.error->find("crash"), std::string::npos) << *failed.error;
}

TEST(OpenAiDecoder, AnErrorChunkEndsTheCallAfterTheTextBeforeIt) {
  Decoded out = decode_pieces(make, {"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
                                     "data: {\"error\":{\"message\":\"model crashed\"}}\n\n"});
  EXPECT_EQ(out.deltas, std::vector<std::string>{"1:a"});
  ASSERT_TRUE(out.error);
  EXPECT_NE(out.error->find("model crashed"), std::string::npos) << *out.error;
}

// Text chunks alike, and text chunks that differ in more than their text (a member that
// changes every chunk), give the same text, in one piece or a chunk at a time.
TEST(OpenAiDecoder, ChunksAlikeOrVaryingGiveTheSameText) {
  std::string framed, varying;
  for (int i = 0; i < 12; ++i) {
    const std::string text = "w" + std::to_string(i) + (i % 3 == 0 ? "\\n" : " ");
    const std::string body =
        R"({"index":0,"delta":{"content":")" + text + R"("},"logprobs":null,"finish_reason":null})";
    framed += "data: " + chunk(body) + "\n\n";
    std::string with_padding = chunk(body);
    with_padding.insert(with_padding.size() - 1,
                        R"(,"obfuscation":")" + std::string(1 + i % 5, 'x') + "\"");
    varying += "data: " + with_padding + "\n\n";
  }
  const std::string end =
      "data: " + chunk(R"({"index":0,"delta":{},"finish_reason":"stop"})") + "\n\ndata: [DONE]\n\n";
  const Decoded whole_framed = decode_pieces(make, {framed + end});
  const Decoded whole_varying = decode_pieces(make, {varying + end});
  ASSERT_FALSE(whole_framed.error);
  ASSERT_EQ(whole_framed.deltas.size(), 2u);
  EXPECT_EQ(whole_framed.deltas[0], "1:w0\nw1 w2 w3\nw4 w5 w6\nw7 w8 w9\nw10 w11 ");
  EXPECT_EQ(whole_varying, whole_framed);
  // A chunk at a time, as they come off the wire.
  std::vector<std::string> pieces;
  for (size_t at = 0; at < framed.size();) {
    const size_t next = framed.find("\n\n", at) + 2;
    pieces.push_back(framed.substr(at, next - at));
    at = next;
  }
  pieces.push_back(end);
  Decoded one_by_one = decode_pieces(make, pieces);
  ASSERT_FALSE(one_by_one.error);
  std::string text;
  for (const std::string& delta : one_by_one.deltas)
    if (delta.rfind("1:", 0) == 0) text += delta.substr(2);
  EXPECT_EQ(text, "w0\nw1 w2 w3\nw4 w5 w6\nw7 w8 w9\nw10 w11 ");
}

}  // namespace
}  // namespace agentrt::test::openai_decoder
