// The official `openai` npm SDK, unmodified, as a client of agentd
// (docs/openai-compatible.md): tests/api/js/openai_sdk.mjs runs its chat completions
// (streamed and not, a tool round trip, the SDK's stream helper), models.list and its
// error classes for 401, 400 and 404 against an agentd whose provider is a fake OpenAI
// upstream. The SDK is installed with npm once into the build tree
// (tests/api/js/install.sh); without npm the test skips, saying so.
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace agentrt::test::openai_sdk {
namespace {

using nlohmann::json;

// Empty when the JavaScript clients are installed (tests/api/js/install.sh), else why
// not; "not installed" in it when npm or node is absent.
const std::string& sdk_missing() {
  static const std::string why = [] {
    const std::string command =
        "'" AGENTRT_TEST_JS_SOURCE "/install.sh' '" AGENTRT_TEST_JS_MODULES "'";
    const int rc = std::system(command.c_str());
    if (rc == 0) return std::string();
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 3)
      return std::string("npm or node is not installed: the openai npm SDK cannot be installed");
    return "installing the JavaScript clients failed (" + command + ")";
  }();
  return why;
}

// Runs `command`, returning its exit status and everything it wrote.
std::pair<int, std::string> run(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(OpenAiSdk, TheOfficialClientRunsUnchanged) {
  if (sdk_missing().find("npm is not installed") != std::string::npos)
    GTEST_SKIP() << sdk_missing();
  ASSERT_EQ(sdk_missing(), "");
  VendorSetup s(Vendor::openai);
  // The upstream calls get_weather when it may and the user asked last; else it answers.
  s.fake.set_responder([](const RecordedRequest& request) {
    const json body = request.json();
    if (body.contains("tools") && body["messages"].back()["role"] == "user")
      return Reply::calling({{"call_sdk1", "get_weather", R"({"city":"Paris"})"}});
    return Reply::answer("Hello, world!", 3);
  });
  // Node resolves the SDK from the script's own place: the script goes next to it.
  const std::string script = std::string(AGENTRT_TEST_JS_MODULES) + "/openai_sdk.mjs";
  std::filesystem::copy_file(AGENTRT_TEST_JS_SOURCE "/openai_sdk.mjs", script,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string base_url = "http://127.0.0.1:" + std::to_string(s.agentd.port()) + "/v1";
  const auto [status, output] =
      run("AGENTRT_BASE_URL='" + base_url + "' AGENTRT_TOKEN='" + s.admin + "' AGENTRT_MODEL='" +
          vendor_model(Vendor::openai) + "' node '" + script + "'");
  EXPECT_EQ(status, 0) << output;
  for (const char* check : {"ok models", "ok completion", "ok streamed", "ok streamedToolCall",
                            "ok toolRoundTrip", "ok errors"})
    EXPECT_NE(output.find(check), std::string::npos) << check << " did not pass:\n" << output;
}

}  // namespace
}  // namespace agentrt::test::openai_sdk
