// Successful streams, for every vendor: exact deltas in the engine's order, whatever
// the network does to the byte stream.
#include "tests/providers/harness.h"

#include <chrono>
#include <thread>

namespace agentrt::test {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

using Streaming = VendorTest;

TEST_P(Streaming, DeliversTextUsageAndFinishExactly) {
  const std::string text = "Grüße aus Köln 🌍, wie geht's?";
  Reply reply = Reply::answer(text, 5);
  reply.usage = FakeUsage{21, 9};
  fake.set_default(reply);

  Outcome out = run(*provider, user_request("hi"));

  expect_well_ordered(out, /*with_usage=*/true);
  EXPECT_EQ(out.text(), text);  // in as many fragments as the reads brought it
  EXPECT_EQ(out.usage, (json{{"input_tokens", 21}, {"output_tokens", 9}}));
  EXPECT_EQ(out.finish, (json{{"reason", "end_turn"}}));
  ASSERT_EQ(fake.request_count(), 1u);
  EXPECT_EQ(fake.last_request().json()["model"], kModel);
  EXPECT_EQ(sent_key(vendor(), fake.last_request()), kTestKey);
}

TEST_P(Streaming, ReportsMaxTokensInTheEngineWords) {
  Reply reply = Reply::answer("cut sh", 2);
  reply.finish = vendor() == Vendor::anthropic ? "max_tokens" : "length";
  fake.set_default(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_well_ordered(out, true);
  EXPECT_EQ(out.finish, (json{{"reason", "max_tokens"}}));
}

TEST_P(Streaming, PassesAnUnknownFinishWordOnAsAPlainWord) {
  Reply reply = Reply::answer("x", 1);
  reply.finish = "new\"reason\\";
  fake.set_default(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_well_ordered(out, true);
  EXPECT_EQ(out.finish, (json{{"reason", "new_reason_"}}));
}

TEST_P(Streaming, OmitsUsageWhenTheUpstreamSentNone) {
  Reply reply = Reply::answer("no counts here", 3);
  reply.usage.reset();
  fake.set_default(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_well_ordered(out, /*with_usage=*/false);
  EXPECT_FALSE(out.usage);
  EXPECT_EQ(out.text(), "no counts here");
}

TEST_P(Streaming, AnEmptyAnswerStillFinishes) {
  Reply reply = Reply::answer("", 3);
  fake.set_default(reply);
  Outcome out = run(*provider, user_request("hi"));
  expect_well_ordered(out, true);
  EXPECT_TRUE(out.texts.empty());
}

// The same stream cut once at every byte offset (inside lines, CRLF pairs and UTF-8
// characters) must give the very same answer; so must a stream sent byte by byte. The
// fragments of one read reach the sink as one (delta_emitter.h), so a cut may change
// how the text is split, never what it is or where usage and finish come.
// The kinds in order, a run of text deltas counted as one.
std::vector<uint32_t> joined_kinds(const Outcome& out) {
  std::vector<uint32_t> kinds;
  for (uint32_t kind : out.kinds)
    if (kinds.empty() || kind != AGENTRT_DELTA_TEXT || kinds.back() != AGENTRT_DELTA_TEXT)
      kinds.push_back(kind);
  return kinds;
}

void check_every_cut(FakeUpstream& fake, const ProviderInstance& provider, bool crlf) {
  Reply reply = Reply::answer("Aé€😀 ok", 3);
  reply.crlf = crlf;
  reply.usage = FakeUsage{3, 4};
  fake.set_default(reply);
  const Outcome whole = run(provider, user_request("hi"));
  expect_well_ordered(whole, true);
  const size_t size = fake.last_stream_size();
  ASSERT_GT(size, 100u);
  for (size_t cut = 1; cut < size; ++cut) {
    Reply split = reply;
    split.split_at = {cut};
    fake.enqueue(split);
    Outcome out = run(provider, user_request("hi"));
    ASSERT_EQ(joined_kinds(out), joined_kinds(whole))
        << "cut at byte " << cut << ": " << out.message();
    ASSERT_EQ(out.text(), whole.text()) << "cut at byte " << cut;
    ASSERT_EQ(out.usage, whole.usage) << "cut at byte " << cut;
    ASSERT_EQ(out.finish, whole.finish) << "cut at byte " << cut;
  }
  Reply bytewise = reply;
  for (size_t cut = 1; cut < size; ++cut) bytewise.split_at.push_back(cut);
  fake.enqueue(bytewise);
  Outcome out = run(provider, user_request("hi"));
  EXPECT_EQ(joined_kinds(out), joined_kinds(whole)) << out.message();
  EXPECT_EQ(out.text(), whole.text());
}

TEST_P(Streaming, CutAtEveryByteOffsetGivesIdenticalDeltas) {
  check_every_cut(fake, *provider, /*crlf=*/false);
}

TEST_P(Streaming, CrlfStreamCutAtEveryByteOffsetGivesIdenticalDeltas) {
  check_every_cut(fake, *provider, /*crlf=*/true);
}

TEST_P(Streaming, SlowUpstreamStillCompletes) {
  Reply reply = Reply::answer("one two three four", 4);
  reply.delta_delay = 150ms;
  fake.set_default(reply);
  json config = config_for(fake);
  config["stall_timeout_ms"] = 1000;  // each pause is well inside it
  auto slow = make_provider(vendor(), config);
  auto start = std::chrono::steady_clock::now();
  Outcome out = run(*slow, user_request("hi"));
  expect_well_ordered(out, true);
  EXPECT_EQ(out.text(), "one two three four");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 600ms);
}

TEST_P(Streaming, KeepsTheConnectionWarmAcrossRequests) {
  for (int i = 0; i < 5; ++i) {
    Outcome out = run(*provider, user_request("hi"));
    ASSERT_FALSE(out.error) << out.message();
  }
  EXPECT_EQ(fake.request_count(), 5u);
  EXPECT_EQ(fake.connections_accepted(), 1u);
}

// The upstream closed the warm connection while it idled: the next call goes out on a
// new one, unseen, and is not sent twice.
TEST_P(Streaming, AWarmConnectionTheUpstreamClosedIsReplacedUnseen) {
  Reply first = Reply::answer("first", 2);
  first.close_after = true;
  fake.enqueue(first);
  Outcome one = run(*provider, user_request("hi"));
  ASSERT_FALSE(one.error) << one.message();
  std::this_thread::sleep_for(50ms);  // the close reaches agentd while the connection idles
  Outcome two = run(*provider, user_request("hi"));
  ASSERT_FALSE(two.error) << two.message();
  EXPECT_EQ(two.text(), "Hello, world!");
  EXPECT_EQ(fake.request_count(), 2u);
  EXPECT_EQ(fake.connections_accepted(), 2u);
}

AGENTRT_ALL_VENDORS(Streaming);

}  // namespace
}  // namespace agentrt::test
