// append_json_string writes what nlohmann's serializer wrote before it (with invalid
// UTF-8 replaced), for any bytes: its fast scan of plain ASCII must stop at every byte
// that needs a closer look, wherever in a block of sixteen that byte falls.
#include "core/domain/json_text.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace agentrt::core {
namespace {

std::string nlohmann_form(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string ours(const std::string& text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(JsonString, EachSpecialByteIsSeenAtEveryPlaceOfABlock) {
  const std::vector<std::string> specials = {
      "\"",   "\\",          "\n",           std::string(1, '\0'), "\x1f",
      "\x7f", "\xc3\xa9",    "\xe2\x80\x94", "\xf0\x9f\x99\x82",   "\xff",
      "\xc3", "\xed\xa0\x80"};
  for (const std::string& special : specials)
    for (size_t at = 0; at < 40; ++at) {
      const std::string text = std::string(at, 'a') + special + std::string(40 - at, 'b');
      ASSERT_EQ(ours(text), nlohmann_form(text)) << "at " << at;
    }
}

TEST(JsonString, WritesAnyBytesAsNlohmannDid) {
  std::mt19937 random(20261127);
  const std::string alphabet =
      std::string("abcdefghijklmnopqrstuvwxyz ABC0123456789~\"\\\n\t\r\b\f\x01\x1f\x7f") +
      "\xc3\xa9\xe2\x80\x94\xf0\x9f\x99\x82\x80\xbf\xc0\xf5\xff\xed\xa0";
  for (int round = 0; round < 20000; ++round) {
    std::string text(random() % 70, ' ');
    // Mostly plain runs, as real text is, with the rest drawn from every kind of byte.
    for (char& c : text)
      c = random() % 4 == 0 ? alphabet[random() % alphabet.size()]
                            : static_cast<char>('a' + random() % 26);
    ASSERT_EQ(ours(text), nlohmann_form(text)) << round;
  }
}

}  // namespace
}  // namespace agentrt::core
