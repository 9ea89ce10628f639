// The secret watch itself (tests/api/secret_watch.h): what it remembers from a body or a
// config, and what it then finds, so that a leak in any other API test cannot pass
// unseen.
#include "tests/api/secret_watch.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

TEST(SecretWatch, RemembersEachKindOfReferenceAndFindsItInText) {
  TempDir dir;
  const std::string file = dir.write("key", "file-secret-8c2\nsecond line\n");
  remember_secret_refs({{"providers",
                         {{{"api_key_ref", {{"source", "inline"}, {"value", "inline-secret-8c2"}}}},
                          {{"api_key_ref", {{"source", "env"}, {"value", "WATCHED_KEY"}}}},
                          {{"api_key_ref", {{"source", "file"}, {"value", file}}}}}}},
                       {{"WATCHED_KEY", "env-secret-8c2"}});
  EXPECT_EQ(leaked_secret("a log line with inline-secret-8c2 in it"), "inline-secret-8c2");
  EXPECT_EQ(leaked_secret("{\"k\":\"env-secret-8c2\"}"), "env-secret-8c2");
  EXPECT_EQ(leaked_secret("Bearer file-secret-8c2"), "file-secret-8c2");
  EXPECT_EQ(leaked_secret("second line"), "") << "a file secret is its first line";
  EXPECT_EQ(leaked_secret("inline-secret"), "") << "a part of a secret is not the secret";
}

TEST(SecretWatch, IgnoresSecretsTooShortToTellFromText) {
  remember_secret("k");
  remember_secret_refs({{"source", "inline"}, {"value", "abc"}}, {});
  EXPECT_EQ(leaked_secret("keep calm, abc"), "");
}

TEST(SecretWatch, AnIssuedTokenIsWatchedInTheLog) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  ASSERT_FALSE(admin.empty());
  EXPECT_EQ(leaked_secret("x " + admin + " y"), admin);
  auto issued =
      agentd.request("POST", "/admin/tokens", R"({"ttl":"1h","actor":"a"})",
                     {{"Authorization", "Bearer " + admin}, {"Content-Type", "application/json"}});
  ASSERT_EQ(issued.status, 201);
  EXPECT_EQ(leaked_secret(issued.json()["token"].get<std::string>()),
            issued.json()["token"].get<std::string>());
}

}  // namespace
}  // namespace agentrt::test
