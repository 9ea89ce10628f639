// The OpenAI chunk readers: every field the decoder acts on, read the same by the
// fast scan and by nlohmann, and the decoder fed streams cut inside escapes and UTF-8.
#include "openai/openai_stream.h"
#include "tests/providers/decoder_sink.h"
#include "tests/providers/fields_check.h"

// Named for its vendor: the unity build puts the three vendors' files in one unit.
namespace agentrt::test::openai_fields {
namespace {

using providers::Usage;
using providers::openai::ChunkFields;

::testing::AssertionResult same(const std::string& data, Path path = Path::either) {
  return same_fields<ChunkFields>(providers::openai::scan_chunk, providers::openai::read_chunk,
                                  data, path);
}

// The fields of an event the scan must read itself.
ChunkFields fast(const std::string& text) {
  const std::string& data = kept(text);
  ChunkFields fields;
  EXPECT_TRUE(providers::openai::scan_chunk(data, fields)) << data;
  EXPECT_TRUE(same(data, Path::fast));
  return fields;
}

std::vector<std::string> contents(const ChunkFields& fields) {
  std::vector<std::string> out;
  for (const ChunkFields::Choice& c : fields.choices) out.emplace_back(c.content.view());
  return out;
}

const std::string kHead =
    R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,)"
    R"("model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[)";

std::string chunk(const std::string& choice, const std::string& usage = "null") {
  return kHead + choice + R"(],"usage":)" + usage + "}";
}

TEST(OpenAiFields, RoleChunkContentChunkAndFinishChunk) {
  ChunkFields role = fast(chunk(
      R"({"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null})"));
  EXPECT_EQ(contents(role), std::vector<std::string>{""});
  EXPECT_EQ(role.choices[0].finish_reason.view(), "");
  EXPECT_FALSE(role.usage);

  ChunkFields text = fast(chunk(
      R"({"index":0,"delta":{"content":"Caf\u00e9 \"x\"\n\ud83c\udf0d \\o/"},"finish_reason":null})"));
  EXPECT_EQ(contents(text), std::vector<std::string>{"Caf\xC3\xA9 \"x\"\n\xF0\x9F\x8C\x8D \\o/"});

  ChunkFields finish = fast(chunk(R"({"index":0,"delta":{},"finish_reason":"length"})"));
  EXPECT_EQ(contents(finish), std::vector<std::string>{""});
  EXPECT_EQ(finish.choices[0].finish_reason.view(), "length");
}

TEST(OpenAiFields, UsageChunkHasNoChoices) {
  ChunkFields usage = fast(R"({"id":"c","choices":[],"usage":{"prompt_tokens":19,)"
                           R"("completion_tokens":16,"total_tokens":35,)"
                           R"("prompt_tokens_details":{"cached_tokens":0}}})");
  EXPECT_TRUE(usage.choices.empty());
  EXPECT_EQ(usage.usage, (Usage{19, 16}));
  EXPECT_EQ(fast(R"({"choices":[],"usage":{"prompt_tokens":7}})").usage, (Usage{7, 0}));
  EXPECT_EQ(fast(R"({"usage":{"prompt_tokens":1.5,"completion_tokens":"2"}})").usage,
            (Usage{0, 0}));
  EXPECT_FALSE(fast(R"({"usage":5})").usage);
  EXPECT_FALSE(fast(R"({"usage":[1]})").usage);
}

TEST(OpenAiFields, OnlyObjectChoicesWithIndexZeroCount) {
  EXPECT_TRUE(fast(chunk(R"({"index":1,"delta":{"content":"b"}})")).choices.empty());
  for (const char* index : {"0", "-0", "null", "\"1\"", "true", "0.5"})
    EXPECT_EQ(
        contents(fast(chunk(std::string(R"({"index":)") + index + R"(,"delta":{"content":"a"}})"))),
        std::vector<std::string>{"a"})
        << index;
  EXPECT_EQ(contents(fast(chunk(R"({"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}},)"
                                R"({"index":0,"delta":{"content":"c"}})"))),
            (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(contents(fast(chunk(R"(null,5,"x",[],{"delta":{"content":"a"}})"))),
            std::vector<std::string>{"a"});
  EXPECT_TRUE(fast(R"({"choices":{"index":0,"delta":{"content":"a"}}})").choices.empty());
  EXPECT_TRUE(fast(R"({"choices":null})").choices.empty());
}

