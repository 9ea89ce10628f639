// The official `openai` npm SDK, unmodified, as a client of agentd
// (docs/openai-compatible.md): tests/api/js/openai_sdk.mjs runs its chat completions
// (streamed and not, a tool round trip, the SDK's stream helper), models.list and its
// error classes for 401, 400 and 404 against an agentd whose provider is a fake OpenAI
// upstream. The SDK is installed with npm once into the build tree
// (tests/api/js/install.sh); without npm the test skips, saying so.
#include "tests/api/js_clients.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <string>

namespace agentrt::test::openai_sdk {
namespace {

using nlohmann::json;

TEST(OpenAiSdk, TheOfficialClientRunsUnchanged) {
  if (js_clients().absent) GTEST_SKIP() << js_clients().why;
  ASSERT_EQ(js_clients().why, "");
  VendorSetup s(Vendor::openai);
  // The upstream calls get_weather when it may and the user asked last; else it answers.
  s.fake.set_responder([](const RecordedRequest& request) {
    const json body = request.json();
    if (body.contains("tools") && body["messages"].back()["role"] == "user")
      return Reply::calling({{"call_sdk1", "get_weather", R"({"city":"Paris"})"}});
    return Reply::answer("Hello, world!", 3);
  });
  // Node resolves the SDK from the script's own place: the script goes next to it.
  const std::string script = js_script("openai_sdk.mjs");
  const std::string base_url = "http://127.0.0.1:" + std::to_string(s.agentd.port()) + "/v1";
  const auto [status, output] =
      run_command("AGENTRT_BASE_URL='" + base_url + "' AGENTRT_TOKEN='" + s.admin +
                  "' AGENTRT_MODEL='" + vendor_model(Vendor::openai) + "' node '" + script + "'");
  EXPECT_EQ(status, 0) << output;
  for (const char* check : {"ok models", "ok completion", "ok streamed", "ok streamedToolCall",
                            "ok toolRoundTrip", "ok errors"})
    EXPECT_NE(output.find(check), std::string::npos) << check << " did not pass:\n" << output;
}

}  // namespace
}  // namespace agentrt::test::openai_sdk
