// The provider plugins as agentd uses them, against fake upstreams that speak each
// vendor's real wire format and misbehave on request: answers, split chunks, retries,
// failures, hangs, resets, malformed streams, interrupts and departed clients, for
// /run and /chat, checking events, stored messages and usage.
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class Vendors : public ::testing::TestWithParam<Vendor> {};

TEST_P(Vendors, AnswersStreamWithTheUpstreamsUsage) {
  VendorSetup s(GetParam());
  s.fake.set_default(Reply::answer("Grüße aus dem Test 🌍", 5));
  auto events = run_events(s, s.body("hi", {{"session_id", "v1"}}));
  EXPECT_EQ(joined_text(events), "Grüße aus dem Test 🌍");
  EXPECT_EQ(events.back()["reason"], "end_turn");
  EXPECT_EQ(events.back()["usage"], (json{{"input_tokens", 12}, {"output_tokens", 5}}));
  EXPECT_EQ(s.fake.last_request().json()["model"], vendor_model(GetParam()));
  auto stored = session_messages(s, "v1");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[1]["content"][0]["text"], "Grüße aus dem Test 🌍");

  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("again"));
  ASSERT_EQ(chat.status, 200) << chat.body;
  EXPECT_EQ(chat.json()["response"], "Grüße aus dem Test 🌍");
  EXPECT_EQ(chat.json()["usage"]["output_tokens"], 5);
}

// The vendor's own word for an answer cut by the token limit reaches the client as
// "max_tokens", in the stream's done event and in /chat's answer.
TEST_P(Vendors, AnAnswerCutByTheTokenLimitEndsWithMaxTokens) {
  VendorSetup s(GetParam());
  Reply reply = Reply::answer("cut short", 2);
  reply.finish = GetParam() == Vendor::anthropic ? "max_tokens" : "length";
  s.fake.set_default(reply);
  auto events = run_events(s, s.body("x"));
  EXPECT_EQ(joined_text(events), "cut short");
  EXPECT_EQ(events.back()["reason"], "max_tokens");
  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("again"));
  ASSERT_EQ(chat.status, 200) << chat.body;
  EXPECT_EQ(chat.json()["reason"], "max_tokens");
}

// A vendor's other stop words reach the client as one of the API's four reasons: a
// content filter, a refusal or a tool call ends the turn, a stop at the context window
// is max_tokens. They once went through as the vendor spelled them.
TEST_P(Vendors, AVendorsOtherStopWordsBecomeTheAPIsReasons) {
  VendorSetup s(GetParam());
  std::vector<std::pair<std::string, std::string>> words;
  switch (GetParam()) {
    case Vendor::openai:
      words = {{"content_filter", "end_turn"}, {"tool_calls", "end_turn"}};
      break;
    case Vendor::anthropic:
      words = {{"refusal", "end_turn"},
               {"pause_turn", "end_turn"},
               {"tool_use", "end_turn"},
               {"model_context_window_exceeded", "max_tokens"}};
      break;
    case Vendor::ollama:
      words = {{"load", "end_turn"}, {"unload", "end_turn"}};
      break;
  }
  for (const auto& [word, reason] : words) {
    Reply reply = Reply::answer("some answer", 2);
    reply.finish = word;
    s.fake.set_default(reply);
    auto events = run_events(s, s.body("x"));
    EXPECT_EQ(events.back()["reason"], reason) << word;
    auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("again"));
    ASSERT_EQ(chat.status, 200) << chat.body;
    EXPECT_EQ(chat.json()["reason"], reason) << word;
    // The plugin's word, which for openai's tool_calls is tool_use.
    const std::string logged = word == "tool_calls" ? "tool_use" : word;
    EXPECT_TRUE(s.agentd.wait_for_log([&](const json& line) {
      return line.value("finish_reason", "") == logged && line.value("reason", "") == reason;
    })) << word;
  }
}

// Anthropic counts the input (with its cache reads and writes) when the answer starts:
// a stream that fails or is cut after that reports the upstream's count, not agentd's
// estimate, which once replaced it (5 where the upstream said 1113 with a cache). The
// other vendors count at the end only.
TEST(VendorUsage, AnAnthropicStreamThatFailsLateKeepsTheInputItCounted) {
  VendorSetup s(Vendor::anthropic);
  for (Reply reply : {Reply::error_event_after(2, "api_error"), Reply::truncated_after(2)}) {
    reply.usage = FakeUsage{40, 9, 300, 60};
    s.fake.set_default(reply);
    auto events = open_run(s.agentd, s.admin, s.body("x"))->rest();
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back()["reason"], "error");
    EXPECT_EQ(events.back()["usage"]["input_tokens"], 400) << "40 + 300 + 60";
  }
}

