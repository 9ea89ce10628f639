// Bad input on the admin surface: each gets 400/409 in the documented shape, naming the
// field, and the store is unchanged afterwards.
#include "tests/api/admin_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

class AdminInput : public ::testing::Test {
 protected:
  void SetUp() override { admin = first_admin_token(agentd); }

  void expect_refused(const std::string& method, const std::string& path, const json& body,
                      int status, const std::string& mention) {
    auto response = call(agentd, method, path, admin, body);
    EXPECT_EQ(response.status, status) << body.dump() << " -> " << response.body;
    const json& error = response.json()["error"];
    EXPECT_TRUE(error.is_object()) << response.body;
    EXPECT_EQ(error["request_id"], response.header("X-Request-Id"));
    EXPECT_NE(error["message"].get<std::string>().find(mention), std::string::npos)
        << "message should mention '" << mention << "': " << error["message"];
  }
  std::string snapshot() {
    return call(agentd, "GET", "/admin/tokens?limit=500", admin).body +
           call(agentd, "GET", "/admin/cells?limit=500", admin).body +
           call(agentd, "GET", "/admin/shared-providers", admin).body;
  }

  AgentdProcess agentd{with_args({"--mode", "multi"})};  // cells beyond default
  std::string admin;
};

TEST_F(AdminInput, Tokens) {
  std::string before = snapshot();
  for (const char* ttl : {"0s", "-5m", "5x", "30dx", "", "99999d", "1h1h", "m5"})
    expect_refused("POST", "/admin/tokens", {{"ttl", ttl}, {"actor", "a"}}, 400, "ttl");
  expect_refused("POST", "/admin/tokens", {{"ttl", 5}, {"actor", "a"}}, 400, "ttl");
  expect_refused("POST", "/admin/tokens", {{"actor", "a"}}, 400, "ttl");
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}}, 400, "actor");
  // One name reads as one name.
  for (const std::string& odd :
       {std::string("al\0ice", 6), std::string("bob\n"), std::string("x\x7f"),
        std::string("c\xc2\x85"
                    "d"),
        std::string(" admin"), std::string("eve ")})
    expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", odd}}, 400, "actor");
  for (const char* admin_alike : {"Admin", "ADMIN"})
    expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", admin_alike}}, 400,
                   "kept for admin tokens");
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "c1"}}).status, 201);
  expect_refused("GET", "/cells/c1/sessions?actor=a%00b", nullptr, 400, "actor");
  expect_refused("GET", "/cells/c1/memory?actor=a%0a", nullptr, 400, "actor");
  // An actor no token could be issued for is not one an admin may act or read as: a run
  // or an entry stored under it would be no actor's.
  const std::string too_long(257, 'a'), longest(256, 'a');
  const json messages = json::array(
      {{{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "hi"}}})}}});
  expect_refused("POST", "/cells/c1/chat",
                 {{"model", "echo"}, {"actor", too_long}, {"messages", messages}}, 400,
                 "at most 256 characters");
  expect_refused("POST", "/cells/c1/memory",
                 {{"layer", "about_me"}, {"content", "x"}, {"actor", too_long}}, 400,
                 "at most 256 characters");
  expect_refused("GET", "/cells/c1/sessions?actor=" + too_long, nullptr, 400, "actor");
  EXPECT_EQ(call(agentd, "POST", "/cells/c1/memory", admin,
                 {{"layer", "about_me"}, {"content", "x"}, {"actor", longest}})
                .status,
            201);
  EXPECT_EQ(
      call(agentd, "GET", "/cells/c1/memory/counts?actor=" + longest, admin).json()["about_me"], 1);
  EXPECT_EQ(call(agentd, "DELETE", "/admin/cells/c1", admin).status, 204);
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", true}}, 400, "actor");
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "a"}, {"admin", "yes"}}, 400,
                 "admin");
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "a"}, {"cell", 7}}, 400,
                 "cell");
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "a"}, {"cell", "nope"}}, 400,
                 "cell");
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "a"}, {"colour", 1}}, 400,
                 "colour");
  expect_refused("POST", "/admin/tokens", json::array({1}), 400, "object");
  // Admin tokens naming no actor write as "admin": a plain token of that name would read
  // all they wrote. An admin token may name it.
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "admin"}}, 400,
                 "kept for admin tokens");
  expect_refused("POST", "/admin/tokens", {{"ttl", "1h"}, {"actor", "admin"}, {"admin", false}},
                 400, "actor");
  expect_refused("DELETE", "/admin/tokens/0000000000000000", nullptr, 404, "not found");
  expect_refused("GET", "/admin/tokens?limit=0", nullptr, 400, "limit");
  expect_refused("GET", "/admin/tokens?limit=10000", nullptr, 400, "limit");
  expect_refused("GET", "/admin/tokens?cursor=garbage", nullptr, 400, "cursor");
  auto malformed = agentd.request("POST", "/admin/tokens", "{\"ttl\":", auth_headers(admin));
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(call(agentd, "POST", "/admin/tokens", admin,
                 {{"ttl", "1h"}, {"actor", "admin"}, {"admin", true}})
                .status,
            201);
}

