// Shared providers over a real store and the real echo plugin: validation, model-id
// uniqueness, all-or-nothing upserts, masking, persistence.
#include "core/providers/provider_registry.h"
#include "core/domain/errors.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

namespace agentrt::core {
namespace {

using nlohmann::json;

json provider(const std::string& name, const std::string& model, json extra = json::object()) {
  json p = {
      {"name", name}, {"type", "echo"}, {"models", {{{"id", model}, {"context_window", 4096}}}}};
  p.update(extra);
  return p;
}

class Providers : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host.load(std::string(AGENTRT_TEST_BUNDLED_DIR) + "/agentrt-echo.so").loaded);
    registry = std::make_unique<ProviderRegistry>(store, host);
    auto echo = std::make_shared<ProviderInstance>(host.find("echo"), "{}");
    registry->add_configured("echo", echo, parse_model_list(echo->list_models()));
  }
  ErrorKind error_of(const json& body) {
    try {
      registry->upsert(body);
    } catch (const DomainError& e) {
      last_message = e.what();
      return e.kind();
    }
    ADD_FAILURE() << "accepted " << body.dump();
    return ErrorKind::internal;
  }
  test_util::TempDir dir;
  StateStore store{dir.path()};
  PluginHost host;
  std::unique_ptr<ProviderRegistry> registry;
  std::string last_message;
};

TEST_F(Providers, UpsertAnswersTheFullListWithKeysMasked) {
  json key = {{"source", "inline"}, {"value", "sk-very-secret"}};
  json list = registry->upsert({{"providers", {provider("p1", "m1", {{"api_key_ref", key}})}}});
  ASSERT_EQ(list["data"].size(), 1u);
  EXPECT_EQ(list["data"][0]["api_key_ref"], (json{{"source", "inline"}, {"value", "***"}}));
  EXPECT_EQ(registry->list().dump().find("sk-very-secret"), std::string::npos);
  auto resolved = registry->resolve("m1");
  ASSERT_TRUE(resolved);
  EXPECT_EQ(resolved->provider, "p1");
  EXPECT_EQ(resolved->model.context_window, 4096);
  EXPECT_TRUE(resolved->instance);
  EXPECT_TRUE(registry->resolve("echo")) << "models of configured plugins resolve too";
}

TEST_F(Providers, BadFieldsNameTheField) {
  EXPECT_EQ(error_of({{"providers", {provider("p1", "m1", {{"type", "nope"}})}}}),
            ErrorKind::invalid);
  EXPECT_NE(last_message.find("available: echo"), std::string::npos) << last_message;
  EXPECT_EQ(
      error_of(
          {{"providers",
            {provider("p1", "m1", {{"api_key_ref", {{"source", "vault"}, {"value", "x"}}}})}}}),
      ErrorKind::invalid);
  EXPECT_NE(last_message.find("providers[0].api_key_ref.source"), std::string::npos);
  EXPECT_EQ(error_of({{"providers", json::array()}}), ErrorKind::invalid);
  EXPECT_EQ(error_of({{"providers", {provider("p1", "m1", {{"models", json::array()}})}}}),
            ErrorKind::invalid);
  EXPECT_EQ(error_of({{"providers", {provider("P 1", "m1")}}}), ErrorKind::invalid);
  EXPECT_EQ(error_of({{"providers", {provider("p1", "m1", {{"base_url", "ftp://x"}})}}}),
            ErrorKind::invalid);
  // Credentials in the URL would be shown with it: the key goes in api_key_ref.
  for (const char* url :
       {"http://user:sk-secret@127.0.0.1:1/v1", "https://sk-secret@host", "http://u:p@h?x=1"}) {
    EXPECT_EQ(error_of({{"providers", {provider("p1", "m1", {{"base_url", url}})}}}),
              ErrorKind::invalid)
        << url;
    EXPECT_NE(last_message.find("must not hold credentials"), std::string::npos) << last_message;
    EXPECT_EQ(last_message.find("sk-secret"), std::string::npos) << last_message;
  }
  registry->upsert({{"providers", {provider("p9", "m9", {{"base_url", "http://h/v1?to=a@b"}})}}});
  EXPECT_EQ(registry->list()["data"][0]["base_url"], "http://h/v1?to=a@b") << "@ past the host";
  registry->remove("p9");
  EXPECT_EQ(
      error_of(
          {{"providers",
            {provider("p1", "m1", {{"models", {{{"id", "m1"}, {"context_window", "big"}}}}})}}}),
      ErrorKind::invalid);
  EXPECT_NE(last_message.find("providers[0].models[0].context_window"), std::string::npos);
  EXPECT_TRUE(registry->list()["data"].empty());
}

