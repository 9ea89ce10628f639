// Listing: no secrets, newest first, cursor paging, the admin filter.
#include "auth_token_fixture.h"
#include "time_helpers.h"

#include <algorithm>
#include <set>
#include <vector>

namespace agentrt::test {
namespace {

class AuthTokenList : public AuthTokenTest {
 protected:
  // Every page of a listing, following next_cursor to the end.
  std::vector<json> pages(int limit) const {
    std::vector<json> out;
    json cursor = nullptr;
    do {
      out.push_back(list({{"limit", limit}, {"cursor", cursor}}));
      cursor = out.back()["next_cursor"];
    } while (!cursor.is_null() && out.size() < 1000);  // a cursor that never ends fails
    return out;
  }
  static std::vector<json> records(const std::vector<json>& pages) {
    std::vector<json> out;
    for (const json& p : pages)
      for (const json& r : p["data"]) out.push_back(r);
    return out;
  }
};

TEST_F(AuthTokenList, AnEmptyStoreListsNothing) {
  EXPECT_EQ(list(), (json{{"data", json::array()}, {"next_cursor", nullptr}}));
}

TEST_F(AuthTokenList, RecordsCarryNoSecret) {
  json issued = issue({{"ttl_s", 60}, {"actor", "a"}, {"cell", "c"}, {"admin", true}});
  json listed = list();
  ASSERT_EQ(listed["data"].size(), 1u);
  json expected = issued;
  expected.erase("token");
  EXPECT_EQ(listed["data"][0], expected);
  EXPECT_EQ(listed.dump().find(issued["token"].get<std::string>().substr(20)), std::string::npos);
}

// An expired token fails as a revoked one does, so neither is listed: a listing once
// began with every expired token ever issued.
TEST_F(AuthTokenList, ExpiredTokensAreNotListed) {
  json lasting = issue({{"ttl_s", 3600}, {"actor", "lasting"}});
  json brief = issue({{"ttl_s", 1}, {"actor", "brief"}});
  json forever = issue({{"ttl_s", nullptr}, {"actor", "forever"}});
  EXPECT_EQ(list()["data"].size(), 3u);
  Sqlite(db_path()).text("UPDATE tokens SET expires_at = 1000 WHERE id = ?1", brief["id"]);
  json listed = list();
  ASSERT_EQ(listed["data"].size(), 2u) << listed.dump();
  EXPECT_EQ(listed["data"][0]["id"], forever["id"]);
  EXPECT_EQ(listed["data"][1]["id"], lasting["id"]);
}

TEST_F(AuthTokenList, PagesCoverEveryTokenOnceNewestFirst) {
  std::set<std::string> older, newer;
  for (int i = 0; i < 7; ++i) older.insert(issue_for("old")["id"].get<std::string>());
  wait_for_start_of_second();
  for (int i = 0; i < 7; ++i) newer.insert(issue_for("new")["id"].get<std::string>());

  std::vector<json> p = pages(3);
  ASSERT_EQ(p.size(), 5u);
  std::vector<json> rs = records(p);
  ASSERT_EQ(rs.size(), 14u);
  std::set<std::string> seen;
  for (size_t i = 0; i < rs.size(); ++i) {
    std::string id = rs[i]["id"];
    EXPECT_TRUE(seen.insert(id).second) << "duplicate " << id;
    EXPECT_EQ(i < 7 ? newer.count(id) : older.count(id), 1u) << "position " << i;
    if (i == 0) continue;
    EXPECT_LE(parse_iso8601(rs[i]["created_at"]), parse_iso8601(rs[i - 1]["created_at"]));
  }
}

// Newest first is the order of issue, also within one second, which created_at cannot
// tell apart (such tokens listed in the order of their random ids).
TEST_F(AuthTokenList, TokensOfOneSecondListInTheReverseOrderOfIssue) {
  std::vector<std::string> issued;
  wait_for_start_of_second();
  for (int i = 0; i < 12; ++i) issued.push_back(issue_for("burst")["id"].get<std::string>());
  std::vector<std::string> listed;
  for (const json& r : records(pages(5))) listed.push_back(r["id"]);
  std::reverse(issued.begin(), issued.end());
  EXPECT_EQ(listed, issued);
}

TEST_F(AuthTokenList, DefaultsToFiftyAndEndsWithoutAnEmptyPage) {
  for (int i = 0; i < 55; ++i) issue_for("many");
  json first = list();
  EXPECT_EQ(first["data"].size(), 50u);
  ASSERT_TRUE(first["next_cursor"].is_string());
  json second = list({{"cursor", first["next_cursor"]}});
  EXPECT_EQ(second["data"].size(), 5u);
  EXPECT_TRUE(second["next_cursor"].is_null());
  EXPECT_TRUE(list({{"limit", 55}})["next_cursor"].is_null());
  EXPECT_EQ(list({{"limit", 500}})["data"].size(), 55u);
}

TEST_F(AuthTokenList, RevokingTheCursorTokenBetweenPagesLosesNothing) {
  std::set<std::string> ids;
  for (int i = 0; i < 6; ++i) ids.insert(issue_for("r")["id"].get<std::string>());
  json first = list({{"limit", 3}});
  revoke(first["data"][2]["id"]);
  ids.erase(first["data"][2]["id"].get<std::string>());
  json second = list({{"limit", 3}, {"cursor", first["next_cursor"]}});
  EXPECT_TRUE(second["next_cursor"].is_null());
  std::set<std::string> seen;
  for (const json& page : {first, second})
    for (const json& r : page["data"]) seen.insert(r["id"].get<std::string>());
  seen.erase(first["data"][2]["id"].get<std::string>());
  EXPECT_EQ(seen, ids);
  EXPECT_EQ(second["data"].size(), 3u);
}

TEST_F(AuthTokenList, AGarbageCursorIsRefused) {
  issue_for("g");
  for (const char* cursor : {"garbage", "", "%%%", "MTIz", "YWJjOmRlZg", "!!!!"}) {
    Failure f = failure([&] { list({{"cursor", cursor}}); });
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << cursor;
    EXPECT_EQ(f.message, "invalid cursor") << cursor;
  }
  EXPECT_EQ(failure([&] { list({{"cursor", 12}}); }).code, AGENTRT_ERR_INVALID_ARGUMENT);
}

TEST_F(AuthTokenList, LimitMustBeAnIntegerFromOneTo500) {
  for (const json& limit : {json(0), json(501), json(-1), json(2.5), json("10"), json(true)}) {
    Failure f = failure([&] { list({{"limit", limit}}); });
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << limit;
    EXPECT_EQ(f.message, "limit must be an integer from 1 to 500") << limit;
  }
  EXPECT_NO_THROW(list({{"limit", 1}}));
  EXPECT_NO_THROW(list({{"limit", 500}}));
}

TEST_F(AuthTokenList, FiltersByAdmin) {
  std::set<std::string> admins;
  for (int i = 0; i < 2; ++i)
    admins.insert(
        issue({{"ttl_s", nullptr}, {"actor", "root"}, {"admin", true}})["id"].get<std::string>());
  for (int i = 0; i < 3; ++i) issue_for("user");
  std::set<std::string> listed;
  json admin_only = list({{"admin", true}});
  for (const json& r : admin_only["data"]) listed.insert(r["id"].get<std::string>());
  EXPECT_EQ(listed, admins);
  EXPECT_EQ(list({{"admin", false}})["data"].size(), 3u);
  EXPECT_EQ(list()["data"].size(), 5u);
  EXPECT_EQ(failure([&] { list({{"admin", "yes"}}); }).code, AGENTRT_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace agentrt::test
