#include "tests/providers/harness.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace agentrt::test {

using nlohmann::json;

std::string Outcome::text() const {
  std::string joined;
  for (const std::string& t : texts) joined += t;
  return joined;
}

std::shared_ptr<const core::LoadedPlugin> provider_plugin(Vendor vendor) {
  static std::mutex mutex;
  static core::PluginHost host;
  std::lock_guard<std::mutex> lock(mutex);
  std::string name = vendor_name(vendor);
  if (auto loaded = host.find(name)) return loaded;
  core::PluginStatus status =
      host.load(std::string(AGENTRT_TEST_PLUGIN_DIR) + "/agentrt-" + name + ".so");
  if (!status.loaded) throw std::runtime_error("cannot load " + name + ": " + status.error);
  return host.find(name);
}

json config_for(const FakeUpstream& fake, const std::string& key) {
  json config = {
      {"name", std::string("test-") + vendor_name(fake.vendor())},
      {"base_url", fake.base_url()},
      {"models",
       json::array({{{"id", kModel}, {"context_window", 8192}, {"supports_vision", true}}})},
      {"stall_timeout_ms", 5000}};
  if (!key.empty()) config["api_key_ref"] = {{"source", "inline"}, {"value", key}};
  return config;
}

std::unique_ptr<ProviderInstance> make_provider(Vendor vendor, const json& config) {
  // The suite runs twice (CMakeLists.txt): through the plugins' own threads (ABI 1.2
  // complete_async), as agentd calls them, and through the blocking complete that
  // older hosts call (AGENTRT_TEST_BLOCKING_PROVIDERS=1).
  const char* blocking = std::getenv("AGENTRT_TEST_BLOCKING_PROVIDERS");
  auto provider = std::make_unique<ProviderInstance>(provider_plugin(vendor), config.dump());
  provider->set_blocking_only(blocking != nullptr && std::string(blocking) == "1");
  return provider;
}

json text_message(const std::string& role, const std::string& text) {
  return {{"role", role}, {"content", json::array({{{"type", "text"}, {"text", text}}})}};
}

json user_request(const std::string& text) {
  return {{"model", kModel}, {"messages", json::array({text_message("user", text)})}};
}

json conversation_request() {
  json first_user = {
      {"role", "user"},
      {"content", json::array({{{"type", "text"}, {"text", "What is in these pictures?"}},
                               {{"type", "image_url"}, {"url", kImageLink}},
                               {{"type", "image_url"},
                                {"url", std::string("data:image/png;base64,") + kPngBase64}}})}};
  return {{"model", kModel},
          {"messages", json::array({text_message("system", "You are terse."), first_user,
                                    text_message("assistant", "Two cats."),
                                    text_message("user", "Which is bigger?")})},
          {"max_tokens", 100},
          {"temperature", 0.25}};
}

Outcome run(const ProviderInstance& provider, const json& request,
            const std::function<bool()>& cancelled,
            const std::function<bool(const ProviderDelta&)>& on_delta, CancelWaker* waker) {
  Outcome outcome;
  try {
    provider.complete(
        request.dump(),
        [&](const ProviderDelta& delta) {
          const json usage = delta.kind == AGENTRT_DELTA_USAGE ? json::parse(delta.data) : json();
          if (usage.is_object() && !usage.contains("output_tokens")) {
            outcome.input_so_far.push_back(usage.at("input_tokens").get<int64_t>());
            return on_delta ? on_delta(delta) : true;
          }
          outcome.kinds.push_back(delta.kind);
          if (delta.kind == AGENTRT_DELTA_TEXT) outcome.texts.emplace_back(delta.data);
          if (delta.kind == AGENTRT_DELTA_USAGE) outcome.usage = usage;
          if (delta.kind == AGENTRT_DELTA_FINISH) outcome.finish = json::parse(delta.data);
          return on_delta ? on_delta(delta) : true;
        },
        [&] { return cancelled ? cancelled() : false; }, waker);
  } catch (const PluginError& e) {
    outcome.error = e;
  }
  return outcome;
}

std::string sent_key(Vendor vendor, const RecordedRequest& request) {
  if (vendor == Vendor::anthropic) return request.header("x-api-key");
  std::string auth = request.header("authorization");
  const std::string bearer = "Bearer ";
  return auth.rfind(bearer, 0) == 0 ? auth.substr(bearer.size()) : "";
}

void expect_well_ordered(const Outcome& outcome, bool with_usage) {
  EXPECT_FALSE(outcome.error) << outcome.message();
  std::vector<uint32_t> expected(outcome.texts.size(), AGENTRT_DELTA_TEXT);
  if (with_usage) expected.push_back(AGENTRT_DELTA_USAGE);
  expected.push_back(AGENTRT_DELTA_FINISH);
  EXPECT_EQ(outcome.kinds, expected);
  for (const std::string& text : outcome.texts) EXPECT_FALSE(text.empty());
}

std::string vendor_param_name(const ::testing::TestParamInfo<Vendor>& info) {
  return vendor_name(info.param);
}

}  // namespace agentrt::test
