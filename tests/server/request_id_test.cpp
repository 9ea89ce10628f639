#include "server/http/request_id.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace agentrt::server {
namespace {

TEST(RequestId, AcceptsOnlyTheDocumentedShape) {
  for (const std::string& ok : {std::string("a"), std::string("AZaz09._-"), std::string(64, 'x')})
    EXPECT_TRUE(is_valid_request_id(ok)) << ok;
  for (const std::string& bad :
       {std::string(""), std::string(65, 'x'), std::string("a b"), std::string("a/b"),
        std::string("a\nb"), std::string("é"), std::string("a:b"), std::string("a\0b", 3)})
    EXPECT_FALSE(is_valid_request_id(bad)) << bad;
}

TEST(RequestId, GeneratesSixteenHexCharactersThatDiffer) {
  const std::regex shape("^[0-9a-f]{16}$");
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = generate_request_id();
    EXPECT_TRUE(std::regex_match(id, shape)) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(RequestId, ChoosesTheClientsWhenValid) {
  EXPECT_EQ(choose_request_id("client-1"), "client-1");
  const std::string replaced = choose_request_id("not valid");
  EXPECT_NE(replaced, "not valid");
  EXPECT_TRUE(is_valid_request_id(replaced));
  EXPECT_EQ(choose_request_id("").size(), 16u);
}

// A bearer token fits the id's alphabet: one pasted here went into the access log whole.
TEST(RequestId, AnIdHoldingATokenIsReplaced) {
  const std::string token = "art_0123456789abcdef_" + std::string(40, 'S');
  ASSERT_TRUE(is_valid_request_id(token));
  for (const std::string& sent : {token, "x-" + token.substr(0, 60)}) {
    const std::string chosen = choose_request_id(sent);
    EXPECT_EQ(chosen.size(), 16u) << sent;
    EXPECT_EQ(chosen.find("SSSS"), std::string::npos);
  }
  EXPECT_EQ(choose_request_id("art_0123456789abcdef"), "art_0123456789abcdef")
      << "a token's id alone is no secret";
}

}  // namespace
}  // namespace agentrt::server
