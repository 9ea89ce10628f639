// Pure rules of a run: request validation, the context window, the live registry.
#include "core/domain/errors.h"
#include "core/domain/json_text.h"
#include "core/runs/context_window.h"
#include "core/runs/live_runs.h"
#include "core/runs/run_request.h"

#include <gtest/gtest.h>

#include <thread>

namespace agentrt::core {
namespace {

using nlohmann::json;

StoredMessage text(const std::string& role, size_t bytes) {
  return text_message(role, std::string(bytes, 'x'));
}

// A message as the store gives it back: its content's text, estimated from that.
StoredMessage stored(const std::string& content_json) {
  StoredMessage m{"user", content_json};
  estimate_stored(m);
  return m;
}

TEST(ContextWindow, EstimatesFourBytesATokenPlusFraming) {
  EXPECT_EQ(estimate_tokens(text("user", 0)), 4);
  EXPECT_EQ(estimate_tokens(text("user", 1)), 5);
  EXPECT_EQ(estimate_tokens(text("user", 8)), 6);
  const StoredMessage image = stored(R"([{"type":"image_url","url":"https://x"}])");
  EXPECT_EQ(estimate_tokens(image), 260);
  EXPECT_TRUE(image.has_image);
  EXPECT_FALSE(text("user", 8).has_image);
}

// A character of three bytes counts as four: tokenizers give Chinese, Japanese and
// Korean about a token a character (docs/operator-guide.md). Two and four bytes count
// as they are.
TEST(ContextWindow, EstimatesACharacterOfThreeBytesAsFour) {
  auto message = [](const std::string& words) { return text_message("user", words); };
  std::string chinese, russian, emoji;
  for (int i = 0; i < 100; ++i) {
    chinese += "\xE4\xB8\xAD";    // 中: 3 bytes, counted 4
    russian += "\xD1\x8F";        // я: 2 bytes
    emoji += "\xF0\x9F\x98\x80";  // 😀: 4 bytes
  }
  EXPECT_EQ(estimate_tokens(message(chinese)), 4 + 100);
  EXPECT_EQ(estimate_tokens(message(russian)), 4 + 50);
  EXPECT_EQ(estimate_tokens(message(emoji)), 4 + 100);
  EXPECT_EQ(estimate_tokens(message("ab\xE4\xB8\xAD")), 4 + 2);  // 2 + 4 bytes
  for (const std::string& words : {chinese, russian, emoji, chinese + "ab" + russian}) {
    const StoredMessage m = message(words);
    EXPECT_EQ(estimate_tokens(stored(m.content_text.str())), estimate_tokens(m))
        << "a stored message is estimated as a new one";
    EXPECT_EQ(estimate_text_tokens(words) + 4, estimate_tokens(m));
  }
}

// A stored content is estimated from its texts as they read, however they were escaped;
// one that is not a JSON array is refused.
TEST(ContextWindow, AStoredContentIsEstimatedFromItsTexts) {
  const std::pair<const char*, std::string> contents[] = {
      {R"([{"text":"caf\u00e9","type":"text"}])", "caf\xc3\xa9"},
      {R"([{"text":"\/","type":"text"}])", "/"},
      {R"([{"text":"\ud83d\ude00","type":"text"}])", "\xf0\x9f\x98\x80"},
      {R"([{"text":"two","type":"text"},{"text":"parts","type":"text"}])", "two"},
      {R"([{"type":"text","text":"reordered"}])", "reordered"},
      {R"([ {"text":"spaced","type":"text"} ])", "spaced"}};
  for (const auto& [content, first_text] : contents) {
    const nlohmann::json parts = nlohmann::json::parse(content);
    int64_t expected = 4;
    for (const auto& part : parts) expected += estimate_text_tokens(part["text"]);
    EXPECT_EQ(estimate_tokens(stored(content)), expected) << content;
    EXPECT_EQ(parts[0]["text"], first_text);
  }
  for (const std::string& content : {std::string(R"([{"text":"a"b","type":"text"}])"),
                                     std::string(R"([{"text":"a\","type":"text"}])"),
                                     std::string(R"([{"text":"a\u00g0","type":"text"}])"),
                                     std::string("[{\"text\":\"a\x01\",\"type\":\"text\"}]"),
                                     std::string("[{\"text\":\"a\xff\",\"type\":\"text\"}]"),
                                     std::string(R"({"text":"an object"})")}) {
    StoredMessage m{"user", content};
    EXPECT_THROW(estimate_stored(m), std::runtime_error) << content;
  }
}

// With no max_tokens the answer still has room: a context filled to the window would
// leave it none, and vendors count it against the same window (the anthropic plugin asks
// for 4096 on top).
TEST(ContextWindow, TheAnswerHasRoomWhenTheRequestNamesNoMaxTokens) {
  EXPECT_EQ(answer_reserve(200000, std::nullopt), 4096);
  EXPECT_EQ(answer_reserve(1000, std::nullopt), 250);
  EXPECT_EQ(answer_reserve(1000, 10), 10);
  std::vector<StoredMessage> history = {text("user", 40), text("assistant", 40), text("user", 40),
                                        text("assistant", 40)};  // 14 tokens each
  std::vector<StoredMessage> fresh = {text("user", 8)};          // 6 tokens
  // A window of 80 keeps 20 for the answer: three of the history fit in 60, and the
  // oldest of them, an assistant turn, goes too.
  EXPECT_EQ(fit_context(history, fresh, 80, std::nullopt).size(), 3u);
  EXPECT_EQ(fit_context(history, fresh, 80, 0).size(), 5u);
  // The reserve only limits what may be left out: new messages that fit the window are
  // not refused for it (79 tokens, in a window of 100 keeping 25).
  EXPECT_EQ(fit_context({}, {text("user", 300)}, 100, std::nullopt).size(), 1u);
}

TEST(ContextWindow, DropsOldestFirstAndNeverTheNewMessages) {
  std::vector<StoredMessage> history = {text("user", 40), text("assistant", 40), text("user", 40),
                                        text("assistant", 40)};  // 14 tokens each
  std::vector<StoredMessage> fresh = {text("user", 8)};          // 6 tokens
  EXPECT_EQ(fit_context(history, fresh, 1000, std::nullopt).size(), 5u);
  // max_tokens 0: no room kept for the answer, so the window is all the context's.
  auto trimmed = fit_context(history, fresh, 6 + 14 * 2, 0);
  ASSERT_EQ(trimmed.size(), 3u);
  EXPECT_EQ(trimmed[0].role, "user");  // the two newest history messages
  // Room for three: the oldest kept one would be an assistant turn, so it goes too.
  trimmed = fit_context(history, fresh, 6 + 14 * 3, 0);
  ASSERT_EQ(trimmed.size(), 3u);
  EXPECT_EQ(trimmed[0].role, "user");
  EXPECT_EQ(fit_context(history, fresh, 6 + 14 * 2, 14).size(), 1u) << "max_tokens is reserved";
  EXPECT_THROW(fit_context(history, fresh, 5, std::nullopt), DomainError);
  try {
    fit_context(history, fresh, 5, std::nullopt);
  } catch (const DomainError& e) {
    // No system prompt here, so the message names none.
    EXPECT_EQ(std::string(e.what()).find("system prompt"), std::string::npos) << e.what();
  }
}

// The body `body` as POST /run sends it.
RunRequest read(const json& body) {
  return parse_run_request(body.dump());
}

TEST(RunRequest, ParsesAndRefusesByField) {
  json good = {
      {"model", "m"},
      {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "hi"}}}}}}},
      {"if_busy", "interrupt"},
      {"max_tokens", 10},
      {"temperature", 0.5}};
  RunRequest parsed = read(good);
  EXPECT_EQ(parsed.model, "m");
  EXPECT_TRUE(parsed.interrupt_if_busy);
  EXPECT_EQ(parsed.max_tokens, 10);
  for (const char* field : {"model", "messages"}) {
    json bad = good;
    bad.erase(field);
    EXPECT_THROW(read(bad), DomainError) << field;
  }
  json bad = good;
  bad["temperature"] = 3;
  EXPECT_THROW(read(bad), DomainError);
  bad = good;
  bad["messages"][0]["content"][0] = {{"type", "image_url"}, {"url", "file:///etc/passwd"}};
  EXPECT_THROW(read(bad), DomainError);
  bad["messages"][0]["content"][0] = {{"type", "image_url"}, {"url", "data:image/png;base64,AA=="}};
  RunRequest with_image = read(bad);
  EXPECT_THROW(check_model_accepts(with_image, ModelInfo{"m", 100, false}), DomainError);
  EXPECT_NO_THROW(check_model_accepts(with_image, ModelInfo{"m", 100, true}));
}