// A request a provider cannot send as it is (an image link: ollama takes image bytes
// only) is refused before its run, 400 and nothing stored, on /chat and /run alike. It
// once failed as a provider error with its question stored, and that question then
// failed every later run of the session.
// A key reference that does not resolve (a variable unset, a key file gone) is explained
// in the log, not to the client: the client would learn the server's variable name or
// path, and the operator nothing from a request's log line with no reason. The client is
// pointed at the log.
// An unset variable, and a file of several lines, which is no key: read as one, it would
// fail later, as "a request header holds a line break", telling the file's shape.
TEST(VendorKeys, AKeyThatDoesNotResolveIsExplainedInTheLogNotToTheClient) {
  FakeUpstream fake(Vendor::openai);
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  // Inside the fence: the secrets directory (the data dir's, with no config file) and
  // the prefix (tests/api/admin_secrets_test.cpp has the fence's own tests).
  const std::string variable = "AGENTRT_SECRET_TEST_UNSET_KEY_7F3A";
  std::filesystem::create_directory(agentd.data_dir() + "/secrets");
  const std::string lines = agentd.data_dir() + "/secrets/two-lines.key";
  std::ofstream(lines) << "root:x:0:0:root\nbin:x:1:1:bin\n";
  json provider = {{"name", "keyless"},
                   {"type", "openai"},
                   {"base_url", fake.base_url()},
                   {"api_key_ref", {{"source", "env"}, {"value", variable}}},
                   {"models", {{{"id", "keyless-model"}, {"context_window", 4096}}}}};
  json shaped = provider;
  shaped["name"] = "shaped";
  shaped["api_key_ref"] = {{"source", "file"}, {"value", lines}};
  shaped["models"][0]["id"] = "shaped-model";
  ASSERT_EQ(
      call(agentd, "POST", "/admin/shared-providers", admin, {{"providers", {provider, shaped}}})
          .status,
      200);
  auto refused = call(agentd, "POST", "/chat", admin, run_body("hi", {{"model", "shaped-model"}}));
  EXPECT_GE(refused.status, 500) << refused.body;
  EXPECT_NE(refused.body.find("agentd's log says why"), std::string::npos) << refused.body;
  EXPECT_EQ(refused.body.find("line break"), std::string::npos) << refused.body;
  EXPECT_TRUE(agentd.wait_for_log([&](const json& line) {
    return line.value("msg", "") == "a secret reference did not resolve" &&
           line.value("reason", "").find("two-lines.key") != std::string::npos;
  })) << agentd.stderr_text();
  auto chat = call(agentd, "POST", "/chat", admin, run_body("hi", {{"model", "keyless-model"}}));
  EXPECT_GE(chat.status, 500) << chat.body;
  EXPECT_EQ(chat.body.find(variable), std::string::npos) << chat.body;
  EXPECT_NE(chat.body.find("agentd's log says why"), std::string::npos) << chat.body;
  EXPECT_TRUE(agentd.wait_for_log([&](const json& line) {
    return line.value("msg", "") == "a secret reference did not resolve" &&
           line.value("plugin", "") == "openai" &&
           line.value("reason", "").find(variable) != std::string::npos;
  })) << agentd.stderr_text();
  EXPECT_TRUE(agentd.wait_for_log([&](const json& line) {
    return line.value("msg", "") == "request" && line.value("path", "") == "/chat" &&
           line.contains("error_code") &&
           line.value("error", "").find("did not resolve") != std::string::npos;
  })) << agentd.stderr_text();
  EXPECT_EQ(fake.request_count(), 0u);
}

