// The plugin host against deliberately broken plugins: each is refused with a reason
// naming what differs, and discovery goes on with the next file.
#include "core/plugin_host/plugin_host.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace agentrt::core {
namespace {

using test::fixture;

struct Refusal {
  const char* file;
  const char* reason;
};

class Refused : public ::testing::TestWithParam<Refusal> {};

TEST_P(Refused, WithItsReason) {
  PluginHost host;
  PluginStatus status = host.load(fixture(GetParam().file));
  EXPECT_FALSE(status.loaded);
  EXPECT_NE(status.error.find(GetParam().reason), std::string::npos) << status.error;
  EXPECT_EQ(status.path, fixture(GetParam().file));
  EXPECT_TRUE(host.plugins().empty());
}

// A refusal decided after the descriptor was read names the plugin when its name was
// sound, as every refusal should (the unknown kind showed none).
TEST(FixtureLoading, ARefusalAfterTheDescriptorNamesThePlugin) {
  PluginHost host;
  EXPECT_EQ(host.load(fixture("unknown-kind")).name, "unknown-kind");
  EXPECT_EQ(host.load(fixture("missing-function")).name, "missing-function");
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, Refused,
    ::testing::Values(
        Refusal{"bad-magic", "bad magic 0xdeadbeef (expected 0x54524741)"},
        Refusal{"wrong-major", "ABI major version 2 is not supported"},
        Refusal{"short-descriptor", "descriptor struct_size 24 is smaller than the 1.0 size 56"},
        Refusal{"short-table", "provider table struct_size 16 is smaller than the 1.0 size 40"},
        Refusal{"missing-function",
                "required function 'complete' of the provider table is missing"},
        Refusal{"unknown-kind", "unknown plugin kind 9"},
        Refusal{"not-a-plugin", "not an agentrt plugin: it exports no agentrt_plugin_query"},
        Refusal{"garbage", "cannot load the library"}),
    [](const auto& info) {
      std::string name = info.param.file;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(FixtureLoading, FrozenOneZeroPluginLoadsAndWorks) {
  PluginHost host;
  PluginStatus status = host.load(fixture("fixture-v1_0"));
  ASSERT_TRUE(status.loaded) << status.error;
  EXPECT_EQ(status.name, "fixture-v1_0");
  EXPECT_EQ(status.kind, "provider");
  EXPECT_EQ(status.abi, "1.0");
  EXPECT_EQ(status.version, "0.1.0");

  ProviderInstance instance(host.find("fixture-v1_0"), "{}");
  auto models = nlohmann::json::parse(instance.list_models());
  EXPECT_EQ(models["models"][0]["id"], "fixture");
  std::string text;
  instance.complete(
      "{}",
      [&](const ProviderDelta& d) {
        if (d.kind == AGENTRT_DELTA_TEXT) text += d.data;
        return true;
      },
      [] { return false; });
  EXPECT_EQ(text, "fixture");
}

TEST(FixtureLoading, LaterMinorWithLargerStructsLoads) {
  PluginHost host;
  PluginStatus status = host.load(fixture("fixture-future-minor"));
  ASSERT_TRUE(status.loaded) << status.error;
  EXPECT_EQ(status.abi, "1.7");
  ProviderInstance instance(host.find("fixture-future-minor"), "{}");
  EXPECT_NE(instance.list_models().find("fixture"), std::string::npos);
}

TEST(FixtureLoading, ThrowingCreateIsRefusedAtCreation) {
  PluginHost host;
  ASSERT_TRUE(host.load(fixture("sdk-throwing")).loaded);
  ASSERT_TRUE(host.load(fixture("raw-throwing")).loaded);
  try {
    ProviderInstance instance(host.find("sdk-throwing"), "{}");
    FAIL() << "create should have failed";
  } catch (const PluginError& e) {
    EXPECT_STREQ(e.what(), "create failed: constructor exploded on purpose");
  }
  try {
    ProviderInstance instance(host.find("raw-throwing"), "{}");
    FAIL() << "create should have failed";
  } catch (const PluginError& e) {
    EXPECT_STREQ(e.what(), "create threw an exception across the C boundary");
  }
}

TEST(FixtureLoading, ScanGoesOnPastEveryRefusal) {
  PluginHost host;
  PluginSelection every;
  for (const char* name :
       {"fixture-v1_0", "fixture-future-minor", "bad-magic", "wrong-major", "short-descriptor",
        "short-table", "missing-function", "unknown-kind", "list-fails", "list-bad", "sdk-throwing",
        "raw-throwing", "async-fixture", "tool-fixture", "misbehaving-provider", "not-a-plugin",
        "garbage"})
    every.enabled.insert(name);
  host.scan({AGENTRT_TEST_FIXTURE_DIR, "/nonexistent/plugins"}, every);
  std::vector<std::string> loaded, refused;
  for (const PluginStatus& s : host.statuses()) (s.loaded ? loaded : refused).push_back(s.path);
  // v1.0, future minor, the two throwing creates, async, misbehaving, the tool fixture,
  // and the two whose model lists fail (they load; the engine refuses their instances)
  EXPECT_EQ(loaded.size(), 9u);
  EXPECT_EQ(refused.size(), 8u);  // every Refusal above
  EXPECT_TRUE(host.find("fixture-v1_0"));
}

TEST(FixtureLoading, SecondPluginOfTheSameNameIsRefused) {
  PluginHost host;
  ASSERT_TRUE(host.load(fixture("fixture-v1_0")).loaded);
  PluginStatus again = host.load(fixture("fixture-v1_0"));
  EXPECT_FALSE(again.loaded);
  EXPECT_NE(again.error.find("already loaded"), std::string::npos);
}

TEST(FixtureLoading, LibraryOutlivesTheHostWhileAnInstanceLives) {
  std::unique_ptr<ProviderInstance> instance;
  {
    PluginHost host;
    ASSERT_TRUE(host.load(fixture("fixture-v1_0")).loaded);
    instance = std::make_unique<ProviderInstance>(host.find("fixture-v1_0"), "{}");
  }
  // The host is gone; calling into the plugin must still be safe.
  EXPECT_NE(instance->list_models().find("fixture"), std::string::npos);
}

}  // namespace
}  // namespace agentrt::core