// Each malformed message or part is refused with a message naming the field, the second
// message's second part included, and a well-formed one is read as it was sent.
TEST(RunRequest, NamesTheMessageFieldItRefuses) {
  const json text_part = {{"type", "text"}, {"text", "hi"}};
  auto with_second_part = [&](const json& part) {
    return json{{"model", "m"},
                {"messages",
                 {{{"role", "user"}, {"content", {text_part}}},
                  {{"role", "assistant"}, {"content", {text_part, part}}}}}};
  };
  const std::vector<std::pair<json, std::string>> parts = {
      {json("text"), "'messages[1].content[1]' must be a JSON object"},
      {json::object(), "field 'messages[1].content[1].type' is required"},
      {{{"type", 1}}, "field 'messages[1].content[1].type' must be a string"},
      {{{"type", "text"}}, "field 'messages[1].content[1].text' is required"},
      {{{"type", "text"}, {"text", "x"}, {"url", "u"}}, "messages[1].content[1].url"},
      {{{"type", "image_url"}, {"url", "ftp://x"}},
       "field 'messages[1].content[1].url' must be an http(s) URL with a host or a "
       "data:image/<type>;base64,<data> URL"},
      {{{"type", "audio"}}, "field 'messages[1].content[1].type' must be text or image_url"}};
  for (const auto& [part, message] : parts) {
    try {
      read(with_second_part(part));
      ADD_FAILURE() << part.dump() << " was accepted";
    } catch (const DomainError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  json bad = with_second_part(text_part);
  bad["messages"][1]["name"] = "x";
  EXPECT_THROW(read(bad), DomainError) << "an unknown message field";
  bad = with_second_part(text_part);
  bad["messages"][1]["role"] = "tool";
  EXPECT_THROW(read(bad), DomainError);
  bad["messages"][1] = "hi";
  EXPECT_THROW(read(bad), DomainError);

  RunRequest parsed = read(with_second_part({{"type", "image_url"}, {"url", "https://i"}}));
  ASSERT_EQ(parsed.messages.size(), 2u);
  EXPECT_EQ(parsed.messages[1].role, "assistant");
  EXPECT_EQ(json::parse(parsed.messages[1].content_text.str()),
            json({text_part, {{"type", "image_url"}, {"url", "https://i"}}}));
}

// An inline image must be one every provider can send: base64 with a media type. Such
// a URL was once refused only by the provider, after its question was stored.
TEST(RunRequest, AnInlineImageIsBase64WithAMediaType) {
  auto with_url = [](const std::string& url) {
    return json{
        {"model", "m"},
        {"messages", {{{"role", "user"}, {"content", {{{"type", "image_url"}, {"url", url}}}}}}}};
  };
  for (const char* url :
       {"data:image/png;base64,iVBORw0KGgo=", "data:image/jpeg;name=a.jpg;base64,/9j/",
        "data:image/webp;base64,UklGR+/="})
    EXPECT_NO_THROW(read(with_url(url))) << url;
  for (const char* url :
       {"data:image/png,rawbytes", "data:image/;base64,AAAA", "data:image/;x;base64,AAAA",
        "data:image/png;base64,", "data:image/png;base64,AA AA", "data:image/png;base64,%41",
        "data:text/plain;base64,AAAA", "data:image/png;BASE64,AAAA"}) {
    try {
      read(with_url(url));
      ADD_FAILURE() << url << " was accepted";
    } catch (const DomainError& e) {
      EXPECT_NE(std::string(e.what()).find("messages[0].content[0].url"), std::string::npos)
          << e.what();
    }
  }
}

// A scheme is case-insensitive (RFC 3986 3.1): HTTPS://x was refused. It is read, and
// kept in the lower case every provider reads; a URL that names no host is refused.
TEST(RunRequest, AnImageUrlsSchemeIsReadInAnyCaseAndItsHostIsRequired) {
  auto url_of = [](const std::string& url) {
    const RunRequest parsed = read(json{
        {"model", "m"},
        {"messages", {{{"role", "user"}, {"content", {{{"type", "image_url"}, {"url", url}}}}}}}});
    return json::parse(parsed.messages[0].content_text.str())[0]["url"].get<std::string>();
  };
  EXPECT_EQ(url_of("HTTPS://Example.com/A.png"), "https://Example.com/A.png");
  EXPECT_EQ(url_of("Http://h"), "http://h");
  EXPECT_EQ(url_of("DATA:image/png;base64,AA=="), "data:image/png;base64,AA==");
  EXPECT_EQ(url_of("https://h/x"), "https://h/x");
  for (const char* url : {"http://", "https://", "https:///x", "http://?q", "http://#f", "https:/h",
                          "https:h", "httpsx://h"})
    EXPECT_THROW(url_of(url), DomainError) << url;
}

TEST(SessionIds, Shape) {
  EXPECT_TRUE(valid_session_id("ses_abc-1.2:3"));
  EXPECT_FALSE(valid_session_id(""));
  EXPECT_FALSE(valid_session_id("a b"));
  EXPECT_FALSE(valid_session_id("a/b"));
  EXPECT_FALSE(valid_session_id(std::string(129, 'a')));
  // Dot-segments: a client sends GET /sessions/../messages as /messages.
  EXPECT_FALSE(valid_session_id("."));
  EXPECT_FALSE(valid_session_id(".."));
  EXPECT_TRUE(valid_session_id("..."));
  EXPECT_TRUE(valid_session_id(".a"));
}

TEST(LiveRuns, OneRunPerSessionAndFollowersSeeEverything) {
  LiveRuns registry;
  auto run = registry.start("r1", "c", "s", "alice");
  ASSERT_TRUE(run);
  EXPECT_FALSE(registry.start("r2", "c", "s", "alice")) << "the session is busy";
  EXPECT_TRUE(registry.start("r3", "c", "other", "alice"));
  EXPECT_EQ(registry.on_session("c", "s"), run);

  std::vector<json> seen;
  std::thread follower([&] {
    run->follow(
        0,
        [&](const std::string& e, int64_t seq) {
          seen.push_back(json::parse(e));
          EXPECT_EQ(seen.back()["seq"], seq);
          return true;
        },
        [] { return true; }, std::chrono::milliseconds(10));
  });
  for (int i = 0; i < 5; ++i) run->append({{"type", "stream_delta"}});
  run->finish();
  follower.join();
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen.back()["seq"], 5);
  registry.remove(*run);
  EXPECT_TRUE(registry.start("r4", "c", "s", "alice")) << "free again once removed";
}

TEST(LiveRuns, EventsJsonIsTheStampedEventsAsOneArray) {
  LiveRuns registry;
  auto run = registry.start("r1", "c", "s", "a");
  EXPECT_EQ(run->events_json(), "[]");
  run->append({{"type", "run_start"}});
  run->append({{"type", "stream_delta"}, {"content", "a \"quoted\" \u00e9"}});
  json events = json::parse(run->events_json());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], (json{{"type", "run_start"}, {"seq", 1}}));
  EXPECT_EQ(events[1],
            (json{{"type", "stream_delta"}, {"content", "a \"quoted\" \u00e9"}, {"seq", 2}}));
}

TEST(LiveRuns, CancelAndWait) {
  LiveRuns registry;
  auto run = registry.start("r1", "c", "s", "a");
  EXPECT_FALSE(run->cancelled());
  run->cancel();
  EXPECT_TRUE(run->cancelled());
  EXPECT_FALSE(run->wait_finished(std::chrono::milliseconds(10)));
  std::thread finisher([&] { run->finish(); });
  EXPECT_TRUE(run->wait_finished(std::chrono::seconds(5)));
  finisher.join();
}

}  // namespace
}  // namespace agentrt::core
