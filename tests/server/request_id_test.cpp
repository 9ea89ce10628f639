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

}  // namespace
}  // namespace agentrt::server