TEST(VendorRefusal, AnImageLinkToOllamaIsRefusedAndLeavesNothingBehind) {
  VendorSetup s(Vendor::ollama);
  s.fake.set_default(Reply::answer("fine", 1));
  ASSERT_EQ(
      call(s.agentd, "POST", "/chat", s.admin, s.body("hello", {{"session_id", "pics"}})).status,
      200);
  json body = s.body("what is this?", {{"session_id", "pics"}});
  body["messages"][0]["content"].push_back(
      {{"type", "image_url"}, {"url", "https://example.com/a.png"}});
  auto chat = call(s.agentd, "POST", "/chat", s.admin, body);
  EXPECT_EQ(chat.status, 400) << chat.body;
  EXPECT_EQ(chat.json()["error"]["code"], "invalid_request");
  EXPECT_NE(chat.body.find("cannot take this request: ollama takes images only as data: URLs"),
            std::string::npos)
      << chat.body;
  auto stream = open_run(s.agentd, s.admin, body);
  EXPECT_EQ(stream->status(), 400);
  EXPECT_NE(stream->error_body().find("invalid_request"), std::string::npos);
  auto fresh = call(s.agentd, "POST", "/chat", s.admin, [&] {
    json b = body;
    b["session_id"] = "new-pics";
    return b;
  }());
  EXPECT_EQ(fresh.status, 400) << fresh.body;
  EXPECT_EQ(call(s.agentd, "GET", "/sessions/new-pics/messages", s.admin).status, 404)
      << "a refused request on a new session makes none";
  EXPECT_EQ(s.fake.request_count(), 1u) << "only the first turn reached the upstream";
  auto stored = call(s.agentd, "GET", "/sessions/pics/messages", s.admin).json()["data"];
  EXPECT_EQ(stored.size(), 2u) << stored;
  auto again =
      call(s.agentd, "POST", "/chat", s.admin, s.body("and now?", {{"session_id", "pics"}}));
  EXPECT_EQ(again.status, 200) << again.body;
}

TEST_P(Vendors, ChunksSplitMidLineChangeNothing) {
  VendorSetup s(GetParam());
  Reply reply = Reply::answer("split me everywhere", 4);
  reply.split_at = {1, 7, 13, 20, 31, 44, 58, 77, 101, 130};
  reply.crlf = true;
  s.fake.set_default(reply);
  auto events = run_events(s, s.body("x"));
  EXPECT_EQ(joined_text(events), "split me everywhere");
  EXPECT_EQ(events.back()["reason"], "end_turn");
}

TEST_P(Vendors, SlowUpstreamStreamsAsItGoes) {
  VendorSetup s(GetParam());
  Reply reply = Reply::answer("one two three", 3);
  reply.delta_delay = 100ms;
  s.fake.set_default(reply);
  auto stream = open_run(s.agentd, s.admin, s.body("x"));
  ASSERT_TRUE(stream->next());  // run_start
  auto first = stream->next();
  ASSERT_TRUE(first);
  EXPECT_EQ((*first)["type"], "stream_delta");
  EXPECT_EQ(joined_text({*first}) + joined_text(stream->rest()), "one two three");
}

TEST_P(Vendors, RateLimitIsRetriedHonouringRetryAfter) {
  VendorSetup s(GetParam());
  s.fake.enqueue(Reply::failure(429).with_header("retry-after-ms", "150"));
  s.fake.enqueue(Reply::failure(503).with_header("retry-after", "0"));
  s.fake.set_default(Reply::answer("finally", 2));
  auto started = std::chrono::steady_clock::now();
  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("x"));
  ASSERT_EQ(chat.status, 200) << chat.body;
  EXPECT_EQ(chat.json()["response"], "finally");
  EXPECT_EQ(s.fake.request_count(), 3u);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 150ms);
}

// A 429 whose Retry-After is longer than agentd waits (limits.provider_retry_max_wait_ms)
// is not retried, and /chat's 503 passes the upstream's hint on, so the client knows
// when to try again. It once answered with no hint at all.
TEST_P(Vendors, ARetryAfterTooLongToWaitForIsPassedOn) {
  VendorSetup s(GetParam());
  s.fake.set_default(Reply::failure(429).with_header("retry-after", "120"));
  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("x"));
  EXPECT_EQ(chat.status, 503) << chat.body;
  EXPECT_EQ(chat.json()["error"]["code"], "provider_unavailable");
  EXPECT_EQ(chat.header("Retry-After"), "120");
  EXPECT_EQ(s.fake.request_count(), 1u) << "not retried";
}

