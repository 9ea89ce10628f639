// Issue, verify and revoke through the plugin host.
#include "auth_token_fixture.h"
#include "time_helpers.h"

#include <gmock/gmock.h>

#include <set>
#include <thread>

namespace agentrt::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items()) keys.insert(item.key());
  return keys;
}

bool is_lower_hex(const std::string& s) {
  return s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool is_base64url(const std::string& s) {
  return s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
         std::string::npos;
}

TEST_F(AuthTokenTest, DescribesItselfAsAThreadSafeAuthPlugin) {
  const core::LoadedPlugin& plugin = auth->plugin();
  EXPECT_EQ(plugin.name(), "auth-token");
  EXPECT_EQ(plugin.kind(), uint32_t{AGENTRT_KIND_AUTH});
  EXPECT_TRUE(plugin.thread_safe());
}

TEST_F(AuthTokenTest, IssueReturnsTheRecordWithTheSecret) {
  int64_t before = now_seconds();
  json r = issue({{"ttl_s", 90}, {"actor", "alice"}, {"cell", "eu"}, {"admin", true}});
  EXPECT_EQ(keys_of(r), (std::set<std::string>{"id", "token", "actor", "cell", "admin",
                                               "expires_at", "created_at"}));
  EXPECT_EQ(r["actor"], "alice");
  EXPECT_EQ(r["cell"], "eu");
  EXPECT_EQ(r["admin"], true);
  EXPECT_EQ(r["token"].get<std::string>().substr(0, 20), "art_" + r["id"].get<std::string>());
  int64_t created = parse_iso8601(r["created_at"]);
  EXPECT_GE(created, before);
  EXPECT_LE(created, now_seconds());
  // The first whole second at which 90 s have passed since the issue.
  EXPECT_GE(parse_iso8601(r["expires_at"]), created + 90);
  EXPECT_LE(parse_iso8601(r["expires_at"]), created + 91);
}

TEST_F(AuthTokenTest, VerifyReturnsTheClaimsOfTheIssuedToken) {
  json r = issue({{"ttl_s", 600}, {"actor", "bob"}, {"cell", "lab"}, {"admin", true}});
  json claims = verify(r["token"]);
  EXPECT_EQ(claims, (json{{"token_id", r["id"]},
                          {"actor", "bob"},
                          {"cell", "lab"},
                          {"admin", true},
                          {"expires_at", r["expires_at"]},
                          {"cache_s", 60}}));
}

// The host may reuse a verification for cache_s seconds: never past the token's expiry
// (a second early, whatever the fraction of the second), and 60 s at most.
TEST_F(AuthTokenTest, VerifyLetsTheHostReuseClaimsUntilJustBeforeExpiry) {
  EXPECT_EQ(verify(issue({{"ttl_s", nullptr}, {"actor", "a"}})["token"])["cache_s"], 60);
  EXPECT_EQ(verify(issue({{"ttl_s", 3600}, {"actor", "a"}})["token"])["cache_s"], 60);
  wait_for_start_of_second();
  // Issued 20 ms into second S, these expire at S + ttl + 1 (the first whole second at
  // which the ttl has passed), so a reuse may last until S + ttl.
  EXPECT_EQ(verify(issue({{"ttl_s", 30}, {"actor", "a"}})["token"])["cache_s"], 30);
  EXPECT_EQ(verify(issue({{"ttl_s", 1}, {"actor", "a"}})["token"])["cache_s"], 1);
}

TEST_F(AuthTokenTest, CellAndAdminDefaultToNullAndFalse) {
  json r = issue({{"ttl_s", 60}, {"actor", "carol"}});
  EXPECT_TRUE(r["cell"].is_null());
  EXPECT_EQ(r["admin"], false);
  json claims = verify(r["token"]);
  EXPECT_TRUE(claims["cell"].is_null());
  EXPECT_EQ(claims["admin"], false);
  EXPECT_TRUE(
      verify(issue({{"ttl_s", 60}, {"actor", "c"}, {"cell", nullptr}})["token"])["cell"].is_null());
}

TEST_F(AuthTokenTest, NullTtlNeverExpires) {
  json r = issue({{"ttl_s", nullptr}, {"actor", "admin"}, {"admin", true}});
  EXPECT_TRUE(r["expires_at"].is_null());
  json claims = verify(r["token"]);
  EXPECT_TRUE(claims["expires_at"].is_null());
  EXPECT_EQ(claims["admin"], true);
}

TEST_F(AuthTokenTest, TokensHaveTheDocumentedShapeAndAreUnique) {
  std::set<std::string> tokens, ids, secrets;
  for (int i = 0; i < 300; ++i) {
    json r = issue_for("shape");
    std::string token = r["token"], id = r["id"];
    ASSERT_EQ(token.size(), 63u) << token;
    EXPECT_EQ(token.substr(0, 4), "art_");
    EXPECT_EQ(id.size(), 16u);
    EXPECT_TRUE(is_lower_hex(id)) << id;
    EXPECT_EQ(token.substr(4, 16), id);
    EXPECT_TRUE(is_base64url(token.substr(20))) << token;
    tokens.insert(token);
    ids.insert(id);
    secrets.insert(token.substr(20));
  }
  EXPECT_EQ(tokens.size(), 300u);
  EXPECT_EQ(ids.size(), 300u);
  EXPECT_EQ(secrets.size(), 300u);
}

TEST_F(AuthTokenTest, MalformedTokensAreRefusedWithoutEchoingThem) {
  std::string good = issue_for("m")["token"];
  std::string upper_id = good, bad_char = good, space = good;
  upper_id[6] = 'F';
  bad_char[50] = '=';
  space[30] = ' ';
  for (const std::string& token :
       {good.substr(0, 62), good.substr(0, 20), good + "x", "ghp_" + good.substr(4),
        "ART_" + good.substr(4), std::string(), std::string("art_"), upper_id, bad_char, space}) {
    Failure f = verify_failure(token);
    EXPECT_EQ(f.code, AGENTRT_ERR_UNAUTHENTICATED) << token;
    EXPECT_EQ(f.message, "malformed token") << token;
  }
}

TEST_F(AuthTokenTest, AnUnknownIdIsAnUnknownToken) {
  std::string good = issue_for("u")["token"];
  std::string other_id = good;
  other_id[4] = other_id[4] == '0' ? '1' : '0';
  Failure f = verify_failure(other_id);
  EXPECT_EQ(f.code, AGENTRT_ERR_UNAUTHENTICATED);
  EXPECT_EQ(f.message, "unknown token");
}

TEST_F(AuthTokenTest, AnyChangedSecretCharacterMakesAnUnknownToken) {
  std::string good = issue_for("s")["token"];
  for (size_t at = 20; at < good.size(); ++at) {
    std::string forged = good;
    forged[at] = forged[at] == 'A' ? 'B' : 'A';
    Failure f = verify_failure(forged);
    EXPECT_EQ(f.code, AGENTRT_ERR_UNAUTHENTICATED) << "position " << at;
    EXPECT_EQ(f.message, "unknown token") << "position " << at;
    EXPECT_THAT(f.message, Not(HasSubstr(good.substr(20, 8))));
  }
  EXPECT_EQ(verify(good)["actor"], "s");
}

TEST_F(AuthTokenTest, VerifyNeedsAStringTokenField) {
  for (const char* request : {"{}", R"({"token":42})", R"({"token":null})", "[]", "not json"}) {
    Failure f = raw_failure(table().verify, request);
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << request;
  }
  EXPECT_EQ(raw_failure(table().verify, "{}").message, "token must be a string");
}

// A token lives at least its ttl: its expiry is the first whole second at which the
// ttl has passed. (It was the second it was issued in, rounded down, plus the ttl: a
// `1s` token issued late in a second lived a few milliseconds.)
TEST_F(AuthTokenTest, ATokenExpiresWhenItsTtlHasPassed) {
  wait_for_start_of_second();
  json r = issue({{"ttl_s", 1}, {"actor", "brief"}});
  EXPECT_EQ(parse_iso8601(r["expires_at"]), parse_iso8601(r["created_at"]) + 2);
  EXPECT_EQ(verify(r["token"])["actor"], "brief");
  std::this_thread::sleep_for(std::chrono::milliseconds(1050));
  EXPECT_EQ(verify(r["token"])["actor"], "brief") << "a second after its issue";
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  Failure f = verify_failure(r["token"]);
  EXPECT_EQ(f.code, AGENTRT_ERR_UNAUTHENTICATED);
  EXPECT_EQ(f.message, "token expired");
  // Dead as a revoked one, it is no longer listed (ExpiredTokensAreNotListed).
  EXPECT_EQ(list()["data"].size(), 0u);
}

TEST_F(AuthTokenTest, RevokeTakesEffectAtOnce) {
  json kept = issue_for("kept");
  json gone = issue_for("gone");
  ASSERT_EQ(verify(gone["token"])["actor"], "gone");
  EXPECT_EQ(revoke(gone["id"]), (json{{"revoked", true}, {"id", gone["id"]}}));

  Failure f = verify_failure(gone["token"]);
  EXPECT_EQ(f.code, AGENTRT_ERR_UNAUTHENTICATED);
  EXPECT_EQ(f.message, "token revoked");
  EXPECT_EQ(verify(kept["token"])["actor"], "kept");
  json listed = list()["data"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["id"], kept["id"]);
}

TEST_F(AuthTokenTest, RevokingAnUnknownOrRevokedIdIsNotFound) {
  json r = issue_for("twice");
  revoke(r["id"]);
  for (const std::string& id : {r["id"].get<std::string>(), std::string("0000000000000000"),
                                std::string("not-an-id"), std::string()}) {
    Failure f = failure([&] { revoke(id); });
    EXPECT_EQ(f.code, AGENTRT_ERR_NOT_FOUND) << id;
    EXPECT_EQ(f.message, "token not found") << id;
  }
  EXPECT_EQ(raw_failure(table().revoke, R"({"id":7})").code, AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(raw_failure(table().revoke, "{}").code, AGENTRT_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace agentrt::test
