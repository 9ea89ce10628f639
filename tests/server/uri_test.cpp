#include "server/http/uri.h"

#include <gtest/gtest.h>

namespace agentrt::server {
namespace {

TEST(Uri, SplitsOriginFormTargets) {
  auto t = split_request_target("/a/b?x=1&y=2");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/a/b");
  EXPECT_EQ(t->query, "x=1&y=2");
  t = split_request_target("/a#frag");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/a");
  EXPECT_EQ(t->query, "");
  t = split_request_target("/?");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/");
}

TEST(Uri, AcceptsAbsoluteFormTargets) {
  auto t = split_request_target("http://example.com:9091/health?x=1");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/health");
  EXPECT_EQ(t->query, "x=1");
  t = split_request_target("HTTP://example.com");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/");
  t = split_request_target("http://example.com?q");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/");
  EXPECT_EQ(t->query, "q");
}

TEST(Uri, RejectsOtherTargetForms) {
  EXPECT_FALSE(split_request_target(""));
  EXPECT_FALSE(split_request_target("*"));
  EXPECT_FALSE(split_request_target("example.com:443"));
}

TEST(Uri, PercentDecodes) {
  EXPECT_EQ(percent_decode("a%20b%2Fc%2f", false), "a b/c/");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("%E2%82%AC", false), "\xE2\x82\xAC");
  EXPECT_EQ(percent_decode("", false), "");
  EXPECT_FALSE(percent_decode("%", false));
  EXPECT_FALSE(percent_decode("%4", false));
  EXPECT_FALSE(percent_decode("ab%4", false));
  EXPECT_FALSE(percent_decode("%g0", false));
}

TEST(Uri, ParsesQueries) {
  auto q = parse_query("a=1&b=x%20y&c&a=2&&d=e+f&=v");
  ASSERT_TRUE(q);
  const QueryParams expected = {{"a", "1"}, {"b", "x y"}, {"c", ""},
                                {"a", "2"}, {"d", "e f"}, {"", "v"}};
  EXPECT_EQ(*q, expected);
  EXPECT_TRUE(parse_query("")->empty());
  EXPECT_FALSE(parse_query("a=%zz"));
}

}  // namespace
}  // namespace agentrt::server