TEST(OpenAiFields, WrongTypesReadAsAbsent) {
  for (const char* choice :
       {R"({"delta":"text"})", R"({"delta":null})", R"({"delta":{"content":5}})",
        R"({"delta":{"content":null}})", R"({"delta":{"content":["a"]}})",
        R"({"delta":{"content":{"a":"b"}},"finish_reason":3})"}) {
    ChunkFields f = fast(chunk(choice));
    EXPECT_EQ(contents(f), std::vector<std::string>{""}) << choice;
    EXPECT_EQ(f.choices[0].finish_reason.view(), "") << choice;
  }
}

TEST(OpenAiFields, ARepeatedKeyCountsAsItsLastOccurrence) {
  EXPECT_TRUE(fast(R"({"choices":[{"delta":{"content":"a"}}],"choices":[]})").choices.empty());
  EXPECT_FALSE(fast(R"({"usage":{"prompt_tokens":1},"usage":null})").usage);
  EXPECT_EQ(contents(fast(chunk(R"({"delta":{"content":"a","content":"b"}})"))),
            std::vector<std::string>{"b"});
  EXPECT_EQ(contents(fast(chunk(R"({"delta":{"content":"a"},"delta":{}})"))),
            std::vector<std::string>{""});
  EXPECT_EQ(contents(fast(chunk(R"({"index":1,"index":0,"delta":{"content":"a"}})"))),
            std::vector<std::string>{"a"});
  EXPECT_EQ(fast(R"({"usage":{"prompt_tokens":1,"prompt_tokens":2}})").usage, (Usage{2, 0}));
}

TEST(OpenAiFields, EscapedKeysAreTheSameKeys) {
  EXPECT_EQ(contents(fast(R"({"ch\u006fices":[{"\u0064elta":{"\u0063ontent":"x"}}]})")),
            std::vector<std::string>{"x"});
}

TEST(OpenAiFields, ErrorChunksAndNonObjectsGoToTheReference) {
  ChunkFields f;
  for (const char* data : {R"({"error":{"message":"boom","type":"server_error"}})",
                           R"({"error":"boom"})", R"({"error":{}})"}) {
    EXPECT_FALSE(providers::openai::scan_chunk(data, f)) << data;
    EXPECT_THROW(providers::openai::read_chunk(data, f), sdk::Error) << data;
  }
  EXPECT_TRUE(same(R"({"error":null,"choices":[{"delta":{"content":"a"}}]})", Path::fast));
  for (const char* data : {"", " ", "[]", "\"x\"", "{", "{\"choices\":[}", "[DONE]", "{} {}"}) {
    EXPECT_FALSE(providers::openai::scan_chunk(data, f)) << data;
    EXPECT_THROW(providers::openai::read_chunk(data, f), sdk::Error) << data;
  }
}

TEST(OpenAiFields, WhatTheScanLeavesToNlohmannStillReads) {
  // A byte order mark, an exponent, an integer beyond 18 digits: nlohmann's call.
  ChunkFields f;
  for (const char* data : {"\xEF\xBB\xBF{\"choices\":[]}", R"({"usage":{"prompt_tokens":1e2}})",
                           R"({"usage":{"prompt_tokens":12345678901234567890}})"}) {
    EXPECT_FALSE(providers::openai::scan_chunk(data, f)) << data;
    EXPECT_NO_THROW(providers::openai::read_chunk(data, f)) << data;
  }
}

