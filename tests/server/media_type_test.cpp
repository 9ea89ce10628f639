// is_json_media_type decides as Poco's MediaType did before it (the pipeline's 415).
#include "server/http/media_type.h"

#include <Poco/Net/MediaType.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::server {
namespace {

bool poco_says_json(const std::string& value) {
  try {
    return Poco::Net::MediaType(value).matches("application", "json");
  } catch (const Poco::Exception&) {
    return false;
  }
}

TEST(MediaType, DecidesAsPocosMediaTypeDid) {
  const std::vector<std::string> values = {"application/json",
                                           "APPLICATION/JSON",
                                           "Application/Json; charset=utf-8",
                                           "application/json;charset=utf-8",
                                           " \t application/json",
                                           "application/json ",
                                           "application/json x",
                                           "application/json\t;q=1",
                                           "application /json",
                                           "application/ json",
                                           "application/jsonx",
                                           "application/json-patch+json",
                                           "application/ld+json",
                                           "text/json",
                                           "application",
                                           "application/",
                                           "/json",
                                           "",
                                           " ",
                                           "json",
                                           "application/json;",
                                           "application/json/extra",
                                           "application\\json",
                                           "applicatio/json",
                                           "applicationn/json",
                                           "application/JSOn;;;",
                                           "\vapplication/json",
                                           "application/json\r",
                                           "a/json/application",
                                           "application/\xc3\xa9json",
                                           "\xc3\xa9/json"};
  for (const std::string& value : values)
    EXPECT_EQ(is_json_media_type(value), poco_says_json(value)) << "\"" << value << "\"";
  EXPECT_TRUE(is_json_media_type("application/json; charset=utf-8"));
  EXPECT_FALSE(is_json_media_type("text/plain"));
}

// Every short text over a small alphabet of the bytes that matter.
TEST(MediaType, AgreesWithPocoOnEveryShortMixOfTheBytesThatMatter) {
  const std::vector<std::string> pieces = {"application", "json", "/", ";", " ",
                                           "\t",          "JSON", "x", "",  "a"};
  size_t compared = 0;
  for (const auto& a : pieces)
    for (const auto& b : pieces)
      for (const auto& c : pieces)
        for (const auto& d : pieces) {
          const std::string value = a + b + c + d;
          ASSERT_EQ(is_json_media_type(value), poco_says_json(value)) << "\"" << value << "\"";
          ++compared;
        }
  EXPECT_EQ(compared, 10000u);
}

}  // namespace
}  // namespace agentrt::server
