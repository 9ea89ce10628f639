// The Ollama stream decoder: every field it acts on, read tolerantly (a value of another
// type reads as absent, the last of two equal keys counts), and streams cut inside
// escapes and UTF-8.
#include "ollama/ollama_stream.h"
#include "tests/providers/decoder_sink.h"

#include <gtest/gtest.h>

// Named for its vendor: the unity build puts the three vendors' files in one unit.
namespace agentrt::test::ollama_decoder {
namespace {

const std::string kDone =
    R"({"model":"llama3.2","created_at":"2024-07-22T20:23:57.58Z","message":{"role":"assistant",)"
    R"("content":"!"},"done_reason":"length","done":true,"total_duration":4883583458,)"
    R"("load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,)"
    R"("eval_count":282,"eval_duration":4535599000})";

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out);

// The deltas of `lines`, one a line, or the error that ended them.
Decoded lines_of(const std::vector<std::string>& lines) {
  std::string body;
  for (const std::string& line : lines) body += line + "\n";
  return decode_pieces(make, {body});
}

TEST(OllamaDecoder, DeltaLinesAndTheDoneLine) {
  const Decoded out =
      lines_of({R"({"model":"llama3.2","created_at":"2024-07-22T20:23:56Z","message":)"
                R"({"role":"assistant","content":"Caf\u00e9 \"\ud83c\udf0d\"\n"},"done":false})",
                kDone});
  EXPECT_FALSE(out.error);
  EXPECT_EQ(out.deltas, (std::vector<std::string>{"1:Caf\xC3\xA9 \"\xF0\x9F\x8C\x8D\"\n!",
                                                  R"(2:{"input_tokens":26,"output_tokens":282})",
                                                  R"(3:{"reason":"max_tokens"})"}));
}

TEST(OllamaDecoder, OnlyTheBooleanTrueIsDone) {
  for (const char* value : {"false", "\"true\"", "1", "null", "{}"}) {
    const Decoded out = lines_of({std::string(R"({"done":)") + value + "}"});
    ASSERT_TRUE(out.error) << value;
    EXPECT_NE(out.error->find("end marker"), std::string::npos) << *out.error;
  }
  EXPECT_EQ(lines_of({R"({"done":true})"}).deltas,
            std::vector<std::string>{R"(3:{"reason":"end_turn"})"});
}

TEST(OllamaDecoder, WrongTypesReadAsAbsent) {
  EXPECT_EQ(lines_of({R"({"message":{"content":5},"done":true,"done_reason":1,)"
                      R"("prompt_eval_count":"26","eval_count":2.0})"})
                .deltas,
            std::vector<std::string>{R"(3:{"reason":"end_turn"})"});
}

TEST(OllamaDecoder, ARepeatedKeyCountsAsItsLastOccurrence) {
  EXPECT_EQ(
      lines_of(
          {R"({"message":{"content":"a"},"message":{"content":"b"},"done":false,"done":true})"})
          .deltas,
      (std::vector<std::string>{"1:b", R"(3:{"reason":"end_turn"})"}));
}

TEST(OllamaDecoder, WhatIsNotAJsonObjectEndsTheCall) {
  for (const char* line : {"[]", "\"x\"", "{\"done\":true", "{\"a\":1}x"}) {
    const Decoded out = lines_of({line});
    ASSERT_TRUE(out.error) << line;
    EXPECT_NE(out.error->find("malformed"), std::string::npos) << *out.error;
  }
}

std::unique_ptr<providers::StreamDecoder> make(providers::DeltaEmitter& out) {
  return std::make_unique<providers::ollama::ChatLineDecoder>(out);
}

TEST(OllamaDecoder, CutsInsideEscapesUtf8AndCrlfGiveTheSameDeltas) {
  const std::string body =
      R"({"model":"m","message":{"role":"assistant","content":"Caf\u00e9 \"\ud83c\udf0d\"\n"},"done":false})"
      "\r\n"
      "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"na\xC3\xAFve "
      "\xE2\x82\xAC\"},\"done\":false}\r\n" +
      kDone + "\r\n";
  Decoded expected;
  expected.deltas = {"1:Caf\xC3\xA9 \"\xF0\x9F\x8C\x8D\"\n", "1:na\xC3\xAFve \xE2\x82\xAC", "1:!",
                     R"(2:{"input_tokens":26,"output_tokens":282})",
                     R"(3:{"reason":"max_tokens"})"};
  expect_every_cut_decodes_as(make, body, expected);
}

TEST(OllamaDecoder, AnErrorLineEndsTheCallAfterTheTextBeforeIt) {
  Decoded out = decode_pieces(
      make, {"{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"error\":\"boom\"}\n"});
  EXPECT_EQ(out.deltas, std::vector<std::string>{"1:a"});
  ASSERT_TRUE(out.error);
  EXPECT_NE(out.error->find("boom"), std::string::npos);
}

}  // namespace
}  // namespace agentrt::test::ollama_decoder