TEST(OpenAiFields, MutatedChunksReadTheSameOrGoToTheReference) {
  const std::vector<std::string> seeds = {
      chunk(
          R"({"index":0,"delta":{"content":"Caf\u00e9 \"x\"\n\ud83c\udf0d"},"logprobs":null,"finish_reason":null})"),
      chunk(R"({"index":0,"delta":{},"finish_reason":"stop"})"),
      R"({"id":"c","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":16}})",
      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"na\xC3\xAFve \xF0\x9F\x98\x80\"}}]}"};
  EXPECT_GT((compare_mutations<ChunkFields>(providers::openai::scan_chunk,
                                            providers::openai::read_chunk, seeds, 30000)),
            5000u);
}

// A stream's chunks repeat their head (id, object, created, model, fingerprint): the
// scan keeps it from one chunk and compares it in the next instead of scanning it.
TEST(OpenAiFields, AStreamsRepeatedHeadIsKeptAndWhatFollowsItReadAsAWhole) {
  providers::openai::ChunkHead head;
  ChunkFields fields;
  const std::string& first =
      kept(chunk(R"({"index":0,"delta":{"content":"a"},"finish_reason":null})"));
  ASSERT_TRUE(providers::openai::scan_stream_chunk(first, fields, head));
  EXPECT_EQ(head, kHead.substr(0, kHead.size() - std::string(R"(,"choices":[)").size()));
  EXPECT_EQ(contents(fields), std::vector<std::string>{"a"});

  const std::string& second =
      kept(chunk(R"({"index":0,"delta":{"content":"b"},"finish_reason":"stop"})",
                 R"({"prompt_tokens":3,"completion_tokens":1})"));
  ASSERT_TRUE(providers::openai::scan_stream_chunk(second, fields, head));
  EXPECT_EQ(contents(fields), std::vector<std::string>{"b"});
  EXPECT_EQ(fields.choices[0].finish_reason.view(), "stop");
  EXPECT_EQ(fields.usage, (Usage{3, 1}));

  // After the head: the same rules as a whole chunk's (a trailing comma, a byte that
  // goes on from the head's last value, trailing bytes, an error member).
  for (const std::string& tail : {std::string(",}"), std::string("5}"), std::string("}x"),
                                  std::string(R"(,"error":{"message":"m"}})")}) {
    ChunkFields after;
    EXPECT_FALSE(providers::openai::scan_stream_chunk(kept(head + tail), after, head)) << tail;
  }
  ChunkFields bare;
  EXPECT_TRUE(providers::openai::scan_stream_chunk(kept(head + " }"), bare, head));
  EXPECT_TRUE(bare.choices.empty());

  // Another head is scanned whole, and kept in its turn; one without members before
  // "choices" keeps none.
  const std::string& other = kept(R"({"id":"x","choices":[{"delta":{"content":"c"}}]})");
  ASSERT_TRUE(providers::openai::scan_stream_chunk(other, fields, head));
  EXPECT_EQ(head, R"({"id":"x")");
  EXPECT_EQ(contents(fields), std::vector<std::string>{"c"});
  // A head that ends in a number: a chunk whose number goes on is not that head.
  ASSERT_TRUE(providers::openai::scan_stream_chunk(kept(R"({"id":"n","created":17,"choices":[]})"),
                                                   fields, head));
  EXPECT_EQ(head, R"({"id":"n","created":17)");
  EXPECT_FALSE(providers::openai::scan_stream_chunk(
      kept(R"({"id":"n","created":175,"choices":[]})"), fields, head));
  providers::openai::ChunkHead none;
  ASSERT_TRUE(
      providers::openai::scan_stream_chunk(kept(R"({"choices":[],"id":"y"})"), fields, none));
  EXPECT_TRUE(none.empty());
}

