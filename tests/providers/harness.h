// Provider plugins loaded through the real plugin host and pointed at fake upstreams.
#pragma once

#include "core/plugin_host/plugin_host.h"
#include "tests/fakes/fake_upstream.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::test {

using core::CancelWaker;
using core::PluginError;
using core::ProviderDelta;
using core::ProviderInstance;

constexpr const char* kTestKey = "sk-test-0123456789abcdef";
constexpr const char* kModel = "test-model";

// What one completion produced.
struct Outcome {
  std::vector<std::string> texts;
  // Every delta's kind, in order, but for the input counts a plugin may send before
  // the end (DeltaEmitter::input_so_far), which are in input_so_far.
  std::vector<uint32_t> kinds;
  std::optional<nlohmann::json> usage;
  std::vector<int64_t> input_so_far;
  std::optional<nlohmann::json> finish;
  std::optional<PluginError> error;

  std::string text() const;
  int32_t code() const { return error ? error->code : AGENTRT_OK; }
  std::string message() const { return error ? error->what() : ""; }
};

// The provider plugin of `vendor`, loaded once per process from the build's plugin
// directory.
std::shared_ptr<const core::LoadedPlugin> provider_plugin(Vendor vendor);

// A config for `fake`: its base_url, an inline key (none when `key` is empty), one
// model, and a stall timeout short enough for tests.
nlohmann::json config_for(const FakeUpstream& fake, const std::string& key = kTestKey);
std::unique_ptr<ProviderInstance> make_provider(Vendor vendor, const nlohmann::json& config);

// {"model","messages":[{"role":"user","content":[{"type":"text","text":text}]}]}
nlohmann::json user_request(const std::string& text);
nlohmann::json text_message(const std::string& role, const std::string& text);

// A multi-turn conversation using every request feature: a system message, a user
// message with a text, a linked image and an inline image, an assistant reply, a
// second user turn, max_tokens 100 and temperature 0.25.
constexpr const char* kPngBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg"
    "==";
constexpr const char* kImageLink = "https://example.com/cat.png";
nlohmann::json conversation_request();

// Runs one completion, collecting every delta; a failure lands in Outcome::error.
// `on_delta` may refuse a delta (returns false) to stop the stream.
Outcome run(const ProviderInstance& provider, const nlohmann::json& request,
            const std::function<bool()>& cancelled = {},
            const std::function<bool(const ProviderDelta&)>& on_delta = {},
            CancelWaker* waker = nullptr);

// The key a recorded request carried in the vendor's auth header, or "".
std::string sent_key(Vendor vendor, const RecordedRequest& request);

// Deltas of a successful completion: texts, then at most one usage, then one finish.
void expect_well_ordered(const Outcome& outcome, bool with_usage);

// Every provider test runs against each vendor: a fake of it and a provider on it.
class VendorTest : public ::testing::TestWithParam<Vendor> {
 protected:
  VendorTest() : fake(GetParam()) {}
  void SetUp() override { provider = make_provider(GetParam(), config_for(fake)); }
  Vendor vendor() const { return GetParam(); }

  FakeUpstream fake;
  std::unique_ptr<ProviderInstance> provider;
};

std::string vendor_param_name(const ::testing::TestParamInfo<Vendor>& info);

#define AGENTRT_ALL_VENDORS(Suite)                                                           \
  INSTANTIATE_TEST_SUITE_P(                                                                  \
      Vendors, Suite,                                                                        \
      ::testing::Values(::agentrt::test::Vendor::openai, ::agentrt::test::Vendor::anthropic, \
                        ::agentrt::test::Vendor::ollama),                                    \
      ::agentrt::test::vendor_param_name)

}  // namespace agentrt::test
