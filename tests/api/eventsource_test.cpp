// A browser-style client resuming a run's events: the `eventsource` npm package,
// unmodified (tests/api/js/eventsource_resume.mjs), follows GET /runs/{id}/events through
// a proxy that drops its first connection mid-stream; it reconnects on its own with
// Last-Event-ID and receives every event exactly once. Skipped, saying why, without npm.
#include "tests/api/conversation_client.h"
#include "tests/api/js_clients.h"

#include <gtest/gtest.h>

#include <string>

namespace agentrt::test {
namespace {

using nlohmann::json;

TEST(EventSourceClient, ResumesADroppedStreamAndGetsEveryEventOnce) {
  if (js_clients().absent) GTEST_SKIP() << js_clients().why;
  ASSERT_EQ(js_clients().why, "");
  TempDir dir;
  AgentdProcess agentd(slow_echo(150, dir));
  const std::string admin = first_admin_token(agentd);
  auto stream = open_run(agentd, admin, run_body("one two three four five six seven eight"));
  const auto start = stream->next();
  ASSERT_TRUE(start);
  const std::string run_id = (*start)["run_id"];
  const std::string script = js_script("eventsource_resume.mjs");
  const auto [status, printed] =
      run_command("AGENTD_PORT=" + std::to_string(agentd.port()) + " TOKEN=" + admin +
                  " RUN_ID=" + run_id + " DROP_AFTER=3 node '" + script + "'");
  EXPECT_EQ(status, 0) << printed;
  const std::vector<json> rest = stream->rest();
  const json result = json::parse(printed, nullptr, false);
  ASSERT_TRUE(result.is_object()) << printed;
  EXPECT_TRUE(result["error"].is_null()) << printed;
  const json& received = result["received"];
  ASSERT_EQ(received.size(), rest.size() + 1)
      << printed << "\nthe run's own events: " << json(rest).dump();
  for (size_t i = 0; i < received.size(); ++i) {
    EXPECT_EQ(received[i]["seq"], i + 1) << "every event once, in order: " << printed;
    EXPECT_EQ(received[i]["id"], std::to_string(i + 1));
  }
  EXPECT_EQ(received.back()["type"], "done");
  ASSERT_GE(result["connections"].size(), 2u) << "the proxy dropped the first: " << printed;
  EXPECT_TRUE(result["connections"][0]["lastEventId"].is_null());
  EXPECT_EQ(result["connections"][1]["lastEventId"], received[2]["id"])
      << "it resumed after the last event it saw";
}

}  // namespace
}  // namespace agentrt::test
