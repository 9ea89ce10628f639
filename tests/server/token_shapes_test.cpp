// Token shapes cut from text that goes back to clients or into the log.
#include "server/http/token_shapes.h"

#include <gtest/gtest.h>

#include <string>

namespace agentrt::server {
namespace {

std::string redacted(const std::string& text) {
  std::string scratch;
  return std::string(redact_token_shapes(text, scratch));
}

const std::string kToken = "art_0123456789abcdef" + std::string(43, 'x') + "-_Q9";

TEST(TokenShapes, ATokenAnywhereIsCutToItsPrefix) {
  EXPECT_EQ(redacted("no route for GET /nope/" + kToken), "no route for GET /nope/art_[redacted]");
  EXPECT_EQ(redacted("session '" + kToken + "' not found"), "session 'art_[redacted]' not found");
  EXPECT_EQ(redacted("/a/x" + kToken + "/b/" + kToken), "/a/xart_[redacted]/b/art_[redacted]");
  EXPECT_EQ(redacted(kToken), "art_[redacted]");
}

TEST(TokenShapes, IdsAndOtherTextStay) {
  for (const std::string& text :
       {std::string("/admin/tokens/art_0123456789abcdef"), std::string("art_"),
        std::string("a cart_of apples"), std::string(""), std::string("plain text"),
        "art_0123456789abcdef/" + std::string(40, 'y')})
    EXPECT_EQ(redacted(text), text);
  std::string scratch = "left over";
  EXPECT_EQ(redact_token_shapes("plain", scratch), "plain");
}

}  // namespace
}  // namespace agentrt::server