// Every mutation of a chunk that starts with a kept head reads as nlohmann reads it, or
// goes to nlohmann: with the head an unmutated chunk gave, and with the head each
// chunk before it gave, as in a stream.
TEST(OpenAiFields, MutatedChunksAfterAKeptHeadReadTheSameOrGoToTheReference) {
  const std::vector<std::string> seeds = {
      chunk(R"({"index":0,"delta":{"content":"Caf\u00e9 \"x\"\n"},"finish_reason":null})"),
      chunk(R"({"index":0,"delta":{},"finish_reason":"stop"})", R"({"prompt_tokens":1})"),
      kHead + R"(]})"};
  providers::openai::ChunkHead from_seed;
  ChunkFields fields;
  ASSERT_TRUE(providers::openai::scan_stream_chunk(seeds[0], fields, from_seed));
  ASSERT_FALSE(from_seed.empty());
  auto with_seeds_head = [&](std::string_view data, ChunkFields& out) {
    providers::openai::ChunkHead head = from_seed;
    return providers::openai::scan_stream_chunk(data, out, head);
  };
  EXPECT_GT((compare_mutations<ChunkFields>(with_seeds_head, providers::openai::read_chunk, seeds,
                                            30000)),
            5000u);
  providers::openai::ChunkHead streamed;
  auto as_a_stream = [&](std::string_view data, ChunkFields& out) {
    return providers::openai::scan_stream_chunk(data, out, streamed);
  };
  EXPECT_GT(
      (compare_mutations<ChunkFields>(as_a_stream, providers::openai::read_chunk, seeds, 30000)),
      5000u);
}

// A stream's text chunks differ only in their text: a chunk that is a learned frame's
// bytes around one value is read with two comparisons, as the whole scan reads it.
TEST(OpenAiFields, AFramedChunkReadsAsTheChunkItWasLearnedFrom) {
  using providers::openai::ContentFrame;
  using providers::openai::learn_frame;
  using providers::openai::scan_framed_chunk;
  const std::string tail = R"(},"logprobs":null,"finish_reason":null})";
  auto text_chunk = [&](const std::string& content) {
    return kept(chunk(R"({"index":0,"delta":{"content":)" + content + tail));
  };
  ContentFrame frame;
  ChunkFields fields;
  const std::string& first = text_chunk(R"("w0 ")");
  ASSERT_TRUE(providers::openai::scan_chunk(first, fields));
  learn_frame(first, fields, frame);
  EXPECT_EQ(frame.before, kHead + R"({"index":0,"delta":{"content":)");
  EXPECT_EQ(frame.after, tail + R"(],"usage":null})");

  for (const std::string& value :
       {std::string(R"("w1 ")"), std::string(R"("a \"quoted\"\nline \u00e9 \ud83c\udf0d")"),
        std::string(R"("")"), std::string(R"( "spaced" )"), std::string("null"), std::string("17"),
        std::string(R"({"nested":["x"]})")}) {
    const std::string& data = text_chunk(value);
    ChunkFields framed;
    EXPECT_TRUE(scan_framed_chunk(data, framed, frame)) << value;
    EXPECT_TRUE(same(data)) << value;
    ChunkFields whole;
    ASSERT_TRUE(providers::openai::scan_chunk(data, whole)) << value;
    EXPECT_TRUE(framed == whole) << value;
  }
  // Not one value, or not valid: the frame gives up and the whole scan decides.
  for (const std::string& value :
       {std::string(R"("a","b")"), std::string(R"("a"}, {"x":"b")"), std::string(R"("unended)"),
        std::string("\"bad \x01 control\""), std::string(R"("bad \q escape")"),
        std::string("\"\xC3\""), std::string(""), std::string(" ")}) {
    ChunkFields framed;
    EXPECT_FALSE(scan_framed_chunk(text_chunk(value), framed, frame)) << value;
    EXPECT_TRUE(framed.choices.empty()) << value;
  }
  // Other bytes around the text: the frame is not theirs.
  ChunkFields other;
  EXPECT_FALSE(scan_framed_chunk(
      kept(chunk(R"({"index":0,"delta":{"content":"x"},"finish_reason":"stop"})")), other, frame));
  EXPECT_FALSE(
      scan_framed_chunk(kept(chunk(R"({"index":1,"delta":{"content":"x"}})")), other, frame));

  // Learned only from one choice with text read where it stands, no finish_reason and
  // no usage.
  for (const std::string& data :
       {chunk(R"({"index":0,"delta":{"content":"x"},"finish_reason":"stop"})"),
        chunk(R"({"index":0,"delta":{"content":"x"}})", R"({"prompt_tokens":1})"),
        chunk(R"({"index":0,"delta":{"content":"x"}},{"index":0,"delta":{"content":"y"}})"),
        chunk(R"({"index":0,"delta":{"content":"esc\napes"}})"),
        chunk(R"({"index":0,"delta":{"content":""}})"), chunk(R"({"index":1,"delta":{}})")}) {
    ContentFrame none;
    ChunkFields read;
    const std::string& text = kept(data);
    ASSERT_TRUE(providers::openai::scan_chunk(text, read)) << data;
    learn_frame(text, read, none);
    EXPECT_TRUE(none.before.empty() && none.after.empty()) << data;
  }
}

