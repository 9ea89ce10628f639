// The Ollama line readers: every field the decoder acts on, read the same by the fast
// scan and by nlohmann, and the decoder fed streams cut inside escapes and UTF-8.
#include "ollama/ollama_stream.h"
#include "tests/providers/decoder_sink.h"
#include "tests/providers/fields_check.h"

// Named for its vendor: the unity build puts the three vendors' files in one unit.
namespace agentrt::test::ollama_fields {
namespace {

using providers::ollama::LineFields;

::testing::AssertionResult same(const std::string& data, Path path = Path::either) {
  return same_fields<LineFields>(providers::ollama::scan_line, providers::ollama::read_line, data,
                                 path);
}

// The fields of an event the scan must read itself.
LineFields fast(const std::string& text) {
  const std::string& data = kept(text);
  LineFields fields;
  EXPECT_TRUE(providers::ollama::scan_line(data, fields)) << data;
  EXPECT_TRUE(same(data, Path::fast));
  return fields;
}

const std::string kDone =
    R"({"model":"llama3.2","created_at":"2024-07-22T20:23:57.58Z","message":{"role":"assistant",)"
    R"("content":"!"},"done_reason":"length","done":true,"total_duration":4883583458,)"
    R"("load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,)"
    R"("eval_count":282,"eval_duration":4535599000})";

TEST(OllamaFields, ADeltaLineAndTheDoneLine) {
  LineFields delta =
      fast(R"({"model":"llama3.2","created_at":"2024-07-22T20:23:56Z","message":)"
           R"({"role":"assistant","content":"Caf\u00e9 \"\ud83c\udf0d\"\n"},"done":false})");
  EXPECT_EQ(delta.content.view(), "Caf\xC3\xA9 \"\xF0\x9F\x8C\x8D\"\n");
  EXPECT_FALSE(delta.done);
  EXPECT_FALSE(delta.prompt_eval_count);
  EXPECT_FALSE(delta.eval_count);

  LineFields done = fast(kDone);
  EXPECT_EQ(done.content.view(), "!");
  EXPECT_TRUE(done.done);
  EXPECT_EQ(done.done_reason.view(), "length");
  EXPECT_EQ(done.prompt_eval_count, 26);
  EXPECT_EQ(done.eval_count, 282);
}

TEST(OllamaFields, OnlyTheBooleanTrueIsDone) {
  for (const char* value : {"false", "\"true\"", "1", "null", "{}"})
    EXPECT_FALSE(fast(std::string(R"({"done":)") + value + "}").done) << value;
  EXPECT_TRUE(fast(R"({"done":true})").done);
}

TEST(OllamaFields, WrongTypesReadAsAbsent) {
  LineFields f = fast(R"({"message":{"content":5},"done":true,"done_reason":1,)"
                      R"("prompt_eval_count":"26","eval_count":2.0})");
  EXPECT_EQ(f.content.view(), "");
  EXPECT_EQ(f.done_reason.view(), "");
  EXPECT_FALSE(f.prompt_eval_count);
  EXPECT_FALSE(f.eval_count);
  EXPECT_EQ(fast(R"({"message":"hi"})").content.view(), "");
  EXPECT_EQ(fast(R"({"message":null})").content.view(), "");
}

TEST(OllamaFields, ARepeatedKeyCountsAsItsLastOccurrence) {
  EXPECT_FALSE(fast(R"({"done":true,"done":false})").done);
  EXPECT_EQ(fast(R"({"message":{"content":"a"},"message":{}})").content.view(), "");
  EXPECT_FALSE(fast(R"({"eval_count":3,"eval_count":null})").eval_count);
}

TEST(OllamaFields, ErrorLinesAndNonObjectsGoToTheReference) {
  LineFields f;
  for (const char* data :
       {R"({"error":"llama runner process has terminated"})", R"({"error":{"message":"x"}})"}) {
    EXPECT_FALSE(providers::ollama::scan_line(data, f)) << data;
    EXPECT_THROW(providers::ollama::read_line(data, f), sdk::Error) << data;
  }
  EXPECT_TRUE(same(R"({"error":null,"message":{"content":"a"}})", Path::fast));
  for (const char* data : {"[]", "x", "{\"message\":", "{}{}"}) {
    EXPECT_FALSE(providers::ollama::scan_line(data, f)) << data;
    EXPECT_THROW(providers::ollama::read_line(data, f), sdk::Error) << data;
  }
}

TEST(OllamaFields, MutatedLinesReadTheSameOrGoToTheReference) {
  const std::vector<std::string> seeds = {
      kDone,
      R"({"model":"m","message":{"role":"assistant","content":"H\u00e9\n\"q\" \ud83d\ude00"},"done":false})",
      "{\"message\":{\"content\":\"na\xC3\xAFve \xE2\x82\xAC\"},\"done\":false}"};
  EXPECT_GT((compare_mutations<LineFields>(providers::ollama::scan_line,
                                           providers::ollama::read_line, seeds, 30000)),
            5000u);
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
}  // namespace agentrt::test::ollama_fields
