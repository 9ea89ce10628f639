// OpenAI's Agents SDK (`@openai/agents`), unmodified, as a client of agentd's Responses
// API (docs/openai-compatible.md): tests/api/js/openai_agents.mjs runs an agent with a
// function tool (its call, the tool's result, the answer), the same streamed, and a run
// that continues by previous_response_id, against an agentd whose provider is a fake
// OpenAI upstream. Installed with npm once into the build tree (tests/api/js/install.sh);
// without npm the test skips, saying so.
#include "tests/api/js_clients.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

namespace agentrt::test::openai_agents {
namespace {

using nlohmann::json;

TEST(OpenAiAgentsSdk, RunsAnAgentWithAFunctionTool) {
  if (js_clients().absent) GTEST_SKIP() << js_clients().why;
  ASSERT_EQ(js_clients().why, "");
  VendorSetup s(Vendor::openai);
  // The upstream calls get_weather when it may and the user asked last; else it answers.
  // Each call has an id of its own, as OpenAI's do: a session's pending call is told
  // from those it answered before by its id.
  auto calls = std::make_shared<std::atomic<int>>(0);
  s.fake.set_responder([calls](const RecordedRequest& request) {
    const json body = request.json();
    if (body.contains("tools") && body["messages"].back()["role"] == "user")
      return Reply::calling(
          {{"call_agents" + std::to_string(++*calls), "get_weather", R"({"city":"Paris"})"}});
    return Reply::answer("Hello, world!", 3);
  });
  const std::string script = js_script("openai_agents.mjs");
  const std::string base_url = "http://127.0.0.1:" + std::to_string(s.agentd.port()) + "/v1";
  const auto [status, output] =
      run_command("AGENTRT_BASE_URL='" + base_url + "' AGENTRT_TOKEN='" + s.admin +
                  "' AGENTRT_MODEL='" + vendor_model(Vendor::openai) + "' node '" + script + "'");
  EXPECT_EQ(status, 0) << output;
  if (status != 0)  // what the upstream was sent says where it went wrong
    for (const RecordedRequest& sent : s.fake.requests())
      ADD_FAILURE() << sent.json()["messages"].dump();
  for (const char* check : {"ok toolRun", "ok continuedRun", "ok streamedRun"})
    EXPECT_NE(output.find(check), std::string::npos) << check << " did not pass:\n" << output;
}

}  // namespace
}  // namespace agentrt::test::openai_agents
