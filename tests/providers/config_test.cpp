// Config and request validation, and the API key's life: resolved through the host at
// call time, never at create.
#include "tests/providers/harness.h"

#include <cstdlib>

namespace agentrt::test {
namespace {

using nlohmann::json;

using Config = VendorTest;

void expect_create_refused(Vendor vendor, const json& config, const std::string& words) {
  try {
    make_provider(vendor, config);
    ADD_FAILURE() << "config accepted: " << config.dump();
  } catch (const PluginError& e) {
    EXPECT_EQ(e.code, AGENTRT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST_P(Config, UnknownKeyIsRefusedByName) {
  json config = config_for(fake);
  config["max_retries"] = 3;  // retries are the engine's job
  expect_create_refused(vendor(), config,
                        std::string(vendor_name(vendor())) + " config: unknown key 'max_retries'");
}

TEST_P(Config, BaseUrlIsRequired) {
  json config = config_for(fake);
  config.erase("base_url");
  expect_create_refused(vendor(), config, "'base_url' is required");
  config["base_url"] = "ftp://example.com";
  expect_create_refused(vendor(), config, "'base_url' must start with http:// or https://");
}

TEST_P(Config, TimeoutsMustBePositiveIntegers) {
  for (const char* key : {"connect_timeout_ms", "stall_timeout_ms"}) {
    json config = config_for(fake);
    config[key] = 0;
    expect_create_refused(vendor(), config, key);
    config[key] = "100";
    expect_create_refused(vendor(), config, key);
  }
}

TEST_P(Config, KeyReferenceMustHaveSourceAndValue) {
  json config = config_for(fake);
  config["api_key_ref"] = "sk-plain-string";
  expect_create_refused(vendor(), config, "'api_key_ref'");
}

// The admin API refuses these; the config file, which only the plugin reads, must too,
// or every call fails.
TEST_P(Config, AConfigFileIsHeldToTheRulesTheAdminApiHolds) {
  const std::pair<json, std::string> cases[] = {
      {{{"source", "inlin"}, {"value", "sk-x"}}, "'api_key_ref.source' must be one of"},
      {{{"source", "inline"}, {"value", ""}}, "'api_key_ref.value' must not be empty"},
      {{{"source", "env"}, {"value", "K"}, {"extra", 1}}, "'api_key_ref' must be"}};
  for (const auto& [ref, words] : cases) {
    json config = config_for(fake);
    config["api_key_ref"] = ref;
    expect_create_refused(vendor(), config, words);
  }
  json config = config_for(fake);
  config["base_url"] = "https://user:sk-secret@api.example.com/v1";
  expect_create_refused(vendor(), config, "'base_url' must not hold credentials");
  config = config_for(fake);
  config["base_url"] = "https://api.example.com/v1?a=b@c";
  EXPECT_NO_THROW(make_provider(vendor(), config)) << "an @ past the authority is no user";
  config = config_for(fake);
  config["models"][0]["bogus"] = 1;
  expect_create_refused(vendor(), config, "unknown key 'bogus' in an entry of 'models'");
}

TEST_P(Config, ListModelsAnswersTheConfiguredModels) {
  json models = json::parse(provider->list_models());
  EXPECT_EQ(models, (json{{"models", config_for(fake)["models"]}}));
}

TEST_P(Config, KeyFromEnvIsResolvedAtEachCall) {
  std::string var = std::string("AGENTRT_TEST_KEY_") + vendor_name(vendor());
  ::unsetenv(var.c_str());
  json config = config_for(fake, "");
  config["api_key_ref"] = {{"source", "env"}, {"value", var}};
  auto from_env = make_provider(vendor(), config);  // the variable is not set yet

  Outcome missing = run(*from_env, user_request("hi"));
  EXPECT_NE(missing.code(), AGENTRT_OK);
  EXPECT_NE(missing.message().find("did not resolve"), std::string::npos) << missing.message();
  EXPECT_EQ(fake.request_count(), 0u);

  ::setenv(var.c_str(), "sk-env-first", 1);
  Outcome first = run(*from_env, user_request("hi"));
  EXPECT_FALSE(first.error) << first.message();
  EXPECT_EQ(sent_key(vendor(), fake.last_request()), "sk-env-first");

  ::setenv(var.c_str(), "sk-env-rotated", 1);
  Outcome second = run(*from_env, user_request("hi"));
  EXPECT_FALSE(second.error) << second.message();
  EXPECT_EQ(sent_key(vendor(), fake.last_request()), "sk-env-rotated");
  ::unsetenv(var.c_str());
}

TEST_P(Config, InvalidRequestsNeverReachTheUpstream) {
  for (const json& request :
       {json{{"model", kModel}, {"messages", json::array()}},
        json{{"messages", json::array({text_message("user", "hi")})}},
        json{{"model", kModel}, {"messages", json::array({text_message("robot", "hi")})}},
        json{{"model", kModel},
             {"messages", json::array({text_message("user", "hi")})},
             {"max_tokens", -1}},
        json{{"model", kModel},
             {"messages", json::array({{{"role", "user"},
                                        {"content", json::array({{{"type", "audio"}}})}}})}}}) {
    Outcome out = run(*provider, request);
    EXPECT_EQ(out.code(), AGENTRT_ERR_INVALID_ARGUMENT) << request.dump();
  }
  EXPECT_EQ(fake.request_count(), 0u);
}

AGENTRT_ALL_VENDORS(Config);

}  // namespace
}  // namespace agentrt::test
