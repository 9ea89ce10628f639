// Which thread runs a provider call in agentd, with a plugin that offers ABI 1.2
// complete_async (tests/fixtures/async_provider.cpp answers "async <thread>" from its
// own thread and "sync" from the blocking complete): /run streams from the plugin's
// thread, /chat runs the call on its request's thread, and an interrupt reaches a call
// that waits on the plugin's thread at once.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class ProviderThread : public ::testing::Test {
 protected:
  ProviderThread()
      : agentd(with_args({"--config", dir.write("config.json", R"({
          "plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR R"("],
          "plugins": {"async-fixture": {}}})")})) {
    admin = first_admin_token(agentd);  // the plugin, enabled, offers model "async"
  }
  json body(const std::string& text, json extra = json::object()) {
    json b = run_body(text, std::move(extra));
    b["model"] = "async";
    return b;
  }

  TempDir dir;
  AgentdProcess agentd;
  std::string admin;
};

TEST_F(ProviderThread, AStreamRunsOnThePluginsThreadAndChatOnItsOwn) {
  auto stream = open_run(agentd, admin, body("hello"));
  ASSERT_EQ(stream->status(), 200) << stream->error_body();
  auto events = stream->rest();
  EXPECT_EQ(joined_text(events).rfind("async ", 0), 0u) << joined_text(events);
  EXPECT_EQ(events.back()["reason"], "end_turn");
  EXPECT_EQ(events.back()["usage"], (json{{"input_tokens", 2}, {"output_tokens", 3}}));

  auto chat = call(agentd, "POST", "/chat", admin, body("hello"));
  ASSERT_EQ(chat.status, 200) << chat.body;
  EXPECT_EQ(chat.json()["response"], "sync");
}

TEST_F(ProviderThread, AnInterruptEndsACallWaitingOnThePluginsThreadAtOnce) {
  auto stream = open_run(agentd, admin, body("wait", {{"session_id", "waiting"}}));
  ASSERT_EQ(stream->status(), 200) << stream->error_body();
  auto start = stream->next();
  ASSERT_TRUE(start);
  EXPECT_EQ((*start)["type"], "run_start");
  const auto asked = std::chrono::steady_clock::now();
  auto interrupted = call(agentd, "POST", "/sessions/waiting/interrupt", admin, json::object());
  ASSERT_EQ(interrupted.status, 200) << interrupted.body;
  auto rest = stream->rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["reason"], "interrupted");
  // The fixture checks on its own only once a second; sooner means the wake got there.
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 700ms);
}

}  // namespace
}  // namespace agentrt::test