TEST_F(AdminInput, Cells) {
  ASSERT_EQ(call(agentd, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
  std::string before = snapshot();
  for (const std::string& id : {std::string("Acme"), std::string("a/b"), std::string(64, 'a'),
                                std::string(""), std::string("-x")})
    expect_refused("POST", "/admin/cells", {{"id", id}}, 400, "id");
  expect_refused("POST", "/admin/cells", {{"id", 5}}, 400, "id");
  expect_refused("POST", "/admin/cells", json::object(), 400, "id");
  expect_refused("POST", "/admin/cells", {{"id", "mars"}, {"timezone", "Mars/Olympus"}}, 400,
                 "timezone");
  expect_refused("POST", "/admin/cells", {{"id", "bang"}, {"locale", "!!"}}, 400, "locale");
  expect_refused("POST", "/admin/cells", {{"id", "acme"}}, 409, "acme");
  expect_refused("PATCH", "/admin/cells/acme", {{"timezone", "Mars/Olympus"}}, 400, "timezone");
  expect_refused("PATCH", "/admin/cells/acme", {{"id", "renamed"}}, 400, "id");
  expect_refused("PATCH", "/admin/cells/ghost", {{"locale", "en-GB"}}, 404, "ghost");
  expect_refused("GET", "/admin/cells/ghost", nullptr, 404, "ghost");
  expect_refused("DELETE", "/admin/cells/ghost", nullptr, 404, "ghost");
  EXPECT_EQ(snapshot(), before);
}

// Single-cell mode has its one cell, which cannot go, and no other: no route could reach
// one, nor a token scoped to it.
TEST(AdminInputSingleCell, TheOneCellCannotGoAndNoOtherCanBeMade) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  EXPECT_EQ(call(agentd, "DELETE", "/admin/cells/default", admin).status, 409);
  HttpResponse made = call(agentd, "POST", "/admin/cells", admin, {{"id", "orphan"}});
  EXPECT_EQ(made.status, 409) << made.body;
  EXPECT_EQ(call(agentd, "POST", "/admin/tokens", admin,
                 {{"ttl", "1h"}, {"actor", "a"}, {"cell", "orphan"}})
                .status,
            400);
  EXPECT_EQ(call(agentd, "GET", "/admin/cells", admin).json()["data"].size(), 1u);
}

TEST_F(AdminInput, SharedProviders) {
  auto provider = [](const std::string& name, const std::string& model) {
    return json{
        {"name", name}, {"type", "echo"}, {"models", {{{"id", model}, {"context_window", 1000}}}}};
  };
  ASSERT_EQ(call(agentd, "POST", "/admin/shared-providers", admin,
                 {{"providers", {provider("first", "m1")}}})
                .status,
            200);
  std::string before = snapshot();
  json unknown_type = provider("p", "m2");
  unknown_type["type"] = "skynet";
  expect_refused("POST", "/admin/shared-providers", {{"providers", {unknown_type}}}, 400, "echo");
  expect_refused("POST", "/admin/shared-providers", {{"providers", {provider("second", "m1")}}},
                 409, "m1");
  expect_refused("POST", "/admin/shared-providers", {{"providers", {provider("x", "echo")}}}, 409,
                 "echo");
  json bad_source = provider("p", "m3");
  bad_source["api_key_ref"] = {{"source", "vault"}, {"value", "k"}};
  expect_refused("POST", "/admin/shared-providers", {{"providers", {bad_source}}}, 400,
                 "api_key_ref.source");
  json no_window = provider("p", "m4");
  no_window["models"][0].erase("context_window");
  expect_refused("POST", "/admin/shared-providers", {{"providers", {no_window}}}, 400,
                 "context_window");
  expect_refused("POST", "/admin/shared-providers", {{"providers", "all"}}, 400, "providers");
  expect_refused("POST", "/admin/shared-providers", json::object(), 400, "providers");
  // All or nothing: a good provider beside a bad one is not stored either.
  expect_refused("POST", "/admin/shared-providers",
                 {{"providers", {provider("good", "m5"), provider("bad", "m1")}}}, 409, "m1");
  expect_refused("DELETE", "/admin/shared-providers/ghost", nullptr, 404, "ghost");
  EXPECT_EQ(snapshot(), before);
}

// Like every list, not by name and whole with any query taken: newest first, paged, a bad
// limit or cursor refused.
TEST_F(AdminInput, SharedProvidersListNewestFirstInPages) {
  auto save = [&](const std::string& name, const std::string& model) {
    const json provider = {
        {"name", name}, {"type", "echo"}, {"models", {{{"id", model}, {"context_window", 1000}}}}};
    return call(agentd, "POST", "/admin/shared-providers", admin, {{"providers", {provider}}})
        .status;
  };
  for (const std::string name : {"zeta", "alpha", "mid"}) ASSERT_EQ(save(name, "m-" + name), 200);
  ASSERT_EQ(save("zeta", "m-zeta2"), 200);  // an update keeps its place
  auto names = [](const json& page) {
    std::vector<std::string> out;
    for (const json& p : page["data"]) out.push_back(p["name"]);
    return out;
  };
  const json first = call(agentd, "GET", "/admin/shared-providers?limit=2", admin).json();
  EXPECT_EQ(names(first), (std::vector<std::string>{"mid", "alpha"}));
  ASSERT_TRUE(first["next_cursor"].is_string()) << first.dump();
  const json second =
      call(agentd, "GET",
           "/admin/shared-providers?limit=2&cursor=" + first["next_cursor"].get<std::string>(),
           admin)
          .json();
  EXPECT_EQ(names(second), (std::vector<std::string>{"zeta"}));
  EXPECT_TRUE(second["next_cursor"].is_null());
  EXPECT_EQ(names(call(agentd, "GET", "/admin/shared-providers", admin).json()),
            (std::vector<std::string>{"mid", "alpha", "zeta"}));
  expect_refused("GET", "/admin/shared-providers?limit=abc", nullptr, 400, "limit");
  expect_refused("GET", "/admin/shared-providers?limit=0", nullptr, 400, "limit");
  expect_refused("GET", "/admin/shared-providers?cursor=junk", nullptr, 400, "cursor");
}

}  // namespace
}  // namespace agentrt::test