TEST_P(Vendors, PersistentServerErrorsEndAsProviderUnavailable) {
  VendorSetup s(GetParam());
  s.fake.set_default(Reply::failure(500).with_header("retry-after-ms", "10"));
  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("x", {{"session_id", "down"}}));
  EXPECT_EQ(chat.status, 503) << chat.body;
  EXPECT_EQ(chat.json()["error"]["code"], "provider_unavailable");
  EXPECT_EQ(s.fake.request_count(), 3u) << "one call and two retries";
  auto events = run_events(s, s.body("x"));
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[events.size() - 2]["type"], "error");
  EXPECT_EQ(events[events.size() - 2]["code"], "provider_unavailable");
  EXPECT_EQ(events.back()["reason"], "error");
  EXPECT_TRUE(events.back()["usage"].is_object());
}

TEST_P(Vendors, RefusedCredentialsAreAProviderErrorWithoutTheKey) {
  VendorSetup s(GetParam());
  s.fake.require_key("a-different-key");
  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("x"));
  EXPECT_EQ(chat.status, 502) << chat.body;
  EXPECT_EQ(chat.json()["error"]["code"], "provider_error");
  EXPECT_EQ(chat.body.find(vendor_key(GetParam())), std::string::npos);
  EXPECT_EQ(s.fake.request_count(), 1u) << "401 is not retried";
  ASSERT_EQ(s.agentd.stop(), 0);
  EXPECT_EQ(s.agentd.stderr_text().find(vendor_key(GetParam())), std::string::npos);
}

TEST_P(Vendors, AHangingUpstreamTimesOut) {
  VendorSetup s(GetParam());
  s.fake.set_default(Reply::hang_after_headers(1));
  auto events = run_events(s, s.body("x", {{"session_id", "hang"}}));
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events[events.size() - 2]["code"], "provider_timeout");
  EXPECT_EQ(events.back()["reason"], "error");
  EXPECT_FALSE(joined_text(events).empty()) << "the delta before the hang is kept";
  s.fake.set_default(Reply::hang_before_headers());
  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("x"));
  EXPECT_EQ(chat.status, 504) << chat.body;
}

// An upstream that keeps sending, a delta at a time, never trips the stall timeout, and
// would hold a run, and its thread, for as long as it goes on. A call still under way at
// limits.max_answer_ms fails with provider_timeout, what came so far kept, whether its
// deltas trickle or it fell silent without reaching the stall timeout.
TEST_P(Vendors, AnAnswerStillComingAtMaxAnswerMsIsCutThere) {
  TempDir dir;
  VendorSetup s(
      GetParam(),
      with_args({"--config", dir.write("c.json", R"({"limits":{"max_answer_ms":1000}})")}), 4096,
      /*stall_timeout_ms=*/8000);
  Reply trickle = Reply::answer(std::string(60, 'a'), 30);
  trickle.delta_delay = 150ms;  // 4.5 s in all
  s.fake.set_default(trickle);
  auto began = std::chrono::steady_clock::now();
  auto events = run_events(s, s.body("x", {{"session_id", "slow"}}));
  EXPECT_LT(std::chrono::steady_clock::now() - began, 3s);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[events.size() - 2]["code"], "provider_timeout");
  EXPECT_NE(events[events.size() - 2].dump().find("limits.max_answer_ms"), std::string::npos);
  EXPECT_EQ(events.back()["reason"], "error");
  const std::string partial = joined_text(events);
  EXPECT_FALSE(partial.empty());
  EXPECT_LT(partial.size(), 60u);
  auto stored = session_messages(s, "slow");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[1]["content"][0]["text"], partial);
  EXPECT_TRUE(s.fake.wait_for_client_abort(1s, 1)) << "the upstream request must be closed";

  s.fake.set_default(Reply::hang_after_headers(1));
  began = std::chrono::steady_clock::now();
  auto chat = call(s.agentd, "POST", "/chat", s.admin, s.body("x"));
  EXPECT_LT(std::chrono::steady_clock::now() - began, 3s);
  EXPECT_EQ(chat.status, 504) << chat.body;
  EXPECT_EQ(chat.json()["error"]["code"], "provider_timeout");
  EXPECT_NE(chat.body.find("limits.max_answer_ms"), std::string::npos) << chat.body;

  // A retry that could only begin past the deadline is not waited for.
  const size_t before = s.fake.request_count();
  s.fake.enqueue(Reply::failure(429).with_header("retry-after", "2"));
  began = std::chrono::steady_clock::now();
  auto limited = call(s.agentd, "POST", "/chat", s.admin, s.body("x"));
  EXPECT_LT(std::chrono::steady_clock::now() - began, 1s);
  EXPECT_EQ(limited.status, 503) << limited.body;
  EXPECT_EQ(limited.header("Retry-After"), "2");
  EXPECT_EQ(s.fake.request_count(), before + 1);
}

