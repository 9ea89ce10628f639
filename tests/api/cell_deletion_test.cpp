// A cell deleted while one of its runs goes on keeps nothing of that run: the run ends
// after the deletion, yet the cell made again under the same id starts empty. The
// provider is the async fixture's "linger N", which ignores cancellation for N ms
// (tests/fixtures/async_provider.cpp).
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

TEST(CellDeletion, ARunStillGoingWhenItsCellIsDeletedStoresNothingInIt) {
  TempDir dir;
  AgentdProcess agentd(with_args({"--mode", "multi", "--config", dir.write("config.json", R"({
      "plugin_dirs": [")" AGENTRT_TEST_FIXTURE_DIR R"("],
      "plugins": {"async-fixture": {}}})")}));
  const std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  json body = run_body("linger 1500", {{"session_id", "s"}, {"actor", "carol"}});
  body["model"] = "async";
  auto late = std::async(std::launch::async,
                         [&] { return call(agentd, "POST", "/cells/acme/chat", admin, body); });
  // Its session is visible once the run is live.
  for (int i = 0; i < 200; ++i) {
    if (call(agentd, "GET", "/cells/acme/sessions/s/messages", admin).status == 200) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(call(agentd, "GET", "/cells/acme/sessions/s/messages", admin).status, 200);

  ASSERT_EQ(call(agentd, "DELETE", "/admin/cells/acme", admin).status, 204);
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  ASSERT_EQ(late.wait_for(0ms), std::future_status::timeout) << "the run ended before";
  const HttpResponse answer = late.get();
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.json()["reason"], "interrupted") << "the deletion stopped it";

  EXPECT_TRUE(call(agentd, "GET", "/cells/acme/sessions", admin).json()["data"].empty());
  EXPECT_EQ(call(agentd, "GET", "/cells/acme/sessions/s/messages", admin).status, 404);
  EXPECT_EQ(
      call(agentd, "GET",
           "/cells/acme/runs/" + answer.json()["run_id"].get<std::string>() + "/events", admin)
          .status,
      404);
}

}  // namespace
}  // namespace agentrt::test