TEST_F(Providers, ModelIdsAreUniqueAcrossProviders) {
  registry->upsert({{"providers", {provider("p1", "m1")}}});
  EXPECT_EQ(error_of({{"providers", {provider("p2", "m1")}}}), ErrorKind::conflict);
  EXPECT_EQ(error_of({{"providers", {provider("p2", "echo")}}}), ErrorKind::conflict);
  EXPECT_EQ(error_of({{"providers", {provider("p2", "x"), provider("p3", "x")}}}),
            ErrorKind::conflict);
  EXPECT_EQ(error_of({{"providers", {provider("echo", "new")}}}), ErrorKind::conflict);
  // Re-offering its own model under the same name is an update, not a clash.
  registry->upsert({{"providers", {provider("p1", "m1", {{"base_url", "http://localhost:1"}})}}});
  EXPECT_EQ(registry->list()["data"][0]["base_url"], "http://localhost:1");
}

TEST_F(Providers, FailedUpsertChangesNothing) {
  registry->upsert({{"providers", {provider("p1", "m1")}}});
  json before = registry->list();
  EXPECT_EQ(error_of({{"providers", {provider("p1", "m9"), provider("p2", "echo")}}}),
            ErrorKind::conflict);
  EXPECT_EQ(registry->list(), before);
  EXPECT_TRUE(registry->resolve("m1"));
  EXPECT_FALSE(registry->resolve("m9"));
}

TEST_F(Providers, UpdateReplacesModelsAndDeleteRemoves) {
  registry->upsert({{"providers", {provider("p1", "m1")}}});
  registry->upsert({{"providers", {provider("p1", "m2")}}});
  EXPECT_FALSE(registry->resolve("m1"));
  EXPECT_TRUE(registry->resolve("m2"));
  registry->remove("p1");
  EXPECT_FALSE(registry->resolve("m2"));
  EXPECT_THROW(registry->remove("p1"), DomainError);
  EXPECT_THROW(registry->remove("echo"), DomainError) << "configured providers are not the API's";
}

TEST_F(Providers, SurviveARestart) {
  registry->upsert(
      {{"providers",
        {provider("p1", "m1",
                  {{"api_key_ref", {{"source", "env"}, {"value", "AGENTRT_SECRET_KEY_VAR"}}}})}}});
  ProviderRegistry reopened(store, host);
  reopened.load_shared();
  auto resolved = reopened.resolve("m1");
  ASSERT_TRUE(resolved);
  EXPECT_TRUE(resolved->instance);
  EXPECT_EQ(reopened.list()["data"][0]["api_key_ref"]["value"], "AGENTRT_SECRET_KEY_VAR");
}

// The API's references stay inside the fence (tests/api/admin_secrets_test.cpp has the
// files): a variable without the prefix is refused, and nothing is stored.
TEST_F(Providers, AKeyVariableWithoutThePrefixIsRefused) {
  try {
    registry->upsert(
        {{"providers",
          {provider("p1", "m1", {{"api_key_ref", {{"source", "env"}, {"value", "KEY_VAR"}}}})}}});
    FAIL() << "an unprefixed variable was taken";
  } catch (const DomainError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid);
    EXPECT_NE(std::string(e.what()).find("secrets.env_prefix"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(registry->resolve("m1"));
}

// A shared provider stored before the config enabled a plugin of its name, or one serving
// its model, is not served after the restart: the config's provider answers, and deleting
// the stored one leaves the config's alone; the stored one must not replace it, nor its
// deletion take the config's models.
TEST_F(Providers, WhatTheConfigEnablesWinsOverAStoredSharedProvider) {
  registry.reset();
  ProviderRegistry before(store, host);  // no plugin enabled yet
  before.upsert({{"providers",
                  {provider("later-plugin", "m1"), provider("p2", "echo"), provider("p3", "m3")}}});
  ProviderRegistry after(store, host);
  auto instance = std::make_shared<ProviderInstance>(host.find("echo"), "{}");
  // Serves the echo plugin's model "echo".
  after.add_configured("later-plugin", instance, parse_model_list(instance->list_models()));
  after.load_shared();
  EXPECT_FALSE(after.resolve("m1")) << "served by the shadowed provider";
  ASSERT_TRUE(after.resolve("echo"));
  EXPECT_EQ(after.resolve("echo")->provider, "later-plugin");
  EXPECT_EQ(after.resolve("m3")->provider, "p3");
  json listed = after.list()["data"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["name"], "p3");

  after.remove("later-plugin");
  after.remove("p2");
  ASSERT_TRUE(after.resolve("echo")) << "deleting a stored one took the config's model";
  EXPECT_EQ(after.resolve("echo")->provider, "later-plugin");
  EXPECT_THROW(after.remove("later-plugin"), DomainError) << "deleted once";
  ProviderRegistry restarted(store, host);
  restarted.load_shared();
  EXPECT_EQ(restarted.list()["data"].size(), 1u) << "the deleted rows are gone";
}

}  // namespace
}  // namespace agentrt::core