TEST_P(Vendors, ResetOrMalformedStreamsKeepThePartialAnswer) {
  for (Reply reply : {Reply::reset_after(2), Reply::malformed_after(2), Reply::error_event_after(2),
                      Reply::truncated_after(2)}) {
    VendorSetup s(GetParam());
    reply.text = "alpha beta gamma delta";
    reply.deltas = 4;
    s.fake.set_default(reply);
    auto events = run_events(s, s.body("x", {{"session_id", "broken"}}));
    ASSERT_GE(events.size(), 4u);
    EXPECT_EQ(events[events.size() - 2]["type"], "error") << static_cast<int>(reply.kind);
    EXPECT_EQ(events.back()["reason"], "error");
    std::string partial = joined_text(events);
    EXPECT_FALSE(partial.empty());
    EXPECT_EQ(std::string("alpha beta gamma delta").rfind(partial, 0), 0u);
    auto stored = session_messages(s, "broken");
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(stored[1]["content"][0]["text"], partial);
    EXPECT_EQ(s.fake.request_count(), 1u) << "nothing is retried after the first delta";
  }
}

TEST_P(Vendors, InterruptAndDepartureCloseTheUpstreamConnection) {
  VendorSetup s(GetParam());
  Reply slow = Reply::answer("a b c d e f g h", 8);
  slow.delta_delay = 200ms;
  s.fake.set_default(slow);
  auto stream = open_run(s.agentd, s.admin, s.body("x", {{"session_id", "int"}}));
  stream->next();
  stream->next();
  EXPECT_EQ(call(s.agentd, "POST", "/sessions/int/interrupt", s.admin).json()["interrupted"], true);
  EXPECT_EQ(stream->rest().back()["reason"], "interrupted");
  EXPECT_TRUE(s.fake.wait_for_client_abort(1s, 1));

  auto leaving = open_run(s.agentd, s.admin, s.body("x"));
  leaving->next();
  leaving->close();
  EXPECT_TRUE(s.fake.wait_for_client_abort(1s, 2)) << "the upstream request must be cancelled";
}

TEST_P(Vendors, TheSecondTurnSendsTheFirstUpstream) {
  VendorSetup s(GetParam());
  s.fake.set_default(Reply::answer("first answer", 2));
  run_events(s, s.body("first question", {{"session_id", "mt"}}));
  s.fake.set_default(Reply::answer("second answer", 2));
  run_events(s, s.body("second question", {{"session_id", "mt"}}));
  std::string sent = s.fake.last_request().body;
  auto first_q = sent.find("first question"), first_a = sent.find("first answer"),
       second_q = sent.find("second question");
  ASSERT_NE(first_q, std::string::npos) << sent;
  ASSERT_NE(first_a, std::string::npos) << sent;
  ASSERT_NE(second_q, std::string::npos) << sent;
  EXPECT_LT(first_q, first_a);
  EXPECT_LT(first_a, second_q);
}

TEST_P(Vendors, ATinyContextWindowKeepsOnlyWhatFits) {
  VendorSetup s(GetParam(), {}, 60);
  s.fake.set_default(Reply::answer(std::string(100, 'a'), 2));
  run_events(s, s.body(std::string(100, 'q'), {{"session_id", "tiny"}}));
  run_events(s, s.body("short follow-up", {{"session_id", "tiny"}}));
  std::string sent = s.fake.last_request().body;
  EXPECT_NE(sent.find("short follow-up"), std::string::npos);
  EXPECT_EQ(sent.find(std::string(100, 'q')), std::string::npos) << "the old turn was dropped";
  EXPECT_EQ(sent.find(std::string(100, 'a')), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(All, Vendors,
                         ::testing::Values(Vendor::openai, Vendor::anthropic, Vendor::ollama),
                         [](const auto& info) { return std::string(vendor_name(info.param)); });

}  // namespace
}  // namespace agentrt::test
