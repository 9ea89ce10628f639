// The host's defences against a provider that breaks the ABI's rules: a
// delta with a length and no data, an error message that fills its struct without a
// NUL, and deltas emitted after the host said stop. None may make the host read past
// what the plugin handed it, or store what came after the stop.
#include "core/plugin_host/plugin_host.h"
#include "core/runs/provider_call.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace agentrt::core {
namespace {

std::string misbehaving_request(const std::string& what) {
  return test::one_message_request("misbehaving", what);
}

class MisbehavingProvider : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginStatus status = host.load(test::fixture("misbehaving-provider"));
    ASSERT_TRUE(status.loaded) << status.error;
    provider = std::make_unique<ProviderInstance>(host.find("misbehaving-provider"), "{}");
  }
  // The call's error, and every delta's bytes as the host handed them on.
  std::optional<PluginError> complete(const std::string& what, std::string& seen) {
    try {
      provider->complete(
          misbehaving_request(what),
          [&](const ProviderDelta& d) {
            seen.append(d.data);
            return true;
          },
          [] { return false; });
    } catch (const PluginError& e) {
      return e;
    }
    return std::nullopt;
  }
  PluginHost host;
  std::unique_ptr<ProviderInstance> provider;
};

TEST_F(MisbehavingProvider, ADeltaWithALengthAndNoDataFailsTheCallAndHandsNothingOn) {
  for (const bool blocking : {false, true}) {
    provider->set_blocking_only(blocking);
    std::string seen;
    std::optional<PluginError> error = complete("null-data", seen);
    ASSERT_TRUE(error) << "the host handed on: " << nlohmann::json(seen).dump();
    EXPECT_EQ(error->code, AGENTRT_ERR_INTERNAL);
    EXPECT_STREQ(error->what(), "the plugin emitted a delta with a length and no data");
    EXPECT_TRUE(seen.empty());
  }
}

TEST_F(MisbehavingProvider, AnErrorMessageWithoutANulIsReadNoFurtherThanItsStruct) {
  std::string seen;
  std::optional<PluginError> error = complete("no-nul", seen);
  ASSERT_TRUE(error);
  EXPECT_EQ(std::string(error->what()), std::string(sizeof(agentrt_error_t{}.message), 'B'));

  try {
    ProviderInstance refused(host.find("misbehaving-provider"), R"({"create":"no-nul"})");
    FAIL() << "create succeeded";
  } catch (const PluginError& e) {
    EXPECT_EQ(std::string(e.what()),
              "create failed: " + std::string(sizeof(agentrt_error_t{}.message), 'A'));
  }
}

TEST_F(MisbehavingProvider, WhatComesAfterTheStopIsDroppedAndTheRunIsInterrupted) {
  std::string kept;
  ProviderResult result = call_provider(
      *provider, misbehaving_request("ignore-stop"), CallPolicy{},
      [&](std::string_view text) {
        kept.append(text);
        return kept.size() < 3;  // the client leaves after the third delta
      },
      [] { return false; });
  EXPECT_EQ(result.end, ProviderResult::End::cancelled);
  EXPECT_EQ(result.text, "xxx");
  EXPECT_EQ(kept, "xxx");
}

TEST_F(MisbehavingProvider, ACountBelowZeroIsNoCount) {
  ProviderResult result = call_provider(
      *provider, misbehaving_request("negative"), CallPolicy{},
      [](std::string_view) { return true; }, [] { return false; });
  EXPECT_EQ(result.text, "fine");
  EXPECT_FALSE(result.input_tokens);
  EXPECT_FALSE(result.output_tokens);
}

}  // namespace
}  // namespace agentrt::core