// Every mutation of a chunk read through a frame (learned from an unmutated chunk, or
// from the chunks before it, as in a stream) reads as nlohmann reads it, or goes to the
// whole scan.
TEST(OpenAiFields, MutatedChunksThroughAFrameReadTheSameOrGoToTheReference) {
  const std::vector<std::string> seeds = {
      chunk(R"({"index":0,"delta":{"content":"Caf\u00e9 \"x\"\n"},"logprobs":null,)"
            R"("finish_reason":null})"),
      chunk(R"({"index":0,"delta":{"content":"plain text of a line or two, as a model )"
            R"(streams it when it has a lot to say"},"logprobs":null,"finish_reason":null})"),
      chunk(R"({"index":0,"delta":{"content":"w"},"finish_reason":null},)"
            R"({"index":1,"delta":{"content":"v"}})")};
  providers::openai::ContentFrame from_seed;
  ChunkFields fields;
  ASSERT_TRUE(providers::openai::scan_chunk(seeds[1], fields));
  providers::openai::learn_frame(seeds[1], fields, from_seed);
  ASSERT_FALSE(from_seed.before.empty());
  size_t framed = 0;
  auto with_seeds_frame = [&](std::string_view data, ChunkFields& out) {
    if (!providers::openai::scan_framed_chunk(data, out, from_seed)) return false;
    ++framed;
    return true;
  };
  compare_mutations<ChunkFields>(with_seeds_frame, providers::openai::read_chunk, seeds, 30000);
  EXPECT_GT(framed, 1000u) << "mutations inside the text read through the frame";

  providers::openai::ContentFrame frame;
  providers::openai::ChunkHead head;
  auto as_a_stream = [&](std::string_view data, ChunkFields& out) {
    if (providers::openai::scan_framed_chunk(data, out, frame)) return true;
    if (!providers::openai::scan_stream_chunk(data, out, head)) return false;
    providers::openai::learn_frame(data, out, frame);
    return true;
  };
  EXPECT_GT(
      (compare_mutations<ChunkFields>(as_a_stream, providers::openai::read_chunk, seeds, 30000)),
      5000u);
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

TEST(OpenAiDecoder, AChunkOnlyNlohmannReadsStillCounts) {
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

// Text chunks that differ in more than their text (a member that changes every chunk)
// never fit a frame: each is read whole, and after a few the stream stops learning one.
// Text chunks alike read through the frame give the same deltas as read whole.
TEST(OpenAiDecoder, ChunksThatAFrameFitsOrNotGiveTheSameDeltas) {
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
}  // namespace agentrt::test::openai_fields
